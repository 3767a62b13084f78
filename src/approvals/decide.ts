/**
 * Deciding an approval from chat, with the operator's call (DECISION_REQUEST), exactly once.
 *
 * The approval is claimed in the store before anything is sent, so a double click, a modal
 * submitted twice, a retry from Slack or a second instance sends nothing more. Then the service is
 * asked again, with the approver's own credentials, whether it is theirs, still waiting, and has
 * the chosen action now (the action is never taken from what a button or a view carried). The call
 * is sent once and never again by itself: it is not idempotent. What the service shows afterwards
 * decides what is recorded and said, never a status code alone: when that does not show it taken,
 * the outcome is unknown, the hold gives way once the call can no longer land, and the reconciler
 * reads it once more. Every step is a row of the audit trail.
 */

import { checkComment } from '../parse/decision.js';
import type { Principal } from '../store/index.js';
import { sendAndRead } from './decision-answer.js';
import { checkWithService, readyToSend, takeApproval } from './decision-check.js';
import { type DecideDeps, type DecideOutcome, type DecisionRequest, DecisionRun, newDecisionId, ownDecisionId } from './decision-run.js';

export type { DecideDeps, DecideOutcome, DecisionRequest, NotDoneWhy } from './decision-run.js';

/** A new decision, its action just chosen: its id, tagged with who chose it and the approval. */
export function startDecision(deps: Pick<DecideDeps, 'newId'>, who: Principal, approvalId: string): string {
  return newDecisionId(deps.newId, who, approvalId);
}

/** The approver chose an action and was shown its confirmation: the first step of the decision. */
export async function recordAsked(deps: DecideDeps, who: Principal, request: DecisionRequest): Promise<void> {
  await deps.store.recordDecisionStep({
    ...request,
    step: 'asked',
    at: deps.now(),
    teamId: who.teamId,
    userId: who.userId,
    requestId: deps.requestId,
  });
}

export async function decide(deps: DecideDeps, who: Principal, request: DecisionRequest & { comment: string }): Promise<DecideOutcome> {
  const config = deps.decisions;
  if (config === undefined) return { kind: 'off' };
  const checked = checkComment(request.comment, request.action, config.commentRequired);
  if (!checked.ok) return { kind: 'bad-comment', problem: checked.problem };
  const decisionId = ownDecisionId(deps.newId, who, request.approvalId, request.decisionId);
  if (decisionId !== request.decisionId)
    deps.logger.warn(
      { approval: request.approvalId, carried: request.decisionId },
      'a submission carried a decision id not made for its user and approval: recorded under its own',
    );
  const run = new DecisionRun(deps, who, { ...request, decisionId, comment: checked.comment });

  const taken = await takeApproval(run, config.call.command);
  if (taken.kind === 'out') return taken.outcome;
  // The approval is this decision's now: every way out gives it back or settles it.
  let sending = false;
  try {
    await run.step({ step: 'confirmed', comment: checked.comment });
    const check = await checkWithService(run, taken.linked, taken.known);
    if ('outcome' in check) return check.outcome;
    const notReady = await readyToSend(run, taken.linked, check.details);
    if (notReady !== undefined) return notReady;
    await run.step({ step: 'sent' });
    sending = true;
    return await sendAndRead(run, config, taken.linked);
  } catch (error) {
    // Nothing was sent: give the approval back. Once sending, the hold stays until it gives way.
    if (!sending) await run.release();
    run.log.error({ error: (error as Error).message, sending }, 'deciding failed');
    return sending
      ? { kind: 'unknown', error, retryAt: new Date(run.heldFrom.getTime() + deps.decisionHoldMs), sameAction: false }
      : { kind: 'failed', error };
  }
}

/**
 * A decision's window, once it is submitted: what came of it (or what went wrong, in the translator's
 * words), then the Details underneath and the list it came from, as the approval now stands, drawn
 * from what the decision read of it and what this instance drew of them, so that no more is asked
 * of the service than the decision itself did; and every arrival message that lists it, in the background.
 */

import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { DecideOutcome } from '../../approvals/decide.js';
import type { DecisionState } from '../../parse/decision.js';
import { decisionFailureView, decisionOutcomeView, decisionUnshownView } from '../../render/decision.js';
import { isServiceError } from '../../service/errors.js';
import type { Approval, ApprovalDetails } from '../../service/schemas.js';
import type { Principal } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';
import { clockOf } from '../transport/payload.js';
import { redrawArrivals } from './arrivals.js';
import { showDetails, showKnownDetails } from './details.js';
import { approvalsAsked, failureMessage } from './failure.js';
import { redrawList } from './list.js';
import { updateModal } from './modal.js';

/** What came of the decision, in its window; then the Details underneath and the list, as they now stand. */
export async function showDecided(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DecisionState,
  outcome: DecideOutcome,
  comment: string,
): Promise<void> {
  deps.metrics.outcome(`decision_${outcome.kind.replace('-', '_')}`);
  // Decided now, by this decision or before it: no arrival message may still offer it.
  if (decidedNow(outcome)) redrawArrivals(deps, state.details.approvalId);
  await updateDecision(deps, client, viewId, state, await outcomeView(deps, who, state, outcome, comment));
  await drawnAgain(deps, client, who, state, outcome);
}

/** Whatever escaped the decision's work: its window says so, rather than Sending… for ever. */
export async function showDecisionFailed(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DecisionState,
  error: unknown,
): Promise<void> {
  deps.logger.error({ error, user: who.userId }, 'deciding failed');
  await updateDecision(deps, client, viewId, state, failureView(deps, who, state, error));
}

async function outcomeView(deps: SlackDeps, who: Principal, state: DecisionState, outcome: DecideOutcome, comment: string): Promise<View> {
  if (outcome.kind === 'failed') return failureView(deps, who, state, outcome.error);
  // Checked before the ack as the use case checks it: the use case's own refusal cannot differ.
  if (outcome.kind === 'bad-comment') return failureView(deps, who, state, new Error(`comment refused after the ack: ${outcome.problem}`));
  if (outcome.kind === 'unknown')
    deps.logger.warn(
      {
        approval: state.details.approvalId,
        error: 'answer' in outcome ? `answered ${outcome.answer.status}` : isServiceError(outcome.error) ? outcome.error.kind : 'internal',
      },
      'decision outcome unknown',
    );
  // The service's times in the approver's own zone, as everywhere else.
  const { frame } = await clockOf(deps, who.userId);
  return decisionOutcomeView({ state, outcome, readerId: who.userId, frame, approvalLinks: deps.approvalLinks, comment });
}

/** What went wrong before anything was decided, worded by the translator (nothing was sent, or it never arrived). */
function failureView(deps: SlackDeps, who: Principal, state: DecisionState, error: unknown): View {
  const message = failureMessage(deps, error, approvalsAsked(deps, who), { surface: 'decision', approval: state.details.approvalId });
  return decisionFailureView(state, message, deps.approvalLinks);
}

function updateDecision(deps: SlackDeps, client: WebClient, viewId: string, state: DecisionState, view: View): Promise<void> {
  return updateModal(deps, client, viewId, view, {
    what: 'decision',
    about: { approval: state.details.approvalId },
    unshown: (reference) => decisionUnshownView(state, reference, deps.approvalLinks),
  });
}

/** Whether the service has it decided now, as far as this outcome tells. */
function decidedNow(outcome: DecideOutcome): boolean {
  if (outcome.kind === 'done') return true;
  if (outcome.kind === 'unknown') return outcome.details !== undefined && outcome.details.completedDate !== '';
  return outcome.kind === 'refused' && (outcome.refusal.kind === 'already-decided' || outcome.refusal.kind === 'not-pending');
}

function detailsOf(outcome: DecideOutcome): ApprovalDetails | undefined {
  return outcome.kind === 'done' || outcome.kind === 'unknown' || outcome.kind === 'refused' ? outcome.details : undefined;
}

/** The Details modal underneath, and the list the approval was on, as they now stand. */
async function drawnAgain(deps: SlackDeps, client: WebClient, who: Principal, state: DecisionState, outcome: DecideOutcome): Promise<void> {
  const quietly = (what: string) => (error: unknown) =>
    deps.logger.warn({ error: (error as Error).message, what }, 'could not show the decision there');
  if (outcome.kind === 'off' || outcome.kind === 'bad-comment' || outcome.kind === 'duplicate') return;
  const known = detailsOf(outcome);
  if (state.parentViewId !== undefined)
    await (known === undefined
      ? showDetails(deps, client, state.parentViewId, who, state.details)
      : showKnownDetails(deps, client, state.parentViewId, who, state.details, known)
    ).catch(quietly('the details underneath'));
  if (!decidedNow(outcome)) return;
  const id = state.details.approvalId;
  const hold =
    outcome.kind === 'done'
      ? outcome.hold
      : await deps.store
          .decisionHolds([id])
          .then((holds) => holds.get(id))
          .catch(() => undefined);
  // Only a decision made from chat is marked so; one the service shows made elsewhere appears as the service lists it.
  if (hold?.state !== 'done') return;
  const approval: Approval = {
    workItemId: id,
    workItemName: known?.workItemName || state.about.step,
    requestName: known?.requestName || state.about.requestName,
    dueDate: known?.dueDate ?? '',
    completedDate: known?.completedDate ?? '',
    fields: { RequestedByName: known?.requestedByName || state.about.requestedBy },
  };
  await redrawList(deps, client, who, state.details, { approval, hold }).catch(quietly('the list'));
}

/**
 * Everything before a decision is sent: the approval taken for it (exactly once, on any number of
 * instances), then checked with the service, with the approver's own credentials, as theirs, still
 * waiting, and offering the chosen action now. Every way out of here has sent nothing, and leaves the
 * approval as it found it.
 */

import { noteFailure } from '../accounts/usage.js';
import type { Credentials } from '../service/credentials.js';
import { isServiceError } from '../service/errors.js';
import type { ApprovalDetails } from '../service/index.js';
import type { DecisionHold, DecisionRefusal } from '../store/index.js';
import { type DecideOutcome, type DecisionRun, errorFields, onOwnPendingList, readDetails } from './decision-run.js';
import { recordFound } from './reconcile.js';

export type Taken =
  /** The approval is this decision's; `known`, its details when they were read to take it. */
  { kind: 'taken'; linked: Credentials; known?: ApprovalDetails | undefined } | { kind: 'out'; outcome: DecideOutcome };

const out = (outcome: DecideOutcome): Taken => ({ kind: 'out', outcome });

/**
 * The approval claimed for this decision. A hold whose time is up and that nothing settled is first
 * reconciled (what the service shows of it recorded under its own decision), then taken over.
 */
export async function takeApproval(run: DecisionRun, command: string): Promise<Taken> {
  const { deps, who, request } = run;
  const { approvalId, decisionId, action } = request;
  if (!deps.service.offers('decision')) return out(await run.refuse({ kind: 'not-offered', command }));
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  if (linked === undefined) return out(await run.refuse({ kind: 'not-linked' }));
  // Twice at most: a hold that another took over meanwhile is that other's, and refused as held.
  let last: DecisionHold | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const at = deps.now();
    const until = new Date(at.getTime() + deps.decisionHoldMs);
    const claim = await deps.store.claimDecision({ approvalId, decisionId, teamId: who.teamId, userId: who.userId, action, at, until });
    if (claim.claimed) return { kind: 'taken', linked };
    const h = claim.holder;
    last = h;
    if (h.decisionId === decisionId) {
      run.log.info({ state: h.state }, 'the same decision submitted again: nothing more sent');
      return out({ kind: 'duplicate', hold: h });
    }
    if (h.state === 'done')
      return out(await run.refuse({ kind: 'already-decided', userId: h.userId, action: h.action, at: h.settledAt ?? h.at }));
    if (h.until.getTime() > at.getTime()) return out(await run.refuse(heldBy(h)));
    // Its call can no longer land, and nothing said what became of it: the reading that checks this
    // decision says that too, and is recorded for it before the approval changes hands.
    let known: ApprovalDetails;
    try {
      known = await readDetails(deps, linked, approvalId);
    } catch (error) {
      return out(await checkFailed(run, error));
    }
    const to = { decisionId, teamId: who.teamId, userId: who.userId, action };
    if (!(await deps.store.takeExpiredDecision(approvalId, h.decisionId, at, until, to))) continue;
    await recordFound(deps, { approvalId, hold: h }, { read: known }, 'next-decision').catch((error: unknown) =>
      run.log.error({ error: (error as Error).message, previous: h.decisionId }, 'could not record what became of the decision before'),
    );
    return { kind: 'taken', linked, known };
  }
  return out(await run.refuse(heldBy(last as DecisionHold)));
}

function heldBy(h: DecisionHold): DecisionRefusal {
  return { kind: 'held', userId: h.userId, action: h.action, state: h.state === 'unsettled' ? 'unsettled' : 'sending', until: h.until };
}

/**
 * The approval checked with the service as the approver sees it: still waiting, decided whole, the
 * action listed now (exactly as listed: "rejected" is not "Rejected" to a workflow), and on their
 * own pending list (seeing an approval is not being its approver). Refused: the approval is given back.
 */
export async function checkWithService(
  run: DecisionRun,
  linked: Credentials,
  known: ApprovalDetails | undefined,
): Promise<{ details: ApprovalDetails } | { outcome: DecideOutcome }> {
  const { deps, request } = run;
  const refused = async (outcome: DecideOutcome | Promise<DecideOutcome>) => {
    await run.release();
    return { outcome: await outcome };
  };
  let details: ApprovalDetails;
  let theirs: boolean;
  try {
    details = known ?? (await readDetails(deps, linked, request.approvalId));
    const refusal = refusalOf(details, request.action);
    if (refusal !== undefined) return refused(run.refuse(refusal, details));
    theirs = await onOwnPendingList(deps, linked, request.approvalId);
  } catch (error) {
    return refused(checkFailed(run, error));
  }
  if (!theirs) return refused(run.refuse({ kind: 'not-theirs' }, details));
  return { details };
}

function refusalOf(details: ApprovalDetails, action: string): DecisionRefusal | undefined {
  if (details.completedDate !== '' || details.actions.length === 0)
    return { kind: 'not-pending', state: details.state, by: details.completedByName };
  if (details.lineItemApprovalEnabled === true) return { kind: 'line-items' };
  if (!details.actions.includes(action)) return { kind: 'action-not-listed', listed: [...details.actions] };
  return undefined;
}

/**
 * Last before sending: the token to send it with (the trusted mode signs in: a sign-in that fails has
 * sent nothing), countersign not stopping, and the hold kept for the call, if it is still this
 * decision's (a slow check may have let it give way, and another may be sending its own).
 * Undefined: send it.
 */
export async function readyToSend(run: DecisionRun, linked: Credentials, details: ApprovalDetails): Promise<DecideOutcome | undefined> {
  const { deps, request } = run;
  try {
    await linked.ready();
  } catch (error) {
    await run.release();
    run.log.warn({ error: errorFields(error).error }, 'could not get the token to send the decision with; nothing sent');
    await run.step({ step: 'refused', reason: { kind: 'sign-in-failed', ...errorFields(error) }, comment: request.comment });
    return { kind: 'failed', error };
  }
  if (deps.stopping()) {
    await run.release();
    return run.refuse({ kind: 'stopping' }, details);
  }
  const sendAt = deps.now();
  if (!(await deps.store.extendDecision(request.approvalId, request.decisionId, new Date(sendAt.getTime() + deps.decisionHoldMs)))) {
    run.log.warn({}, 'the hold on the approval gave way while it was checked; nothing sent');
    return run.refuse({ kind: 'hold-lost' }, details);
  }
  run.heldFrom = sendAt;
  return undefined;
}

/** The check before sending failed: nothing was sent, and the words say what the service refused. */
async function checkFailed(run: DecisionRun, error: unknown): Promise<DecideOutcome> {
  if (isServiceError(error) && error.kind === 'not-visible') return run.refuse({ kind: 'not-visible' });
  if (isServiceError(error) && error.kind === 'not-offered') return run.refuse({ kind: 'not-offered', command: error.command });
  // Refused this approval, or this command, alone: the user's link still works for the rest, and is not marked.
  if (refusedThisAlone(error)) return run.refuse({ kind: 'not-allowed' });
  await noteFailure(run.deps, run.who, 'findApprovals', error);
  await run.step({ step: 'refused', reason: { kind: 'check-failed', ...errorFields(error) }, comment: run.request.comment });
  return { kind: 'failed', error };
}

/** A 403 (for this one approval), or a 401 that refuses the command alone: not a refusal of the user's token. */
function refusedThisAlone(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === 'invalid-token') return error.commandOnly;
  return error.kind === 'not-found' && error.status === 403;
}

/**
 * An action's button clicked in the Details modal: whether the approval is still offered for that
 * action, asked at the click, before a comment is written. A button drawn some time ago may be
 * stale: decided from another Slack surface or by another approver, held by a decision being sent,
 * completed in the service, its action no longer listed. Refused here, the approver is told at once
 * instead of after writing why; the check made when the decision is confirmed (decide.ts) still
 * decides what is sent, so nothing here is trusted for more than saving that comment.
 *
 * The service is the scarce resource, so it is asked only when the Details may be out of date: a
 * button drawn within FRESH_MS is checked against countersign's own records alone (decided or held
 * from chat), with no call; an older one (or one that does not say when it was drawn) is checked
 * with one getApprovalDetails, the read Details itself makes, and the records. A service that
 * cannot be asked then (a refused token, a timeout) is said at the click too: a comment written for
 * it would meet the same at Confirm.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import { type ApprovalDetails, isServiceError } from '../service/index.js';
import type { DecisionHold, DecisionRefusal, Principal } from '../store/index.js';
import type { DecideDeps } from './decide.js';
import { decisionOffer, decisionsOffered } from './decision-offer.js';

/**
 * How long a Details modal's buttons are taken as they stand: long enough to read a request and
 * click, short enough that a window left open over lunch is asked about again.
 */
export const FRESH_MS = 120_000;

export type ChoiceCheck =
  /** Still offered for this action, as far as the check could see: the confirmation opens. */
  | { kind: 'offered'; asked: 'records' | 'service' }
  /** Not offered for it any more: said at the click, and nothing opens. */
  | { kind: 'refused'; refusal: DecisionRefusal }
  /** countersign's records could not be read: the confirmation opens, and Confirm checks again. */
  | { kind: 'unchecked'; error: unknown }
  /** The service could not be asked (a refused token, a service down): said at the click, in the translator's words; nothing opens. */
  | { kind: 'failed'; error: unknown };

export interface ChoiceRequest {
  approvalId: string;
  action: string;
  /** When the Details the button was on were drawn; undefined when the button does not say. */
  shownAt: Date | undefined;
}

/** Whether a button drawn at `shownAt` is taken as it stands, by the app's clock. */
export function freshChoice(shownAt: Date | undefined, now: Date): boolean {
  if (shownAt === undefined) return false;
  const age = now.getTime() - shownAt.getTime();
  return age >= 0 && age <= FRESH_MS;
}

export async function checkChoice(deps: DecideDeps, who: Principal, request: ChoiceRequest): Promise<ChoiceCheck> {
  const { approvalId, action } = request;
  if (!decisionsOffered(deps)) return refused({ kind: 'not-offered', command: deps.decisions?.call.command ?? 'the decision' });
  if (freshChoice(request.shownAt, deps.now())) return recordsOnly(deps, approvalId);
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  if (linked === undefined) return refused({ kind: 'not-linked' });
  let details: ApprovalDetails;
  try {
    details = await linked.call((token, options) => deps.service.getApprovalDetails(approvalId, token, options), 'not-command-only');
  } catch (error) {
    // As Details notes it: a token refused for this command alone still lists approvals.
    if (!(isServiceError(error) && error.kind === 'invalid-token' && error.commandOnly))
      await noteFailure(deps, who, 'findApprovals', error);
    if (isServiceError(error) && error.kind === 'not-visible') return refused({ kind: 'not-visible' });
    if (isServiceError(error) && error.kind === 'not-offered') return refused({ kind: 'not-offered', command: 'getApprovalDetails' });
    return { kind: 'failed', error };
  }
  await noteSuccess(deps, who, 'findApprovals');
  const offer = await decisionOffer(deps, details);
  switch (offer.kind) {
    case 'decided':
      return refused({
        kind: 'already-decided',
        userId: offer.hold.userId,
        action: offer.hold.action,
        at: offer.hold.settledAt ?? offer.hold.at,
      });
    case 'held':
      return refused(heldRefusal(offer.hold));
    case 'line-items':
      return refused({ kind: 'line-items' });
    case 'not-theirs':
      return refused({ kind: 'not-theirs' });
    case 'actions':
      // Exactly as listed, as the check at Confirm compares.
      return offer.actions.includes(action)
        ? { kind: 'offered', asked: 'service' }
        : refused({ kind: 'action-not-listed', listed: [...offer.actions] });
    case 'off':
      if (details.completedDate !== '' || details.actions.length === 0)
        return refused({ kind: 'not-pending', state: details.state, by: details.completedByName });
      // Decisions are offered and it waits: only the records could not be read.
      return { kind: 'unchecked', error: new Error('the decisions held could not be read') };
  }
}

/** A fresh button: countersign's own records only, decided or held from chat since it was drawn. */
async function recordsOnly(deps: DecideDeps, approvalId: string): Promise<ChoiceCheck> {
  let hold: DecisionHold | undefined;
  try {
    hold = (await deps.store.decisionHolds([approvalId])).get(approvalId);
  } catch (error) {
    return { kind: 'unchecked', error };
  }
  if (hold?.state === 'done')
    return refused({ kind: 'already-decided', userId: hold.userId, action: hold.action, at: hold.settledAt ?? hold.at });
  if (hold !== undefined && hold.until.getTime() > deps.now().getTime()) return refused(heldRefusal(hold));
  return { kind: 'offered', asked: 'records' };
}

function heldRefusal(hold: DecisionHold): DecisionRefusal {
  return {
    kind: 'held',
    userId: hold.userId,
    action: hold.action,
    state: hold.state === 'sending' ? 'sending' : 'unsettled',
    until: hold.until,
  };
}

function refused(refusal: DecisionRefusal): ChoiceCheck {
  return { kind: 'refused', refusal };
}

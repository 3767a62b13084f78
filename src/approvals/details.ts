/**
 * One approval's details and a page of what its request asks for, with the asker's own
 * credentials (whoever's message the Details control was on). The two calls go out together; the
 * outcome says what happened, and the adapter words it.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import type { Deps } from '../deps.js';
import type { Credentials } from '../service/credentials.js';
import type { ApprovalDetails, RequestItemsPage } from '../service/index.js';
import { isServiceError } from '../service/index.js';
import type { Principal } from '../store/index.js';
import type { DecideDeps } from './decide.js';
import { type DecisionOffer, decisionOffer } from './decision-offer.js';
import { onOwnPendingList } from './decision-run.js';

/** Request items shown on one page of the modal: enough to read at a glance, few enough to page. */
export const ITEMS_PAGE_SIZE = 10;

/** The request's items on the page asked for, or why they are not shown (the details still are). */
export type ItemsOutcome =
  | { kind: 'page'; page: number; pageSize: number; items: RequestItemsPage }
  | { kind: 'not-offered' }
  /** The service does not let this user run getRequestItems: asking again will not help. */
  | { kind: 'not-permitted' }
  | { kind: 'failed'; error: unknown };

export type DetailsOutcome =
  /** `decision`: what may be decided here (buttons for the actions, when decisions are on); absent: nothing. */
  | { kind: 'details'; details: ApprovalDetails; items: ItemsOutcome; decision?: DecisionOffer | undefined }
  | { kind: 'not-linked' }
  /** The service could not retrieve it for this user: completed, reassigned, withdrawn, or never theirs. */
  | { kind: 'not-visible' }
  /** This service does not offer getApprovalDetails (switched off): Details is no longer offered for a while. */
  | { kind: 'not-offered' }
  | { kind: 'failed'; error: unknown };

/** Whether Details is worth offering: false once the service said it lacks getApprovalDetails, until it is tried again. */
export function detailsOffered(deps: Pick<Deps, 'service'>): boolean {
  return deps.service.offers('getApprovalDetails');
}

export async function approvalDetails(deps: DecideDeps, who: Principal, approvalId: string, page = 1): Promise<DetailsOutcome> {
  try {
    // Details belong to the approvals a user can list: the link for findApprovals is the one to use.
    const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
    if (linked === undefined) return { kind: 'not-linked' };
    // How the link stands is the details call's to say: the items only add to its answer, and a
    // refusal of one command alone leaves the link working for the others.
    const [details, items] = await Promise.allSettled([
      linked.call((token, options) => deps.service.getApprovalDetails(approvalId, token, options), 'not-command-only'),
      linked.call(
        (token, options) => deps.service.getRequestItems({ approvalId }, { pageSize: ITEMS_PAGE_SIZE, startPage: page }, token, options),
        'none',
      ),
    ]);
    if (details.status === 'rejected') throw details.reason;
    await noteSuccess(deps, who, 'findApprovals');
    const decision = await theirsToDecide(deps, linked, await decisionOffer(deps, details.value), approvalId);
    return { kind: 'details', details: details.value, items: itemsOutcome(items, page), ...(decision.kind === 'off' ? {} : { decision }) };
  } catch (error) {
    // A token refused only this command ("not valid for the command") still lists approvals: its link is not marked refused.
    const commandOnly = isServiceError(error) && error.kind === 'invalid-token' && error.commandOnly;
    if (!commandOnly) await noteFailure(deps, who, 'findApprovals', error);
    if (isServiceError(error) && error.kind === 'not-visible') return { kind: 'not-visible' };
    if (isServiceError(error) && error.kind === 'not-offered') return { kind: 'not-offered' };
    return { kind: 'failed', error };
  }
}

/**
 * The details of an approval read a moment ago (a decision reads it once after its call), with the
 * page of its items the window showed when that is known, else asked: the approval itself is not
 * asked again. What may be decided is worked out afresh, as for any Details.
 */
export async function knownDetails(
  deps: DecideDeps,
  who: Principal,
  details: ApprovalDetails,
  page: number,
  items: ItemsOutcome | undefined,
): Promise<DetailsOutcome> {
  try {
    const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
    if (linked === undefined) return { kind: 'not-linked' };
    const approvalId = details.workItemId;
    const shownItems =
      items ??
      itemsOutcome(
        await Promise.allSettled([
          linked.call(
            (token, options) =>
              deps.service.getRequestItems({ approvalId }, { pageSize: ITEMS_PAGE_SIZE, startPage: page }, token, options),
            'none',
          ),
        ]).then(([settled]) => settled as PromiseSettledResult<RequestItemsPage>),
        page,
      );
    const decision = await theirsToDecide(deps, linked, await decisionOffer(deps, details), approvalId);
    return { kind: 'details', details, items: shownItems, ...(decision.kind === 'off' ? {} : { decision }) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** Buttons only for an approval on the user's own pending list: seeing it is not being its approver. */
async function theirsToDecide(deps: DecideDeps, linked: Credentials, offer: DecisionOffer, approvalId: string): Promise<DecisionOffer> {
  if (offer.kind !== 'actions') return offer;
  try {
    return (await onOwnPendingList(deps, linked, approvalId)) ? offer : { kind: 'not-theirs' };
  } catch (error) {
    // The details still show; deciding waits for a list that answers.
    deps.logger.warn(
      { approval: approvalId, error: (error as Error).message },
      'could not check the approval is the user’s own; no decision offered',
    );
    return { kind: 'off' };
  }
}

function itemsOutcome(settled: PromiseSettledResult<RequestItemsPage>, page: number): ItemsOutcome {
  if (settled.status === 'fulfilled') return { kind: 'page', page, pageSize: ITEMS_PAGE_SIZE, items: settled.value };
  const error: unknown = settled.reason;
  if (isServiceError(error) && error.kind === 'not-offered') return { kind: 'not-offered' };
  if (isServiceError(error) && error.kind === 'invalid-token' && error.commandOnly) return { kind: 'not-permitted' };
  return { kind: 'failed', error };
}

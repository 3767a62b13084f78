/**
 * One page of the asker's approvals, with their credentials (their token, or the app's acting for
 * them): for /approvals, its paging buttons, a digest's "Open the full list", and the replay after
 * linking. The outcome says what happened; the adapter words it.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import type { Approval, ApprovalQuery } from '../service/index.js';
import type { DecisionHold, Principal } from '../store/index.js';
import { type DecisionOfferDeps, decidedAmong } from './decision-offer.js';

export type ApprovalsOutcome =
  /** `decided`: those of the page decided from chat, by id: shown as decided, and not offered again. */
  | { kind: 'page'; query: ApprovalQuery; approvals: readonly Approval[]; decided: Map<string, DecisionHold> }
  | { kind: 'not-linked' }
  | { kind: 'failed'; error: unknown };

export async function searchApprovals(deps: DecisionOfferDeps, who: Principal, query: ApprovalQuery): Promise<ApprovalsOutcome> {
  try {
    const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
    if (linked === undefined) return { kind: 'not-linked' };
    const page = await linked.call((token, options) => deps.service.findApprovals(query, token, options));
    await noteSuccess(deps, who, 'findApprovals');
    return { kind: 'page', query, approvals: page.approvals, decided: await decidedAmong(deps, page.approvals) };
  } catch (error) {
    await noteFailure(deps, who, 'findApprovals', error);
    return { kind: 'failed', error };
  }
}

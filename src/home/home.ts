/**
 * The App Home tab's content: the user's pending approvals (one call for the first of them,
 * soonest due first, with their credentials; paging moves through that same list), what they have
 * linked, and their reminder. Someone with nothing linked gets only their (empty) links.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import { reminderPaused } from '../reminders/schedule.js';
import type { Deps } from '../runtime/deps.js';
import type { LinkMode } from '../service/credentials.js';
import type { Approval } from '../service/index.js';
import type { IdentityLink, LinkSummary, Principal, Reminder } from '../store/index.js';

/** How many pending approvals Home looks at: one call, soonest due first. */
export const HOME_COUNT_WINDOW = 100;
export const HOME_PAGE_SIZE = 10;

export interface HomeOutcome {
  /** How this installation calls the service for people; Home says which. */
  mode?: LinkMode | undefined;
  /** Trusted mode: the identity calls are made for. */
  identity?: IdentityLink | undefined;
  links: readonly LinkSummary[];
  /** Pending approvals, soonest due first; absent when not linked for findApprovals or when the call failed. */
  approvals?: { pending: readonly Approval[]; page: number };
  /** Why the approvals could not be shown (an expired token, an unreachable service). */
  failure?: unknown;
  reminder?: { reminder: Reminder; paused: boolean };
}

export async function loadHome(deps: Deps, who: Principal, page: number): Promise<HomeOutcome> {
  const outcome: HomeOutcome = { mode: deps.credentials.mode, links: [] };
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  if (linked !== undefined) {
    try {
      const query = { state: 'pending', sort: 'asc', 'page-size': HOME_COUNT_WINDOW } as const;
      const result = await linked.call((token, options) => deps.service.findApprovals(query, token, options));
      await noteSuccess(deps, who, 'findApprovals');
      const lastPage = Math.max(1, Math.ceil(result.approvals.length / HOME_PAGE_SIZE));
      outcome.approvals = { pending: result.approvals, page: Math.min(Math.max(1, page), lastPage) };
    } catch (error) {
      await noteFailure(deps, who, 'findApprovals', error);
      outcome.failure = error;
    }
  }
  outcome.links = await deps.store.listLinks(who);
  if (outcome.mode === 'trusted-app') outcome.identity = await deps.store.getIdentity(who);
  const reminder = await deps.store.getReminder(who);
  if (reminder !== undefined) outcome.reminder = { reminder, paused: reminderPaused(reminder, linked) };
  return outcome;
}

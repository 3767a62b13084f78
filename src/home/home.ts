/**
 * The App Home tab's content: the user's pending approvals by how they stand (overdue, due today,
 * due soon, later: one call for the soonest due with their credentials, or two when those are all
 * overdue), what they have linked, their reminder and their arrival messages' setting. Someone with nothing linked gets only their
 * (empty) links.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import { type DecisionOfferDeps, decidedAmong } from '../approvals/decision-offer.js';
import { type DueGroups, fetchByDue } from '../approvals/due.js';
import type { NotifySettings } from '../arrivals/ports.js';
import { notifySettings } from '../arrivals/settings.js';
import { reminderPaused } from '../reminders/schedule.js';
import type { LinkMode } from '../service/credentials.js';
import type { ApprovalQuery } from '../service/index.js';
import type { DecisionHold, IdentityLink, LinkSummary, Principal, Reminder } from '../store/index.js';
import { DUE_GROUPS, type TimeFrame } from '../time/frame.js';

export interface HomeOutcome {
  /** How this installation calls the service for people; Home says which. */
  mode?: LinkMode | undefined;
  /** Trusted mode: the identity calls are made for. */
  identity?: IdentityLink | undefined;
  links: readonly LinkSummary[];
  /** Pending approvals by how they stand, each soonest due first; absent when not linked for findApprovals or when the call failed. */
  approvals?: DueGroups;
  /** Why the approvals could not be shown (an expired token, an unreachable service). */
  failure?: unknown;
  /** Those of the approvals decided from chat, by id: shown as decided, and left out of the counts. */
  decided?: Map<string, DecisionHold> | undefined;
  reminder?: { reminder: Reminder; paused: boolean };
  /** Arrival messages as the user has them set; absent where the installation has them off (NOTIFY_INTERVAL off). */
  notify?: NotifySettings;
}

/**
 * `frame`: the reader's zone and now, for what is overdue and due today; `soonDays`: REMIND_WINDOW, what
 * counts as soon; `arrivals`: whether the installation sends arrival messages (NOTIFY_INTERVAL not off).
 */
export async function loadHome(
  deps: DecisionOfferDeps,
  who: Principal,
  frame: TimeFrame,
  soonDays: number,
  arrivals = false,
): Promise<HomeOutcome> {
  const outcome: HomeOutcome = { mode: deps.credentials.mode, links: [] };
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  if (linked !== undefined) {
    try {
      const find = async (query: ApprovalQuery) =>
        (await linked.call((token, options) => deps.service.findApprovals(query, token, options))).approvals;
      outcome.approvals = await fetchByDue(find, {}, frame, soonDays);
      await noteSuccess(deps, who, 'findApprovals');
      outcome.decided = await decidedAmong(
        deps,
        DUE_GROUPS.flatMap((g) => outcome.approvals?.[g].approvals ?? []),
      );
    } catch (error) {
      await noteFailure(deps, who, 'findApprovals', error);
      outcome.failure = error;
    }
  }
  outcome.links = await deps.store.listLinks(who);
  if (outcome.mode === 'trusted-app') outcome.identity = await deps.store.getIdentity(who);
  const reminder = await deps.store.getReminder(who);
  if (reminder !== undefined) outcome.reminder = { reminder, paused: reminderPaused(reminder, linked) };
  if (arrivals) outcome.notify = await notifySettings(deps, who);
  return outcome;
}

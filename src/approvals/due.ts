/**
 * A user's pending approvals by how they stand (overdue, due today, due soon, later), for the
 * digest and App Home. One call fetches the soonest due; when that page holds nothing but overdue
 * approvals, a second asks from today on, so that many overdue approvals never hide what is due
 * today and soon. Counts that may go on past what was fetched say so (`more`).
 */

import { serviceDateFilter } from '../parse/dates.js';
import type { Approval, ApprovalQuery } from '../service/index.js';
import { DUE_GROUPS, type DueGroup, dueGroupOf, type TimeFrame } from '../time/frame.js';

/** Approvals one call asks for: the service's pages go to 1,000, but a hundred is plenty to count and show from. */
export const DUE_FETCH = 100;

export interface DueGroupContent {
  /** Soonest due first, as the service listed them. */
  approvals: readonly Approval[];
  /** There may be more of them than were fetched. */
  more: boolean;
}

export type DueGroups = Readonly<Record<DueGroup, DueGroupContent>>;

const rank = (g: DueGroup) => DUE_GROUPS.indexOf(g);

/**
 * Sorts approvals (soonest due first) into groups. An approval whose due date cannot be read is
 * counted as later: nothing says it is urgent. `fullFrom`: the group of the last approval of a
 * page that came back full; from it on, counts may go on past what was fetched.
 */
export function groupByDue(approvals: readonly Approval[], frame: TimeFrame, soonDays: number, fullFrom?: DueGroup): DueGroups {
  const groups: Record<DueGroup, Approval[]> = { overdue: [], today: [], soon: [], later: [] };
  for (const a of approvals) groups[dueGroupOf(a.dueDate, frame, soonDays) ?? 'later'].push(a);
  const more = (g: DueGroup) => fullFrom !== undefined && rank(g) >= rank(fullFrom);
  return {
    overdue: { approvals: groups.overdue, more: more('overdue') },
    today: { approvals: groups.today, more: more('today') },
    soon: { approvals: groups.soon, more: more('soon') },
    later: { approvals: groups.later, more: more('later') },
  };
}

/** The group of the last approval whose date can be read: the service lists them soonest due first. */
function lastGroup(approvals: readonly Approval[], frame: TimeFrame, soonDays: number): DueGroup | undefined {
  for (let i = approvals.length - 1; i >= 0; i--) {
    const group = dueGroupOf((approvals[i] as Approval).dueDate, frame, soonDays);
    if (group !== undefined) return group;
  }
  return undefined;
}

/**
 * Fetches pending approvals with `query` (page-size DUE_FETCH, soonest due first; a due-before
 * bound is kept) and groups them; `find` makes one call with the user's credentials. At most two
 * calls: the second only when the first came back full of overdue approvals.
 */
export async function fetchByDue(
  find: (query: ApprovalQuery) => Promise<readonly Approval[]>,
  query: ApprovalQuery,
  frame: TimeFrame,
  soonDays: number,
): Promise<DueGroups> {
  const base: ApprovalQuery = { ...query, state: 'pending', sort: 'asc', 'page-size': DUE_FETCH };
  const first = await find(base);
  if (first.length < DUE_FETCH) return groupByDue(first, frame, soonDays);
  const last = lastGroup(first, frame, soonDays) ?? 'later';
  if (last !== 'overdue') return groupByDue(first, frame, soonDays, last);
  // A page of overdue approvals says nothing of today's: ask again from today. The service's day
  // may start before the user's, so some of this answer may be overdue, and some already fetched.
  const second = await find({ ...base, 'due-after': serviceDateFilter('today', 'after', frame) });
  const seen = new Set(first.map((a) => a.workItemId));
  const added = second.filter((a) => !seen.has(a.workItemId));
  const grouped = groupByDue([...first, ...added], frame, soonDays);
  const fullFrom = second.length >= DUE_FETCH ? (lastGroup(second, frame, soonDays) ?? 'later') : undefined;
  const more = (g: DueGroup) => g === 'overdue' || (fullFrom !== undefined && rank(g) >= rank(fullFrom));
  return {
    overdue: { ...grouped.overdue, more: more('overdue') },
    today: { ...grouped.today, more: more('today') },
    soon: { ...grouped.soon, more: more('soon') },
    later: { ...grouped.later, more: more('later') },
  };
}

/**
 * What a reminder's digest holds: the pending approvals that are overdue, due today, or due within
 * the window, in that order. Nothing due means no digest at all, and so no message.
 */

import { type CalendarDay, daysFromToday } from '../parse/dates.js';
import type { Approval, ApprovalQuery } from '../service/index.js';
import type { ReminderSchedule } from './schedule.js';

export type DigestGroup = 'overdue' | 'today' | 'soon';

export interface Digest {
  /** Each group soonest due first, as fetched. */
  groups: Readonly<Record<DigestGroup, readonly Approval[]>>;
  total: number;
  /** The service may hold more than were fetched. */
  more: boolean;
  today: CalendarDay;
  windowDays: number;
  schedule: ReminderSchedule;
  /** "Open the full list": whose, and the query it issues. */
  fullList: { userId: string; query: ApprovalQuery };
}

/** Which group a pending approval falls in; undefined when it is not due within the window (or its date is unreadable). */
export function digestGroup(approval: Approval, today: CalendarDay, windowDays: number): DigestGroup | undefined {
  const days = daysFromToday(approval.dueDate, today);
  if (days === undefined) return undefined;
  if (days < 0) return 'overdue';
  if (days === 0) return 'today';
  return days <= windowDays ? 'soon' : undefined;
}

export function buildDigest(input: Omit<Digest, 'groups' | 'total'> & { approvals: readonly Approval[] }): Digest | undefined {
  const groups: Record<DigestGroup, Approval[]> = { overdue: [], today: [], soon: [] };
  for (const a of input.approvals) {
    const g = digestGroup(a, input.today, input.windowDays);
    if (g) groups[g].push(a);
  }
  const total = groups.overdue.length + groups.today.length + groups.soon.length;
  if (total === 0) return undefined;
  const { approvals: _all, ...rest } = input;
  return { ...rest, groups, total };
}

/**
 * What a reminder's digest holds: the pending approvals that are overdue, due today, or due soon
 * (within the window: today and the window's other days), each group counted. Nothing due means no
 * digest at all, and so no message.
 */

import type { DueGroups } from '../approvals/due.js';
import type { ApprovalQuery } from '../service/index.js';
import type { TimeFrame } from '../time/frame.js';
import type { ReminderSchedule } from './schedule.js';

/** The groups a digest speaks of; those due later wait for a later digest. */
export const DIGEST_GROUPS = ['overdue', 'today', 'soon'] as const;

export interface Digest {
  /** Each group soonest due first, as fetched; `later` is not part of a digest. */
  groups: Pick<DueGroups, (typeof DIGEST_GROUPS)[number]>;
  /** How many approvals the digest speaks of, in all its groups. */
  total: number;
  /** The service may hold more than were fetched. */
  more: boolean;
  /** The reader's zone and now, with the service's: times in theirs. */
  frame: TimeFrame;
  windowDays: number;
  schedule: ReminderSchedule;
  /** "Open the full list": whose, and the query it issues. */
  fullList: { userId: string; query: ApprovalQuery };
}

export function buildDigest(input: Omit<Digest, 'groups' | 'total' | 'more'> & { groups: DueGroups }): Digest | undefined {
  const { overdue, today, soon } = input.groups;
  const groups = { overdue, today, soon };
  const total = DIGEST_GROUPS.reduce((n, g) => n + groups[g].approvals.length, 0);
  if (total === 0) return undefined;
  return { ...input, groups, total, more: DIGEST_GROUPS.some((g) => groups[g].more) };
}

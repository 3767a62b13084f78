/**
 * Pending approvals by how they stand, as the digest and App Home show them: every group that has
 * any (overdue, due today, due soon, later) with its count and its first approvals, the room shared
 * out so that many overdue approvals never crowd out the rest, and for what does not fit how many
 * more and the command that lists them. Pure.
 */

import type { KnownBlock } from '@slack/types';
import type { DueGroups } from '../approvals/due.js';
import type { DetailsOrigin } from '../parse/details.js';
import { readableDay } from '../time/days.js';
import { type DueGroup, groupEdge, serviceToday, type TimeFrame } from '../time/frame.js';
import { addCalendarDays, calendarDaysBetween, startOfDay, type WallTime, zoneLabel } from '../time/zones.js';
import { type ApprovalLinks, approvalBlocks, entryBlocks } from './approvals.js';
import { context, section } from './blocks.js';

/**
 * How many of each group to show within `room` entries: one each in turn, so that every group
 * gets a share and a group with few leaves its room to the others.
 */
export function allot(counts: readonly number[], room: number): number[] {
  const shown = counts.map(() => 0);
  let left = room;
  while (left > 0) {
    let gave = false;
    for (let i = 0; i < counts.length && left > 0; i++) {
      if ((shown[i] as number) < (counts[i] as number)) {
        shown[i] = (shown[i] as number) + 1;
        left--;
        gave = true;
      }
    }
    if (!gave) break;
  }
  return shown;
}

/** "12", or "100+" where there may be more than were fetched. */
export const countText = (n: number, more: boolean) => `${n}${more ? '+' : ''}`;

/** The last day that counts as soon: "within 3 days" is today and the two days after it. */
const lastSoonDay = (frame: TimeFrame, windowDays: number) => readableDay(addCalendarDays(frame.today, windowDays - 1), false);

/**
 * The groups there can be: with a window of one day (today alone), nothing is due soon, and that is
 * not said; nor is today's where the service's day it stands for has ended on the reader's clock
 * (a reader far behind the service, late in their day): all of it is overdue.
 */
export function groupsFor<G extends DueGroup>(order: readonly G[], windowDays: number, frame?: TimeFrame): G[] {
  return order.filter((g) => (g !== 'soon' || windowDays > 1) && (g !== 'today' || frame === undefined || !todayHasEnded(frame)));
}

function todayHasEnded(frame: TimeFrame): boolean {
  if (frame.serviceZone === undefined) return false;
  return startOfDay(addCalendarDays(serviceToday(frame), 1), frame.serviceZone).getTime() <= frame.now.getTime();
}

const two = (n: number) => String(n).padStart(2, '0');

/** An edge on the reader's clock: "16:00 today", "09:00 tomorrow", "Sun 29 Nov, 16:00". */
function edgeWords(edge: WallTime, frame: TimeFrame): string {
  const hm = `${two(edge.hour)}:${two(edge.minute)}`;
  const days = calendarDaysBetween(frame.today, edge);
  if (days === 0) return `${hm} today`;
  if (days === 1) return `${hm} tomorrow`;
  return `${readableDay(edge, false)}, ${hm}`;
}

/**
 * What each group is called, as a heading and within a sentence: by the reader's days, or where
 * the service's days (which the groups and the commands for them follow) start at another hour of
 * the reader's clock, by where the group ends on it ("Due before 16:00 today").
 */
export function groupWords(group: DueGroup, frame: TimeFrame, windowDays: number): { title: string; phrase: string; emoji: string } {
  const named = (emoji: string, phrase: string) => ({
    title: `:${emoji}: *${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}*`,
    phrase,
    emoji,
  });
  switch (group) {
    case 'overdue':
      return named('red_circle', 'overdue');
    case 'today': {
      const edge = groupEdge(frame, 1);
      return named('large_orange_circle', edge === undefined ? 'due today' : `due before ${edgeWords(edge, frame)}`);
    }
    case 'soon': {
      const edge = groupEdge(frame, windowDays);
      if (edge !== undefined) return named('large_blue_circle', `due before ${edgeWords(edge, frame)}`);
      return named('large_blue_circle', windowDays === 2 ? 'due tomorrow' : `due by ${lastSoonDay(frame, windowDays)}`);
    }
    case 'later':
      return named('large_blue_circle', 'due later');
  }
}

/**
 * Said once under the groups where the service's days start at another hour of the reader's clock:
 * why a group ends at 16:00, and that the dates of /approvals do too. Undefined where they meet.
 */
export function serviceDaysNote(frame: TimeFrame): string | undefined {
  const edge = groupEdge(frame, 0);
  if (edge === undefined || frame.serviceZone === undefined) return undefined;
  const at = `${two(edge.hour)}:${two(edge.minute)}`;
  return `The Command Service counts days in ${zoneLabel(frame.serviceZone)}: its days, which these groups and the dates of \`/approvals\` follow, run from ${at} to ${at} ${zoneLabel(frame.zone)}.`;
}

/**
 * The command that lists a group, as the user would type it. The list is soonest due first, so
 * the overdue come first in a plain `/approvals`; the others by the service's days, as the groups
 * are counted (dueGroupOf). Before the service's today has begun on the reader's clock (a reader
 * far ahead of it, in the small hours), today's group holds some of the service's yesterday too.
 */
export function groupCommand(group: DueGroup, windowDays: number, frame?: TimeFrame): { command: string; lists: string } {
  switch (group) {
    case 'overdue':
      return { command: '/approvals', lists: 'lists them first' };
    case 'today':
      return frame !== undefined && todayHasBegun(frame) === false
        ? { command: '/approvals due-after:yesterday due-before:today', lists: 'lists them, after the overdue' }
        : { command: '/approvals due-after:today due-before:today', lists: 'lists today’s' };
    case 'soon':
      return { command: `/approvals due-after:tomorrow due-before:${windowDays}d`, lists: 'lists them' };
    case 'later':
      return { command: `/approvals due-after:${windowDays}d`, lists: 'lists them' };
  }
}

export interface GroupBlocksInput {
  groups: Partial<DueGroups>;
  /** The groups to show, in this order. */
  order: readonly DueGroup[];
  /** Approvals shown in all, shared out among the groups. */
  room: number;
  frame: TimeFrame;
  /** Days that count as soon (REMIND_WINDOW). */
  windowDays: number;
  links: ApprovalLinks | undefined;
  /** Where Details opens from; undefined while the service does not offer details. */
  details: DetailsOrigin | undefined;
}

function todayHasBegun(frame: TimeFrame): boolean {
  if (frame.serviceZone === undefined) return true;
  return startOfDay(serviceToday(frame), frame.serviceZone).getTime() <= frame.now.getTime();
}

/** Blocks this may take at most: a heading and a "more" line per group, the entries, and the note on the service's days. */
export function groupBlocksMax(input: Pick<GroupBlocksInput, 'order' | 'room' | 'links' | 'details'>): number {
  return input.order.length * 2 + input.room * entryBlocks(input.links, input.details !== undefined) + 1;
}

export function groupBlocks(input: GroupBlocksInput): KnownBlock[] {
  const present = input.order.filter((g) => (input.groups[g]?.approvals.length ?? 0) > 0 || input.groups[g]?.more === true);
  const shares = allot(
    present.map((g) => input.groups[g]?.approvals.length ?? 0),
    input.room,
  );
  const blocks: KnownBlock[] = [];
  // Before the groups it explains: a heading "Due before 16:00 today" needs its reason at hand.
  const note = serviceDaysNote(input.frame);
  if (note !== undefined && present.some((g) => g !== 'overdue')) blocks.push(context(note));
  present.forEach((g, i) => {
    const group = input.groups[g];
    if (group === undefined) return;
    const n = group.approvals.length;
    const words = groupWords(g, input.frame, input.windowDays);
    blocks.push(section(`${words.title} (${countText(n, group.more)})`));
    const shown = shares[i] as number;
    for (const a of group.approvals.slice(0, shown))
      blocks.push(...approvalBlocks(a, input.frame, input.links, input.details, undefined, words.emoji));
    const rest = n - shown;
    if (rest > 0 || group.more) {
      const { command, lists } = groupCommand(g, input.windowDays, input.frame);
      const lead = rest > 0 ? `…and ${countText(rest, group.more)} more ${words.phrase}` : `There may be more ${words.phrase}`;
      blocks.push(context(`${lead}: \`${command}\` ${lists}.`));
    }
  });
  return blocks;
}

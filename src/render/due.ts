/**
 * Pending approvals by how they stand, as the digest and App Home show them: every group that has
 * any (overdue, due today, due soon, later) with its count and its first approvals, the room shared
 * out so that many overdue approvals never crowd out the rest, and for what does not fit how many
 * more and the command that lists them. Pure.
 */

import type { KnownBlock } from '@slack/types';
import type { DueGroups } from '../approvals/due.js';
import { readableDay } from '../parse/dates.js';
import type { DetailsOrigin } from '../parse/details.js';
import type { DueGroup, TimeFrame } from '../parse/times.js';
import { addCalendarDays } from '../parse/zones.js';
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

/** The groups there can be: with a window of one day (today alone), nothing is due soon, and that is not said. */
export function groupsFor<G extends DueGroup>(order: readonly G[], windowDays: number): G[] {
  return order.filter((g) => g !== 'soon' || windowDays > 1);
}

/** What each group is called, as a heading and within a sentence. */
export function groupWords(group: DueGroup, frame: TimeFrame, windowDays: number): { title: string; phrase: string } {
  switch (group) {
    case 'overdue':
      return { title: ':red_circle: *Overdue*', phrase: 'overdue' };
    case 'today':
      return { title: ':large_orange_circle: *Due today*', phrase: 'due today' };
    case 'soon':
      return windowDays === 2
        ? { title: ':large_blue_circle: *Due tomorrow*', phrase: 'due tomorrow' }
        : { title: `:large_blue_circle: *Due by ${lastSoonDay(frame, windowDays)}*`, phrase: `due by ${lastSoonDay(frame, windowDays)}` };
    case 'later':
      return { title: ':white_circle: *Due later*', phrase: 'due later' };
  }
}

/**
 * The command that lists a group, as the user would type it. The list is soonest due first, so
 * the overdue come first in a plain `/approvals`; the others by days, counted as the digest counts.
 */
export function groupCommand(group: DueGroup, windowDays: number): { command: string; lists: string } {
  switch (group) {
    case 'overdue':
      return { command: '/approvals', lists: 'lists them first' };
    case 'today':
      return { command: '/approvals due-after:today due-before:today', lists: 'lists today’s' };
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

/** Blocks this may take at most: a heading and a "more" line per group, and the entries. */
export function groupBlocksMax(input: Pick<GroupBlocksInput, 'order' | 'room' | 'links' | 'details'>): number {
  return input.order.length * 2 + input.room * entryBlocks(input.links, input.details !== undefined);
}

export function groupBlocks(input: GroupBlocksInput): KnownBlock[] {
  const present = input.order.filter((g) => (input.groups[g]?.approvals.length ?? 0) > 0 || input.groups[g]?.more === true);
  const shares = allot(
    present.map((g) => input.groups[g]?.approvals.length ?? 0),
    input.room,
  );
  const blocks: KnownBlock[] = [];
  present.forEach((g, i) => {
    const group = input.groups[g];
    if (group === undefined) return;
    const n = group.approvals.length;
    const words = groupWords(g, input.frame, input.windowDays);
    blocks.push(section(`${words.title} (${countText(n, group.more)})`));
    const shown = shares[i] as number;
    for (const a of group.approvals.slice(0, shown)) blocks.push(...approvalBlocks(a, input.frame, input.links, input.details));
    const rest = n - shown;
    if (rest > 0 || group.more) {
      const { command, lists } = groupCommand(g, input.windowDays);
      const lead = rest > 0 ? `…and ${countText(rest, group.more)} more ${words.phrase}` : `There may be more ${words.phrase}`;
      blocks.push(context(`${lead}: \`${command}\` ${lists}.`));
    }
  });
  return blocks;
}

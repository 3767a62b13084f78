/**
 * The App Home tab: the user's pending approvals (how many are overdue, due today, due this
 * week; a page of them, soonest due first, with paging and Refresh), what they have linked, and a
 * button to link. Within the 100 blocks a Home view may hold.
 */

import type { HomeView, KnownBlock } from '@slack/types';
import type { CalendarDay } from '../commands/dates.js';
import type { Approval } from '../service/index.js';
import type { LinkSummary, ServiceCommandName } from '../store/index.js';
import { approvalEntry } from './approvals.js';
import { actions, button, code, context, header, section } from './blocks.js';
import { dueRelative } from './dates.js';
import { RELINK_ACTION } from './link.js';

export const HOME_ACTIONS = { refresh: 'home:refresh', next: 'home:next', previous: 'home:previous' } as const;
export const HOME_PAGE_SIZE = 10;
/** How many pending approvals the counts look at: one call, soonest due first. */
export const HOME_COUNT_WINDOW = 100;

export interface HomeApprovals {
  /** Pending approvals, soonest due first, the first HOME_COUNT_WINDOW of them. */
  pending: readonly Approval[];
  page: number;
  today: CalendarDay;
}

export interface HomeInput {
  links: readonly LinkSummary[];
  commands: readonly ServiceCommandName[];
  approvals?: HomeApprovals;
  /** Why the approvals could not be shown (an expired token, an unreachable service). */
  problem?: string;
}

function counts(pending: readonly Approval[], today: CalendarDay) {
  let overdue = 0;
  let dueToday = 0;
  let thisWeek = 0;
  for (const a of pending) {
    const rel = dueRelative(a.dueDate, today);
    if (rel === undefined) continue;
    if (rel.overdue) overdue++;
    else if (rel.text === 'due today') dueToday++;
    else if (rel.text === 'due tomorrow' || Number(/due in (\d+) days/.exec(rel.text)?.[1] ?? 99) <= 7) thisWeek++;
  }
  return { overdue, dueToday, thisWeek };
}

function approvalsBlocks(a: HomeApprovals): KnownBlock[] {
  const more = a.pending.length >= HOME_COUNT_WINDOW ? '+' : '';
  const c = counts(a.pending, a.today);
  const blocks: KnownBlock[] = [
    section(
      a.pending.length === 0
        ? '*Nothing waits for you.* :tada:'
        : `*${a.pending.length}${more} pending* · :red_circle: *${c.overdue}${c.overdue === a.pending.length ? more : ''} overdue* · ${c.dueToday} due today · ${c.thisWeek} more this week`,
    ),
  ];
  const start = (a.page - 1) * HOME_PAGE_SIZE;
  const page = a.pending.slice(start, start + HOME_PAGE_SIZE);
  for (const approval of page) blocks.push(section(approvalEntry(approval, a.today)));
  const buttons = [button({ actionId: HOME_ACTIONS.refresh, text: 'Refresh', value: String(a.page) })];
  if (a.page > 1) buttons.unshift(button({ actionId: HOME_ACTIONS.previous, text: '← Previous', value: String(a.page - 1) }));
  if (start + HOME_PAGE_SIZE < a.pending.length)
    buttons.push(button({ actionId: HOME_ACTIONS.next, text: 'Next →', value: String(a.page + 1) }));
  blocks.push(actions('home:approvals', buttons));
  if (a.pending.length > 0) blocks.push(context('Type `/approvals` for filters and completed approvals.'));
  return blocks;
}

export function renderHome(input: HomeInput): HomeView {
  const { links, commands } = input;
  const linked = commands.filter((c) => links.some((l) => l.command === c));
  const status = commands
    .map((c) => {
      const link = links.find((l) => l.command === c);
      if (!link) return `• ${code(c)}: not linked`;
      const refused = link.lastOutcome === 'rejected' ? ' · *the service refused it last time: link again*' : '';
      return `• ${code(c)}: linked ${link.linkedAt.toISOString().slice(0, 10)}${refused}`;
    })
    .join('\n');
  const needsLink = linked.length < commands.length || links.some((l) => l.lastOutcome === 'rejected') || input.problem !== undefined;
  return {
    type: 'home',
    blocks: [
      header('Your approvals'),
      ...(input.approvals ? approvalsBlocks(input.approvals) : []),
      ...(input.problem
        ? [
            section(`:warning: ${input.problem}`),
            actions('home:retry', [button({ actionId: HOME_ACTIONS.refresh, text: 'Refresh', value: '1' })]),
          ]
        : []),
      ...(!input.approvals && !input.problem ? [section('Link your account to see the approvals waiting for you here.')] : []),
      header('countersign'),
      section(
        [
          '*Approvals:* type `/approvals` anywhere to see what waits for you (only you see it), filtered and paged: `/approvals due-before:7d`, `/approvals completed sort:desc`.',
          '*Collections:* type `/collect <collector>` in a channel to start account collectors; the channel sees what ran.',
        ].join('\n'),
      ),
      section(`*Your account*\n${status}`),
      ...(needsLink
        ? [
            actions('home:link', [
              button({
                actionId: RELINK_ACTION,
                text: linked.length === 0 ? 'Link your account' : 'Link again',
                value: '{}',
                style: 'primary',
              }),
            ]),
          ]
        : []),
      context('`/approvals help` and `/collect help` list every form. `/approvals logout` makes countersign forget your tokens.'),
    ],
  };
}

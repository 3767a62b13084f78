/**
 * The App Home tab, for now: what countersign does, what the user has linked, and a button to
 * link. (The list of pending approvals and reminders belong to the approver's-day work.)
 */

import type { HomeView } from '@slack/types';
import type { LinkSummary, ServiceCommandName } from '../store/index.js';
import { actions, button, code, context, header, section } from './blocks.js';
import { RELINK_ACTION } from './link.js';

export function renderHome(links: readonly LinkSummary[], commands: readonly ServiceCommandName[]): HomeView {
  const linked = commands.filter((c) => links.some((l) => l.command === c));
  const status = commands
    .map((c) => {
      const link = links.find((l) => l.command === c);
      if (!link) return `• ${code(c)}: not linked`;
      const refused = link.lastOutcome === 'rejected' ? ' · *the service refused it last time: link again*' : '';
      return `• ${code(c)}: linked ${link.linkedAt.toISOString().slice(0, 10)}${refused}`;
    })
    .join('\n');
  const needsLink = linked.length < commands.length || links.some((l) => l.lastOutcome === 'rejected');
  return {
    type: 'home',
    blocks: [
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

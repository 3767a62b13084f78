/** Help for each command: what it does, its forms, and worked examples. */

import { APPROVAL_KEYS, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../parse/approvals.js';
import { DATE_FORMS } from '../parse/dates.js';
import { context, header, type Message, section } from './blocks.js';
import { code, emoji, oneLine, type Paragraph, richMessage } from './rich.js';

/**
 * `/approvals approve 10114:WPDS:2` and its kin: approvals are decided from their Details, so the
 * answer is the way there, with the id typed when it is one. `deciding`: whether deciding in Slack
 * is on here (DECISION_REQUEST, and the service not found refusing it): the Details then have a
 * button for each action; otherwise they say what the service lists, to decide in the service.
 */
export function renderDecidePointer(verb: string, approvalId: string | undefined, deciding: boolean): Message {
  const show = `/approvals show ${approvalId === undefined ? '<approval-id>' : oneLine(approvalId, 120)}`;
  const paragraphs: Paragraph[] = [
    [
      emoji('raised_hand'),
      ` Approvals are not decided by typing “${oneLine(verb, 20)}”: open one with `,
      code(show),
      deciding
        ? ', and its Details have a button for each action the service allows for it (such as Accepted or Rejected); you confirm there, with a comment.'
        : ', and its Details say what it asks for and the actions the service lists; deciding from Slack is not turned on here, so decide it in the Command Service.',
    ],
  ];
  if (approvalId === undefined)
    paragraphs.push(['The id is the last line of each approval ', code('/approvals'), ' lists, such as ', code('10198:WPDS:1'), '.']);
  return richMessage(paragraphs);
}

export function renderApprovalsHelp(): Message {
  const keys = Object.entries(APPROVAL_KEYS)
    .map(([key, spec]) => `\`${key}\`${spec.kind === 'enum' ? ` (${spec.values.join(', ')})` : spec.kind === 'date' ? ' (date)' : ''}`)
    .join(', ');
  return {
    text: 'How to use /approvals',
    blocks: [
      header('/approvals'),
      section(
        [
          'Shows the approvals waiting for you (only you see them), soonest due first, with Next page and Previous page buttons. *Details* on each shows what it asks for, item by item, and the actions the service lists for it.',
          '',
          '*Forms*',
          '`/approvals` · your pending approvals',
          '`/approvals completed` · or `all`',
          '`/approvals due-before:7d` · due within a week',
          '`/approvals entitlement-name:"Domain Admins" sort:desc`',
          '`/approvals show 10198:WPDS:1` · one approval’s details, by the id a page shows: decide it there',
          '`/approvals login` · `/approvals logout` · `/approvals whoami` · `/approvals help`',
        ].join('\n'),
      ),
      section(
        [
          '*Reminders* (a direct message when approvals are overdue or due soon; none when nothing is)',
          '`/approvals remind daily 09:00` · every day, in your Slack time zone',
          '`/approvals remind weekdays 8:30am` · Monday to Friday',
          '`/approvals remind show` · `/approvals remind off`',
        ].join('\n'),
      ),
      section(
        [
          '*New approvals* (a direct message when one arrives for you, with Details and its decision buttons; on unless you turn it off)',
          '`/approvals notify` · what is set',
          '`/approvals notify off` · `/approvals notify on`',
          '`/approvals notify quiet 19:00-08:00` · none during those hours, in your Slack time zone: they come together when the hours end',
          '`/approvals notify quiet off`',
        ].join('\n'),
      ),
      section(`*Filters* (write \`key:value\` or \`key=value\`; quote values with spaces)\n${keys}`),
      context(
        `Dates: ${DATE_FORMS}, counted in your Slack time zone (7d: the next seven days, today included). page-size is 1 to ${MAX_PAGE_SIZE} (${DEFAULT_PAGE_SIZE} when not given).`,
      ),
    ],
  };
}

export function renderCollectHelp(): Message {
  return {
    text: 'How to use /collect',
    blocks: [
      header('/collect'),
      section(
        [
          'Starts account collectors on the Command Service. The channel sees who started what, with each run id.',
          '',
          '*Forms*',
          '`/collect AD Accounts` · one collector, by name',
          '`/collect application:"Active Directory"` · every collector of an application',
          '`/collect name:"AD Groups" application:"Active Directory"` · both must match',
          '`/collect` · every collector of every application (asks first)',
          '`/collect AWS IAM force` · ignore circuit-breaker thresholds (asks first)',
          '`/collect history` · the last collections of this channel (`/collect history 30` for more)',
          '`/collect login` · `/collect logout` · `/collect whoami` · `/collect help`',
        ].join('\n'),
      ),
      section(
        'The channel’s message follows the runs as they go (queued, running, completed or aborted) until they end; if one aborts, you get a direct message. The same collection is not started twice within a few minutes: whoever tries is told who started it.',
      ),
      context(
        'Quote names with spaces when you also give other options, and a name that begins with help, history, login, logout or whoami (`/collect "History Sync"`). Only you can confirm what you asked for, and one confirmation starts one collection. Your Slack admins may limit collections to some channels and people.',
      ),
    ],
  };
}

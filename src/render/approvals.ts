/**
 * An /approvals page as Block Kit: a header naming the state and page, the filters in force, one
 * entry per approval (request, step, due date and how it stands, completed date, id), and
 * Previous/Next buttons carrying the query. Fits Slack's limits for any page size: entries are
 * packed several to a section when one each would pass 50 blocks, and cut with a visible note
 * past that.
 */

import type { KnownBlock, SectionBlock } from '@slack/types';
import type { PageState, PageStateWire } from '../parse/buttons.js';
import type { CalendarDay } from '../parse/dates.js';
import type { ApprovalQuery } from '../service/query.js';
import type { Approval } from '../service/schemas.js';
import {
  actions,
  button,
  code,
  context,
  escapeMrkdwn,
  fallback,
  header,
  inert,
  LIMITS,
  linkButton,
  type Message,
  section,
} from './blocks.js';
import { dueRelative, readableTimestamp } from './dates.js';

export const PAGE_ACTIONS = { previous: 'approvals:previous', next: 'approvals:next' } as const;
/** The "Open" button on an approval; a link, so its click only needs an ack. */
export const OPEN_ACTION = 'approval:open';

/** The service's own page for an approval (APPROVAL_URL_TEMPLATE), when there is one. */
export type ApprovalLinks = (workItemId: string) => string | undefined;

/** The link for a button or inline link: none without a template, or when it is too long for Slack. */
function approvalUrl(links: ApprovalLinks | undefined, workItemId: string): string | undefined {
  const url = workItemId === '' ? undefined : links?.(workItemId);
  return url !== undefined && url.length <= LIMITS.buttonUrl ? url : undefined;
}

/** One approval as a section, with an "Open" button when the service's page for it is known. */
export function approvalSection(approval: Approval, today: CalendarDay, links: ApprovalLinks | undefined): SectionBlock {
  const url = approvalUrl(links, approval.workItemId);
  return section(approvalEntry(approval, today), url ? linkButton({ actionId: OPEN_ACTION, text: 'Open', url }) : undefined);
}

/** A paging button's value; undefined when the query is too long to carry in one. */
export function encodePageState(state: PageState): string | undefined {
  const wire: PageStateWire = { u: state.user, q: state.query };
  const value = JSON.stringify(wire);
  return value.length <= LIMITS.buttonValue ? value : undefined;
}

export interface ApprovalsPageInput {
  query: ApprovalQuery;
  approvals: readonly Approval[];
  /** The asker's Slack user id (goes into the paging buttons). */
  userId: string;
  /** The asker's today, for "overdue" and "due today". */
  today: CalendarDay;
  /** "Open" buttons, when the service's pages are known. */
  approvalLinks?: ApprovalLinks | undefined;
}

const STATE_TITLES = { pending: 'Pending approvals', completed: 'Completed approvals', all: 'All approvals' } as const;
const FIXED_BLOCKS = 4; // header, context, actions, and room for one note

const FILTER_LABELS: Partial<Record<keyof ApprovalQuery, string>> = {
  'approval-id': 'id',
  'business-source': 'source',
  'completed-after': 'completed after',
  'completed-before': 'completed before',
  'due-after': 'due after',
  'due-before': 'due before',
  'entitlement-name': 'entitlement',
  'entitlement-type': 'entitlement type',
  'requested-after': 'requested after',
  'requested-before': 'requested before',
  'user-first-name': 'requester first name',
  'user-id': 'requester',
  'user-last-name': 'requester last name',
};

function describeFilters(query: ApprovalQuery): string {
  const parts = Object.entries(FILTER_LABELS)
    .filter(([key]) => query[key as keyof ApprovalQuery] !== undefined)
    .map(([key, label]) => `${label} ${code(String(query[key as keyof ApprovalQuery]), 60)}`);
  return parts.length > 0 ? parts.join(' · ') : 'no filters';
}

/** One approval as mrkdwn: request, step and requester, due date and how it stands, id. Shared with App Home. */
export function approvalEntry(approval: Approval, today: CalendarDay, inlineUrl?: string): string {
  const request = inert(approval.requestName || '(unnamed request)', 150);
  const step = inert(approval.workItemName || 'Approval', 80);
  const requester =
    typeof approval.fields.RequestedByName === 'string' && approval.fields.RequestedByName !== ''
      ? ` · requested by ${inert(approval.fields.RequestedByName, 60)}`
      : '';
  const lines = [`*${request}*`, `${step}${requester}`];
  const due = readableTimestamp(approval.dueDate);
  if (approval.completedDate !== '') {
    const done = readableTimestamp(approval.completedDate) ?? inert(approval.completedDate, 40);
    lines.push(`:white_check_mark: Completed ${done}${due ? ` · was due ${due}` : ''}`);
  } else if (due) {
    const rel = dueRelative(approval.dueDate, today);
    lines.push(
      `${rel?.overdue ? ':red_circle:' : ':large_blue_circle:'} Due ${due}${rel ? ` (${rel.overdue ? `*${rel.text}*` : rel.text})` : ''}`,
    );
  } else {
    lines.push(`Due ${approval.dueDate ? inert(approval.dueDate, 40) : 'date not given'}`);
  }
  // Packed several to a section there is no room for a button: the link goes inline instead.
  const open = inlineUrl ? ` · <${escapeMrkdwn(inlineUrl).replace(/\|/g, '%7C')}|Open>` : '';
  lines.push(`${code(approval.workItemId, 80)}${open}`);
  return lines.join('\n');
}

/** Groups entries into section texts within the character limit, one per section when blocks allow. */
function packEntries(entries: string[], maxSections: number): { sections: string[]; shown: number } {
  if (entries.length <= maxSections) return { sections: entries, shown: entries.length };
  const sections: string[] = [];
  let current = '';
  let shown = 0;
  for (const text of entries) {
    const joined = current === '' ? text : `${current}\n\n${text}`;
    if (joined.length <= LIMITS.sectionText) {
      current = joined;
    } else {
      if (sections.length + 1 >= maxSections) break;
      sections.push(current);
      current = text;
    }
    shown++;
  }
  if (current !== '') sections.push(current);
  return { sections, shown };
}

export function renderApprovalsPage(input: ApprovalsPageInput): Message {
  const { query, approvals } = input;
  const state = query.state ?? 'pending';
  const page = query['start-page'] ?? 1;
  const pageSize = query['page-size'] ?? 20;
  const title = `${STATE_TITLES[state]}${page > 1 ? ` · page ${page}` : ''}`;
  const order = query.sort === 'desc' ? 'latest due first' : 'soonest due first';
  const blocks: KnownBlock[] = [header(title), context(`${describeFilters(query)} · ${order} · ${pageSize} per page`)];

  const room = LIMITS.blocksPerMessage - FIXED_BLOCKS;
  let shown = approvals.length;
  if (approvals.length <= room) {
    for (const a of approvals) blocks.push(approvalSection(a, input.today, input.approvalLinks));
  } else {
    const packed = packEntries(
      approvals.map((a) => approvalEntry(a, input.today, approvalUrl(input.approvalLinks, a.workItemId))),
      room,
    );
    for (const text of packed.sections) blocks.push(section(text));
    shown = packed.shown;
  }
  if (approvals.length === 0) {
    const filtered = describeFilters(query) !== 'no filters';
    blocks.push(
      section(
        page > 1
          ? `Nothing more on page ${page}.`
          : filtered
            ? 'No approvals match these filters.'
            : `No ${state === 'all' ? '' : `${state} `}approvals. :tada:`,
      ),
    );
  }
  if (shown < approvals.length) {
    blocks.push(
      context(
        `:warning: Showing ${shown} of the ${approvals.length} approvals on this page: Slack cannot show more in one message. Ask for fewer, e.g. \`page-size:20\`.`,
      ),
    );
  }

  const buttons = [];
  const previous = page > 1 ? encodePageState({ user: input.userId, query: { ...query, 'start-page': page - 1 } }) : undefined;
  // A full page may have a successor; the service does not say how many there are in all.
  const next =
    approvals.length >= pageSize ? encodePageState({ user: input.userId, query: { ...query, 'start-page': page + 1 } }) : undefined;
  if (previous) buttons.push(button({ actionId: PAGE_ACTIONS.previous, text: '← Previous', value: previous }));
  if (next) buttons.push(button({ actionId: PAGE_ACTIONS.next, text: 'Next →', value: next }));
  if (buttons.length > 0) blocks.push(actions('approvals:paging', buttons));
  else if ((page > 1 || approvals.length >= pageSize) && (previous === undefined || next === undefined)) {
    blocks.push(
      context('Paging buttons are left out: this query is too long to carry in a button. Use `start-page:` to move between pages.'),
    );
  }

  const count = approvals.length === 0 ? 'No' : String(approvals.length);
  const plain = `${count} ${STATE_TITLES[state].toLowerCase()}${page > 1 ? ` (page ${page})` : ''}${approvals[0] ? `: ${approvals.map((a) => a.requestName).join('; ')}` : ''}`;
  return { text: fallback(plain), blocks };
}

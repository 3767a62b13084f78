/**
 * An /approvals page as Block Kit: a header naming the state and page, the filters in force, one
 * entry per approval (request, step and requester, due date and how it stands, completed date,
 * id) with Details (the approval in a modal, while the service offers it) and Open (when the
 * service's page is known), and Previous/Next buttons carrying the query. The service's words are rich text, shown exactly as it gave them. Fits Slack's limits
 * for any page size: entries are packed several to a block when one each would pass 50 blocks,
 * and cut with a visible note past that.
 */

import type { KnownBlock } from '@slack/types';
import type { PageState, PageStateWire } from '../parse/buttons.js';
import type { DetailsOrigin } from '../parse/details.js';
import { type ApprovalQuery, MAYBE_INVISIBLE, SERVICE_DEFAULT_PAGE_SIZE } from '../service/query.js';
import type { Approval } from '../service/schemas.js';
import { readableDay, readServiceDate } from '../time/days.js';
import { readServiceTime, type TimeFrame } from '../time/frame.js';
import { readableTime, readableTimestamp, standingText } from '../time/write.js';
import { addCalendarDays, startOfDay, wallClock, zoneLabel } from '../time/zones.js';
import {
  type ApprovalLinks,
  actions,
  button,
  fallback,
  header,
  LIMITS,
  linkButton,
  type Message,
  NOT_PLAIN,
  plainContext,
  QUOTE_OR_BACKSLASH,
  section,
} from './blocks.js';
import { type DecidedMark, decidedLine } from './decision.js';
import { detailsButton, detailsButtonWriter, detailsSelect } from './details-controls.js';
import { bold, code, emoji, oneLine, type Paragraph, type Run, richLength, richText, richTextJson, styleJson } from './rich.js';

export const PAGE_ACTIONS = { previous: 'approvals:previous', next: 'approvals:next', first: 'approvals:first' } as const;
/** The "Open" button on an approval; a link, so its click only needs an ack. */
export const OPEN_ACTION = 'approval:open';

export type { ApprovalLinks } from './blocks.js';

/** The link for a button or inline link: none without a template, or when it is too long for Slack. */
function approvalUrl(links: ApprovalLinks | undefined, workItemId: string): string | undefined {
  const url = workItemId === '' ? undefined : links?.(workItemId);
  return url !== undefined && url.length <= LIMITS.buttonUrl ? url : undefined;
}

/**
 * An approval as far as a page of the list draws it: its id, step, request, due and completed
 * dates, and the requester's name when it is text (requesterText draws nothing else). What
 * remembers a drawn page (slack/surfaces/shown.ts) keeps this, not all the service said; a
 * property test holds a page drawn from it to the page drawn from the approvals.
 */
export type ListedRow = readonly [
  workItemId: string,
  workItemName: string,
  requestName: string,
  dueDate: string,
  completedDate: string,
  requester?: string,
];

export function listedRow(a: Approval): ListedRow {
  const requester = a.fields.RequestedByName;
  return typeof requester === 'string'
    ? [a.workItemId, a.workItemName, a.requestName, a.dueDate, a.completedDate, requester]
    : [a.workItemId, a.workItemName, a.requestName, a.dueDate, a.completedDate];
}

export function fromListedRow([workItemId, workItemName, requestName, dueDate, completedDate, requester]: ListedRow): Approval {
  return {
    workItemId,
    workItemName,
    requestName,
    dueDate,
    completedDate,
    fields: requester === undefined ? {} : { RequestedByName: requester },
  };
}

/** A paging button's value; undefined when the query is too long to carry in one. */
export function encodePageState(state: PageState): string | undefined {
  const wire: PageStateWire = { u: state.user, q: state.query };
  const value = JSON.stringify(wire);
  return value.length <= LIMITS.buttonValue ? value : undefined;
}

/**
 * One approval as lines of rich text: request, step and requester, due date and how it stands (or
 * when it was completed), id. With `inlineUrl`, "Open" is a link on the id's line: packed several
 * to a block there is no room for a button.
 */
export function approvalParagraphs(approval: Approval, frame: TimeFrame, inlineUrl?: string, mark?: string): Paragraph[] {
  const id: Run[] = [code(oneLine(approval.workItemId, 80))];
  if (inlineUrl) id.push(' · ', { link: inlineUrl, text: 'Open' });
  return [
    [bold(oneLine(approval.requestName || '(unnamed request)', 150))],
    [`${oneLine(approval.workItemName || 'Approval', 80)}${requesterText(approval)}`],
    statusRuns(approval, frame, mark),
    id,
  ];
}

/** " · requested by …", or nothing when the service did not say. */
function requesterText(approval: Approval): string {
  const name = approval.fields.RequestedByName;
  return typeof name === 'string' && name !== '' ? ` · requested by ${oneLine(name, 80)}` : '';
}

/** How an approval stands: when it was completed, or when it is due and whether that has passed; `mark`, its group's, in a group. */
function statusRuns(approval: Approval, frame: TimeFrame, mark?: string): Run[] {
  const dueTime = readServiceTime(approval.dueDate, frame);
  const due = dueTime && readableTime(dueTime);
  if (approval.completedDate !== '') {
    const done = readableTimestamp(approval.completedDate, frame) ?? oneLine(approval.completedDate, 40);
    // Completed may mean rejected: a flag, not a green tick that would read as approved.
    return [emoji('checkered_flag'), ` Completed ${done}${due ? ` · was due ${due}` : ''}`];
  }
  if (dueTime && due) {
    const rel = standingText(dueTime, frame);
    return [emoji(mark ?? standingEmoji(rel)), ` Due ${due}`, ' (', rel.overdue ? bold(rel.text) : rel.text, ')'];
  }
  return [approval.dueDate ? `Due ${oneLine(approval.dueDate, 40)}` : 'Due date not given'];
}

/**
 * Characters that make service text need more than quoting on a page: line breaks, tabs and other
 * controls (made spaces or shown as marks), the hidden marks revealHidden shows, and surrogates
 * (where a cut must not split a character). Text with none of them, within its cut, is shown as is.
 */
const NEEDS_CARE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/;

/** Whether oneLine(text, max) and revealHidden of it would both give the text itself (the invisible characters it may mark too). */
const asIs = (text: string, max: number) =>
  text.length <= max && (!NOT_PLAIN.test(text) || (!NEEDS_CARE.test(text) && !MAYBE_INVISIBLE.test(text)));

/**
 * NOT_PLAIN, a quote and a backslash: text with none of them (nearly all a page holds) is shown as
 * it is and stands in JSON as it is, found in one look rather than one for each question.
 */
const NOT_PLAIN_OR_ESCAPED = new RegExp(NOT_PLAIN.source.replace('\\u0020-\\u007e', '\\u0020\\u0021\\u0023-\\u005b\\u005d-\\u007e'));
// Made from NOT_PLAIN so that the two cannot drift apart; a NOT_PLAIN written otherwise must fail here, not pass quotes.
if (NOT_PLAIN_OR_ESCAPED.source === NOT_PLAIN.source) throw new Error('NOT_PLAIN no longer holds the printable ASCII range');

/** How a text goes into an entry written directly: `plain` as it is, `quoted` escaped for JSON, `no` not this way at all. */
function plainness(text: string, max: number): 'plain' | 'quoted' | 'no' {
  if (text.length <= max && !NOT_PLAIN_OR_ESCAPED.test(text)) return 'plain';
  return asIs(text, max) ? 'quoted' : 'no';
}

/** The text as it stands inside a JSON string, given its plainness. */
function pushText(out: JsonOut, text: string, how: 'plain' | 'quoted'): void {
  if (how === 'plain') out.json += text;
  else pushContent(out, text);
}

/**
 * A JSON text being written, piece by piece onto the end of one string: V8 keeps such a string as
 * a rope and lays it out once, when it is sent. An array joined at the end cost twice as much, and
 * building each block as a string of its own copied each entry several times over.
 */
export interface JsonOut {
  json: string;
}

/** Text with no control character or surrogate, as it stands inside a JSON string. */
function pushContent(out: JsonOut, text: string): void {
  out.json += QUOTE_OR_BACKSLASH.test(text) ? JSON.stringify(text).slice(1, -1) : text;
}

/**
 * richTextJson(approvalParagraphs(approval, frame)), written directly for an approval whose texts
 * all show as they are (nearly every one): no runs to build and walk, nothing to cut, since the
 * few hundred characters such an entry holds are far within a block's budget. False, with nothing
 * written, for any other, which goes the general way; a property test holds the two to the same bytes.
 */
export function writePlainEntry(out: JsonOut, approval: Approval, frame: TimeFrame): boolean {
  const request = approval.requestName || '(unnamed request)';
  const step = approval.workItemName || 'Approval';
  const requester = approval.fields.RequestedByName;
  if (approval.workItemId === '') return false;
  const idIs = plainness(approval.workItemId, 80);
  const requestIs = plainness(request, 150);
  const stepIs = plainness(step, 80);
  const requesterIs = typeof requester === 'string' ? plainness(requester, 80) : 'plain';
  // Quoted when they are not times: checked whether or not they are, which costs less than reading them twice.
  const dueIs = plainness(approval.dueDate, 40);
  const completedIs = plainness(approval.completedDate, 40);
  if (idIs === 'no' || requestIs === 'no' || stepIs === 'no' || requesterIs === 'no' || dueIs === 'no' || completedIs === 'no')
    return false;
  // The status is our own words, with a date as the service wrote it where it is not a time: no
  // quote or backslash in it unless the dates have one.
  const statusIs = dueIs === 'plain' && completedIs === 'plain' ? 'plain' : 'quoted';
  const status = statusRuns(approval, frame);
  // An emoji, or styled words (how overdue): nothing else stands in a status.
  for (const run of status) if (typeof run !== 'string' && !('emoji' in run) && !('style' in run)) return false;
  out.json += '{"type":"rich_text","elements":[{"type":"rich_text_section","elements":[{"type":"text","text":"';
  pushText(out, request, requestIs);
  // Unstyled text runs on until an element of another kind comes, as richTextJson merges it.
  out.json += '","style":{"bold":true}},{"type":"text","text":"\\n';
  pushText(out, step, stepIs);
  if (typeof requester === 'string' && requester !== '') {
    out.json += ' · requested by ';
    pushText(out, requester, requesterIs as 'plain' | 'quoted');
  }
  out.json += '\\n';
  let open = true;
  for (const run of status) {
    if (typeof run === 'string') {
      if (run === '') continue;
      if (!open) out.json += ',{"type":"text","text":"';
      open = true;
      pushText(out, run, statusIs);
      continue;
    }
    if (open) out.json += '"}';
    open = false;
    if ('emoji' in run) {
      out.json += ',{"type":"emoji","name":"';
      pushText(out, run.emoji, statusIs);
      out.json += '"}';
    } else if ('style' in run) {
      out.json += ',{"type":"text","text":"';
      pushText(out, run.text, statusIs);
      out.json += `","style":${styleJson(run.style)}}`;
    }
  }
  out.json += open ? '\\n"},{"type":"text","text":"' : ',{"type":"text","text":"\\n"},{"type":"text","text":"';
  pushText(out, approval.workItemId, idIs);
  out.json += '","style":{"code":true}}]}]}';
  return true;
}

/**
 * One approval as blocks: its rich text, then Details (when `details` says where the control is:
 * left out while the service does not offer details) and Open (when the service's page for it is
 * known). Shared with Home and digests.
 */
export function approvalBlocks(
  approval: Approval,
  frame: TimeFrame,
  links: ApprovalLinks | undefined,
  details?: DetailsOrigin,
  decided?: { mark: DecidedMark; readerId: string },
  groupMark?: string,
): KnownBlock[] {
  // Decided from chat: said so, and nothing offered on it again.
  if (decided !== undefined)
    return [richText([...approvalParagraphs(approval, frame), decidedLine(decided.mark, { id: decided.readerId, zone: frame.zone })])];
  const url = approvalUrl(links, approval.workItemId);
  const blocks: KnownBlock[] = [richText(approvalParagraphs(approval, frame, undefined, groupMark))];
  const buttons = [
    details === undefined ? undefined : detailsButton(approval, details),
    url ? linkButton({ actionId: OPEN_ACTION, text: 'Open', url }) : undefined,
  ].filter((b) => b !== undefined);
  // No block id: the service may list one approval twice, and Slack refuses a message with a block id used twice.
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return blocks;
}

/** How many blocks an entry takes on its own. */
export function entryBlocks(links: ApprovalLinks | undefined, details = false): number {
  return links === undefined && !details ? 1 : 2;
}

export interface ApprovalsPageInput {
  query: ApprovalQuery;
  approvals: readonly Approval[];
  /** The asker's Slack user id (goes into the paging buttons). */
  userId: string;
  /** The asker's zone and now, with the service's zone: times in theirs, and "overdue" by the clock. */
  frame: TimeFrame;
  /** "Open" buttons, when the service's pages are known. */
  approvalLinks?: ApprovalLinks | undefined;
  /** Details controls: while the service offers getApprovalDetails. */
  details?: boolean | undefined;
  /** Approvals decided from chat, by id: their rows say so, with no buttons. */
  decided?: ReadonlyMap<string, DecidedMark> | undefined;
  /** Decided from this very page a moment ago, and no longer in the list it shows: first, as decided. */
  justDecided?: readonly Approval[] | undefined;
}

const STATE_TITLES = { pending: 'Pending approvals', completed: 'Completed approvals', all: 'All approvals' } as const;
const FIXED_BLOCKS = 4; // header, context, a note, the paging buttons (packed, "Details of…" too, with room to spare)

const FILTER_LABELS: Partial<Record<keyof ApprovalQuery, string>> = {
  'approval-id': 'id',
  'business-source': 'source',
  'completed-after': 'completed',
  'completed-before': 'completed',
  'due-after': 'due',
  'due-before': 'due',
  'entitlement-name': 'entitlement',
  'entitlement-type': 'entitlement type',
  'requested-after': 'requested',
  'requested-before': 'requested',
  'user-first-name': 'requester first name',
  'user-id': 'requester',
  'user-last-name': 'requester last name',
};

const FILTER_ENTRIES = Object.entries(FILTER_LABELS);

/**
 * A date filter in the reader's words: the service takes a day of its own calendar, which with its
 * zone known is told on the reader's clock ("due before Mon 30 Nov 2026, 06:00 Tokyo time" where the
 * two calendars' days do not meet at the reader's midnight), and without it is said to be the
 * service's ("due on or before Sun 29 Nov 2026 by the service’s calendar").
 */
function describeDate(what: string, bound: 'after' | 'before', value: string, frame: TimeFrame): string {
  const day = readServiceDate(value);
  if (day === undefined) return `${what} ${bound} “${oneLine(value, 60)}”`;
  if (frame.serviceZone === undefined) return `${what} on or ${bound} ${readableDay(day)} by the service’s calendar`;
  // The range's edge as an instant: where the service's day starts (after), or where the next one does (before).
  const edge = startOfDay(bound === 'after' ? day : addCalendarDays(day, 1), frame.serviceZone);
  const wall = wallClock(edge, frame.zone);
  if (wall.hour === 0 && wall.minute === 0) {
    const readerDay = bound === 'after' ? wall : addCalendarDays(wall, -1);
    return `${what} on or ${bound} ${readableDay(readerDay)}`;
  }
  const at = `${readableDay(wall)}, ${String(wall.hour).padStart(2, '0')}:${String(wall.minute).padStart(2, '0')} ${zoneLabel(frame.zone)}`;
  return bound === 'after' ? `${what} from ${at}` : `${what} before ${at}`;
}

/** The filters: values as typed, in plain text so that each is shown exactly (quotes mark where it starts and ends); dates in the reader's words. */
function describeFilters(query: ApprovalQuery, frame: TimeFrame): string | undefined {
  const parts = FILTER_ENTRIES.filter(([key]) => query[key as keyof ApprovalQuery] !== undefined).map(([key, label]) => {
    const value = String(query[key as keyof ApprovalQuery]);
    if (key.endsWith('-after')) return describeDate(label, 'after', value, frame);
    if (key.endsWith('-before')) return describeDate(label, 'before', value, frame);
    return `${label} “${oneLine(value, 60)}”`;
  });
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/**
 * Entries packed into rich text blocks within the character budget. Every entry is cut to a few
 * hundred characters, so at least five fit a block and the largest page (100) takes at most 20
 * blocks: nothing on a page is ever left out.
 */
function packEntries(entries: Paragraph[][]): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let current: Paragraph[] = [];
  for (const entry of entries) {
    // A blank line between entries, as between paragraphs of a letter.
    const next = current.length > 0 ? [...current, [' '], ...entry] : entry;
    if (current.length > 0 && richLength(next) > LIMITS.richTextChars) {
      blocks.push(richText(current));
      current = entry;
    } else {
      current = next;
    }
  }
  if (current.length > 0) blocks.push(richText(current));
  return blocks;
}

/** What a page says around its entries, the same whichever way it is written. */
interface PageFrame {
  title: string;
  filters: string | undefined;
  page: number;
  pageSize: number;
  state: 'pending' | 'completed' | 'all';
  /** The header and the line of filters, order and size. */
  head: KnownBlock[];
  marks: ReadonlyMap<string, DecidedMark>;
  /** Decided from this page a moment ago and no longer listed: first. */
  justDecided: Approval[];
  entries: Approval[];
  details: boolean;
}

function pageFrame(input: ApprovalsPageInput): PageFrame {
  const { query, approvals } = input;
  const state = query.state ?? 'pending';
  const page = query['start-page'] ?? 1;
  const pageSize = query['page-size'] ?? SERVICE_DEFAULT_PAGE_SIZE;
  const title = `${STATE_TITLES[state]}${page > 1 ? ` · page ${page}` : ''}`;
  // The service sorts by due date alone: said so, since completed approvals then come in no order of completion.
  const order = `by due date, ${query.sort === 'desc' ? 'latest' : 'soonest'} first${state === 'pending' ? '' : ' (the service sorts by nothing else)'}`;
  const filters = describeFilters(query, input.frame);
  const marks = input.decided ?? new Map<string, DecidedMark>();
  const justDecided = (input.justDecided ?? []).filter((a) => marks.has(a.workItemId));
  return {
    title,
    filters,
    page,
    pageSize,
    state,
    head: [header(title), plainContext(`${filters ?? 'no filters'} · ${order} · ${shownRange(page, pageSize, approvals.length)}`)],
    marks,
    justDecided,
    entries: [...justDecided, ...approvals],
    details: input.details === true,
  };
}

/**
 * Which of the list this page shows. The service gives no total: a full page says more may follow
 * (the next may yet be empty); a shorter one is the list's last, so its end is the total.
 */
function shownRange(page: number, pageSize: number, shown: number): string {
  if (shown === 0) return `${pageSize} per page`;
  const first = (page - 1) * pageSize + 1;
  const last = first + shown - 1;
  if (shown < pageSize) return page === 1 ? `${last} in all` : `${first}–${last} of ${last}`;
  return `${first}–${last}, ${pageSize} per page, more may follow`;
}

/** Whether every entry has blocks of its own, rather than being packed several to a block. */
function unpacked(input: ApprovalsPageInput, f: PageFrame): boolean {
  const needed = f.entries.reduce((n, a) => n + (f.marks.has(a.workItemId) ? 1 : entryBlocks(input.approvalLinks, f.details)), 0);
  return needed <= LIMITS.blocksPerMessage - FIXED_BLOCKS;
}

/** After the entries: what an empty page says, the paging buttons (or why there are none), and the fallback text. */
function pageEnd(input: ApprovalsPageInput, f: PageFrame): { blocks: KnownBlock[]; text: string } {
  const { query, approvals } = input;
  const { page, pageSize, filters, state, title, marks } = f;
  const blocks: KnownBlock[] = [];
  let empty: string | undefined;
  if (approvals.length === 0) {
    empty =
      page > 1
        ? `Nothing on page ${page}: the list ends before it.`
        : filters
          ? 'No approvals match these filters.'
          : `No ${state === 'all' ? '' : `${state} `}approvals. :tada:`;
    blocks.push(section(empty));
  }

  const buttons = [];
  // Object.assign, not a spread: a spread that adds a key the query lacks is V8's slow copy.
  const pageOf = (n: number) => encodePageState({ user: input.userId, query: Object.assign({}, query, { 'start-page': n }) });
  // Past the end of the list (Next from a last page that was full), the way back is the page before;
  // and, where that may be past the end too (a start-page typed far on), the first.
  const first = approvals.length === 0 && page > 2 ? pageOf(1) : undefined;
  const previous = page > 1 ? pageOf(page - 1) : undefined;
  // A full page may have a successor; the service does not say how many there are in all. A short one has none.
  const more = approvals.length >= pageSize;
  const next = more ? pageOf(page + 1) : undefined;
  if (first) buttons.push(button({ actionId: PAGE_ACTIONS.first, text: 'First page', value: first }));
  if (previous) buttons.push(button({ actionId: PAGE_ACTIONS.previous, text: 'Previous page', value: previous }));
  if (next) buttons.push(button({ actionId: PAGE_ACTIONS.next, text: 'Next page', value: next }));
  if (buttons.length > 0) blocks.push(actions('approvals:paging', buttons));
  else if ((page > 1 || more) && (previous === undefined || next === undefined)) {
    blocks.push(
      plainContext('Paging buttons are left out: this query is too long to carry in a button. Use start-page: to move between pages.'),
    );
  }

  // The notification says what the message shows: how many on this page, whether there are more, which.
  const where = `${title}${filters ? `, ${filters}` : ''}`;
  const plain =
    approvals.length === 0
      ? `${where}: ${(empty ?? '').replace(/ :tada:$/, '')}`
      : `${where}: ${approvals.length} shown${more ? ', more may follow' : ''}. ${approvals
          .map((a) => oneLine(a.requestName || '(unnamed request)', 80))
          .join('; ')}`;
  const decidedNow = f.justDecided.map((a) => {
    const mark = marks.get(a.workItemId);
    // A name would ping in a notification: the blocks name them, the fallback says who in words.
    const by = mark?.userId === input.userId ? 'by you' : 'by another approver (from Slack)';
    return `${oneLine(mark?.action ?? '', 60)} ${by}: ${oneLine(a.requestName || '(unnamed request)', 80)}. `;
  });
  return { blocks, text: fallback(`${decidedNow.join('')}${plain}`) };
}

/** The page as Block Kit objects: the spec of what it says, which approvalsPageJson writes faster. */
export function renderApprovalsPage(input: ApprovalsPageInput): Message {
  const { query, approvals } = input;
  const f = pageFrame(input);
  const { details, marks, entries } = f;
  const blocks: KnownBlock[] = [...f.head];
  const markOf = (a: Approval) => {
    const mark = marks.get(a.workItemId);
    return mark === undefined ? undefined : { mark, readerId: input.userId };
  };
  if (unpacked(input, f)) {
    const origin: DetailsOrigin = { kind: 'page', owner: input.userId, query };
    for (const a of entries) blocks.push(...approvalBlocks(a, input.frame, input.approvalLinks, details ? origin : undefined, markOf(a)));
  } else {
    blocks.push(
      ...packEntries(
        entries.map((a) => {
          const mark = markOf(a);
          return mark === undefined
            ? approvalParagraphs(a, input.frame, approvalUrl(input.approvalLinks, a.workItemId))
            : [...approvalParagraphs(a, input.frame), decidedLine(mark.mark, { id: mark.readerId, zone: input.frame.zone })];
        }),
      ),
    );
    // Packed, there is no room for a button each: one select names them all (but those decided).
    const select = details
      ? detailsSelect(
          approvals.filter((a) => !marks.has(a.workItemId)),
          input.userId,
          query,
        )
      : undefined;
    if (select) blocks.push(select);
  }
  const end = pageEnd(input, f);
  blocks.push(...end.blocks);
  return { text: end.text, blocks };
}

/**
 * The page as the JSON of its Message (`{"text":…,"blocks":[…]}`), written in its final form:
 * building the objects and then stringifying 8 KB of them was a seventh of the CPU of an
 * answered /approvals. The entries, all but a few bytes of it, are written onto the end of one string; the
 * rest, once per page, through the same builders. JSON.parse of it equals renderApprovalsPage
 * (a property test holds them together); a packed page (more than 23 entries) is rare enough
 * to be written the slow way. `opening` is what the object starts with: a post's envelope
 * (`{"response_type":"ephemeral",…,`) puts its own fields first, with no copy of the page made for it.
 */
export function approvalsPageJson(input: ApprovalsPageInput, opening = '{'): string {
  const f = pageFrame(input);
  if (!unpacked(input, f)) return `${opening}${JSON.stringify(renderApprovalsPage(input)).slice(1)}`;
  const writeDetails = f.details ? detailsButtonWriter(input.userId, input.query) : undefined;
  const end = pageEnd(input, f);
  const out: JsonOut = {
    json: `${opening}"text":${oneByteJson(JSON.stringify(end.text))},"blocks":[${JSON.stringify(f.head[0])},${oneByteJson(JSON.stringify(f.head[1]))}`,
  };
  for (const a of f.entries) {
    out.json += ',';
    const mark = f.marks.get(a.workItemId);
    if (mark !== undefined) {
      out.json += richTextJson([...approvalParagraphs(a, input.frame), decidedLine(mark, { id: input.userId, zone: input.frame.zone })]);
      continue;
    }
    if (!writePlainEntry(out, a, input.frame)) out.json += richTextJson(approvalParagraphs(a, input.frame));
    const url = approvalUrl(input.approvalLinks, a.workItemId);
    const open = url ? JSON.stringify(linkButton({ actionId: OPEN_ACTION, text: 'Open', url })) : undefined;
    // The block opened before knowing whether it has a button: taken back when it has none.
    const before = out.json;
    out.json += ',{"type":"actions","elements":[';
    const details = writeDetails?.(out, a) === true;
    if (open !== undefined) out.json += `${details ? ',' : ''}${open}`;
    if (details || open !== undefined) out.json += ']}';
    else out.json = before;
  }
  for (const b of end.blocks) out.json += `,${oneByteJson(JSON.stringify(b))}`;
  return `${out.json}]}`;
}

const WIDE = /[^\u0000-\u00ff]/;

/**
 * JSON text with each character past U+00FF written as its escape (`–` as `\u2013`, which any JSON
 * reader takes for the character), made a one-byte string. For our own words around the entries:
 * "1–10" under a page's header (or a filter's quotes) made V8 hold the whole page, every entry
 * written after it, two bytes a character, and writing and encoding a page cost a sixth more.
 * Made from the character codes: V8 keeps a string cut from or replaced in a two-byte one
 * two-byte, though nothing past U+00FF is left in it.
 */
function oneByteJson(json: string): string {
  if (!WIDE.test(json)) return json;
  const codes: number[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c <= 0xff) codes.push(c);
    else for (const e of `\\u${c.toString(16).padStart(4, '0')}`) codes.push(e.charCodeAt(0));
  }
  return String.fromCharCode(...codes);
}

/**
 * The mark beside a due time, the same wherever an approval is shown: red when overdue, orange
 * when due today, blue after. Home and the digest mark each row as its group's heading is marked.
 */
export function standingEmoji(standing: { overdue: boolean; days: number }): string {
  if (standing.overdue) return 'red_circle';
  return standing.days === 0 ? 'large_orange_circle' : 'large_blue_circle';
}

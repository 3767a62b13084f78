/**
 * An approval's details in a modal: the step and how it stands, the request and who asked, its
 * description and notes, due date on the reader’s clock, each request item as a sentence
 * ("Add Wayne, Bruce to group Domain Admins (Active Directory)"), paged, and the actions the
 * service lists for the step: as words, and, with DECISION_REQUEST, a button each (decision.ts)
 * beside "Open in the service"; and the modal's other states (loading, gone, not offered, not
 * linked, failed). The controls that open it are in details-controls.ts. Everything from the service is a rich text run or plain_text,
 * shown exactly; within a modal's 100 blocks and 3,000 characters a block whatever it holds.
 */

import type { Button, KnownBlock, ModalView } from '@slack/types';
import type { DecisionOffer } from '../approvals/decision-offer.js';
import type { DetailsOutcome, ItemsOutcome } from '../approvals/details.js';
import { type DetailsState, MAX_ITEMS_PAGE, MAX_SERVICE_PAGE_SIZE } from '../parse/details.js';
import { isServiceError } from '../service/errors.js';
import type { ApprovalDetails, RequestItem } from '../service/schemas.js';
import { readServiceTime, type TimeFrame } from '../time/frame.js';
import { readableTime, readableTimestamp, standingText } from '../time/write.js';
import { type ApprovalLinks, OPEN_ACTION, standingEmoji } from './approvals.js';
import { actions, button, context, LIMITS, linkButton, type Message, plain, truncate } from './blocks.js';
import { decisionButtons, decisionNote } from './decision.js';
import { DETAILS_ACTIONS, encodeDetailsMetadata, shownBefore } from './details-controls.js';
import { bold, code, emoji, italic, md, oneLine, type Paragraph, type Run, richLength, richText } from './rich.js';

export const DETAILS_CALLBACK = 'approval-details';

const TITLE = { type: 'plain_text' as const, text: 'Approval details' };
const CLOSE = { type: 'plain_text' as const, text: 'Close' };

/** The first view, opened within the click's 3 seconds while the service is asked. */
export function detailsLoadingView(state: DetailsState): ModalView {
  return view(state, [richText([[emoji('hourglass_flowing_sand'), ' Asking the Command Service about ', code(state.approvalId), '…']])]);
}

function view(state: DetailsState, blocks: KnownBlock[]): ModalView {
  return {
    type: 'modal',
    callback_id: DETAILS_CALLBACK,
    private_metadata: encodeDetailsMetadata(state),
    title: TITLE,
    close: CLOSE,
    blocks: blocks.slice(0, LIMITS.blocksPerView),
  };
}

/** What Refresh would do for this reader, if anything: issue the page again (only the asker's), or publish Home. */
export function refreshTarget(state: DetailsState, userId: string): 'page' | 'home' | undefined {
  const origin = state.origin;
  if (origin.kind === 'home') return 'home';
  if (origin.kind === 'page' && origin.owner === userId && origin.query !== undefined && state.responseUrl !== undefined) return 'page';
  return undefined;
}

function openButton(links: ApprovalLinks | undefined, approvalId: string): Button | undefined {
  const url = links?.(approvalId);
  return url !== undefined && url.length <= LIMITS.buttonUrl
    ? linkButton({ actionId: OPEN_ACTION, text: 'Open in the service', url })
    : undefined;
}

function buttonsBlock(blockId: string, buttons: ReadonlyArray<Button | undefined>): KnownBlock[] {
  const present = buttons.filter((b): b is Button => b !== undefined);
  return present.length === 0 ? [] : [actions(blockId, present)];
}

export interface DetailsViewInput {
  outcome: Exclude<DetailsOutcome, { kind: 'failed' }>;
  state: DetailsState;
  /** Who reads it: Refresh is offered on their own page only. */
  userId: string;
  /** The reader's zone and now, with the service's zone: times in theirs, and "overdue" by the clock. */
  frame: TimeFrame;
  approvalLinks?: ApprovalLinks | undefined;
}

export function renderDetailsView(input: DetailsViewInput): ModalView {
  const { outcome, state } = input;
  const open = openButton(input.approvalLinks, state.approvalId);
  switch (outcome.kind) {
    case 'details':
      return view(learnt(state, outcome.items), detailsBlocks(outcome.details, outcome.items, input, open));
    case 'not-visible': {
      const target = refreshTarget(state, input.userId);
      const refresh =
        target === undefined
          ? undefined
          : button({
              actionId: DETAILS_ACTIONS.refresh,
              text: target === 'home' ? 'Refresh Home' : 'Refresh the list',
              value: target,
              style: 'primary',
            });
      const id = code(oneLine(state.approvalId, 120));
      // The service answers an id it never had as it answers one gone from this reader's view: only an
      // approval this reader was shown (their page, their Home, their digest) is known to have existed.
      if (!shownBefore(state, input.userId))
        return view(state, [
          richText([
            [emoji('mag'), ' The Command Service has no approval ', id, ' that you can see.'],
            state.origin.kind === 'typed'
              ? ['Check the id: each approval on a page of ', code('/approvals'), ' shows its own.']
              : ['It is not on a list of yours: it may be someone else’s.'],
            ['An approval that was reassigned to someone else or withdrawn is not shown to you either.'],
          ]),
          ...buttonsBlock('details:gone', [open]),
        ]);
      return view(state, [
        richText([
          [
            emoji('see_no_evil'),
            ' The approval ',
            id,
            ' is no longer visible to you: it may have been completed, reassigned or withdrawn.',
          ],
        ]),
        ...buttonsBlock('details:gone', [refresh, open]),
        ...(target === undefined ? [context('Type `/approvals` to see what waits for you now.')] : []),
      ]);
    }
    case 'not-offered':
      return view(state, [
        richText([
          md(
            open === undefined
              ? ':information_source: This Command Service does not offer approval details (its administrators have switched them off), so countersign stops offering Details for now; look the approval up in the service itself.'
              : ':information_source: This Command Service does not offer approval details (its administrators have switched them off), so countersign stops offering Details for now; Open in the service shows it there.',
          ),
        ]),
        ...buttonsBlock('details:open', [open]),
      ]);
    case 'not-linked':
      return view(state, [
        richText([
          md(':link: Your Slack account is not linked to the Command Service yet, so countersign cannot look this approval up for you.'),
        ]),
        actions('details:link', [button({ actionId: DETAILS_ACTIONS.relink, text: 'Link your account', value: 'link', style: 'primary' })]),
      ]);
  }
}

/**
 * A failure the error translator has put into words (its message), with the way on: Link again for
 * a refused token (the sign-in modal is pushed over this one), Try again when the service may answer later.
 */
export function detailsFailureView(state: DetailsState, message: Message, ways: { relink: boolean; retry: boolean }): ModalView {
  const buttons = [
    ways.relink ? button({ actionId: DETAILS_ACTIONS.relink, text: 'Link again', value: 'relink', style: 'primary' }) : undefined,
    ways.retry ? button({ actionId: DETAILS_ACTIONS.retry, text: 'Try again', value: String(state.page) }) : undefined,
  ];
  // The translator's own buttons answer through a response_url, which a modal has not: ours replace them.
  return view(state, [...message.blocks.filter((b) => b.type !== 'actions'), ...buttonsBlock('details:ways', buttons)]);
}

/**
 * What takes the place of a view Slack refused, so that the reader is not left on the loading view:
 * our own words only (nothing from the service, which is what Slack may have refused), the
 * reference of the log line, and the way to the approval in the service when there is one.
 */
export function detailsUnshownView(state: DetailsState, reference: string, approvalLinks?: ApprovalLinks | undefined): ModalView {
  const open = openButton(approvalLinks, state.approvalId);
  return view(state, [
    richText([
      [
        emoji('warning'),
        ' Slack would not show these details of ',
        code(oneLine(state.approvalId, 120)),
        ', so countersign cannot show them here. It has been logged for your Slack admins.',
      ],
      ['Reference ', code(oneLine(reference, 40)), '.'],
    ]),
    ...buttonsBlock('details:open', [open]),
  ]);
}

/** A plain notice in the modal: a control that no longer works, a list refreshed. */
export function detailsNoticeView(state: DetailsState, paragraphs: Paragraph[]): ModalView {
  return view(state, [richText(paragraphs)]);
}

/** The most lines of a description or notes shown; the rest are said to be there. */
const MAX_LINES = 30;

/**
 * A description or notes as they were written: line breaks kept, paragraphs kept apart by one blank
 * line however many there were, other control characters made spaces; at most MAX_LINES lines and
 * `max` characters, and a last line of ours saying what is left out (Open in the service shows it,
 * when there is one). Reads at most a few times `max` of the text, however long it is.
 */
function lines(text: string, max: number, open: boolean): Paragraph[] {
  const readAtMost = max * 4;
  const head = text.length > readAtMost ? text.slice(0, readAtMost) : text;
  const all = head
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ' ')
    .split('\n')
    .map((l) => l.trimEnd());
  const shown: Paragraph[] = [];
  let used = 0;
  let blankBefore = false;
  let partial = false;
  let next = 0;
  for (; next < all.length && shown.length < MAX_LINES; next++) {
    const line = all[next] as string;
    if (line === '') {
      blankBefore = shown.length > 0;
      continue;
    }
    const room = max - used;
    if (room < 2) break;
    const cut = truncate(line, room);
    // A blank line before it is a line break of its own, since an empty paragraph is not drawn.
    shown.push(blankBefore ? ['\n', cut] : [cut]);
    used += cut.length + 1;
    blankBefore = false;
    if (cut !== line) {
      partial = true;
      next++;
      break;
    }
  }
  const more = all.slice(next).filter((l) => l !== '').length;
  const counted = !partial && head.length === text.length;
  if (counted && more > 0) {
    const n = `${more} more line${more === 1 ? '' : 's'}`;
    shown.push([italic(open ? `… ${n}: Open in the service shows ${more === 1 ? 'it' : 'them'}.` : `… ${n}, not shown here.`)]);
  } else if (!counted) {
    shown.push([italic(open ? '… the rest of it: Open in the service shows it.' : '… the rest of it is not shown here.')]);
  }
  return shown;
}

/** A step the service says is done: nothing is left to decide in it. */
function completed(d: ApprovalDetails): boolean {
  return d.completedDate !== '';
}

function statusLine(d: ApprovalDetails, frame: TimeFrame): Run[] {
  const dueTime = readServiceTime(d.dueDate, frame);
  const due = dueTime && readableTime(dueTime);
  if (completed(d)) {
    const done = readableTimestamp(d.completedDate, frame) ?? oneLine(d.completedDate, 40);
    const who: Run[] =
      d.completedByName === ''
        ? [` Completed on ${done} (the service does not say by whom)`]
        : [' ', oneLine(d.completedByName, 80), ` completed this step on ${done}`];
    return [emoji('checkered_flag'), ...who, due ? ` · it was due ${due}` : ''];
  }
  if (due === undefined) return [d.dueDate ? `Due ${oneLine(d.dueDate, 40)}` : 'Due date not given'];
  const rel = dueTime && standingText(dueTime, frame);
  const status: Run[] = [emoji(rel ? standingEmoji(rel) : 'large_blue_circle'), ` Due ${due}`];
  if (rel) status.push(' (', rel.overdue ? bold(rel.text) : rel.text, ')');
  return status;
}

/**
 * How the step stands, for an approver: a step still open is "waiting for your decision" where the
 * reader may decide it (its buttons, or its items, are theirs), "waiting for a decision" otherwise,
 * with the service's own word for it beside, as the service shows it ("Available"); a completed
 * step's word is its outcome (Accepted, Rejected), shown as the service gave it.
 */
function stepState(d: ApprovalDetails, offer: DecisionOffer['kind'] | undefined): Run[] {
  const word = d.state === '' ? [] : [oneLine(d.state, 60)];
  if (completed(d)) return word.length > 0 ? [' · ', ...word] : [];
  const whose = offer === 'actions' || offer === 'line-items' || offer === 'held' ? 'your' : 'a';
  return [' · ', italic(`waiting for ${whose} decision`), ...(word.length > 0 ? [' (the service says “', ...word, '”)'] : [])];
}

function summary(d: ApprovalDetails, frame: TimeFrame, offer?: DecisionOffer['kind']): Paragraph[] {
  const step: Run[] = [bold(oneLine(d.workItemName || 'Approval', 120)), ...stepState(d, offer)];
  const request: Run[] = ['Request'];
  if (d.requestId !== '') request.push(' ', code(oneLine(d.requestId, 40)));
  if (d.requestedByName !== '') request.push(' · requested by ', oneLine(d.requestedByName, 120));
  const paragraphs: Paragraph[] = [step, request, statusLine(d, frame), ['Approval id ', code(oneLine(d.workItemId, 120))], actionsLine(d)];
  if (d.lineItemApprovalEnabled === true)
    paragraphs.push([emoji('ballot_box_with_check'), ' Each item of this request is decided on its own.']);
  if (d.hasAttachments === true) paragraphs.push([emoji('paperclip'), ' The request has attachments: the service shows them.']);
  return paragraphs;
}

/** The transitions the service lists, as words: countersign does not decide, the service does. */
function actionsLine(d: ApprovalDetails): Paragraph {
  if (completed(d) && d.actions.length === 0) return ['This step is done: nothing is left to decide.'];
  if (d.actions.length === 0) return [italic('The service lists no actions for this step.')];
  const names: Run[] = [];
  d.actions.slice(0, 20).forEach((name, i) => {
    if (i > 0) names.push(i === d.actions.length - 1 ? ' or ' : ', ');
    names.push(bold(oneLine(name, 60)));
  });
  return ['In the service this step can end as ', ...names, '.'];
}

/** One request item as a sentence a person reads: "Add Wayne, Bruce to group Domain Admins (Active Directory)". */
export function describeItem(item: RequestItem): Run[] {
  const op = oneLine(item.operation.trim(), 30);
  const who = oneLine(item.userName || item.userId || item.accountName, 80);
  const what = [oneLine(item.entitlementType, 40), oneLine(item.entitlementName, 120)].filter((w) => w !== '').join(' ');
  const source = item.businessSource === '' ? [] : [' (', oneLine(item.businessSource, 60), ')'];
  const verb = op.toLowerCase();
  let sentence: Run[];
  if (op === '' && what === '')
    sentence = [oneLine(item.typeDescription || item.description || 'An item the service did not describe', 160)];
  else if (who === '') sentence = [op, op && what ? ' ' : '', what];
  else if (['add', 'grant', 'assign'].includes(verb)) sentence = [op, ' ', who, what ? ' to ' : '', what];
  else if (['remove', 'revoke', 'delete', 'unassign'].includes(verb)) sentence = [op, ' ', who, what ? ' from ' : '', what];
  else if (verb === 'create') sentence = [op, ' ', what || 'account', ' for ', who];
  else if (['modify', 'change', 'update'].includes(verb)) sentence = [op, ' ', what || 'account', ' of ', who];
  else sentence = [op || oneLine(item.typeDescription, 60), ' ', what, ' · ', who];
  return [...sentence, ...source];
}

/** `sharedState`: the state every item on the page is in, said once in the heading rather than on each. */
function itemParagraphs(item: RequestItem, sharedState: string | undefined): Paragraph[] {
  const about: Run[] = [];
  const add = (run: Run) => {
    if (about.length > 0) about.push(' · ');
    about.push(run);
  };
  if (item.state !== '' && item.state !== sharedState) add(italic(oneLine(item.state, 40)));
  // The service's DerivedType and IsChangeToApprove, in an approver's words.
  const derived = item.derivedType.trim().toLowerCase();
  if (derived === 'indirect') add('comes with another item of this request, not asked for on its own');
  else if (derived !== '' && derived !== 'direct') add(oneLine(item.derivedType, 30));
  if (item.isChangeToApprove === false) add('shown for your information: not yours to decide');
  if (item.description !== '') add(oneLine(item.description, 200));
  const first: Paragraph = ['• ', ...describeItem(item)];
  return about.length > 0 ? [first, ['   ', ...about]] : [first];
}

/** Items packed into rich text blocks within the character budget; at most `maxBlocks`, the rest said to be left out. */
function packItems(items: readonly RequestItem[], received: number, maxBlocks: number, sharedState: string | undefined): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let current: Paragraph[] = [];
  let shown = 0;
  for (const item of items) {
    const entry = itemParagraphs(item, sharedState);
    const next = [...current, ...entry];
    if (current.length > 0 && richLength(next) > LIMITS.richTextChars) {
      if (blocks.length + 1 >= maxBlocks) break;
      blocks.push(richText(current));
      current = entry;
    } else current = next;
    shown++;
  }
  if (current.length > 0) blocks.push(richText(current));
  if (shown < received) blocks.push(context(`${received - shown} more items on this page are left out: open the request in the service.`));
  return blocks;
}

/**
 * The size the service pages by: the one asked, unless it sent more than that (now or on an
 * earlier page, which the modal's state remembers). Such a page is shown whole (as much as the
 * modal holds, the rest said to be left out) and numbered by the service's size: cut to ours, the
 * rest of it would be skipped, and numbered by ours, its later pages would be misnamed. Next asks
 * for its next page. (A service that ignored start-page too would send its one page again.)
 */
function effectivePageSize(outcome: Extract<ItemsOutcome, { kind: 'page' }>, servicePageSize: number | undefined): number {
  return Math.max(outcome.pageSize, servicePageSize ?? 0, outcome.items.received);
}

/** The state to keep in the modal: what it learnt of the service's own page size. */
function learnt(state: DetailsState, items: ItemsOutcome): DetailsState {
  if (items.kind !== 'page') return state;
  const size = effectivePageSize(items, state.servicePageSize);
  return size > items.pageSize && size <= MAX_SERVICE_PAGE_SIZE ? { ...state, servicePageSize: size } : state;
}

/**
 * "1 item", "4 items" (the whole list), "items 11–20 of 26", "item 21 of 21", or "items 1–10, perhaps
 * more" where the service gives no total and the page is full: a page shorter than the service's page
 * size is the list's last, so its end is the total, but a full one may or may not be followed.
 */
function itemsCounted(first: number, received: number, pageSize: number, total: number | undefined): string {
  const last = first + received - 1;
  const all = total ?? (received < pageSize ? last : undefined);
  if (first === 1 && all === last) return `${last} item${last === 1 ? '' : 's'}`;
  const of = all === undefined ? ', perhaps more' : ` of ${all}`;
  return received === 1 ? `item ${first}${of}` : `items ${first}–${last}${of}`;
}

function itemsBlocks(outcome: ItemsOutcome, shownPage: number, servicePageSize: number | undefined): KnownBlock[] {
  switch (outcome.kind) {
    case 'not-offered':
      return [context('This Command Service does not offer the list of a request’s items, so they cannot be shown here.')];
    case 'not-permitted':
      return [
        context(
          'The Command Service does not let you list the request’s items: ask your identity team for that permission if you need it.',
        ),
      ];
    case 'failed':
      // Asking again brings the same answer, no smaller.
      if (isServiceError(outcome.error) && outcome.error.kind === 'unexpected-response' && outcome.error.tooLargeBytes !== undefined)
        return [context('The service’s list of the request’s items is too large to show here: open the request in the service.')];
      return [
        context('The request’s items could not be loaded just now.'),
        actions('details:items-retry', [button({ actionId: DETAILS_ACTIONS.retry, text: 'Try again', value: String(shownPage) })]),
      ];
    case 'page': {
      const { page } = outcome;
      const { items, received, total } = outcome.items;
      const pageSize = effectivePageSize(outcome, servicePageSize);
      const first = (page - 1) * pageSize + 1;
      const heading: Run[] = [bold('What the request asks for')];
      if (received > 0) heading.push(` · ${itemsCounted(first, received, pageSize, total)}`);
      const state = items[0]?.state ?? '';
      // "All" only of what was seen: the items of the answer not kept are not known.
      const sharedState =
        items.length > 1 && items.length === received && state !== '' && items.every((i) => i.state === state) ? state : undefined;
      if (sharedState !== undefined) heading.push(' · all ', italic(oneLine(sharedState, 40)));
      const blocks: KnownBlock[] = [richText([heading])];
      if (received === 0)
        blocks.push(
          context(page > 1 ? `No items on page ${page}: the list ends before it.` : 'The service lists no items for this request.'),
        );
      else blocks.push(...packItems(items, received, 40, sharedState));
      // A page past the last one the modal reads back would only answer that the control no longer works.
      const more = page < MAX_ITEMS_PAGE && (total === undefined ? received >= pageSize : first + received - 1 < total);
      // Only Next leads here, so past the end (Next from a full last page) the page before is the last one.
      const paging = [
        page > 1 ? button({ actionId: DETAILS_ACTIONS.previous, text: 'Previous page', value: String(page - 1) }) : undefined,
        more ? button({ actionId: DETAILS_ACTIONS.next, text: 'Next page', value: String(page + 1) }) : undefined,
      ];
      return [...blocks, ...buttonsBlock('details:paging', paging)];
    }
  }
}

function detailsBlocks(d: ApprovalDetails, items: ItemsOutcome, input: DetailsViewInput, open: Button | undefined): KnownBlock[] {
  // plain_text without emoji: a request named ":fire: urgent" shows those very characters.
  const title = plain(oneLine(d.requestName || '(unnamed request)', LIMITS.headerText), LIMITS.headerText);
  const offer = input.outcome.kind === 'details' ? input.outcome.decision?.kind : undefined;
  const blocks: KnownBlock[] = [{ type: 'header', text: title }, richText(summary(d, input.frame, offer))];
  if (d.description !== '') blocks.push(richText([[bold('Description')], ...lines(d.description, 2000, open !== undefined)]));
  if (d.notes !== '') blocks.push(richText([[bold('Notes')], ...lines(d.notes, 2000, open !== undefined)]));
  blocks.push(...itemsBlocks(items, input.state.page, input.state.servicePageSize));
  // With decisions in chat, a button per action the service lists, beside Open; without, Open alone, as before.
  const decision = input.outcome.kind === 'details' ? input.outcome.decision : undefined;
  blocks.push(...decisionButtons(decision ?? { kind: 'off' }, d, open, input.frame.now));
  // A completed step has nothing left to decide, and its actions line says so: below it, only a decision made from Slack.
  if (!completed(d) || decision?.kind === 'decided' || decision?.kind === 'held')
    blocks.push(decisionNote(decision, { id: input.userId, zone: input.frame.zone }, open !== undefined));
  return blocks;
}

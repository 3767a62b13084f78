/**
 * The Details controls on approvals (a button beside Open; one "Details of…" select on a packed
 * page), the action ids of the details modal, and what they carry: encoded here, decoded and
 * re-validated in parse/details.ts.
 */

import type { ActionsBlock, Button, StaticSelect } from '@slack/types';
import { DETAILS_SELECT_BLOCK, type DetailsOrigin, type DetailsState, type DetailsWire, isCarriableApprovalId } from '../parse/details.js';
import type { ApprovalQuery } from '../service/query.js';
import type { Approval } from '../service/schemas.js';
import { button, LIMITS, plain, QUOTE_OR_BACKSLASH, truncate } from './blocks.js';
import { oneLine } from './rich.js';

export const DETAILS_ACTIONS = {
  /** The Details button of an approval in a message, Home or a digest. */
  open: 'approval:details',
  /** "Details of…" on a page packed several approvals to a block. */
  select: 'approval:details-select',
  next: 'details:next',
  previous: 'details:previous',
  /** Issue the list again (the page in place, or Home) once an approval is gone. */
  refresh: 'details:refresh',
  /** The sign-in modal, pushed over this one; the details open underneath once linked. */
  relink: 'details:relink',
  retry: 'details:retry',
} as const;

function wire(approvalId: string, origin: DetailsOrigin): DetailsWire {
  switch (origin.kind) {
    case 'home':
      return { a: approvalId, o: 'h' };
    case 'digest':
      return { a: approvalId, o: 'd' };
    case 'typed':
      return { a: approvalId, o: 't' };
    case 'page':
      return {
        a: approvalId,
        o: 'p',
        ...(origin.owner === undefined ? {} : { u: origin.owner }),
        ...(origin.query === undefined ? {} : { q: origin.query }),
      };
  }
}

/**
 * What follows the approval id in a value, for the origin whole and bare: the same for every
 * approval of a page, so written once per page (origins are made per page). A page's Details
 * value is a JSON array, `[id, owner, query]` or `[id]`: the object form, which Home and the
 * digest keep, spells out its keys on each of a page's ten buttons (about 30 bytes each, escaped).
 */
const originTails = new WeakMap<DetailsOrigin, readonly string[]>();

function tailsOf(origin: DetailsOrigin): readonly string[] {
  let tails = originTails.get(origin);
  if (tails === undefined) {
    tails = tailsFor(origin);
    originTails.set(origin, tails);
  }
  return tails;
}

function tailsFor(origin: DetailsOrigin): readonly string[] {
  if (origin.kind === 'page')
    return origin.owner === undefined || origin.query === undefined
      ? [']']
      : [`,${JSON.stringify(origin.owner)},${JSON.stringify(origin.query)}]`, ']'];
  // wire() puts the id first: the rest of its JSON is the same whatever the id.
  return [JSON.stringify(wire('', origin)).slice('{"a":""'.length)];
}

/** A Details button's value; the page's query is left out when it would not fit (Refresh is then not offered). */
export function encodeDetailsValue(approvalId: string, origin: DetailsOrigin): string | undefined {
  const id = JSON.stringify(approvalId);
  const head = origin.kind === 'page' ? `[${id}` : `{"a":${id}`;
  for (const tail of tailsOf(origin)) {
    const text = `${head}${tail}`;
    if (text.length <= LIMITS.buttonValue) return text;
  }
  return undefined;
}

/**
 * A details state's wire forms, whole first, then giving up the page's query, then the
 * response_url, then all but the approval: for fitting it where room is short.
 */
export function detailsWires(state: DetailsState): DetailsWire[] {
  const bare: DetailsOrigin = state.origin.kind === 'page' ? { kind: 'page' } : state.origin;
  const url = state.responseUrl === undefined ? {} : { r: state.responseUrl };
  const paging = { p: state.page, ...(state.servicePageSize === undefined ? {} : { s: state.servicePageSize }) };
  return [
    { ...wire(state.approvalId, state.origin), ...paging, ...url },
    { ...wire(state.approvalId, bare), ...paging, ...url },
    { ...wire(state.approvalId, bare), ...paging },
    { a: state.approvalId, o: 't', p: 1 },
  ];
}

/** The modal's private_metadata: within Slack's 3,000 characters, giving up the page's query, then the response_url, if need be. */
export function encodeDetailsMetadata(state: DetailsState): string {
  const wires = detailsWires(state);
  for (const candidate of wires) {
    const text = JSON.stringify(candidate);
    if (text.length <= LIMITS.privateMetadata) return text;
  }
  return JSON.stringify(wires.at(-1));
}

/** The Details button of one approval. */
export function detailsButton(approval: Approval, origin: DetailsOrigin): Button | undefined {
  const value = isCarriableApprovalId(approval.workItemId) ? encodeDetailsValue(approval.workItemId, origin) : undefined;
  return value === undefined ? undefined : button({ actionId: DETAILS_ACTIONS.open, text: 'Details', value });
}

/** The Details button as JSON up to its value, from the builder itself, so that the two cannot drift. */
const DETAILS_BUTTON_HEAD = JSON.stringify(button({ actionId: DETAILS_ACTIONS.open, text: 'Details', value: '' })).slice(0, -'""}'.length);

/** detailsButton written as its JSON, for a page built in its final form. */
export function detailsButtonJson(approval: Approval, origin: DetailsOrigin): string | undefined {
  const value = isCarriableApprovalId(approval.workItemId) ? encodeDetailsValue(approval.workItemId, origin) : undefined;
  return value === undefined ? undefined : `${DETAILS_BUTTON_HEAD}${JSON.stringify(value)}}`;
}

/**
 * detailsButtonJson for each approval of one page (`[id, owner, query]` values), written onto the
 * end of the page's JSON: what follows the id in each value is the same for the whole page, so it
 * is escaped once, not per button. False, with nothing written, when the approval gets no button.
 */
export function detailsButtonWriter(owner: string, query: ApprovalQuery): (out: { json: string }, approval: Approval) => boolean {
  const origin: DetailsOrigin = { kind: 'page', owner, query };
  // Worked out here, not kept by origin as tailsOf does: a page's origin is made for it alone (and a WeakMap entry costs more than the tail).
  const tail = tailsFor(origin)[0] as string;
  // The value is a JSON array as a JSON string: the tail's quotes escaped, as JSON.stringify(value) would.
  const escapedTail = JSON.stringify(tail).slice(1, -1);
  return (out, approval) => {
    const id = approval.workItemId;
    if (!isCarriableApprovalId(id)) return false;
    // An id a Details control carries has no control character or surrogate; one with a quote or a
    // backslash, or a value past a button's room ('[' and the id's quotes besides), goes the general way.
    if (QUOTE_OR_BACKSLASH.test(id) || id.length + 3 + tail.length > LIMITS.buttonValue) {
      const json = detailsButtonJson(approval, origin);
      if (json !== undefined) out.json += json;
      return json !== undefined;
    }
    out.json += `${DETAILS_BUTTON_HEAD}"[\\"${id}\\"${escapedTail}"}`;
    return true;
  };
}

/** An option's value holds 150 characters; an approval whose id is longer cannot be chosen there. */
const OPTION_VALUE = 150;
const OPTION_TEXT = 75;

/**
 * "Details of…": one select for a page whose approvals are packed several to a block. The asker
 * and the query ride in the block id, when they fit its 255 characters, so that Refresh can issue
 * the page again.
 */
export function detailsSelect(approvals: readonly Approval[], owner: string, query: ApprovalQuery): ActionsBlock | undefined {
  const seen = new Set<string>();
  const options: StaticSelect['options'] = [];
  for (const a of approvals) {
    if (!isCarriableApprovalId(a.workItemId) || a.workItemId.length > OPTION_VALUE || seen.has(a.workItemId)) continue;
    seen.add(a.workItemId);
    const label = `${oneLine(a.requestName || '(unnamed request)', 50)} · ${oneLine(a.workItemId, 40)}`;
    options.push({ text: plain(truncate(label, OPTION_TEXT), OPTION_TEXT), value: a.workItemId });
  }
  if (options.length === 0) return undefined;
  const carried = `${DETAILS_SELECT_BLOCK}|${JSON.stringify({ u: owner, q: query })}`;
  const select: StaticSelect = {
    type: 'static_select',
    action_id: DETAILS_ACTIONS.select,
    placeholder: plain('Details of…', 150),
    options: options.slice(0, 100),
  };
  return { type: 'actions', block_id: carried.length <= LIMITS.blockId ? carried : DETAILS_SELECT_BLOCK, elements: [select] };
}

/** Whether the approval was on a list of this reader's (so existed for them), rather than typed or on someone else's. */
export function shownBefore(state: DetailsState, userId: string): boolean {
  const origin = state.origin;
  if (origin.kind === 'typed') return false;
  return origin.kind !== 'page' || origin.owner === undefined || origin.owner === userId;
}

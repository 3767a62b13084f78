/**
 * What a Details control and the details modal carry back: the approval, where the click came
 * from (so that "Refresh" knows what to refresh), the page of request items shown, and the
 * response_url of the message it came from. All of it travels through Slack and comes back as the
 * user's input, so each is read defensively and a page's query is re-validated exactly as if typed.
 */

import { APPROVAL_ID_SHAPE, type ApprovalQuery, approvalIdSchema, unsafeCharacter } from '../service/query.js';
import { revalidateApprovalQuery } from './approvals.js';

/** Where a Details control was: what Refresh means once the approval is no longer there. */
export type DetailsOrigin =
  /** An /approvals page; with the asker and their query, Refresh issues the page again in place. */
  | { kind: 'page'; owner?: string | undefined; query?: ApprovalQuery | undefined }
  | { kind: 'home' }
  | { kind: 'digest' }
  /** `/approvals show <id>`: no list to refresh. */
  | { kind: 'typed' };

export interface DetailsRequest {
  approvalId: string;
  origin: DetailsOrigin;
}

/** The details modal's state, kept in its private_metadata. */
export interface DetailsState extends DetailsRequest {
  /** The page of request items shown, from 1. */
  page: number;
  /** The response_url of the message whose Details was clicked: Refresh answers there. */
  responseUrl?: string | undefined;
  /**
   * How many items the service puts on a page when it ignores the page-size asked (seen once it
   * sent more): later pages are numbered by it, so that a short last page is not misnumbered.
   */
  servicePageSize?: number | undefined;
}

/** Wire form, kept short: a button value holds 2,000 characters and private_metadata 3,000. */
export interface DetailsWire {
  a: string;
  o: 'p' | 'h' | 'd' | 't';
  u?: string;
  q?: ApprovalQuery;
  p?: number;
  r?: string;
  s?: number;
}

/** The most pages of items anyone pages through; more did not come from us. */
export const MAX_ITEMS_PAGE = 10_000;

/** A page of items as a Next, Previous or Try again button carries it: 1 to MAX_ITEMS_PAGE. */
export function parseDetailsPage(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,5}$/.test(value)) return undefined;
  const page = Number(value);
  return page >= 1 && page <= MAX_ITEMS_PAGE ? page : undefined;
}

/** The largest page of items a service is believed to use of its own accord; more did not come from us. */
export const MAX_SERVICE_PAGE_SIZE = 10_000;

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
/** Slack's response_url; any other URL in a modal's metadata did not come from Slack. */
const RESPONSE_URL = /^https?:\/\/[^\s]{1,1000}$/;

/** An approval id as typed or carried: the service's shape, `<number>:<text>:<number>`. */
export function parseApprovalId(text: string): string | undefined {
  const trimmed = text.trim().replace(/^`+|`+$/g, '');
  return approvalIdSchema.safeParse(trimmed).success ? trimmed : undefined;
}

/**
 * Whether a Details control may carry this id: the decoder will take it back exactly. A control
 * offered for any other id would only ever answer that it no longer works.
 */
export function isCarriableApprovalId(id: string): boolean {
  // parseApprovalId(id) === id, without zod for every approval shown: an id of the shape starts and
  // ends with a digit, so trimming spaces and backticks leaves it as it is.
  return APPROVAL_ID_SHAPE.test(id) && unsafeCharacter(id) === undefined;
}

function json(text: string | undefined, max: number): unknown {
  if (text === undefined || text.length > max) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function originOf(wire: Partial<Record<keyof DetailsWire, unknown>>): DetailsOrigin | undefined {
  switch (wire.o) {
    case 'h':
      return { kind: 'home' };
    case 'd':
      return { kind: 'digest' };
    case 't':
      return { kind: 'typed' };
    case 'p': {
      const owner = typeof wire.u === 'string' && USER_ID.test(wire.u) ? wire.u : undefined;
      const query = wire.q === undefined ? undefined : revalidateApprovalQuery(wire.q);
      // A query that would not pass as typed is not refreshed; the rest of the click still works.
      return owner !== undefined && query !== undefined ? { kind: 'page', owner, query } : { kind: 'page' };
    }
    default:
      return undefined;
  }
}

export function decodeDetailsWire(value: unknown): DetailsState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const wire = value as Partial<Record<keyof DetailsWire, unknown>>;
  const approvalId = typeof wire.a === 'string' ? parseApprovalId(wire.a) : undefined;
  const origin = originOf(wire);
  if (approvalId === undefined || origin === undefined) return undefined;
  const page = wire.p === undefined ? 1 : wire.p;
  if (typeof page !== 'number' || !Number.isInteger(page) || page < 1 || page > MAX_ITEMS_PAGE) return undefined;
  const responseUrl = typeof wire.r === 'string' && RESPONSE_URL.test(wire.r) ? wire.r : undefined;
  const size = wire.s;
  // Only ever a hint for numbering: one that cannot be read is dropped, not the click.
  const servicePageSize =
    typeof size === 'number' && Number.isInteger(size) && size >= 1 && size <= MAX_SERVICE_PAGE_SIZE ? size : undefined;
  return { approvalId, origin, page, responseUrl, ...(servicePageSize === undefined ? {} : { servicePageSize }) };
}

/** A DetailsState carried whole (in the sign-in modal's replay), read as strictly as its wire form. */
export function decodeDetailsState(value: unknown): DetailsState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as {
    approvalId?: unknown;
    origin?: { kind?: unknown; owner?: unknown; query?: unknown };
    page?: unknown;
    responseUrl?: unknown;
    servicePageSize?: unknown;
  };
  const kinds: Record<string, DetailsWire['o']> = { page: 'p', home: 'h', digest: 'd', typed: 't' };
  const o = typeof v.origin?.kind === 'string' ? kinds[v.origin.kind] : undefined;
  return decodeDetailsWire({
    a: v.approvalId,
    o,
    u: v.origin?.owner,
    q: v.origin?.query,
    p: v.page,
    r: v.responseUrl,
    s: v.servicePageSize,
  });
}

/**
 * A Details button's value: on a page, `[id, owner, query]` or `[id]`; elsewhere, and on pages
 * posted before the array form, the wire object, still read.
 */
export function decodeDetailsButton(value: string | undefined): DetailsRequest | undefined {
  const parsed = json(value, 2000);
  const wire = Array.isArray(parsed)
    ? parsed.length === 1 || parsed.length === 3
      ? { a: parsed[0], o: 'p', u: parsed[1], q: parsed[2] }
      : undefined
    : parsed;
  const state = decodeDetailsWire(wire);
  return state === undefined ? undefined : { approvalId: state.approvalId, origin: state.origin };
}

/** The details modal's private_metadata. */
export function decodeDetailsMetadata(text: string | undefined): DetailsState | undefined {
  return decodeDetailsWire(json(text, 3000));
}

/** Block id of the "Details of…" select on a packed page: the page's asker and query ride there, when they fit. */
export const DETAILS_SELECT_BLOCK = 'details';

/**
 * A choice in the "Details of…" select: the option's value is the approval id (an option holds
 * 150 characters), and the block id may carry the page's asker and query after a `|`.
 */
export function decodeDetailsSelect(blockId: string | undefined, optionValue: string | undefined): DetailsRequest | undefined {
  const approvalId = optionValue === undefined ? undefined : parseApprovalId(optionValue);
  if (approvalId === undefined) return undefined;
  const bar = blockId?.indexOf('|') ?? -1;
  const page = bar < 0 ? undefined : json(blockId?.slice(bar + 1), 255);
  const origin = typeof page === 'object' && page !== null ? originOf({ ...(page as object), o: 'p' }) : undefined;
  return { approvalId, origin: origin ?? { kind: 'page' } };
}

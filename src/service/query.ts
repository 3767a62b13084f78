/**
 * The parameters this app may send, exactly as the spec names them, checked before anything goes
 * on the wire: the client is strict in what it sends, so a bug upstream shows as a clear local
 * error instead of an odd answer from a production service.
 */

import { z } from 'zod';
import type { CollectQuery } from '../domain/index.js';

export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;

const DATE_SHAPE = /^(\d{2})-([a-z]{3})-(\d{4})$/;

/** dd-mmm-yyyy with a lower-case month, and a day that exists in that month. */
export function isServiceDate(value: string): boolean {
  const m = DATE_SHAPE.exec(value);
  if (!m) return false;
  const month = MONTHS.indexOf(m[2] as (typeof MONTHS)[number]);
  if (month < 0) return false;
  const day = Number(m[1]);
  const year = Number(m[3]);
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return day >= 1 && day <= daysInMonth;
}

export const serviceDate = z.string().refine(isServiceDate, 'a date such as 31-jan-2026 (dd-mmm-yyyy, lower-case month)');

/** Half of a surrogate pair alone: no UTF-8, URL or XML can carry it. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Characters that never belong in a value and can disguise one wherever it is shown again (a
 * channel, a terminal running `countersign audit`): C0 and C1 controls (U+0085 breaks a line,
 * U+009B opens a terminal escape), DEL, the line and paragraph separators, and the bidirectional
 * marks, embeddings, overrides and isolates that reorder text on screen. Also what XML 1.0 cannot
 * carry at all (a decision's body may be XML): half of a surrogate pair alone, U+FFFE and U+FFFF.
 */
const UNSAFE_CHARACTER = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffe\\uffff]|${LONE_SURROGATE.source}`,
);

/** Every such character, for replacing them when printing a stored value. */
export const UNSAFE_CHARACTERS = new RegExp(UNSAFE_CHARACTER.source, 'g');

/** The first such character in the text, named for a person ("a control character (U+0085)"); undefined when none. */
export function unsafeCharacter(text: string): string | undefined {
  const found = UNSAFE_CHARACTER.exec(text)?.[0];
  if (found === undefined) return undefined;
  const code = found.codePointAt(0) as number;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code < 0xa0) return `a control character (${hex})`;
  if (code === 0x2028 || code === 0x2029) return `a line separator (${hex})`;
  if (code >= 0xd800 && code <= 0xdfff) return `half of a character that lost its other half (${hex}), which cannot be sent`;
  if (code === 0xfffe || code === 0xffff) return `a character that is not one (${hex}), which cannot be sent`;
  return `a bidirectional formatting character (${hex}), which can make text read differently from what it is`;
}

/**
 * A character that shows as a mark of its own: a letter, mark, number, punctuation or symbol that
 * Unicode does not say to ignore (the Hangul fillers are letters that draw nothing, a variation
 * selector is a mark that draws nothing).
 */
const SHOWN = String.raw`(?:(?!\p{Default_Ignorable_Code_Point})[\p{L}\p{M}\p{N}\p{P}\p{S}])`;

/**
 * The invisible characters text legitimately holds, each only where it does its work: a joiner
 * (U+200D, U+200C) between two characters that show (the emoji of a person at a laptop is three
 * characters joined so; Persian and Indic words need them), one variation selector right after a
 * character that shows (a red heart is U+2764 U+FE0F), and the tags of a subdivision flag (U+1F3F4,
 * two to seven tag letters or digits, U+E007F: Scotland's is gbsct). Anywhere else they only hide
 * something: a run of selectors or joiners, or tags after ordinary text, can carry a whole message
 * that nobody sees.
 */
const IN_PLACE = String.raw`\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,7}\u{E007F}|(?<=${SHOWN}|\p{Variation_Selector})[\u200C\u200D](?=${SHOWN})|(?<=${SHOWN})\p{Variation_Selector}`;

/**
 * Unicode's format characters (Cf) and the code points it says to ignore when drawing
 * (Default_Ignorable_Code_Point: zero-width spaces, U+2060, U+00AD, U+034F, U+FEFF, the Hangul
 * fillers, variation selectors, the tag block U+E0000–U+E0FFF…), but the prepended concatenation
 * marks (U+0600–U+0605 and their kind), which are format characters that show.
 */
const INVISIBLE = String.raw`(?![\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\u{110BD}\u{110CD}])[\p{Cf}\p{Default_Ignorable_Code_Point}]`;

/** Each invisible character out of place (group 2); an invisible one in its place is group 1, and stays. */
export const INVISIBLE_OUT_OF_PLACE = new RegExp(`(${IN_PLACE})|(${INVISIBLE})`, 'gu');

/** Whether the text may hold an invisible character at all: most text holds none, and is looked at no further. */
export const MAYBE_INVISIBLE = new RegExp(INVISIBLE, 'u');

function hexOf(c: string): string {
  return `U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The first invisible character out of place in the text, named for a person ("an invisible
 * character (U+200B), which does not show"); undefined when none. Controls and bidirectional marks
 * are unsafeCharacter's to name.
 */
export function invisibleCharacter(text: string): string | undefined {
  if (!MAYBE_INVISIBLE.test(text)) return undefined;
  INVISIBLE_OUT_OF_PLACE.lastIndex = 0;
  for (const m of text.matchAll(INVISIBLE_OUT_OF_PLACE)) {
    const c = m[2];
    if (c === undefined) continue;
    const code = c.codePointAt(0) as number;
    const hex = hexOf(c);
    if (code >= 0xe0000 && code <= 0xe0fff) return `a tag character (${hex}), which does not show and can carry hidden text`;
    if (/\p{Variation_Selector}/u.test(c))
      return `a variation selector (${hex}) that varies no character, which does not show and can carry hidden text`;
    if (c === '\u200d') return `a joiner (${hex}) that joins no two characters, which does not show`;
    if (c === '\u200c') return `a non-joiner (${hex}) between no two characters, which does not show`;
    return `an invisible character (${hex}), which does not show`;
  }
  return undefined;
}

/**
 * Whether the text has something a reader sees: one character that shows, other than the blank
 * Braille pattern (U+2800), which is a symbol drawn as nothing. Spaces, invisible characters and
 * marks with nothing to sit on are not words.
 */
export function hasVisibleText(text: string): boolean {
  return VISIBLE_TEXT.test(text);
}

const VISIBLE_TEXT = /(?![\u2800\p{Default_Ignorable_Code_Point}])[\p{L}\p{N}\p{P}\p{S}]/u;

/** Free text the service matches; control and bidirectional formatting characters never belong in it. */
const freeText = z
  .string()
  .min(1)
  .max(256)
  .refine((v) => unsafeCharacter(v) === undefined, 'no control or bidirectional formatting characters');

/** A user's id in the service (the name they sign in with): sent as auth-user-id for a trusted application's token. */
export const serviceUserIdSchema = freeText;

const positiveInt = z.number().int().min(1).max(1_000_000);

/** findApprovals' own page size when page-size is not sent (the contract's default). */
export const SERVICE_DEFAULT_PAGE_SIZE = 20;

export const APPROVAL_STATES = ['pending', 'completed', 'all'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;

export const approvalQuerySchema = z.strictObject({
  'approval-id': freeText.optional(),
  'business-source': freeText.optional(),
  'completed-after': serviceDate.optional(),
  'completed-before': serviceDate.optional(),
  'due-after': serviceDate.optional(),
  'due-before': serviceDate.optional(),
  'entitlement-name': freeText.optional(),
  'entitlement-type': freeText.optional(),
  'page-size': positiveInt.optional(),
  'requested-after': serviceDate.optional(),
  'requested-before': serviceDate.optional(),
  sort: z.enum(SORT_ORDERS).optional(),
  'start-page': positiveInt.optional(),
  state: z.enum(APPROVAL_STATES).optional(),
  'user-first-name': freeText.optional(),
  'user-id': freeText.optional(),
  'user-last-name': freeText.optional(),
});

export type ApprovalQuery = z.infer<typeof approvalQuerySchema>;
export type ApprovalParameter = keyof ApprovalQuery;
export const APPROVAL_PARAMETERS = Object.keys(approvalQuerySchema.shape) as ApprovalParameter[];

export const collectQuerySchema = z.strictObject({
  name: freeText.optional(),
  application: freeText.optional(),
  force: z.boolean().optional(),
});

// The type lives below the store and the client, which both speak of it; the schema must say exactly it.
export type { CollectQuery };

collectQuerySchema satisfies z.ZodType<CollectQuery, CollectQuery>;

/**
 * A work item id as the service shapes it, `<number>:<text>:<number>` (20512:WPDS:1): what
 * getApprovalDetails and getRequestItems take as approval-id. The contract says nothing of what
 * the text may hold, so it may hold spaces and colons inside (it is only ever sent percent-encoded
 * and shown as inert text); not at its ends, where a copied id's stray space or colon would be,
 * nor control or bidirectional characters (below). 64 characters keep an id within a select
 * option's 150.
 */
export const APPROVAL_ID_SHAPE = /^\d{1,19}:[^\s:](?:.{0,62}[^\s:])?:\d{1,19}$/;

export const approvalIdSchema = z
  .string()
  .regex(APPROVAL_ID_SHAPE, 'an approval id such as 10198:WPDS:1')
  .refine((v) => unsafeCharacter(v) === undefined, 'no control or bidirectional formatting characters');

/** RequestId: a whole number, sent as written. */
export const requestIdSchema = z.union([
  z.string().regex(/^\d{1,19}$/, 'a request id such as 20512'),
  z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .transform((n) => String(n)),
]);

/** Whose items: the request behind an approval, or a request by its id. */
export const requestItemsSelectorSchema = z.union([
  z.strictObject({ approvalId: approvalIdSchema }),
  z.strictObject({ requestId: requestIdSchema }),
]);

export type RequestItemsSelector = { approvalId: string } | { requestId: string | number };

/** page-size and start-page of getRequestItems; the service's bounds are not documented, these are the reference service's. */
export const requestItemsPageSchema = z.strictObject({
  pageSize: z.number().int().min(1).max(1000),
  startPage: positiveInt,
});

export type RequestItemsPageQuery = z.infer<typeof requestItemsPageSchema>;

/** The longest comment sent with a decision: a paragraph or two, within any service's field. */
export const MAX_COMMENT_CHARS = 2000;

/**
 * What an approver wrote: line breaks and tabs are text; other control and bidirectional
 * characters never belong in it, nor invisible ones out of their place (they hide text in the
 * service's record and in the audit trail).
 */
export const commentSchema = z
  .string()
  .max(MAX_COMMENT_CHARS)
  .refine((v) => unsafeCharacter(v.replace(/[\n\t]/g, ' ')) === undefined, 'no control or bidirectional formatting characters')
  .refine((v) => invisibleCharacter(v) === undefined, 'no invisible characters out of their place');

/** A decision's values, checked before any goes into the operator's call. */
export const decisionValuesSchema = z.strictObject({
  id: approvalIdSchema,
  action: freeText,
  comment: commentSchema,
});

/**
 * The query string, percent-encoded by hand: URLSearchParams writes a space as "+", which not
 * every servlet container reads back as a space, while %20 is read the same everywhere.
 */
export function buildQueryString(params: ReadonlyArray<readonly [string, string]>): string {
  return params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}

/**
 * Slack's limits as named constants, mrkdwn escaping, and the few builders every message uses.
 * Everything here is pure: data in, Block Kit out.
 */

import type { ActionsBlock, Button, ContextBlock, HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';
import { INVISIBLE_OUT_OF_PLACE, MAYBE_INVISIBLE } from '../service/query.js';

/** The service's own page for an approval (APPROVAL_URL_TEMPLATE), when there is one: an Open button's link. */
export type ApprovalLinks = (workItemId: string) => string | undefined;

/** Slack's documented Block Kit limits, and a few of our own (marked), in one place for renderers and the validator. */
export const LIMITS = Object.freeze({
  blocksPerMessage: 50,
  blocksPerView: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  viewTitle: 24,
  viewButton: 24,
  callbackId: 255,
  privateMetadata: 3000,
  inputLabel: 2000,
  inputHint: 2000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  /** Ours: Slack documents no figure for a rich_text block; a section's is a safe one to keep to. */
  richTextChars: 3000,
  /** Ours: Slack truncates the top-level text far beyond this; a notification needs much less. */
  fallbackText: 3000,
});

export interface Message {
  /** Plain fallback for notifications and screen readers; also escaped, since Slack parses it. */
  text: string;
  blocks: KnownBlock[];
}

/**
 * Characters that would act on the text around them rather than show: C0 and C1 controls (line
 * breaks and tabs aside), DEL, the line and paragraph separators, and the bidirectional marks,
 * embeddings, overrides and isolates ("Invoice U+202E gpj.exe" reads "Invoice exe.jpg"). User input
 * with them is refused; text from the service cannot be, so it is shown with each one as a visible mark.
 */
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'g');

/** What JSON escapes in text that has no control character and no surrogate: such text is quoted as it is when it has none. */
export const QUOTE_OR_BACKSLASH = /["\\]/;

/**
 * Anything but the characters that never hide, act or vanish: printable ASCII and Latin-1 (the
 * soft hyphen aside) and the punctuation of our own words (– — ‘ ’ “ ” …). Text with none of it,
 * nearly all, is shown as it is without the longer looks (HIDDEN, and query.ts's invisible
 * characters, a Unicode-property pattern that cost twice as much on every line of a page).
 */
export const NOT_PLAIN = /[^\u0020-\u007e\u00a0-\u00ac\u00ae-\u00ff\u2013\u2014\u2018\u2019\u201c\u201d\u2026]/;

const mark = (c: string) => `[U+${(c.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}]`;

/**
 * The text with each hidden character written as a mark, `[U+202E]`; the text itself when it has
 * none (most). Invisible characters out of their place (query.ts: U+200B, tag characters that
 * spell words nobody sees, a run of variation selectors…) are marks too; those doing their work
 * where they stand (the joiners of an emoji or a Persian word, an emoji's selector, a flag's tags)
 * are left to do it.
 */
export function revealHidden(text: string): string {
  if (!NOT_PLAIN.test(text)) return text;
  const shown = HIDDEN.test(text) ? text.replace(HIDDEN_ALL, mark) : text;
  if (!MAYBE_INVISIBLE.test(shown)) return shown;
  return shown.replace(INVISIBLE_OUT_OF_PLACE, (all, inPlace: string | undefined) => (inPlace === undefined ? mark(all) : all));
}

/** Makes any text inert in mrkdwn: no pings (<!channel>), no links, no entity tricks. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Cuts text to `max` characters (counting the ellipsis) as Slack counts them, in UTF-16 units (an
 * emoji outside the Basic Multilingual Plane is two), and only between what draws as one character:
 * never inside a surrogate pair, a flag, or a sequence joined by zero-width joiners or modifiers.
 * Only the first `max` units and one more character are ever looked at, however long the text.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, cutAt(text, Math.max(0, max - 1)))}…`;
}

/** Printable ASCII: nothing joins onto it, and it joins onto nothing. */
function isPlainAscii(unit: number): boolean {
  return unit >= 0x20 && unit <= 0x7e;
}

/** The last boundary between graphemes at or before `room`. */
function cutAt(text: string, room: number): number {
  if (room === 0) return 0;
  // Between two printable ASCII characters there is always one: most text is cut there at once.
  if (isPlainAscii(text.charCodeAt(room - 1)) && isPlainAscii(text.charCodeAt(room))) return room;
  // Otherwise the graphemes are read from the last such place shortly before the cut, and only up
  // to one code point past it, on which whether `room` is a boundary depends.
  let from = -1;
  for (let k = room - 1; k > 0 && k >= room - 64; k--)
    if (isPlainAscii(text.charCodeAt(k - 1)) && isPlainAscii(text.charCodeAt(k))) {
      from = k;
      break;
    }
  // Text without such a place (emoji, most scripts) is read from a little before the cut: a
  // grapheme depends only on its neighbours, but for the flags, whose letters pair up from the
  // start of their run, counted back to it.
  if (from < 0) from = room <= 256 ? 0 : flagAligned(text, room - 256);
  let end = from;
  for (const { index, segment } of graphemes.segment(text.slice(from, room + 2))) {
    if (from + index + segment.length > room) break;
    end = from + index + segment.length;
  }
  // A single cluster longer than the room (a letter under hundreds of marks): cut it, but not inside a pair.
  if (end === 0) return isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
  return end;
}

/** `at`, or the one before it, so as not to start inside a pair of surrogates or of regional indicators (a flag). */
function flagAligned(text: string, at: number): number {
  let from = at >= 1 && isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
  // A plain loop back over the run, never past the cut: cheap beside segmenting it.
  let before = 0;
  while (from - 2 * (before + 1) >= 0 && isRegionalIndicator(text.codePointAt(from - 2 * (before + 1)))) before++;
  if (before % 2 === 1) from -= 2;
  return from;
}

function isRegionalIndicator(code: number | undefined): boolean {
  return code !== undefined && code >= 0x1f1e6 && code <= 0x1f1ff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * Text on one line (line breaks and tabs made a space), cut to `max`. Only the first few times
 * `max` of it is read, however long it is: a text that goes on past that is cut there, with the ellipsis.
 */
export function singleLine(text: string, max: number): string {
  const readAtMost = max * 4 + 8;
  if (text.length <= readAtMost) return truncate(text.replace(/[\r\n\t]+/g, ' '), max);
  let head = text.slice(0, readAtMost);
  if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  return truncate(`${head.replace(/[\r\n\t]+/g, ' ')}…`, max);
}

/** Truncates, then escapes: escaping can lengthen text, so callers budget for the escaped form. */
export function inert(text: string, max: number): string {
  return escapeMrkdwn(singleLine(revealHidden(text), max));
}

/** Inline code that cannot be broken out of: backticks inside would end the span. */
export function code(text: string, max = 80): string {
  return `\`${inert(text, max).replace(/`/g, "'")}\``;
}

/**
 * Our own words as a label (a button, a header), with emoji codes drawn. `emoji` only matters
 * where there is a `:code:` to draw: elsewhere it is left out, a dozen bytes on every button.
 */
function label(text: string, max: number): { type: 'plain_text'; text: string; emoji?: true } {
  const shown = truncate(revealHidden(text), max);
  return shown.includes(':') ? { type: 'plain_text', text: shown, emoji: true } : { type: 'plain_text', text: shown };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: label(text, LIMITS.headerText) };
}

/**
 * Our own words as mrkdwn. `verbatim`: Slack turns nothing into a link or a ping by itself; the
 * mentions and links we mean are written out (`<@U…>`). Text from the service or a user does not
 * go here: it goes into rich text (rich.ts) or plain_text, where it is shown exactly.
 */
export function section(mrkdwn: string, accessory?: Button): SectionBlock {
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(mrkdwn, LIMITS.sectionText), verbatim: true },
    ...(accessory ? { accessory } : {}),
  };
}

/** Plain text for Slack: shown exactly, never formatted; emoji codes stay words. */
export function plain(text: string, max: number): { type: 'plain_text'; text: string; emoji: false } {
  return { type: 'plain_text', text: truncate(text === '' ? ' ' : revealHidden(text), max), emoji: false };
}

/** A button that opens a page: Slack opens the URL and also sends the click, which must be acked. */
export function linkButton(options: { actionId: string; text: string; url: string }): Button {
  if (options.url.length > LIMITS.buttonUrl)
    throw new RangeError(`button url of ${options.url.length} characters is over Slack's ${LIMITS.buttonUrl}`);
  return {
    type: 'button',
    action_id: options.actionId,
    text: label(options.text, LIMITS.buttonText),
    url: options.url,
  };
}

export function context(...mrkdwn: string[]): ContextBlock {
  return {
    type: 'context',
    elements: mrkdwn
      .slice(0, LIMITS.contextElements)
      .map((text) => ({ type: 'mrkdwn' as const, text: truncate(text, LIMITS.sectionText), verbatim: true })),
  };
}

/** A context line holding text from the service or a user: plain, so that it shows exactly. */
export function plainContext(text: string): ContextBlock {
  return { type: 'context', elements: [plain(text, LIMITS.sectionText)] };
}

export interface ConfirmDialog {
  title: string;
  text: string;
  confirm: string;
  deny: string;
}

export function button(options: {
  actionId: string;
  text: string;
  value?: string;
  style?: 'primary' | 'danger';
  /** Slack asks "are you sure?" before the click is sent. */
  confirm?: ConfirmDialog;
}): Button {
  if (options.value !== undefined && options.value.length > LIMITS.buttonValue) {
    throw new RangeError(`button value of ${options.value.length} characters is over Slack's ${LIMITS.buttonValue}`);
  }
  return {
    type: 'button',
    action_id: options.actionId,
    text: label(options.text, LIMITS.buttonText),
    ...(options.value === undefined ? {} : { value: options.value }),
    ...(options.style === undefined ? {} : { style: options.style }),
    ...(options.confirm === undefined
      ? {}
      : {
          confirm: {
            title: { type: 'plain_text' as const, text: truncate(options.confirm.title, 100) },
            text: { type: 'plain_text' as const, text: truncate(options.confirm.text, 300) },
            confirm: { type: 'plain_text' as const, text: truncate(options.confirm.confirm, 30) },
            deny: { type: 'plain_text' as const, text: truncate(options.confirm.deny, 30) },
            ...(options.style === 'danger' ? { style: 'danger' as const } : {}),
          },
        }),
  };
}

export function actions(blockId: string, elements: Button[]): ActionsBlock {
  return { type: 'actions', block_id: blockId, elements };
}

export function fallback(text: string): string {
  return escapeMrkdwn(truncate(revealHidden(text), LIMITS.fallbackText));
}

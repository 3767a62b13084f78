/**
 * Slack's limits as named constants, mrkdwn escaping, and the few builders every message uses.
 * Everything here is pure: data in, Block Kit out.
 */

import type { ActionsBlock, Button, ContextBlock, HeaderBlock, KnownBlock, SectionBlock } from '@slack/types';

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
  const room = Math.max(0, max - 1);
  let end = 0;
  // Whether `room` is a boundary depends on what comes before it and on the one code point after
  // it (up to two units), all within the window.
  for (const { index, segment } of graphemes.segment(text.slice(0, room + 2))) {
    if (index + segment.length > room) break;
    end = index + segment.length;
  }
  // A single cluster longer than the room (a letter under hundreds of marks): cut it, but not inside a pair.
  if (end === 0 && room > 0) end = isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
  return `${text.slice(0, end)}…`;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Truncates, then escapes: escaping can lengthen text, so callers budget for the escaped form. */
export function inert(text: string, max: number): string {
  return escapeMrkdwn(truncate(text.replace(/[\r\n\t]+/g, ' '), max));
}

/** Inline code that cannot be broken out of: backticks inside would end the span. */
export function code(text: string, max = 80): string {
  return `\`${inert(text, max).replace(/`/g, "'")}\``;
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: { type: 'plain_text', text: truncate(text, LIMITS.headerText), emoji: true } };
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
  return { type: 'plain_text', text: truncate(text === '' ? ' ' : text, max), emoji: false };
}

/** A button that opens a page: Slack opens the URL and also sends the click, which must be acked. */
export function linkButton(options: { actionId: string; text: string; url: string }): Button {
  if (options.url.length > LIMITS.buttonUrl)
    throw new RangeError(`button url of ${options.url.length} characters is over Slack's ${LIMITS.buttonUrl}`);
  return {
    type: 'button',
    action_id: options.actionId,
    text: { type: 'plain_text', text: truncate(options.text, LIMITS.buttonText), emoji: true },
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
    text: { type: 'plain_text', text: truncate(options.text, LIMITS.buttonText), emoji: true },
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
  return escapeMrkdwn(truncate(text, LIMITS.fallbackText));
}

/**
 * Text that came from the service or a user, shown exactly as given. Slack's mrkdwn has no escape
 * for `*`, `_`, `~` or a backtick, and without `verbatim` it turns bare URLs, #channels and @here
 * into links and pings; rich_text `text` elements are taken literally, so that is where such text
 * goes, with our own emphasis, emoji, mentions and dates as elements of their own. The fallback
 * text (notifications, screen readers) is derived from the same runs, so the two say the same.
 */

import type { KnownBlock, RichTextBlock, RichTextElement, RichTextSection } from '@slack/types';
import { escapeMrkdwn, LIMITS, type Message, revealHidden, singleLine, truncate } from './blocks.js';

export interface Style {
  bold?: true;
  italic?: true;
  code?: true;
  strike?: true;
}

/** One piece of a paragraph. A bare string is our own words or someone else's: either way it is shown as is. */
export type Run =
  | string
  | { text: string; style: Style }
  | { emoji: string }
  | { user: string }
  | { channel: string }
  | { usergroup: string }
  | { link: string; text: string }
  /** A time each reader sees in their own zone; `fallback` where a client cannot. */
  | { date: Date; format: string; fallback: string };

export type Paragraph = readonly Run[];

export const bold = (text: string): Run => ({ text, style: { bold: true } });
export const italic = (text: string): Run => ({ text, style: { italic: true } });
export const code = (text: string): Run => ({ text, style: { code: true } });
export const emoji = (name: string): Run => ({ emoji: name });
export const user = (id: string): Run => ({ user: id });
export const channel = (id: string): Run => ({ channel: id });

/** A time every reader sees in their own zone; the fallback is for clients that cannot. */
export function when(at: Date, format = '{time}'): Run {
  // Where Slack cannot draw the date (notifications, old clients): UTC, to the minute only when the format shows a time.
  const utc = format.includes('{time') ? at.toISOString().slice(0, 16).replace('T', ' ') : at.toISOString().slice(0, 10);
  return { date: at, format, fallback: `${utc} UTC` };
}

/** Service and user text, one line: line breaks and tabs would break the layout it sits in. Reads a few times `max` of it at most. */
export function oneLine(text: string, max: number): string {
  return singleLine(text, max);
}

function element(run: Run): RichTextElement | undefined {
  if (typeof run === 'string') return run === '' ? undefined : { type: 'text', text: run };
  if ('text' in run && 'style' in run) return run.text === '' ? undefined : { type: 'text', text: run.text, style: run.style };
  if ('emoji' in run) return { type: 'emoji', name: run.emoji };
  if ('user' in run) return { type: 'user', user_id: run.user };
  if ('channel' in run) return { type: 'channel', channel_id: run.channel };
  if ('usergroup' in run) return { type: 'usergroup', usergroup_id: run.usergroup };
  if ('link' in run) return { type: 'link', url: run.link, ...(run.text === '' ? {} : { text: run.text }) };
  return { type: 'date', timestamp: Math.floor(run.date.getTime() / 1000), format: run.format, fallback: run.fallback };
}

/** A run cut to `room` characters of text; runs that are not text cost a fixed few. */
function fitRun(run: Run, room: number): { run: Run; cost: number } {
  if (typeof run === 'string') {
    const text = revealHidden(run);
    return { run: truncate(text, room), cost: Math.min(text.length, room) };
  }
  if ('style' in run) {
    const text = revealHidden(run.text);
    return { run: { ...run, text: truncate(text, room) }, cost: Math.min(text.length, room) };
  }
  if ('link' in run) {
    const text = revealHidden(run.text);
    return { run: { ...run, text: truncate(text, room) }, cost: Math.min(text.length, room) + 20 };
  }
  return { run, cost: 20 };
}

/** How much of a rich_text block's budget these paragraphs take, counted as richText counts. */
export function richLength(paragraphs: readonly Paragraph[]): number {
  return paragraphs.reduce((sum, p) => sum + 1 + p.reduce((s, run) => s + fitRun(run, Number.POSITIVE_INFINITY).cost, 0), 0);
}

/**
 * Paragraphs as one rich_text block, each paragraph a line of its own. Empty runs are left out and
 * an empty paragraph is dropped, since Slack refuses empty elements; text past the block's budget
 * is cut, with an ellipsis, rather than refused by Slack.
 */
export function richText(paragraphs: readonly Paragraph[]): RichTextBlock {
  const elements: RichTextElement[] = [];
  // Unstyled text next to unstyled text is one element: Slack shows it the same, and a message
  // with fewer elements is less to write out and send.
  const add = (to: RichTextElement[], el: RichTextElement) => {
    const last = to[to.length - 1];
    if (el.type === 'text' && el.style === undefined && last?.type === 'text' && last.style === undefined) last.text += el.text;
    else to.push(el);
  };
  let room = LIMITS.richTextChars;
  for (const paragraph of paragraphs) {
    const line: RichTextElement[] = [];
    for (const run of paragraph) {
      if (room <= 0) break;
      const fitted = fitRun(run, room);
      const el = element(fitted.run);
      if (el === undefined) continue;
      room -= fitted.cost;
      add(line, el);
    }
    if (line.length === 0) continue;
    if (elements.length > 0) add(elements, { type: 'text', text: '\n' });
    for (const el of line) add(elements, el);
  }
  // Every caller has words to show; a block of nothing would be refused, so it says so instead.
  const section: RichTextSection = {
    type: 'rich_text_section',
    elements: elements.length > 0 ? elements : [{ type: 'text', text: '(nothing)' }],
  };
  return { type: 'rich_text', elements: [section] };
}

/**
 * richText's block written straight as its JSON, for the /approvals page, where building the
 * objects and then stringifying them cost more than the rest of its rendering: the same elements,
 * merged, cut and escaped the same (each string through JSON.stringify), so JSON.parse of it
 * equals richText(paragraphs), and a test holds the two together.
 */
export function richTextJson(paragraphs: readonly Paragraph[]): string {
  let out = '';
  // Unstyled text is held until something else comes, so that adjacent runs of it are one element, as in richText.
  let plainText = '';
  let any = false;
  let room = LIMITS.richTextChars;
  for (const paragraph of paragraphs) {
    let started = false;
    for (const run of paragraph) {
      if (room <= 0) break;
      let json: string | undefined;
      let text: string | undefined;
      if (typeof run === 'string') {
        // fitRun, written out: this runs for every piece of every entry of a page.
        const shown = revealHidden(run);
        if (shown === '') continue;
        text = shown.length > room ? truncate(shown, room) : shown;
        room -= Math.min(shown.length, room);
      } else if ('style' in run) {
        const shown = revealHidden(run.text);
        if (shown === '') continue;
        json = `{"type":"text","text":${JSON.stringify(shown.length > room ? truncate(shown, room) : shown)},"style":${styleJson(run.style)}}`;
        room -= Math.min(shown.length, room);
      } else {
        const fitted = fitRun(run, room);
        json = JSON.stringify(element(fitted.run));
        room -= fitted.cost;
      }
      // A line's first element, after another line: the line break before it.
      if (!started && any) plainText += '\n';
      started = true;
      any = true;
      if (json === undefined) plainText += text;
      else {
        if (plainText !== '') {
          out += `${out === '' ? '' : ','}{"type":"text","text":${JSON.stringify(plainText)}}`;
          plainText = '';
        }
        out += `${out === '' ? '' : ','}${json}`;
      }
    }
  }
  if (plainText !== '') out += `${out === '' ? '' : ','}{"type":"text","text":${JSON.stringify(plainText)}}`;
  return `{"type":"rich_text","elements":[{"type":"rich_text_section","elements":[${out === '' ? '{"type":"text","text":"(nothing)"}' : out}]}]}`;
}

const BOLD_JSON = '{"bold":true}';
const CODE_JSON = '{"code":true}';

/** A style as JSON.stringify writes it; the two a page uses without a call. */
export function styleJson(style: Style): string {
  const keys = Object.keys(style);
  if (keys.length === 1) {
    if (style.bold === true) return BOLD_JSON;
    if (style.code === true) return CODE_JSON;
  }
  return JSON.stringify(style);
}

/** The same paragraphs as fallback text: service text escaped so that it cannot ping, our mentions and dates as Slack writes them. */
export function plainOf(paragraphs: readonly Paragraph[]): string {
  const lines = paragraphs.map((paragraph) =>
    paragraph
      .map((run) => {
        if (typeof run === 'string') return escapeMrkdwn(revealHidden(run));
        if ('style' in run) return escapeMrkdwn(revealHidden(run.text));
        if ('emoji' in run) return '';
        if ('user' in run) return `<@${run.user}>`;
        if ('channel' in run) return `<#${run.channel}>`;
        if ('usergroup' in run) return `<!subteam^${run.usergroup}>`;
        if ('link' in run) return escapeMrkdwn(revealHidden(run.text));
        return `<!date^${Math.floor(run.date.getTime() / 1000)}^${run.format}|${run.fallback}>`;
      })
      .join('')
      .trim(),
  );
  return truncate(lines.filter((l) => l !== '').join(' '), LIMITS.fallbackText);
}

/** A message whose words are these paragraphs, with blocks after them (buttons, a note); the fallback says the same words. */
export function richMessage(paragraphs: readonly Paragraph[], ...after: KnownBlock[]): Message {
  return { text: plainOf(paragraphs), blocks: [richText(paragraphs), ...after] };
}

const MARKUP = /`([^`]+)`|\*([^*\n]+)\*|(?<![\w:]):([a-z0-9_+-]+):(?![\w:])|<@([UW][A-Z0-9]+)>|<#([CG][A-Z0-9]+)>/g;

/**
 * Our own words, written as mrkdwn would be (`code`, *bold*, :emoji:, <@U…>, <#C…>), as runs.
 * Only for text we wrote: text from the service or a user is passed as a plain string, never
 * through here, so nothing in it is read as markup.
 */
export function md(ours: string): Run[] {
  const runs: Run[] = [];
  let last = 0;
  for (const m of ours.matchAll(MARKUP)) {
    if (m.index > last) runs.push(ours.slice(last, m.index));
    if (m[1] !== undefined) runs.push(code(m[1]));
    else if (m[2] !== undefined) runs.push(bold(m[2]));
    else if (m[3] !== undefined) runs.push(emoji(m[3]));
    else if (m[4] !== undefined) runs.push(user(m[4]));
    else if (m[5] !== undefined) runs.push(channel(m[5]));
    last = m.index + m[0].length;
  }
  if (last < ours.length) runs.push(ours.slice(last));
  return runs;
}

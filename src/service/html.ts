/**
 * The service reports errors as HTML pages titled "Error". Users and logs need the message as
 * plain text, and the `Query String=` line apart from it, so that the message can be shown
 * without the raw query and the query can be logged for support.
 */

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  ndash: '–',
  mdash: '—',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/**
 * Error pages are read this far and no further: the message is at the top, and a page of
 * hundreds of kilobytes (a stack trace, a padded proxy page) has nothing more a person needs.
 */
export const MAX_ERROR_PAGE_CHARS = 64 * 1024;

const BLOCK_TAGS = new Set([
  'p',
  'div',
  'br',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'ul',
  'ol',
  'tr',
  'table',
  'pre',
  'hr',
  'body',
  'html',
  'head',
  'title',
  'section',
  'article',
]);

type Token = { kind: 'text'; text: string } | { kind: 'tag'; name: string; closing: boolean };

const TAG_NAME = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)/y;
/** Elements whose content is code, not text, and where each ends. */
const RAW_TEXT_END: Record<string, RegExp> = { script: /<\/script\s*>/gi, style: /<\/style\s*>/gi };

/**
 * The page as text runs and tags, in one pass: every search starts where the last one ended and
 * looks for a single character or a fixed word, so no input can make it go back over what it has
 * read (a pattern such as `<[^>]*>` tried at each of many unclosed `<` reads the rest of the page
 * once per `<`, which made a 400 KB page cost tens of seconds). Comments and declarations vanish;
 * an unclosed comment, tag or script hides the rest, as in a browser; a `<` that opens no tag is text.
 */
function* tokens(html: string): Generator<Token> {
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (lt > i) yield { kind: 'text', text: html.slice(i, lt) };
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end < 0) return;
      i = end + 3;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const name = TAG_NAME.exec(html);
    const declaration = html[lt + 1] === '!' || html[lt + 1] === '?';
    if (name === null && !declaration) {
      yield { kind: 'text', text: '<' };
      i = lt + 1;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    // A tag that never ends (the page was cut at its limit, say) ends the page, as in a browser.
    if (gt < 0) return;
    i = gt + 1;
    if (name === null) continue;
    const tag = (name[2] as string).toLowerCase();
    const closing = name[1] === '/';
    yield { kind: 'tag', name: tag, closing };
    const end = RAW_TEXT_END[tag];
    if (!closing && end !== undefined) {
      end.lastIndex = i;
      const close = end.exec(html);
      if (close === null) return;
      i = close.index + close[0].length;
    }
  }
  if (i < html.length) yield { kind: 'text', text: html.slice(i) };
}

interface ReadPage {
  /** The text, block tags as line breaks, entities decoded, blank lines dropped. */
  text: string;
  /** The first <title>'s text, when it is closed. */
  title: string | undefined;
}

/** `skipHead`: leave out what is in <head> (closed by </head> or by <body>, as a browser does). */
function readHtml(html: string, skipHead: boolean): ReadPage {
  const parts: string[] = [];
  let inHead = false;
  let titleParts: string[] | undefined;
  let title: string | undefined;
  let titleSeen = false;
  for (const token of tokens(html)) {
    if (token.kind === 'text') {
      titleParts?.push(token.text);
      if (!(skipHead && inHead)) parts.push(token.text);
      continue;
    }
    if (token.name === 'title' && !token.closing && !titleSeen && titleParts === undefined) titleParts = [];
    else if (token.name === 'title' && token.closing && titleParts !== undefined) {
      title = tidy(titleParts.join('')) || undefined;
      titleParts = undefined;
      titleSeen = true;
    }
    if (token.name === 'head') inHead = !token.closing;
    else if (token.name === 'body' && !token.closing) inHead = false;
    if (BLOCK_TAGS.has(token.name) && !(skipHead && inHead)) parts.push('\n');
  }
  return { text: tidy(parts.join('')), title };
}

/** Entities decoded, spaces folded, blank lines dropped. */
function tidy(text: string): string {
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[^\S\n]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
}

/** HTML to plain text: scripts, styles and comments dropped, block tags become line breaks, entities decoded. */
export function htmlToText(html: string): string {
  return readHtml(html, false).text;
}

export interface ErrorPage {
  title: string | undefined;
  /** The message, without the title line and without the Query String line. */
  message: string;
  queryString: string | undefined;
}

export function looksLikeHtml(body: string): boolean {
  return /^\s*(?:<!doctype html|<html|<head|<body|<title|<h1|<p>)/i.test(body);
}

/** Reads at most the first MAX_ERROR_PAGE_CHARS of the page, in time proportional to that. */
export function parseErrorPage(body: string): ErrorPage {
  const head = body.length > MAX_ERROR_PAGE_CHARS ? body.slice(0, MAX_ERROR_PAGE_CHARS) : body;
  const { text, title } = readHtml(head, looksLikeHtml(head));
  let queryString: string | undefined;
  const messageLines: string[] = [];
  for (const line of text.split('\n')) {
    // The query string may follow the message on the same line, as the real service prints it.
    const at = line.indexOf('Query String=');
    if (at >= 0) {
      queryString = line.slice(at + 'Query String='.length).trim();
      const before = line.slice(0, at).trim();
      if (before) messageLines.push(before);
      continue;
    }
    // A heading that only repeats the title is not part of the message.
    if (title !== undefined && line === title && messageLines.length === 0) continue;
    messageLines.push(line);
  }
  return { title, message: messageLines.join(' ').trim(), queryString };
}

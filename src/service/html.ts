/**
 * The service reports errors as HTML pages titled "Error". Users and logs need the message as
 * plain text, and the `Query String=` line apart from it, so that the message can be shown
 * without the raw query and the query can be logged for support.
 */

import { decodeEntities, tokenize } from './markup.js';

export { decodeEntities } from './markup.js';

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

interface ReadPage {
  /** The text, block tags as line breaks, entities decoded, blank lines dropped. */
  text: string;
  /** The first <title>'s text, when it is closed. */
  title: string | undefined;
}

/** Elements whose content is code, not text: dropped. */
const RAW_TEXT = new Set(['script', 'style']);

/**
 * The page as htmlparser2's tokenizer reads it, in one pass, its text runs and tags handed on as
 * they come: no tree is built, so nothing grows with how deeply a page nests. Comments and
 * declarations vanish; an unclosed comment, tag or script hides the rest, as in a browser; a `<`
 * that opens no tag is text. `skipHead`: leave out what is in <head> (closed by </head> or by
 * <body>, as a browser does).
 */
function readHtml(html: string, skipHead: boolean): ReadPage {
  const parts: string[] = [];
  let inHead = false;
  let inRawText = false;
  let titleParts: string[] | undefined;
  let title: string | undefined;
  let titleSeen = false;
  let opening = '';
  const tag = (name: string, closing: boolean) => {
    if (name === 'title' && !closing && !titleSeen && titleParts === undefined) titleParts = [];
    else if (name === 'title' && closing && titleParts !== undefined) {
      title = tidy(titleParts.join('')) || undefined;
      titleParts = undefined;
      titleSeen = true;
    }
    if (name === 'head') inHead = !closing;
    else if (name === 'body' && !closing) inHead = false;
    if (RAW_TEXT.has(name)) inRawText = !closing;
    if (BLOCK_TAGS.has(name) && !(skipHead && inHead)) parts.push('\n');
  };
  tokenize(html, 'html', {
    ontext(start, end) {
      if (inRawText) return;
      const text = html.slice(start, end);
      titleParts?.push(text);
      if (!(skipHead && inHead)) parts.push(text);
    },
    onopentagname: (start, end) => {
      opening = html.slice(start, end).toLowerCase();
    },
    onopentagend: () => tag(opening, false),
    onselfclosingtag: () => tag(opening, false),
    onclosetag: (start, end) => tag(html.slice(start, end).toLowerCase(), true),
  });
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

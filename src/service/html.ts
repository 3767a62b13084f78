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

const BLOCK_TAGS = /<\/?(?:p|div|br|h[1-6]|li|ul|ol|tr|table|pre|hr|body|html|head|title|section|article)\b[^>]*>/gi;

/** HTML to plain text: scripts and styles dropped, block tags become line breaks, entities decoded. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(BLOCK_TAGS, '\n')
    .replace(/<[^>]*>/g, '');
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v]+/g, ' ').trim())
    .filter((line) => line.length > 0)
    .join('\n');
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

export function parseErrorPage(body: string): ErrorPage {
  const titleMatch = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(body);
  const title = titleMatch?.[1] === undefined ? undefined : htmlToText(titleMatch[1]) || undefined;
  const withoutHead = body.replace(/<head\b[\s\S]*?<\/head\s*>/i, '');
  const lines = htmlToText(looksLikeHtml(body) ? withoutHead : body).split('\n');
  let queryString: string | undefined;
  const messageLines: string[] = [];
  for (const line of lines) {
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

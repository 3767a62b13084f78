/**
 * Bodies other than JSON. The client always asks for json, but the real service has been seen
 * answering XML (when there are no results) and its default format is "properties"; a tolerant
 * client turns either into the same JSON-like tree that format=json would have given, so one
 * schema checks them all.
 */

import { decodeEntities, tokenize } from './markup.js';

export type Tree = string | { [key: string]: Tree | Tree[] };

/**
 * `key=value` lines, as the service's default format. Comment lines (# or !) and blank lines are
 * skipped; a key may appear once. When several objects are returned a value is a comma-separated
 * list, which only the caller can split, because it knows how many objects there are.
 */
export function parseProperties(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new SyntaxError(`not a key=value line: ${excerpt(line)}`);
    out.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return out;
}

/** Deeper than any answer of the service nests (a page of items: five levels): past it the body is refused, not read on. */
export const MAX_XML_DEPTH = 32;

/** An element being read: its text so far, and its children once it has any (then its text is dropped, as the service's conversion drops it). */
interface Open {
  name: string;
  text: string[];
  children: { [key: string]: Tree | Tree[] } | undefined;
}

/**
 * The element-only XML the service emits, read by htmlparser2's tokenizer (markup.ts) into the tree
 * format=json would have given: elements, text, entities, CDATA; declarations, comments and
 * processing instructions are skipped, attributes ignored. Strict where it matters: mismatched or
 * unclosed tags, comments and CDATA sections, a second root or text after it throw, so a truncated
 * body is reported, not half-read. One pass; each element is made into its value when it closes,
 * with its parent still open, so nothing recurses; nesting past MAX_XML_DEPTH is refused at once.
 */
export function parseXml(body: string): { name: string; value: Tree } {
  const stack: Open[] = [];
  let root: { name: string; value: Tree } | undefined;
  let opening = '';
  const open = (name: string) => {
    if (root !== undefined) fail('expected exactly one root element');
    if (stack.length >= MAX_XML_DEPTH) fail(`nested deeper than ${MAX_XML_DEPTH} levels`);
    stack.push({ name, text: [], children: undefined });
  };
  const close = (name: string) => {
    const done = stack.pop();
    if (done?.name !== name) fail(`</${excerpt(name, 40)}> closes ${done ? `<${excerpt(done.name, 40)}>` : 'nothing'}`);
    const value: Tree = done.children ?? done.text.join('').trim();
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = { name, value };
    else addChild(parent, name, value);
  };
  tokenize(body, 'xml', {
    ontext(start, end) {
      const text = body.slice(start, end);
      const current = stack[stack.length - 1];
      if (current !== undefined) current.text.push(decodeEntities(text));
      else if (root !== undefined && text.trim() !== '') fail('text after the last element');
    },
    oncdata(start, end, endOffset) {
      if (endOffset === 0) fail('a CDATA section is never closed');
      stack[stack.length - 1]?.text.push(body.slice(start, end - endOffset));
    },
    oncomment(_start, _end, endOffset) {
      if (endOffset === 0) fail('a comment is never closed');
    },
    onopentagname(start, end) {
      opening = body.slice(start, end);
    },
    onopentagend: () => open(opening),
    onselfclosingtag() {
      open(opening);
      close(opening);
    },
    onclosetag: (start, end) => close(body.slice(start, end)),
  });
  const unclosed = stack[stack.length - 1];
  if (unclosed !== undefined) fail(`<${excerpt(unclosed.name, 40)}> is never closed`);
  if (root === undefined) fail('expected exactly one root element');
  return root;
}

function fail(why: string): never {
  throw new SyntaxError(`XML: ${why}`);
}

/** As the service's XML-to-JSON conversion does: a repeated element becomes an array. */
function addChild(parent: Open, name: string, value: Tree): void {
  parent.children ??= {};
  const children = parent.children;
  if (!Object.hasOwn(children, name)) {
    // An element named __proto__ is a child like any other, not the object's prototype.
    Object.defineProperty(children, name, { value, writable: true, enumerable: true, configurable: true });
    return;
  }
  const existing = children[name] as Tree | Tree[];
  if (Array.isArray(existing)) existing.push(value);
  else children[name] = [existing, value];
}

export function excerpt(text: string, max = 120): string {
  // Only the start is shown, so only the start is read: a body may be megabytes.
  const start = text.length > max * 8 ? text.slice(0, max * 8) : text;
  const flat = start.replace(/\s+/g, ' ').trim();
  return flat.length <= max && start === text ? flat : `${flat.slice(0, max)}…`;
}

const XML_ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&apos;',
  '"': '&quot;',
  // An attribute's value is normalised on reading: a line break or tab written as itself becomes a space.
  '\n': '&#10;',
  '\r': '&#13;',
  '\t': '&#9;',
};

/** Text as XML element content, line breaks and tabs as themselves: the sign-in's body, and a secret as such a body quotes it. */
export function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => XML_ESCAPES[c] as string);
}

/** `&`, `<`, `>`, both quotes, and line breaks and tabs as references: safe in element text and in attributes alike. */
export function escapeXmlValue(value: string): string {
  return value.replace(/[<>&'"\n\r\t]/g, (c) => XML_ESCAPES[c] as string);
}

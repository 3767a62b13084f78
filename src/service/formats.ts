/**
 * Bodies other than JSON. The client always asks for json, but the real service has been seen
 * answering XML (when there are no results) and its default format is "properties"; a tolerant
 * client turns either into the same JSON-like tree that format=json would have given, so one
 * schema checks them all.
 */

import { decodeEntities } from './html.js';

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

interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

/**
 * A small, strict parser for the element-only XML the service emits: elements, text, entities,
 * CDATA; declarations, comments and processing instructions are skipped. Attributes are ignored.
 * Mismatched or unclosed tags, comments and sections throw, so a truncated body is reported, not
 * half-read. One pass: each search starts where the last ended and looks for a fixed string, so
 * no body (up to the client's 8 MiB) can make it read the same bytes twice.
 */
export function parseXml(body: string): { name: string; value: Tree } {
  const root: XmlElement = { name: '#root', children: [], text: '' };
  const stack: XmlElement[] = [root];
  const skipTo = (from: number, close: string, what: string): number => {
    const at = body.indexOf(close, from);
    if (at < 0) throw new SyntaxError(`XML: ${what} is never closed`);
    return at + close.length;
  };
  let last = 0;
  let i = 0;
  for (let lt = body.indexOf('<', i); lt >= 0; lt = body.indexOf('<', i)) {
    const current = stack[stack.length - 1] as XmlElement;
    let next: number;
    let cdata: string | undefined;
    let element: { closing: boolean; name: string; empty: boolean } | undefined;
    if (body.startsWith('<![CDATA[', lt)) {
      next = skipTo(lt + 9, ']]>', 'a CDATA section');
      cdata = body.slice(lt + 9, next - 3);
    } else if (body.startsWith('<!--', lt)) next = skipTo(lt + 4, '-->', 'a comment');
    else if (body.startsWith('<?', lt)) next = skipTo(lt + 2, '?>', 'a processing instruction');
    else if (body.startsWith('<!DOCTYPE', lt)) next = skipTo(lt + 9, '>', 'a DOCTYPE');
    else {
      ELEMENT_NAME.lastIndex = lt;
      const m = ELEMENT_NAME.exec(body);
      const after = m === null ? undefined : body[lt + m[0].length];
      if (m === null || (after !== undefined && !/[\s/>]/.test(after))) {
        // A `<` that opens nothing is text, as it always was here.
        i = lt + 1;
        continue;
      }
      next = skipTo(lt + m[0].length, '>', `<${excerpt(m[2] as string, 40)}`);
      element = { closing: m[1] === '/', name: m[2] as string, empty: body[next - 2] === '/' };
    }
    current.text += decodeEntities(body.slice(last, lt));
    last = next;
    i = next;
    if (cdata !== undefined) current.text += cdata;
    if (element === undefined) continue;
    if (element.closing) {
      if (current.name !== element.name) throw new SyntaxError(`XML: </${element.name}> closes <${current.name}>`);
      stack.pop();
    } else {
      const child: XmlElement = { name: element.name, children: [], text: '' };
      current.children.push(child);
      if (!element.empty) stack.push(child);
    }
  }
  if (stack.length !== 1) throw new SyntaxError(`XML: <${(stack[stack.length - 1] as XmlElement).name}> is never closed`);
  if (body.slice(last).trim() !== '') throw new SyntaxError('XML: text after the last element');
  const [top, ...rest] = root.children;
  if (top === undefined || rest.length > 0) throw new SyntaxError('XML: expected exactly one root element');
  return { name: top.name, value: toTree(top) };
}

const ELEMENT_NAME = /<(\/?)([A-Za-z_][\w.:-]*)/y;

/** As the service's XML-to-JSON conversion does: a repeated element becomes an array. */
function toTree(element: XmlElement): Tree {
  if (element.children.length === 0) return element.text.trim();
  const out: { [key: string]: Tree | Tree[] } = {};
  for (const child of element.children) {
    const value = toTree(child);
    const existing = out[child.name];
    if (existing === undefined) out[child.name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[child.name] = [existing, value];
  }
  return out;
}

export function excerpt(text: string, max = 120): string {
  // Only the start is shown, so only the start is read: a body may be megabytes.
  const start = text.length > max * 8 ? text.slice(0, max * 8) : text;
  const flat = start.replace(/\s+/g, ' ').trim();
  return flat.length <= max && start === text ? flat : `${flat.slice(0, max)}…`;
}

/** Text as XML element content or an attribute value: a request body's values, and a secret as an XML body quotes it. */
export function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

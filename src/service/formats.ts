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
 * Mismatched or unclosed tags throw, so a truncated body is reported, not half-read.
 */
export function parseXml(body: string): { name: string; value: Tree } {
  const root: XmlElement = { name: '#root', children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^>]*?)?)(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    const current = stack[stack.length - 1] as XmlElement;
    current.text += decodeEntities(body.slice(last, m.index));
    last = tag.lastIndex;
    if (m[1] !== undefined) {
      current.text += m[1];
      continue;
    }
    const name = m[3];
    if (name === undefined) continue;
    if (m[2] === '/') {
      if (current.name !== name) throw new SyntaxError(`XML: </${name}> closes <${current.name}>`);
      stack.pop();
    } else {
      const element: XmlElement = { name, children: [], text: '' };
      current.children.push(element);
      if (m[5] !== '/') stack.push(element);
    }
  }
  if (stack.length !== 1) throw new SyntaxError(`XML: <${(stack[stack.length - 1] as XmlElement).name}> is never closed`);
  if (body.slice(last).trim() !== '') throw new SyntaxError('XML: text after the last element');
  const [top, ...rest] = root.children;
  if (top === undefined || rest.length > 0) throw new SyntaxError('XML: expected exactly one root element');
  return { name: top.name, value: toTree(top) };
}

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
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

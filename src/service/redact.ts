/**
 * Takes a request's secrets out of a text of its answer: a proxy or firewall page may quote the
 * request back (its headers, its body, its query), and an error reaches logs and users.
 *
 * A page quotes what it was sent in whatever form it holds it: as sent, percent-encoded (either
 * case of hex, a space as "+" when it is a form), percent-encoded twice, read back by a servlet
 * (a "+" sent as itself is then a space), and escaped again for where the page shows it (HTML, a
 * JSON string). Rather than list the encodings of each secret, and miss one (lower-case `%2b` was
 * missed), the text is decoded every way it may have been encoded, each decoded character
 * remembering the span of the text it came from, and each secret is looked for in the decoded
 * texts: what is found is taken out of the text itself, whatever mixture of forms wrote it. Letters
 * and digits are written as themselves in every one of those forms, which keeps it cheap (below).
 */

const REDACTED = '[redacted]';

/**
 * The fewest characters of the text a secret's cut-off start must take up to be taken out: fewer
 * would take out common endings of ordinary words.
 */
const MIN_PARTIAL = 4;

/**
 * A text decoded one way: each UTF-16 unit of `text` came from `start[i]`..`end[i]` (exclusive) of the
 * original; from `tail` on, the original ends in an escape cut short (`%2`, `&am`, `\u00`), which
 * decodes to nothing yet.
 */
interface Decoded {
  text: string;
  start: Int32Array;
  end: Int32Array;
  tail: number;
}

/** What an escape at `i` reads as: its units and where it ends; 'cut' for one the text ends inside of; undefined for none. */
type Read = { units: string; to: number } | 'cut' | undefined;

/** One layer of encoding: the characters that may begin one of its escapes (a global pattern), and how to read one. */
interface Layer {
  special: RegExp;
  read(input: string, i: number): Read;
}

/**
 * Decodes one layer of what `source` decoded to, keeping for each unit where in the original it came
 * from: a character as itself keeps its own span, an escape's units get the span of all it took.
 * Runs without an escape are copied whole, so that a page of plain text costs little.
 */
function decodeWith(layer: Layer, source: Decoded): Decoded {
  const input = source.text;
  const start = new Int32Array(input.length);
  const end = new Int32Array(input.length);
  let text = '';
  let n = 0;
  let tail = source.tail;
  const copy = (from: number, to: number) => {
    text += input.slice(from, to);
    start.set(source.start.subarray(from, to), n);
    end.set(source.end.subarray(from, to), n);
    n += to - from;
  };
  const { special } = layer;
  let i = 0;
  while (i < input.length) {
    special.lastIndex = i;
    const at = special.exec(input)?.index ?? input.length;
    if (at > i) copy(i, at);
    if (at === input.length) break;
    const read = layer.read(input, at);
    if (read === 'cut') {
      tail = source.start[at] as number;
      break;
    }
    if (read === undefined) {
      copy(at, at + 1);
      i = at + 1;
      continue;
    }
    // In the original: from where the escape's first character began to where its last one ended.
    const a = source.start[at] as number;
    const b = source.end[read.to - 1] as number;
    for (let k = 0; k < read.units.length; k++) {
      start[n] = a;
      end[n] = b;
      n++;
    }
    text += read.units;
    i = read.to;
  }
  return { text, start: start.subarray(0, n), end: end.subarray(0, n), tail };
}

function identity(text: string): Decoded {
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  for (let i = 0; i < text.length; i++) {
    start[i] = i;
    end[i] = i + 1;
  }
  return { text, start, end, tail: text.length };
}

/** The value of the hex digit at i; -1 for none. */
function hexDigit(input: string, i: number): number {
  const c = input.charCodeAt(i);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** The byte written `%XX` (either case) at i; -1 for none. */
function byteAt(input: string, i: number): number {
  if (input.charCodeAt(i) !== 37) return -1;
  const high = hexDigit(input, i + 1);
  const low = hexDigit(input, i + 2);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

/** Whether the text ends at i with "%" or "%X": an escape cut short. */
function cutEscape(input: string, i: number): boolean {
  return input.charCodeAt(i) === 37 && (i + 1 === input.length || (i + 2 === input.length && hexDigit(input, i + 1) >= 0));
}

/** How many bytes a UTF-8 sequence has that starts with this byte; 0 for one that cannot start one. */
function utf8Length(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** One character from its UTF-8 bytes; undefined for bytes that are not one (overlong, a surrogate). */
function utf8(bytes: number[]): string | undefined {
  if (bytes.length === 1) return String.fromCharCode(bytes[0] as number);
  try {
    return UTF8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

/** Percent-decoding, hex of either case, a UTF-8 sequence at a time; `+` a space when `plus`. What does not decode stays as written. */
function percent(plus: boolean): Layer {
  return {
    special: plus ? /[%+]/g : /%/g,
    read(input, i) {
      if (input[i] === '+') return { units: ' ', to: i + 1 };
      const lead = byteAt(input, i);
      if (lead < 0) return cutEscape(input, i) ? 'cut' : undefined;
      const size = utf8Length(lead);
      const bytes = [lead];
      let j = i + 3;
      while (bytes.length < size) {
        const next = byteAt(input, j);
        if (next < 0x80 || next > 0xbf) break;
        bytes.push(next);
        j += 3;
      }
      const units = size > 0 && bytes.length === size ? utf8(bytes) : undefined;
      if (units !== undefined) return { units, to: j };
      // A sequence the text ends inside of is cut short; any other is not UTF-8, and stays as written.
      return size > 0 && (j >= input.length || cutEscape(input, j)) ? 'cut' : undefined;
    },
  };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/y;
const ENTITY_CUT = /&(?:#[xX]?[0-9a-fA-F]{0,6}|[a-z]{0,4})$/y;

/** XML's and HTML's character references: the five named ones, decimal and hex. */
const xml: Layer = {
  special: /&/g,
  read(input, i) {
    ENTITY.lastIndex = i;
    const m = ENTITY.exec(input);
    if (m === null) {
      ENTITY_CUT.lastIndex = i;
      return ENTITY_CUT.test(input) ? 'cut' : undefined;
    }
    const code = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number.parseInt(m[2], 16) : -1;
    if (code > 0x10ffff) return undefined;
    return { units: code < 0 ? (NAMED_ENTITIES[m[3] as string] as string) : String.fromCodePoint(code), to: i + m[0].length };
  },
};

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A JSON string's escapes, `\uXXXX` of either case included. */
const json: Layer = {
  special: /\\/g,
  read(input, i) {
    const e = input[i + 1];
    if (e === undefined) return 'cut';
    const simple = JSON_ESCAPES[e];
    if (simple !== undefined) return { units: simple, to: i + 2 };
    if (e !== 'u') return undefined;
    let code = 0;
    for (let k = i + 2; k < i + 6; k++) {
      if (k === input.length) return 'cut';
      const digit = hexDigit(input, k);
      if (digit < 0) return undefined;
      code = code * 16 + digit;
    }
    return { units: String.fromCharCode(code), to: i + 6 };
  },
};

/** Each layer, with what a text must hold for it to change anything: decoding a text without it gives the text again. */
const ESCAPES: readonly Layer[] = [xml, json];
const PERCENT: readonly Layer[] = [percent(true), percent(false)];

/**
 * The text decoded every way a page may have encoded what it quotes: as it is, or HTML/XML- or
 * JSON-escaped; each of those as it is, or percent-decoded once or twice (a "+" a space, or itself).
 */
function decodings(text: string): Decoded[] {
  const out: Decoded[] = [];
  const touches = (layer: Layer, t: string) => {
    layer.special.lastIndex = 0;
    return layer.special.test(t);
  };
  const add = (d: Decoded, depth: number) => {
    out.push(d);
    if (depth < 2) for (const layer of PERCENT) if (touches(layer, d.text)) add(decodeWith(layer, d), depth + 1);
  };
  const raw = identity(text);
  add(raw, 0);
  for (const layer of ESCAPES) if (touches(layer, text)) add(decodeWith(layer, raw), 0);
  return out;
}

/** Spans of the original text to take out. */
type Span = [from: number, to: number];

/** `partial`: the decoded text ends where the original does, so a secret's start there is one cut short. */
function spansOf(d: Decoded, secret: string, offset: number, length: number, partial: boolean): Span[] {
  const spans: Span[] = [];
  for (let at = d.text.indexOf(secret); at >= 0; at = d.text.indexOf(secret, at + secret.length))
    spans.push([offset + (d.start[at] as number), offset + (d.end[at + secret.length - 1] as number)]);
  // A text that ends inside the secret (an error page is read only so far) loses that end too.
  if (partial)
    for (let k = Math.min(secret.length - 1, d.text.length); k >= 1; k--) {
      if (!d.text.endsWith(secret.slice(0, k))) continue;
      // To the end of the text, an escape cut short after it included.
      const from = offset + (d.start[d.text.length - k] as number);
      if (length - from >= MIN_PARTIAL) spans.push([from, length]);
      break;
    }
  return spans;
}

/**
 * The most characters of a page one UTF-16 unit of a secret can take: a character of three UTF-8
 * bytes percent-encoded twice (`%25E2%2582%25AC`).
 */
const MAX_WIDTH = 15;

interface Wanted {
  secret: string;
  /**
   * Its longest run of ASCII letters and digits, which every form writes as itself: a form of the
   * secret can only be where its anchor is, so only the text around each is decoded (a whole page,
   * 64 KiB, decoded every way took a hundred milliseconds). Empty for a secret without one.
   */
  anchor: string;
  /** Where the anchor is in the secret. */
  at: number;
}

function wantedOf(secret: string): Wanted {
  let anchor = '';
  let at = 0;
  for (const m of secret.matchAll(/[A-Za-z0-9]+/g))
    if (m[0].length > anchor.length) {
      anchor = m[0];
      at = m.index;
    }
  return { secret, anchor, at };
}

/** The stretches of the text a secret may be written in, merged: around each anchor, and the end (where one may be cut short). */
function stretches(text: string, wanted: readonly Wanted[]): Span[] {
  const found: Span[] = [];
  for (const w of wanted) {
    if (w.anchor === '') return [[0, text.length]];
    const before = (w.at + 1) * MAX_WIDTH;
    const after = (w.secret.length - w.at - w.anchor.length + 1) * MAX_WIDTH;
    for (let p = text.indexOf(w.anchor); p >= 0; p = text.indexOf(w.anchor, p + 1))
      found.push([Math.max(0, p - before), Math.min(text.length, p + w.anchor.length + after)]);
    found.push([Math.max(0, text.length - (w.secret.length + 1) * MAX_WIDTH), text.length]);
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged: Span[] = [];
  for (const span of found) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/**
 * Each secret in every form it may be quoted in (see above), and a text that ends inside one loses
 * that end too. A secret holding "+" is also looked for with spaces in its place: a server that read
 * it from a query, where it was sent as itself, shows it so.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const wanted = [...new Set(secrets.filter((v) => v !== '').flatMap((v) => (v.includes('+') ? [v, v.replace(/\+/g, ' ')] : [v])))].map(
    wantedOf,
  );
  if (wanted.length === 0) return (text) => text;
  return (text) => {
    const spans: Span[] = [];
    for (const [from, to] of stretches(text, wanted)) {
      const part = text.slice(from, to);
      // A stretch may begin inside an escape: only its first characters can be misread, and no secret starts there.
      for (const d of decodings(part))
        for (const { secret } of wanted) spans.push(...spansOf(d, secret, from, text.length, to === text.length));
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let out = '';
    let at = 0;
    for (const [from, to] of spans) {
      if (to <= at) continue;
      // Overlapping spans (one secret inside another, or found in two decodings) are taken out as one.
      if (from < at) {
        at = to;
        continue;
      }
      out += `${text.slice(at, from)}${REDACTED}`;
      at = to;
    }
    return out + text.slice(at);
  };
}

/** Shorter than this, a user's text is not taken out of an answer's words by its value (it would take out common words): its parameter still is. */
const MIN_USER_TEXT = 6;

/**
 * Takes a user's own words out of a text of an answer, for the log: the values of the parameters
 * that carried them, wherever the text quotes a query (`comment=…` in a Query String line), and the
 * words themselves in every form they may be quoted in, when they are long enough to tell apart.
 */
export function userTextRedactor(params: readonly string[], values: readonly string[]): (text: string) => string {
  const byValue = redactor(values.filter((v) => v.trim().length >= MIN_USER_TEXT));
  if (params.length === 0) return byValue;
  const names = params.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const inQuery = new RegExp(`(^|[?&;\\s])(${names})=[^&\\s]*`, 'gi');
  return (text) => byValue(text).replace(inQuery, `$1$2=${REDACTED}`);
}

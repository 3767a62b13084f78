/**
 * Splits command text into words, honouring quotes. Slack clients turn typed quotes into curly
 * ones (“Domain Admins”), so those count as quotes too. A word may be `key:value` or `key=value`;
 * the key is split off at the first unquoted `:` or `=` when what comes before looks like a key.
 */

export interface Word {
  /** The whole word with its quotes removed. */
  text: string;
  /** Present for key:value and key=value words, lower-cased. */
  key?: string;
  /** The value for key words, the whole text otherwise. */
  value: string;
  /** True when any part of the value was quoted: a quoted word is never a keyword. */
  quoted: boolean;
  /** Where the word starts in the input, for error messages. */
  start: number;
}

export type TokenizeResult = { ok: true; words: Word[] } | { ok: false; problem: string };

const DOUBLE_QUOTES = new Set(['"', '“', '”', '„']);
const SINGLE_QUOTES = new Set(["'", '‘', '’']);
const KEY_SHAPE = /^[A-Za-z][\w-]*$/;

function quoteFamily(c: string): ReadonlySet<string> | undefined {
  return DOUBLE_QUOTES.has(c) ? DOUBLE_QUOTES : SINGLE_QUOTES.has(c) ? SINGLE_QUOTES : undefined;
}

/** Slack sends at most this much text with a slash command: anything longer was not typed into Slack. */
export const MAX_COMMAND_TEXT = 4000;

export function tokenize(input: string): TokenizeResult {
  if (input.length > MAX_COMMAND_TEXT) {
    return {
      ok: false,
      problem: `that is ${input.length.toLocaleString('en')} characters, and a slash command holds at most ${MAX_COMMAND_TEXT.toLocaleString('en')}`,
    };
  }
  const words: Word[] = [];
  const text = input.replace(/\u00a0/g, ' ');
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) break;
    const start = i;
    let raw = '';
    let quoted = false;
    let keyEnd = -1;
    while (i < text.length && !/\s/.test(text[i] as string)) {
      const c = text[i] as string;
      const family = quoteFamily(c);
      // Quotes open only where a value starts, so that O'Brien stays one plain word.
      const atValueStart = raw.length === 0 || raw.length === keyEnd + 1;
      if (family !== undefined && atValueStart && !quoted) {
        let j = i + 1;
        while (j < text.length && !family.has(text[j] as string)) j++;
        if (j >= text.length) return { ok: false, problem: `the quote in “${excerpt(text.slice(start))}” is never closed` };
        raw += text.slice(i + 1, j);
        quoted = true;
        i = j + 1;
        continue;
      }
      if ((c === ':' || c === '=') && keyEnd < 0 && !quoted && KEY_SHAPE.test(raw)) keyEnd = raw.length;
      raw += c;
      i++;
    }
    if (keyEnd >= 0) words.push({ text: raw, key: raw.slice(0, keyEnd).toLowerCase(), value: raw.slice(keyEnd + 1), quoted, start });
    else words.push({ text: raw, value: raw, quoted, start });
  }
  return { ok: true, words };
}

function excerpt(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}

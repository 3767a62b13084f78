/**
 * The service writes timestamps as `YYYY-MM-DD hh:mm:ss.f` (approvals) or `YYYY-MM-DD hh:mm:ss`
 * (runs), in the service's local time with no zone. They are kept as wall-clock parts so that
 * nothing pretends to know the zone: a renderer shows them as written, only more readably.
 */

import type { WallTime } from './zones.js';

/** Longer than any timestamp, padding included: such a value is not read at all. */
const MAX_TIMESTAMP_LENGTH = 64;

/**
 * Read by hand, not with a regular expression and a Date: it runs twice for every approval shown,
 * and was a hot spot under load. The form is `YYYY-MM-DD`, then optionally ` hh:mm` (or `T`),
 * `:ss` and a fraction `.d…`, with whitespace around; the day must exist in its month.
 */
export function parseServiceTimestamp(value: string): WallTime | undefined {
  if (value.length > MAX_TIMESTAMP_LENGTH) return undefined;
  const text = value.trim();
  const n = text.length;
  if (n !== 10 && n !== 16 && n < 19) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 0 || month < 0 || day < 0 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH) return undefined;
  let hour = 0;
  let minute = 0;
  let second = 0;
  if (n > 10) {
    const sep = text.charCodeAt(10);
    if ((sep !== SPACE && sep !== LETTER_T) || text.charCodeAt(13) !== COLON) return undefined;
    hour = digits(text, 11, 2);
    minute = digits(text, 14, 2);
    if (hour < 0 || minute < 0) return undefined;
    if (n > 16) {
      if (text.charCodeAt(16) !== COLON) return undefined;
      second = digits(text, 17, 2);
      if (second < 0) return undefined;
      // A fraction: a dot and at least one digit, to the end.
      if (n > 19 && (text.charCodeAt(19) !== DOT || n === 20 || digits(text, 20, n - 20) < 0)) return undefined;
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  return { year, month, day, hour, minute, second };
}

const DASH = 0x2d;
const COLON = 0x3a;
const SPACE = 0x20;
const LETTER_T = 0x54;
const DOT = 0x2e;

/** The number written in `length` ASCII digits at `from`; -1 when any is not a digit (or the text ends). */
function digits(text: string, from: number, length: number): number {
  if (from + length > text.length) return -1;
  let value = 0;
  for (let i = from; i < from + length; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** As Date.UTC counts them, which reads years 0–99 as 1900–1999. */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS[month - 1] as number;
  const y = year < 100 ? 1900 + year : year;
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
}

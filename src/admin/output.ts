/** What the CLI prints: one line per message, tables, JSON lines, times as the product writes them, and stored text made harmless to a terminal. */

import { INVISIBLE_OUT_OF_PLACE, MAYBE_INVISIBLE, UNSAFE_CHARACTERS } from '../service/query.js';
import { readableInstant } from '../time/write.js';
import type { CliIo } from './io.js';

/**
 * A stored value as a terminal should get it: each control or bidirectional formatting character
 * written as its \u escape, so that nothing in the store (a collector's name, an id, a detail) can
 * move the cursor, clear the screen or reorder what an auditor reads; and each invisible character
 * out of its place (U+200B, tag characters spelling words nobody sees, a run of variation
 * selectors) too, so that an auditor sees all a value holds. One beyond U+FFFF is written as its
 * two \u escapes, as JSON writes it, so a JSON line stays JSON.
 */
export function printable(text: string): string {
  const escaped = text.replace(UNSAFE_CHARACTERS, escapeUnits);
  if (!MAYBE_INVISIBLE.test(escaped)) return escaped;
  return escaped.replace(INVISIBLE_OUT_OF_PLACE, (all, inPlace: string | undefined) => (inPlace === undefined ? escapeUnits(all) : all));
}

function escapeUnits(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** A message on one line, as printable: its line breaks (Node's own messages have some) read as spaces, not as \\u000a. */
export function oneLine(text: string): string {
  return printable(text.replace(/\s*\r?\n\s*/g, ' '));
}

/** One JSON line; JSON escapes the C0 controls, and these escapes keep it valid for the rest. */
export function jsonLine(value: unknown): string {
  return `${printable(JSON.stringify(value))}\n`;
}

export function printTable(io: CliIo, table: string[][]): void {
  const rows = table.map((r) => r.map(printable));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of rows)
    io.stdout.write(
      `${r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
}

/**
 * "Sun 22 Nov 2026, 09:41 Berlin time": every time the CLI prints, written as the product writes
 * times, in the zone it was given (the reader's: the machine's, for a person at a terminal), named.
 */
export function localTime(at: Date, timeZone: string): string {
  return readableInstant(at, timeZone);
}

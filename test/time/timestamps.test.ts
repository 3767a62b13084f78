/** The service's timestamps, read by hand: exactly what the regular expression and Date it replaced accepted. */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseServiceTimestamp } from '../../src/time/timestamps.js';

/** The reading it replaced, kept as the reference. */
function byRegex(value: string) {
  if (value.length > 64) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0)) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  return { year, month, day, hour, minute, second };
}

const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
const timestamp = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
    two(13),
    two(32),
    fc.constantFrom(' ', 'T', 'x', ''),
    two(25),
    two(61),
    two(61),
    fc.constantFrom('', '.5', '.123456', '.', '.x', ' '),
    fc.integer({ min: 0, max: 4 }),
  )
  .map(([y, mo, d, sep, h, mi, s, frac, parts]) => {
    const date = `${y}-${mo}-${d}`;
    if (parts === 0) return date;
    if (parts === 1) return `${date}${sep}${h}:${mi}`;
    return `${date}${sep}${h}:${mi}:${s}${parts > 2 ? frac : ''}`;
  });

describe('parseServiceTimestamp', () => {
  it('reads the forms the service writes', () => {
    expect(parseServiceTimestamp('2026-11-24 10:00:00.5')).toEqual({ year: 2026, month: 11, day: 24, hour: 10, minute: 0, second: 0 });
    expect(parseServiceTimestamp(' 2026-02-28T23:59 ')).toEqual({ year: 2026, month: 2, day: 28, hour: 23, minute: 59, second: 0 });
    expect(parseServiceTimestamp('2024-02-29')).toMatchObject({ year: 2024, month: 2, day: 29 });
    for (const bad of ['2026-02-29', '2026-13-01', '2026-11-24 24:00', '2026-11-24 10:00:00.', '2026-11-24 10:0', '2026-1-24', ''])
      expect(parseServiceTimestamp(bad)).toBeUndefined();
  });

  it('agrees with the regular expression and Date it replaced, on timestamps and on anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          timestamp,
          fc.string({ maxLength: 30 }),
          timestamp.map((t) => `  ${t}\n`),
        ),
        (text) => {
          expect(parseServiceTimestamp(text)).toEqual(byRegex(text));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

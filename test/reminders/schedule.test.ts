import { describe, expect, it } from 'vitest';
import { nextOccurrence, spreadDelayMs, zonedInstant } from '../../src/reminders/schedule.js';

const at = (iso: string) => new Date(iso);
const daily = (timeZone: string, minuteOfDay = 540) => ({ days: 'daily' as const, minuteOfDay, timeZone });
const weekdays = (timeZone: string, minuteOfDay = 540) => ({ days: 'weekdays' as const, minuteOfDay, timeZone });

describe('nextOccurrence', () => {
  it('is today at the time when that is still ahead, tomorrow otherwise, in the user’s zone', () => {
    expect(nextOccurrence(daily('Europe/London'), at('2026-11-22T08:00:00Z')).toISOString()).toBe('2026-11-22T09:00:00.000Z');
    expect(nextOccurrence(daily('Europe/London'), at('2026-11-22T09:00:00Z')).toISOString()).toBe('2026-11-23T09:00:00.000Z');
    expect(nextOccurrence(daily('America/New_York'), at('2026-11-22T12:00:00Z')).toISOString()).toBe('2026-11-22T14:00:00.000Z');
    // 09:00 in Tokyo on the 23rd is midnight UTC; in Kolkata a half-hour zone.
    expect(nextOccurrence(daily('Asia/Tokyo'), at('2026-11-22T12:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(nextOccurrence(daily('Asia/Kolkata'), at('2026-11-22T12:00:00Z')).toISOString()).toBe('2026-11-23T03:30:00.000Z');
  });

  it('uses the user’s calendar day, not UTC’s, near midnight', () => {
    // 23:30 on Saturday in Los Angeles is already Sunday in UTC; the next weekday 09:00 there is Monday.
    expect(nextOccurrence(weekdays('America/Los_Angeles'), at('2026-11-22T07:30:00Z')).toISOString()).toBe('2026-11-23T17:00:00.000Z');
    // Sydney: Monday 08:00 local is Sunday 21:00 UTC; 09:00 Monday local comes the same UTC evening.
    expect(nextOccurrence(weekdays('Australia/Sydney'), at('2026-11-22T21:00:00Z')).toISOString()).toBe('2026-11-22T22:00:00.000Z');
  });

  it('skips Saturday and Sunday on weekdays', () => {
    // Friday 27 Nov 2026, after 09:00 in London: next is Monday 30 Nov.
    expect(nextOccurrence(weekdays('Europe/London'), at('2026-11-27T10:00:00Z')).toISOString()).toBe('2026-11-30T09:00:00.000Z');
    expect(nextOccurrence(daily('Europe/London'), at('2026-11-27T10:00:00Z')).toISOString()).toBe('2026-11-28T09:00:00.000Z');
  });

  it('keeps 09:00 at 09:00 across daylight-saving changes', () => {
    // London goes to BST on 29 March 2026 and back to GMT on 25 October 2026.
    expect(nextOccurrence(daily('Europe/London'), at('2026-03-28T10:00:00Z')).toISOString()).toBe('2026-03-29T08:00:00.000Z');
    expect(nextOccurrence(daily('Europe/London'), at('2026-10-24T10:00:00Z')).toISOString()).toBe('2026-10-25T09:00:00.000Z');
    // New York: 8 March and 1 November 2026.
    expect(nextOccurrence(daily('America/New_York'), at('2026-03-07T15:00:00Z')).toISOString()).toBe('2026-03-08T13:00:00.000Z');
    expect(nextOccurrence(daily('America/New_York'), at('2026-10-31T14:00:00Z')).toISOString()).toBe('2026-11-01T14:00:00.000Z');
    // Southern hemisphere: Sydney leaves daylight time on 5 April 2026.
    expect(nextOccurrence(daily('Australia/Sydney'), at('2026-04-04T00:00:00Z')).toISOString()).toBe('2026-04-04T23:00:00.000Z');
  });

  it('moves a time the clocks skip to just after the jump, and takes a time that happens twice the first time', () => {
    // 01:30 does not exist in London on 29 March 2026 (01:00 → 02:00): 02:30 BST = 01:30Z.
    expect(zonedInstant({ year: 2026, month: 3, day: 29 }, 90, 'Europe/London').toISOString()).toBe('2026-03-29T01:30:00.000Z');
    // 01:30 happens twice on 25 October 2026: first in BST (00:30Z).
    expect(zonedInstant({ year: 2026, month: 10, day: 25 }, 90, 'Europe/London').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // A daily 01:30 reminder fires once on each of those days, never twice, never skipped.
    const fall = daily('Europe/London', 90);
    const first = nextOccurrence(fall, at('2026-10-24T12:00:00Z'));
    expect(first.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(nextOccurrence(fall, first).toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });

  it('fires exactly once per local day over a year, in every zone tried', () => {
    for (const zone of ['Europe/London', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC']) {
      let t = at('2026-01-01T00:00:00Z');
      const days = new Set<string>();
      for (let i = 0; i < 365; i++) {
        const next = nextOccurrence(daily(zone, 150), t);
        const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(next);
        expect(days.has(day), `${zone} ${day}`).toBe(false);
        days.add(day);
        t = next;
      }
    }
  });
});

describe('spreadDelayMs', () => {
  it('is fixed per user and within the spread', () => {
    expect(spreadDelayMs('T1:UADA', 300_000)).toBe(spreadDelayMs('T1:UADA', 300_000));
    const delays = Array.from({ length: 500 }, (_, i) => spreadDelayMs(`T1:U${i}`, 300_000));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(300_000);
    // Spread out, not bunched: most of five one-minute buckets are used.
    expect(new Set(delays.map((d) => Math.floor(d / 60_000))).size).toBe(5);
    expect(spreadDelayMs('T1:UADA', 0)).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { serviceDateFilter } from '../../src/parse/dates.js';
import { dueStandingOf, readServiceTime, timeFrame } from '../../src/time/frame.js';

// 09:00 on Tuesday 24 November 2026 in Berlin.
const NOW = new Date('2026-11-24T08:00:00Z');

describe('readServiceTime', () => {
  it('reads a time of a New York service as an instant, on a Berlin reader’s clock, named', () => {
    const time = readServiceTime('2026-11-24 17:00:00.0', timeFrame(NOW, 'Europe/Berlin', 'America/New_York'));
    expect(time).toMatchObject({ kind: 'instant', label: 'Berlin time', wall: { day: 24, hour: 23, minute: 0, weekday: 2 } });
    expect(time?.kind === 'instant' && time.at.toISOString()).toBe('2026-11-24T22:00:00.000Z');
  });

  it('keeps a time as written, named as the service’s, when the service’s zone is not known', () => {
    const time = readServiceTime('2026-11-24 17:00:00.0', timeFrame(NOW, 'Europe/Berlin', undefined));
    expect(time).toEqual({
      kind: 'as-written',
      label: 'service time',
      wall: { year: 2026, month: 11, day: 24, hour: 17, minute: 0, second: 0, weekday: 2 },
    });
  });

  it('reads nothing into what is not a time, and reads the reader’s unknown zone as UTC', () => {
    expect(readServiceTime('soon', timeFrame(NOW, 'Europe/Berlin', 'UTC'))).toBeUndefined();
    expect(readServiceTime('2026-11-24 17:00:00.0', timeFrame(NOW, 'Mars/Olympus_Mons', 'UTC'))).toMatchObject({
      label: 'UTC',
      wall: { hour: 17 },
    });
  });
});

describe('dueStandingOf', () => {
  const known = timeFrame(NOW, 'Europe/Berlin', 'America/New_York');
  const unknown = timeFrame(NOW, 'Europe/Berlin', undefined);
  const group = (value: string, frame = known) => dueStandingOf(value, frame, 3)?.group;

  it('decides overdue on the real instant: a time passed earlier today is overdue, never “due today”', () => {
    // 02:00 in New York is 08:00 in Berlin: an hour ago.
    expect(dueStandingOf('2026-11-24 02:00:00.0', known, 3)).toEqual({ group: 'overdue', days: 0, overdueMs: 3_600_000 });
    // 04:00 in New York is 10:00 in Berlin: later today.
    expect(group('2026-11-24 04:00:00.0')).toBe('today');
    // 18:30 in New York on the 24th is 00:30 on the 25th in Berlin: tomorrow, for the reader.
    expect(dueStandingOf('2026-11-24 18:30:00.0', known, 3)).toEqual({ group: 'soon', days: 1 });
  });

  it('counts soon as the days of the window after today, and later what comes after', () => {
    expect(group('2026-11-25 12:00:00.0')).toBe('soon');
    expect(group('2026-11-26 12:00:00.0')).toBe('soon');
    expect(group('2026-11-27 12:00:00.0')).toBe('later');
    expect(dueStandingOf('2026-11-25 12:00:00.0', known, 1)?.group).toBe('later');
  });

  it('compares only days when the service’s zone is not known', () => {
    expect(dueStandingOf('2026-11-24 02:00:00.0', unknown, 3)).toEqual({ group: 'today', days: 0 });
    expect(dueStandingOf('2026-11-23 23:00:00.0', unknown, 3)).toEqual({ group: 'overdue', days: -1 });
    expect(group('2026-11-27 00:00:00.0', unknown)).toBe('later');
  });
});

describe('serviceDateFilter', () => {
  it('reads a date as /approvals does, and carries it to the service’s calendar', () => {
    expect(serviceDateFilter('3d', 'before', timeFrame(NOW, 'Europe/Berlin', undefined))).toBe('26-nov-2026');
    expect(serviceDateFilter('today', 'after', timeFrame(NOW, 'Asia/Tokyo', 'America/New_York'))).toBe('23-nov-2026');
    expect(serviceDateFilter('someday', 'after', timeFrame(NOW, 'UTC', undefined))).toBeUndefined();
  });
});

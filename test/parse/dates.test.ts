import { differenceInCalendarDays } from 'date-fns';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateInput } from '../../src/parse/dates.js';
import { daysFromToday, readServiceDate, serviceDay, todayIn } from '../../src/time/days.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const value = (input: string) => {
  const r = parseDateInput(input, TODAY);
  return r.ok ? r.value : `error: ${r.problem}`;
};

describe('parseDateInput', () => {
  it('reads ISO dates and dd-mmm-yyyy in any case, to dd-mmm-yyyy lower case', () => {
    expect(value('2026-01-31')).toBe('31-jan-2026');
    expect(value('2026-1-5')).toBe('05-jan-2026');
    expect(value('31-JAN-2026')).toBe('31-jan-2026');
    expect(value('5-Sep-2026')).toBe('05-sep-2026');
  });
  it('reads today, yesterday, tomorrow and day offsets from the given today', () => {
    expect(value('today')).toBe('22-nov-2026');
    expect(value('Yesterday')).toBe('21-nov-2026');
    expect(value('tomorrow')).toBe('23-nov-2026');
    expect(value('7d')).toBe('29-nov-2026');
    expect(value('+10d')).toBe('02-dec-2026');
    expect(value('-30d')).toBe('23-oct-2026');
    expect(value('0d')).toBe('22-nov-2026');
  });
  it('crosses years and leap days', () => {
    expect(parseDateInput('60d', { year: 2027, month: 12, day: 31 })).toMatchObject({ value: '29-feb-2028' });
    expect(value('2028-02-29')).toBe('29-feb-2028');
  });
  it('refuses days that do not exist and things that are not dates', () => {
    expect(value('2026-02-30')).toMatch(/not a day of the calendar/);
    expect(value('31-feb-2026')).toMatch(/not a day of the calendar/);
    expect(value('2026-13-01')).toMatch(/not a day of the calendar/);
    expect(value('31-foo-2026')).toMatch(/not a day of the calendar/);
    expect(value('next week')).toMatch(/not a date/);
    expect(value('31/01/2026')).toMatch(/not a date/);
    expect(value('99999d')).toMatch(/more than 3650 days/);
    expect(value('0001-01-01')).toMatch(/not a day of the calendar/);
  });
});

describe('a number of days as one end of a range', () => {
  const bound = (input: string, end: 'after' | 'before') => {
    const r = parseDateInput(input, TODAY, end);
    return r.ok ? r.value : `error: ${r.problem}`;
  };
  it('covers that many days, today included, never one more', () => {
    // due-before:7d: today (the 22nd) and the six days after it, so the 28th is the last.
    expect(bound('7d', 'before')).toBe('28-nov-2026');
    expect(bound('1d', 'before')).toBe('22-nov-2026');
    // completed-after:-7d: today and the six days before it.
    expect(bound('-7d', 'after')).toBe('16-nov-2026');
    expect(bound('-1d', 'after')).toBe('22-nov-2026');
  });
  it('lets each of those ranges and its other side meet without a gap or a day in both', () => {
    // due-after:7d starts the day after due-before:7d ends; completed-before:-7d ends the day before completed-after:-7d starts.
    expect(bound('7d', 'after')).toBe('29-nov-2026');
    expect(bound('-7d', 'before')).toBe('15-nov-2026');
    expect(bound('0d', 'before')).toBe('22-nov-2026');
    expect(bound('today', 'before')).toBe('22-nov-2026');
    expect(bound('tomorrow', 'after')).toBe('23-nov-2026');
    expect(bound('2026-11-30', 'before')).toBe('30-nov-2026');
  });
});

describe('serviceDay', () => {
  const day = (d: number) => ({ year: 2026, month: 11, day: d });
  it('is the same day where the zones agree, or differ by less than half a day', () => {
    expect(serviceDay(day(24), { user: 'Europe/Berlin', service: 'Europe/Berlin' })).toEqual(day(24));
    expect(serviceDay(day(24), { user: 'Europe/Berlin', service: 'America/New_York' })).toEqual(day(24));
    expect(serviceDay(day(24), { user: 'America/Los_Angeles', service: 'Europe/Berlin' })).toEqual(day(24));
  });
  it('is the service’s day that holds most of the user’s, when they are far apart', () => {
    // Tokyo's 24th runs from 10:00 on the 23rd to 10:00 on the 24th in New York.
    expect(serviceDay(day(24), { user: 'Asia/Tokyo', service: 'America/New_York' })).toEqual(day(23));
    // Chatham's 24th: from 10:15 on the 23rd UTC.
    expect(serviceDay(day(24), { user: 'Pacific/Chatham', service: 'UTC' })).toEqual(day(23));
    expect(serviceDay(day(24), { user: 'Pacific/Honolulu', service: 'Asia/Tokyo' })).toEqual(day(25));
  });
  it('keeps the order of days, so that a range is never turned round', () => {
    // Where the zones are about 12 hours apart, a change of summer time can make two of the user's days meet in one of the service's.
    const zones = ['Asia/Tokyo', 'Pacific/Chatham', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'UTC'];
    for (const user of zones)
      for (const service of zones)
        for (let d = 1; d < 30; d++) {
          const a = serviceDay(day(d), { user, service });
          const b = serviceDay(day(d + 1), { user, service });
          const apart = (Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000;
          expect([0, 1, 2], `${user} ${service} ${d}`).toContain(apart);
        }
  });
  it('reads back what it sends', () => {
    expect(readServiceDate('05-jan-2026')).toEqual({ year: 2026, month: 1, day: 5 });
    expect(readServiceDate('31-feb-2026')).toBeUndefined();
    expect(readServiceDate('05-JAN-2026')).toBeUndefined();
  });
});

describe('todayIn', () => {
  const now = new Date('2026-11-22T06:30:00Z');
  it('gives the calendar day in the user’s time zone', () => {
    expect(todayIn('UTC', now)).toEqual({ year: 2026, month: 11, day: 22 });
    expect(todayIn('America/Los_Angeles', now)).toEqual({ year: 2026, month: 11, day: 21 });
    expect(todayIn('Australia/Sydney', new Date('2026-11-22T14:00:00Z'))).toEqual({ year: 2026, month: 11, day: 23 });
  });
  it('falls back to UTC for an unknown or missing zone', () => {
    expect(todayIn('Mars/Olympus_Mons', now)).toEqual({ year: 2026, month: 11, day: 22 });
    expect(todayIn(undefined, now)).toEqual({ year: 2026, month: 11, day: 22 });
  });
});

describe('daysFromToday', () => {
  it('counts calendar days as date-fns does for local midnights, across DST changes and leap days', () => {
    const day = fc.date({ min: new Date(1901, 0, 1), max: new Date(2199, 11, 31), noInvalidDate: true });
    fc.assert(
      fc.property(day, day, (due, now) => {
        const stamp = `${due.getFullYear()}-${String(due.getMonth() + 1).padStart(2, '0')}-${String(due.getDate()).padStart(2, '0')} 10:00:00.0`;
        const today = { year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() };
        const expected = differenceInCalendarDays(
          new Date(due.getFullYear(), due.getMonth(), due.getDate()),
          new Date(today.year, today.month - 1, today.day),
        );
        expect(daysFromToday(stamp, today)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
    expect(daysFromToday('2026-03-29 10:00:00.0', { year: 2026, month: 3, day: 28 })).toBe(1);
    expect(daysFromToday('not a date', { year: 2026, month: 3, day: 28 })).toBeUndefined();
  });
});

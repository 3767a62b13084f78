import { differenceInCalendarDays } from 'date-fns';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysFromToday, parseDateInput, todayIn } from '../../src/parse/dates.js';

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

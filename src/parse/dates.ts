/**
 * Dates as people type them, to the service's dd-mmm-yyyy with a lower-case month. Relative words
 * (today, 7d, -7d) count days from the user's own today, in their Slack time zone, so that an
 * approver in Sydney and one in San Francisco both get what they meant. The service reads a date
 * as a day of its own calendar; when its zone is known, the user's day is sent as the service's
 * day nearest to it (serviceDay).
 */

import { calendarDay, MONTHS, serviceDateText, serviceDay } from '../time/days.js';
import type { TimeFrame } from '../time/frame.js';
import { addCalendarDays, type CalendarDay } from '../time/zones.js';

export type DateResult = { ok: true; value: string; day: CalendarDay } | { ok: false; problem: string };

export const DATE_FORMS = '2026-01-31, 31-jan-2026, today, yesterday, tomorrow, 7d or -7d';

const MAX_RELATIVE_DAYS = 3650;

/**
 * Which end of a range a date is: `due-before` is an upper bound (its day included), `due-after` a
 * lower one. It decides what a number of days covers: `7d` is the next seven days and `-7d` the last
 * seven, today counted in both, so `due-before:7d` ends with the sixth day after today and
 * `completed-after:-7d` starts with the sixth day before it. Never an eighth day.
 */
export type Bound = 'after' | 'before';

/**
 * A date as typed, read but not yet counted from anyone's today: a day of the calendar, or a number
 * of days from today (the bound already applied). Reading needs no clock; only resolving does.
 */
export type DateInput = { kind: 'day'; day: CalendarDay } | { kind: 'from-today'; days: number };

export type DateReading = { ok: true; date: DateInput } | { ok: false; problem: string };

export function readDateInput(input: string, bound?: Bound): DateReading {
  const text = input.trim().toLowerCase();
  if (text === 'today') return { ok: true, date: { kind: 'from-today', days: 0 } };
  if (text === 'yesterday') return { ok: true, date: { kind: 'from-today', days: -1 } };
  if (text === 'tomorrow') return { ok: true, date: { kind: 'from-today', days: 1 } };
  let day: CalendarDay | undefined;
  if (/^[+-]?\d+d$/.test(text)) {
    const n = Number.parseInt(text, 10);
    if (Math.abs(n) > MAX_RELATIVE_DAYS) return { ok: false, problem: `${input} is more than ${MAX_RELATIVE_DAYS} days away` };
    const counted = bound === 'before' && n > 0 ? n - 1 : bound === 'after' && n < 0 ? n + 1 : n;
    return { ok: true, date: { kind: 'from-today', days: counted } };
  }
  if (/^\d{4}-\d{1,2}-\d{1,2}$/.test(text)) {
    const [y, m, d] = text.split('-').map(Number) as [number, number, number];
    day = calendarDay(y, m, d);
  } else if (/^\d{1,2}-[a-z]{3}-\d{4}$/.test(text)) {
    const [d, m, y] = text.split('-') as [string, string, string];
    day = calendarDay(Number(y), MONTHS.indexOf(m) + 1, Number(d));
  } else {
    return { ok: false, problem: `${input} is not a date` };
  }
  if (day === undefined) return { ok: false, problem: `${input} is not a day of the calendar` };
  return { ok: true, date: { kind: 'day', day } };
}

/** The day a date read stands for, counted from `today`; a problem when that falls off the calendar. */
export function resolveDateInput(input: string, date: DateInput, today: CalendarDay): DateResult {
  const day = date.kind === 'day' ? date.day : addCalendarDays(today, date.days);
  if (day.year < 1900 || day.year > 9999) return { ok: false, problem: `${input} is not a day of the calendar` };
  return { ok: true, value: serviceDateText(day), day };
}

export function parseDateInput(input: string, today: CalendarDay, bound?: Bound): DateResult {
  const read = readDateInput(input, bound);
  return read.ok ? resolveDateInput(input, read.date, today) : read;
}

/**
 * A date typed as the user would (`today`, `3d`), as the service's filter value for one end of a
 * range: counted from the reader's today, then carried to the service's calendar when its zone is
 * known, exactly as /approvals reads it. Undefined for what is not a date.
 */
export function serviceDateFilter(input: string, bound: Bound, frame: TimeFrame): string | undefined {
  const date = parseDateInput(input, frame.today, bound);
  if (!date.ok) return undefined;
  return serviceDateText(
    frame.serviceZone === undefined ? date.day : serviceDay(date.day, { user: frame.zone, service: frame.serviceZone }),
  );
}

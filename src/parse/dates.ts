/**
 * Dates as people type them, to the service's dd-mmm-yyyy with a lower-case month. Relative words
 * (today, 7d, -7d) count days from the user's own today, in their Slack time zone, so that an
 * approver in Sydney and one in San Francisco both get what they meant. The service reads a date
 * as a day of its own calendar; when its zone is known, the user's day is sent as the service's
 * day nearest to it (serviceDay).
 */

import { parseServiceTimestamp } from '../service/timestamps.js';
import { addCalendarDays, type CalendarDay, startOfDay, wallClock, zoneOrUtc } from './zones.js';

export type { CalendarDay };

/** Formatters are costly to build (a few hundred microseconds) and there are few zones: keep one per zone and use. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * A cached Intl formatter for a zone; `use` names the options so that callers with different
 * options do not share one. An unknown zone gets UTC's.
 */
export function zoneFormatter(use: string, timeZone: string, options: Intl.DateTimeFormatOptions, locale = 'en-US'): Intl.DateTimeFormat {
  const key = `${use}|${timeZone}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {
      formatter = zoneFormatter(use, 'UTC', options, locale);
    }
    if (formatters.size < 5000) formatters.set(key, formatter);
  }
  return formatter;
}

/** The last answer per zone, by minute: midnight falls on a minute, so within one the day cannot change. */
const todays = new Map<string, { minute: number; day: CalendarDay }>();

/** The calendar day it is now in an IANA time zone (UTC when the zone is unknown). */
export function todayIn(timeZone: string | undefined, now: Date): CalendarDay {
  const zone = zoneOrUtc(timeZone);
  const minute = Math.floor(now.getTime() / 60_000);
  const hit = todays.get(zone);
  if (hit?.minute === minute) return { ...hit.day };
  const { year, month, day } = wallClock(now, zone);
  if (todays.size < 5000 || todays.has(zone)) todays.set(zone, { minute, day: { year, month, day } });
  return { year, month, day };
}

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

/** The zones a typed day is carried between: the user's (in which they mean it) and the service's (in which it is read). */
export interface Zones {
  user: string;
  service: string;
}

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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A day as the service's filters take it: `05-jan-2026`. */
export function serviceDateText(day: CalendarDay): string {
  return `${String(day.day).padStart(2, '0')}-${MONTHS[day.month - 1]}-${String(day.year).padStart(4, '0')}`;
}

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A day as people read it: "Sun 29 Nov 2026", or "Sun 29 Nov" where the year goes without saying (within the next days). */
export function readableDay(day: CalendarDay, withYear = true): string {
  const weekday = WEEKDAY_NAMES[new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay()];
  return `${weekday} ${day.day} ${MONTH_NAMES[day.month - 1]}${withYear ? ` ${day.year}` : ''}`;
}

/** `05-jan-2026` back to its day; undefined for anything else. */
export function readServiceDate(text: string): CalendarDay | undefined {
  const m = /^(\d{1,2})-([a-z]{3})-(\d{4})$/.exec(text);
  return m ? calendarDay(Number(m[3]), MONTHS.indexOf(m[2] as string) + 1, Number(m[1])) : undefined;
}

/** The day, or undefined when it does not exist (31 February, month 13). */
function calendarDay(year: number, month: number, day: number): CalendarDay | undefined {
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || day < 1) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { year, month, day } : undefined;
}

/**
 * The day of the service's calendar that stands for the user's `day`: the one holding the middle of
 * it. Its start and end then lie within 12 hours of the user's (the same day where the zones agree),
 * and a range of the user's days is sent as a range of the service's, never turned round.
 */
export function serviceDay(day: CalendarDay, zones: Zones): CalendarDay {
  const middle = startOfDay(day, zones.user).getTime() + 12 * 3_600_000;
  const { year, month, day: d } = wallClock(new Date(middle), zones.service);
  return { year, month, day: d };
}

/**
 * Whole calendar days from the user's today to the day of a service timestamp (negative when it
 * is past), or undefined when the service wrote something that is not a timestamp.
 */
export function daysFromToday(serviceTimestamp: string, today: CalendarDay): number | undefined {
  const t = parseServiceTimestamp(serviceTimestamp);
  if (t === undefined) return undefined;
  // Calendar days counted on UTC midnights, where every day has 24 hours: what date-fns'
  // differenceInCalendarDays gives for local midnights, without its cost for every approval shown.
  return Math.round((Date.UTC(t.year, t.month - 1, t.day) - Date.UTC(today.year, today.month - 1, today.day)) / 86_400_000);
}

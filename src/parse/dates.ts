/**
 * Dates as people type them, to the service's dd-mmm-yyyy with a lower-case month. Relative words
 * (today, 7d, -7d) count days from the user's own today, in their Slack time zone, so that an
 * approver in Sydney and one in San Francisco both get what they meant.
 */

import { addDays, format } from 'date-fns';
import { parseServiceTimestamp } from '../service/timestamps.js';

export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

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

const formatterFor = (timeZone: string) => zoneFormatter('day', timeZone, { year: 'numeric', month: 'numeric', day: 'numeric' });

/** The last answer per zone, by minute: midnight falls on a minute, so within one the day cannot change. */
const todays = new Map<string, { minute: number; day: CalendarDay }>();

/** The calendar day it is now in an IANA time zone (UTC when the zone is unknown). */
export function todayIn(timeZone: string | undefined, now: Date): CalendarDay {
  const zone = timeZone ?? 'UTC';
  const minute = Math.floor(now.getTime() / 60_000);
  const hit = todays.get(zone);
  if (hit?.minute === minute) return { ...hit.day };
  const parts = formatterFor(zone).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const day = { year: get('year'), month: get('month'), day: get('day') };
  if (todays.size < 5000 || todays.has(zone)) todays.set(zone, { minute, day });
  return { ...day };
}

export type DateResult = { ok: true; value: string; day: Date } | { ok: false; problem: string };

export const DATE_FORMS = '2026-01-31, 31-jan-2026, today, yesterday, tomorrow, 7d or -7d';

const MAX_RELATIVE_DAYS = 3650;

/** Days are handled as local-midnight Dates: only calendar arithmetic is done on them. */
function localDay(d: CalendarDay): Date {
  return new Date(d.year, d.month - 1, d.day);
}

export function parseDateInput(input: string, today: CalendarDay): DateResult {
  const text = input.trim().toLowerCase();
  const base = localDay(today);
  let day: Date | undefined;
  if (text === 'today') day = base;
  else if (text === 'yesterday') day = addDays(base, -1);
  else if (text === 'tomorrow') day = addDays(base, 1);
  else if (/^[+-]?\d+d$/.test(text)) {
    const n = Number.parseInt(text, 10);
    if (Math.abs(n) > MAX_RELATIVE_DAYS) return { ok: false, problem: `${input} is more than ${MAX_RELATIVE_DAYS} days away` };
    day = addDays(base, n);
  } else if (/^\d{4}-\d{1,2}-\d{1,2}$/.test(text)) {
    const [y, m, d] = text.split('-').map(Number) as [number, number, number];
    day = calendarDay(y, m, d);
  } else if (/^\d{1,2}-[a-z]{3}-\d{4}$/.test(text)) {
    const [d, m, y] = text.split('-') as [string, string, string];
    day = calendarDay(Number(y), MONTHS.indexOf(m) + 1, Number(d));
  } else {
    return { ok: false, problem: `${input} is not a date` };
  }
  if (day === undefined) return { ok: false, problem: `${input} is not a day of the calendar` };
  return { ok: true, value: format(day, 'dd-MMM-yyyy').toLowerCase(), day };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The day, or undefined when it does not exist (31 February, month 13): Date would roll it over. */
function calendarDay(year: number, month: number, day: number): Date | undefined {
  if (year < 1900 || year > 9999) return undefined;
  const date = new Date(year, month - 1, day);
  return date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day ? date : undefined;
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

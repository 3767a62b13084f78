/**
 * Days of the calendar: today in a zone, the service's day a user's day is sent as, and the ways a
 * day is written (the service's dd-mmm-yyyy, and for people "Sun 29 Nov 2026"). Pure.
 */

import { parseServiceTimestamp } from './timestamps.js';
import { type CalendarDay, startOfDay, wallClock, zoneOrUtc } from './zones.js';

export type { CalendarDay };

/** The zones a typed day is carried between: the user's (in which they mean it) and the service's (in which it is read). */
export interface Zones {
  user: string;
  service: string;
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

export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

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
export function calendarDay(year: number, month: number, day: number): CalendarDay | undefined {
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

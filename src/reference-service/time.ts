/**
 * Dates as the service speaks them: wall-clock values with no zone, as the real service writes
 * its own local time. The reference writes them in the zone it is given (UTC unless told), never
 * the machine's, so that it answers the same on every machine; countersign is told that zone by
 * COMMAND_SERVICE_TIME_ZONE.
 */

import { TZDate } from '@date-fns/tz';

/** The zone the reference service writes its times in unless told another. */
export const DEFAULT_SERVICE_ZONE = 'UTC';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD hh:mm:ss.f`, the shape of WorkItemDueDate, on the clocks of `zone`. */
export function formatServiceTimestamp(date: Date, zone = DEFAULT_SERVICE_ZONE): string {
  return `${formatRunTime(date, zone)}.${Math.floor(date.getUTCMilliseconds() / 100)}`;
}

/** `YYYY-MM-DD hh:mm:ss`, the shape of getRunStatus times, on the clocks of `zone`. */
export function formatRunTime(date: Date, zone = DEFAULT_SERVICE_ZONE): string {
  const d = new TZDate(date.getTime(), zone);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Whether `zone` is a zone the service can write its times in. */
export function isServiceZone(zone: string): boolean {
  return !Number.isNaN(new TZDate(0, zone).getTime());
}

/**
 * `dd-mmm-yyyy` with a lower-case month, as the spec requires, to `YYYY-MM-DD`; undefined for
 * anything else (an upper-case month included: the service expects parameter values in lower case).
 */
export function parseFilterDate(value: string): string | undefined {
  const m = /^(\d{1,2})-([a-z]{3})-(\d{4})$/.exec(value);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2] as string);
  const day = Number(m[1]);
  const year = Number(m[3]);
  if (month < 0) return undefined;
  const date = new Date(Date.UTC(year, month, day));
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined;
  return `${pad(year, 4)}-${pad(month + 1)}-${pad(day)}`;
}

/** The day after a `YYYY-MM-DD` day, for inclusive upper bounds. */
export function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/**
 * Service times for people: "Tue 24 Nov 2026, 23:00 Berlin time" in the reader's own zone when the
 * service's zone is known, "Tue 24 Nov 2026, 17:00 service time" as written when it is not; and how
 * the time stands against now ("overdue by 3 hours", "due today", "due in 5 days").
 */

import { dueStanding, readServiceTime, type ServiceTime, type TimeFrame } from './frame.js';
import { wallClock, zoneLabel, zoneOrUtc } from './zones.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "00" to "59": an hour or a minute as a clock writes it. */
const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));

/** "Tue 24 Nov 2026, 23:00 Berlin time". By hand, not date-fns format: it runs for every approval shown, and was a hot spot under load. */
export function readableTime(time: ServiceTime): string {
  const w = time.wall;
  return `${WEEKDAYS[w.weekday]} ${w.day} ${MONTHS[w.month - 1]} ${w.year}, ${TWO[w.hour]}:${TWO[w.minute]} ${time.label}`;
}

/**
 * A moment countersign itself knows (a link made, a reminder's next digest, an audit row), written as
 * every time of the product is, in `zone`, named: "Fri 27 Nov 2026, 19:09 London time".
 */
export function readableInstant(at: Date, zone: string): string {
  const z = zoneOrUtc(zone);
  return readableTime({ kind: 'instant', at, wall: wallClock(at, z), label: zoneLabel(z) });
}

/** readableTime of a time as the service wrote it; undefined for one that is not a time. */
export function readableTimestamp(value: string, frame: TimeFrame): string | undefined {
  const time = readServiceTime(value, frame);
  return time === undefined ? undefined : readableTime(time);
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "3 days", "5 hours", "12 minutes": the whole units that have passed. */
function overdueBy(ms: number): string {
  if (ms >= 86_400_000) return plural(Math.floor(ms / 86_400_000), 'day');
  if (ms >= 3_600_000) return plural(Math.floor(ms / 3_600_000), 'hour');
  return plural(Math.max(1, Math.floor(ms / 60_000)), 'minute');
}

/**
 * "overdue by 3 hours", "due today", "due tomorrow", "due in 5 days", with `days` from today (negative
 * when that day is past) for those who count; undefined for an unreadable date. With the service's
 * zone unknown, only days are compared: "overdue by 2 days" counts calendar days.
 */
export function dueRelative(value: string, frame: TimeFrame): { text: string; overdue: boolean; days: number } | undefined {
  const time = readServiceTime(value, frame);
  return time === undefined ? undefined : standingText(time, frame);
}

/** dueRelative of a time already read: reading one is most of the cost, and a page reads each due date once. */
export function standingText(time: ServiceTime, frame: TimeFrame): { text: string; overdue: boolean; days: number } {
  const { group, days, overdueMs } = dueStanding(time, frame, 1);
  if (group === 'overdue')
    return { text: `overdue by ${overdueMs === undefined ? plural(-days, 'day') : overdueBy(overdueMs)}`, overdue: true, days };
  if (days === 0) return { text: 'due today', overdue: false, days };
  if (days === 1) return { text: 'due tomorrow', overdue: false, days };
  return { text: `due in ${days} days`, overdue: false, days };
}

/** A wall-clock time of day, "09:00", "19:30": what a reminder fires at, where quiet hours start and end. */
export function formatMinuteOfDay(minuteOfDay: number): string {
  const h = Math.floor(minuteOfDay / 60);
  const m = minuteOfDay % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

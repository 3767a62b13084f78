/**
 * When a reminder fires: a wall-clock time in the user's own time zone, every day or on weekdays.
 * Pure: an instant and a zone in, an instant out. Daylight-saving changes are handled here, not
 * by adding 24 hours, so that "09:00" stays 09:00 on both sides of a change.
 */

import { type CalendarDay, todayIn, zoneFormatter } from '../parse/dates.js';
import type { RemindDays, Reminder } from '../store/types.js';

export type { RemindDays };

export interface ReminderSchedule {
  days: RemindDays;
  /** Minutes after local midnight, 0–1439. */
  minuteOfDay: number;
  /** IANA zone, from the user's Slack profile when it was set. */
  timeZone: string;
}

const wallFormatter = (timeZone: string) =>
  zoneFormatter('wall', timeZone, {
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });

/** The zone's wall clock at an instant, read as if it were UTC: comparing it with the instant gives the offset. */
function wallAsUtc(timeZone: string, instant: number): number {
  const parts = wallFormatter(timeZone).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

function offsetAt(timeZone: string, instant: number): number {
  return wallAsUtc(timeZone, Math.floor(instant / 1000) * 1000) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant at which a zone's clocks show `minuteOfDay` on `day`. A time that happens twice
 * (clocks going back) is taken the first time; a time that does not happen (clocks going
 * forward) is taken as the same distance past the jump, as a wall clock that was not changed
 * would show it: 02:30 on a night that skips 02:00–03:00 becomes 03:30.
 */
export function zonedInstant(day: CalendarDay, minuteOfDay: number, timeZone: string): Date {
  const wall = Date.UTC(day.year, day.month - 1, day.day, 0, minuteOfDay);
  const dayMs = 86_400_000;
  const before = wall - offsetAt(timeZone, wall - dayMs);
  const after = wall - offsetAt(timeZone, wall + dayMs);
  const matches = [before, after].filter((t) => wallAsUtc(timeZone, t) === wall);
  return new Date(matches.length > 0 ? Math.min(...matches) : before);
}

export function addCalendarDays(day: CalendarDay, n: number): CalendarDay {
  const d = new Date(Date.UTC(day.year, day.month - 1, day.day + n));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

function isWeekend(day: CalendarDay): boolean {
  const weekday = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
  return weekday === 0 || weekday === 6;
}

/** The first time strictly after `after` at which the schedule fires. */
export function nextOccurrence(schedule: ReminderSchedule, after: Date): Date {
  const today = todayIn(schedule.timeZone, after);
  for (let i = 0; i < 9; i++) {
    const day = addCalendarDays(today, i);
    if (schedule.days === 'weekdays' && isWeekend(day)) continue;
    const at = zonedInstant(day, schedule.minuteOfDay, schedule.timeZone);
    if (at.getTime() > after.getTime()) return at;
  }
  // Unreachable: within nine days there is always a later weekday.
  throw new Error('no next occurrence');
}

/**
 * A fixed delay for one user within `spreadMs`, the same at every occurrence: a thousand
 * approvers who all chose 09:00 are not fetched in the same second, and each still hears at
 * about the same time every day.
 */
export function spreadDelayMs(key: string, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  let hash = 2166136261;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return (hash >>> 0) % spreadMs;
}

export function formatMinuteOfDay(minuteOfDay: number): string {
  const h = Math.floor(minuteOfDay / 60);
  const m = minuteOfDay % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

/**
 * A reminder is paused from when the user was told their token no longer works (or unlinked)
 * until they link again: a link made after the pause lifts it.
 */
export function reminderPaused(reminder: Pick<Reminder, 'pausedAt'>, linked: { linkedAt: Date } | undefined): boolean {
  return reminder.pausedAt !== undefined && (linked === undefined || linked.linkedAt <= reminder.pausedAt);
}

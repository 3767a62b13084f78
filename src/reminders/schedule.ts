/**
 * When a reminder fires: a wall-clock time in the user's own time zone, every day or on weekdays.
 * Pure: an instant and a zone in, an instant out. Daylight-saving changes are handled here, not
 * by adding 24 hours, so that "09:00" stays 09:00 on both sides of a change.
 */

import type { RemindDays, Reminder } from '../store/types.js';
import { todayIn } from '../time/days.js';
import { addCalendarDays, type CalendarDay, instantOf } from '../time/zones.js';

export type { RemindDays };

export interface ReminderSchedule {
  days: RemindDays;
  /** Minutes after local midnight, 0–1439. */
  minuteOfDay: number;
  /** IANA zone, from the user's Slack profile when it was set. */
  timeZone: string;
}

/**
 * The instant at which a zone's clocks show `minuteOfDay` on `day`. A time that happens twice
 * (clocks going back) is taken the first time; a time that does not happen (clocks going
 * forward) is taken as the same distance past the jump, as a wall clock that was not changed
 * would show it: 02:30 on a night that skips 02:00–03:00 becomes 03:30.
 */
export function zonedInstant(day: CalendarDay, minuteOfDay: number, timeZone: string): Date {
  return instantOf({ ...day, hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60, second: 0 }, timeZone);
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

/**
 * A reminder is paused from when the user was told their token no longer works (or unlinked)
 * until they link again: a link made after the pause lifts it.
 */
export function reminderPaused(reminder: Pick<Reminder, 'pausedAt'>, linked: { linkedAt: Date } | undefined): boolean {
  return reminder.pausedAt !== undefined && (linked === undefined || linked.linkedAt <= reminder.pausedAt);
}

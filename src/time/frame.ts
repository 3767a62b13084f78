/**
 * The service's times, read for one reader. The service writes wall-clock times with no zone
 * (`2026-11-24 17:00:00.0`). When the operator says which zone that is (COMMAND_SERVICE_TIME_ZONE),
 * each time is a real instant: shown in the reader's own zone, and due or overdue by the real
 * clock. When not, a time is only what the service wrote: shown as written, as the service's time,
 * and its day is compared with the reader's today as a day of the calendar, nothing finer. Pure.
 */

import { serviceDay, todayIn } from './days.js';
import { parseServiceTimestamp } from './timestamps.js';
import {
  addCalendarDays,
  type CalendarDay,
  calendarDaysBetween,
  instantOf,
  startOfDay,
  type WallTime,
  wallClock,
  zoneLabel,
  zoneOrUtc,
} from './zones.js';

/** Who reads the service's times, and when. */
export interface TimeFrame {
  readonly now: Date;
  /** The reader's IANA zone (UTC when Slack did not say). */
  readonly zone: string;
  /** The zone the service writes its times in; undefined when the operator did not say. */
  readonly serviceZone: string | undefined;
  /** The reader's calendar day, in their zone. */
  readonly today: CalendarDay;
}

export function timeFrame(now: Date, zone: string | undefined, serviceZone: string | undefined): TimeFrame {
  const z = zoneOrUtc(zone);
  return { now, zone: z, serviceZone, today: todayIn(z, now) };
}

/** A service time: an instant, read on the reader's clock; or, the service's zone unknown, the wall clock as written. */
export type ServiceTime =
  | { readonly kind: 'instant'; readonly at: Date; readonly wall: WallTime & { weekday: number }; readonly label: string }
  | { readonly kind: 'as-written'; readonly wall: WallTime & { weekday: number }; readonly label: string };

/** How a time as written is named: it is the service's clock, which may not be the reader's. */
export const AS_WRITTEN_LABEL = 'service time';

/** Undefined when the service wrote something that is not a time. */
export function readServiceTime(value: string, frame: TimeFrame): ServiceTime | undefined {
  const t = parseServiceTimestamp(value);
  if (t === undefined) return undefined;
  if (frame.serviceZone === undefined) {
    // Field by field: spreading `t` here cost ten times the reading of it (0.9 µs, every time on a page).
    const wall = { year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second, weekday: weekdayOf(t) };
    return { kind: 'as-written', wall, label: AS_WRITTEN_LABEL };
  }
  const at = instantOf(t, frame.serviceZone);
  return { kind: 'instant', at, wall: wallClock(at, frame.zone), label: zoneLabel(frame.zone) };
}

/** 0 for Sunday to 6 for Saturday, by the proleptic Gregorian calendar Date.UTC counts in. */
function weekdayOf(day: CalendarDay): number {
  // 1 January 1970 was a Thursday (4).
  return (((Math.floor(Date.UTC(day.year, day.month - 1, day.day) / 86_400_000) + 4) % 7) + 7) % 7;
}

/**
 * Where a pending approval stands: overdue (its time has passed), due today (later today, the
 * reader's day), due soon (on one of the next `soonDays` - 1 days: "within 3 days" is today and
 * the two after it, as `due-before:3d` is), or later.
 */
export type DueGroup = 'overdue' | 'today' | 'soon' | 'later';

export const DUE_GROUPS: readonly DueGroup[] = ['overdue', 'today', 'soon', 'later'];

export interface DueStanding {
  group: DueGroup;
  /** Calendar days from the reader's today to the day it is due (negative when that day is past). */
  days: number;
  /** How long ago it fell due, when the instant is known. */
  overdueMs?: number;
}

export function dueStanding(time: ServiceTime, frame: TimeFrame, soonDays: number): DueStanding {
  const days = calendarDaysBetween(frame.today, time.wall);
  if (time.kind === 'instant') {
    const past = frame.now.getTime() - time.at.getTime();
    // A time that has passed is overdue, on the day it fell due too: never merely "due today".
    if (past > 0) return { group: 'overdue', days, overdueMs: past };
  } else if (days < 0) return { group: 'overdue', days };
  if (days <= 0) return { group: 'today', days: 0 };
  return { group: days < soonDays ? 'soon' : 'later', days };
}

/** dueStanding of a time as the service wrote it; undefined for one that is not a time. */
export function dueStandingOf(value: string, frame: TimeFrame, soonDays: number): DueStanding | undefined {
  const time = readServiceTime(value, frame);
  return time === undefined ? undefined : dueStanding(time, frame, soonDays);
}

/**
 * The group an approval is counted in on Home and in the digest: overdue on the real clock (as
 * dueStanding), and otherwise by the service's day it falls on, counted from the service's day that
 * the reader's today is sent as (serviceDay, as /approvals sends `today`). So a group holds exactly
 * the approvals not yet overdue that the command it offers lists (`due-after:today
 * due-before:today`, `due-after:tomorrow due-before:3d`…), in every zone: where the service's days
 * do not start at the reader's midnight, the group's bounds are said on the reader's clock
 * (groupEdge). With the service's zone unknown, days are compared as written, as the filters are sent.
 * A time not yet passed on a service day before that today (a reader far ahead of the service, in
 * the small hours) counts as today. Undefined for what is not a time.
 */
export function dueGroupOf(value: string, frame: TimeFrame, soonDays: number): DueGroup | undefined {
  const time = readServiceTime(value, frame);
  if (time === undefined) return undefined;
  if (time.kind === 'as-written' || frame.serviceZone === undefined) return dueStanding(time, frame, soonDays).group;
  if (frame.now.getTime() > time.at.getTime()) return 'overdue';
  const written = wallClock(time.at, frame.serviceZone);
  const days = calendarDaysBetween(serviceToday(frame), written);
  if (days <= 0) return 'today';
  return days < soonDays ? 'soon' : 'later';
}

/** The service's day that the reader's today is sent as; the reader's today when the service's zone is not known. */
export function serviceToday(frame: TimeFrame): CalendarDay {
  return frame.serviceZone === undefined ? frame.today : serviceDay(frame.today, { user: frame.zone, service: frame.serviceZone });
}

/**
 * Where the service's day `days` after serviceToday starts, on the reader's clock: the edge of a
 * group (today's ends where day 1 starts). Undefined where it is the reader's own midnight (the
 * service's zone unknown, or its days meeting the reader's), so that a group is named by days alone.
 */
export function groupEdge(frame: TimeFrame, days: number): (WallTime & { weekday: number }) | undefined {
  if (frame.serviceZone === undefined) return undefined;
  const wall = wallClock(startOfDay(addCalendarDays(serviceToday(frame), days), frame.serviceZone), frame.zone);
  return wall.hour === 0 && wall.minute === 0 ? undefined : wall;
}

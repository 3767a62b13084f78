/** Rows as both backends return them (SQLite numbers, PostgreSQL BIGINT strings) into store types. */

import type { RemindDays } from '../reminders/schedule.js';
import type { Reminder } from './types.js';

type Millis = number | string;

export function reminderOf(r: {
  team_id: string;
  user_id: string;
  days: RemindDays;
  minute_of_day: number;
  time_zone: string;
  next_at: Millis;
  due_at: Millis;
  paused_at: Millis | null;
  sent_for: Millis | null;
}): Reminder {
  return {
    teamId: r.team_id,
    userId: r.user_id,
    days: r.days,
    minuteOfDay: Number(r.minute_of_day),
    timeZone: r.time_zone,
    nextAt: new Date(Number(r.next_at)),
    dueAt: new Date(Number(r.due_at)),
    pausedAt: r.paused_at === null ? undefined : new Date(Number(r.paused_at)),
    sentFor: r.sent_for === null ? undefined : new Date(Number(r.sent_for)),
  };
}

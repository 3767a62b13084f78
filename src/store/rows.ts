/** Rows as both backends return them (SQLite numbers, PostgreSQL BIGINT strings) into store types. */

import type { RemindDays } from '../reminders/schedule.js';
import type { CollectQuery } from '../service/index.js';
import type { CollectAttempt, CollectOutcome, Reminder, RunWatch, WatchedRun } from './types.js';

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

export interface AttemptRow {
  id: string;
  at: Millis;
  team_id: string;
  channel_id: string;
  user_id: string;
  query: string;
  outcome: CollectOutcome;
  detail: string | null;
  runs: string;
  watch_runs?: string | null;
  watch_note?: string | null;
  watch_done?: Millis | null;
  watch_id?: string | null;
}

export function attemptOf(r: AttemptRow): CollectAttempt {
  return {
    id: r.id,
    at: new Date(Number(r.at)),
    teamId: r.team_id,
    channelId: r.channel_id,
    userId: r.user_id,
    query: JSON.parse(r.query) as CollectQuery,
    outcome: r.outcome,
    detail: r.detail ?? undefined,
    // The watch holds the runs' latest states; the attempt, the runs as they were started.
    runs: JSON.parse(r.watch_runs ?? r.runs) as WatchedRun[],
    watch: r.watch_id ? { note: r.watch_note ?? undefined, done: r.watch_done !== null && r.watch_done !== undefined } : undefined,
  };
}

export interface WatchRow {
  attempt_id: string;
  team_id: string;
  user_id: string;
  channel_id: string;
  message_ts: string;
  query: string;
  runs: string;
  started_at: Millis;
  deadline: Millis;
  next_poll_at: Millis;
  interval_ms: number | string;
  done_at: Millis | null;
  note: string | null;
}

export function watchOf(r: WatchRow): RunWatch {
  return {
    attemptId: r.attempt_id,
    teamId: r.team_id,
    userId: r.user_id,
    channelId: r.channel_id,
    messageTs: r.message_ts,
    query: JSON.parse(r.query) as CollectQuery,
    runs: JSON.parse(r.runs) as WatchedRun[],
    startedAt: new Date(Number(r.started_at)),
    deadline: new Date(Number(r.deadline)),
    nextPollAt: new Date(Number(r.next_poll_at)),
    intervalMs: Number(r.interval_ms),
    doneAt: r.done_at === null ? undefined : new Date(Number(r.done_at)),
    note: r.note ?? undefined,
  };
}

/** The same DDL for both backends: BIGINT is an INTEGER to SQLite. */
export const REMINDER_TABLES = `CREATE TABLE reminders (
     team_id       TEXT NOT NULL,
     user_id       TEXT NOT NULL,
     days          TEXT NOT NULL,
     minute_of_day INTEGER NOT NULL,
     time_zone     TEXT NOT NULL,
     next_at       BIGINT NOT NULL,
     due_at        BIGINT NOT NULL,
     paused_at     BIGINT,
     sent_for      BIGINT,
     lease_owner   TEXT,
     lease_until   BIGINT,
     PRIMARY KEY (team_id, user_id)
   );
   CREATE INDEX reminders_due ON reminders (due_at);`;

export const COLLECT_TABLES = `CREATE TABLE collect_attempts (
     id         TEXT PRIMARY KEY,
     at         BIGINT NOT NULL,
     team_id    TEXT NOT NULL,
     channel_id TEXT NOT NULL,
     user_id    TEXT NOT NULL,
     query      TEXT NOT NULL,
     outcome    TEXT NOT NULL,
     detail     TEXT,
     runs       TEXT NOT NULL
   );
   CREATE INDEX collect_attempts_channel ON collect_attempts (team_id, channel_id, at);
   CREATE INDEX collect_attempts_at ON collect_attempts (at);
   CREATE TABLE collect_cooldowns (
     team_id    TEXT NOT NULL,
     target     TEXT NOT NULL,
     user_id    TEXT NOT NULL,
     channel_id TEXT NOT NULL,
     attempt_id TEXT NOT NULL,
     at         BIGINT NOT NULL,
     PRIMARY KEY (team_id, target)
   );
   CREATE TABLE collect_watches (
     attempt_id   TEXT PRIMARY KEY,
     team_id      TEXT NOT NULL,
     user_id      TEXT NOT NULL,
     channel_id   TEXT NOT NULL,
     message_ts   TEXT NOT NULL,
     query        TEXT NOT NULL,
     runs         TEXT NOT NULL,
     started_at   BIGINT NOT NULL,
     deadline     BIGINT NOT NULL,
     next_poll_at BIGINT NOT NULL,
     interval_ms  INTEGER NOT NULL,
     done_at      BIGINT,
     note         TEXT,
     lease_owner  TEXT,
     lease_until  BIGINT
   );
   CREATE INDEX collect_watches_due ON collect_watches (next_poll_at);`;

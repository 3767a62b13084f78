/**
 * The SQLite store (better-sqlite3, WAL): the default, for one instance. Versioned migrations run
 * at open. Tokens are encrypted by TokenCipher before they reach a row.
 */

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { RemindDays } from '../reminders/schedule.js';
import type { Secret } from '../runtime/secret.js';
import { Keyring, OutcomeThrottle } from './keyring.js';
import { type AttemptRow, attemptOf, COLLECT_TABLES, REMINDER_TABLES, reminderOf, type WatchRow, watchOf } from './rows.js';
import type {
  AuditFilter,
  ClaimResult,
  CollectAttempt,
  CooldownClaim,
  LinkedToken,
  LinkSummary,
  NewReminder,
  PendingConfirmation,
  Principal,
  Reminder,
  ReminderRelease,
  RunWatch,
  ServiceCommandName,
  Store,
  TokenSource,
} from './types.js';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE tokens (
     team_id      TEXT NOT NULL,
     user_id      TEXT NOT NULL,
     command      TEXT NOT NULL,
     ciphertext   TEXT NOT NULL,
     key_id       TEXT NOT NULL,
     source       TEXT NOT NULL,
     linked_at    INTEGER NOT NULL,
     last_used_at INTEGER,
     last_outcome TEXT,
     PRIMARY KEY (team_id, user_id, command)
   );
   CREATE TABLE confirmations (
     id         TEXT PRIMARY KEY,
     team_id    TEXT NOT NULL,
     channel_id TEXT NOT NULL,
     user_id    TEXT NOT NULL,
     payload    TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     used_at    INTEGER
   );
   CREATE INDEX confirmations_expiry ON confirmations (expires_at);`,
  REMINDER_TABLES,
  COLLECT_TABLES,
];

interface ReminderRow {
  team_id: string;
  user_id: string;
  days: RemindDays;
  minute_of_day: number;
  time_zone: string;
  next_at: number;
  due_at: number;
  paused_at: number | null;
  sent_for: number | null;
}

interface TokenRow {
  team_id: string;
  user_id: string;
  command: ServiceCommandName;
  ciphertext: string;
  source: TokenSource;
  linked_at: number;
  last_used_at: number | null;
  last_outcome: 'ok' | 'rejected' | null;
}

interface ConfirmationRow {
  id: string;
  team_id: string;
  channel_id: string;
  user_id: string;
  payload: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Every statement, prepared once: preparing costs more than running these. */
function prepare(db: Database.Database) {
  return {
    getToken: db.prepare<[string, string, string], TokenRow>(
      "SELECT * FROM tokens WHERE user_id = ? AND command = ? AND team_id IN (?, '') ORDER BY team_id = '' LIMIT 1",
    ),
    upsertToken: db.prepare<[string, string, string, string, string, string, number]>(
      `INSERT INTO tokens (team_id, user_id, command, ciphertext, key_id, source, linked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, user_id, command) DO UPDATE SET ciphertext = excluded.ciphertext, key_id = excluded.key_id,
         source = excluded.source, linked_at = excluded.linked_at, last_used_at = NULL, last_outcome = NULL`,
    ),
    deleteTokens: db.prepare<[string, string]>('DELETE FROM tokens WHERE team_id = ? AND user_id = ?'),
    allLinks: db.prepare<[], TokenRow>('SELECT * FROM tokens ORDER BY team_id, user_id, command'),
    linksOf: db.prepare<[string, string], TokenRow>(
      "SELECT * FROM tokens WHERE user_id = ? AND team_id IN (?, '') ORDER BY team_id, command",
    ),
    recordOutcome: db.prepare<[number, string, string, string, string]>(
      "UPDATE tokens SET last_used_at = ?, last_outcome = ? WHERE user_id = ? AND command = ? AND team_id IN (?, '')",
    ),
    insertConfirmation: db.prepare<[string, string, string, string, string, number, number]>(
      'INSERT INTO confirmations (id, team_id, channel_id, user_id, payload, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    pruneConfirmations: db.prepare<[number]>('DELETE FROM confirmations WHERE expires_at < ?'),
    getConfirmation: db.prepare<[string], ConfirmationRow>('SELECT * FROM confirmations WHERE id = ?'),
    claimConfirmation: db.prepare<[number, string]>('UPDATE confirmations SET used_at = ? WHERE id = ? AND used_at IS NULL'),
    upsertReminder: db.prepare<[string, string, string, number, string, number, number]>(
      `INSERT INTO reminders (team_id, user_id, days, minute_of_day, time_zone, next_at, due_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, user_id) DO UPDATE SET days = excluded.days, minute_of_day = excluded.minute_of_day,
         time_zone = excluded.time_zone, next_at = excluded.next_at, due_at = excluded.due_at,
         sent_for = NULL, lease_owner = NULL, lease_until = NULL`,
    ),
    getReminder: db.prepare<[string, string], ReminderRow>('SELECT * FROM reminders WHERE team_id = ? AND user_id = ?'),
    deleteReminder: db.prepare<[string, string]>('DELETE FROM reminders WHERE team_id = ? AND user_id = ?'),
    pauseReminder: db.prepare<[number, string, string]>('UPDATE reminders SET paused_at = ? WHERE team_id = ? AND user_id = ?'),
    claimReminders: db.prepare<[string, number, number, number, number], ReminderRow>(
      `UPDATE reminders SET lease_owner = ?, lease_until = ?
       WHERE rowid IN (SELECT rowid FROM reminders WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY due_at LIMIT ?)
       RETURNING *`,
    ),
    markSending: db.prepare<[string, string, string, number]>(
      `UPDATE reminders SET sent_for = next_at
       WHERE team_id = ? AND user_id = ? AND lease_owner = ? AND next_at = ? AND (sent_for IS NULL OR sent_for <> next_at)`,
    ),
    releaseReminder: db.prepare<[number, number, string, number, number | null, string, string, string, number]>(
      `UPDATE reminders SET next_at = ?, due_at = ?, time_zone = ?, paused_at = CASE WHEN ? = 1 THEN ? ELSE paused_at END,
         lease_owner = NULL, lease_until = NULL
       WHERE team_id = ? AND user_id = ? AND lease_owner = ? AND next_at = ?`,
    ),
    insertAttempt: db.prepare<[string, number, string, string, string, string, string, string | null, string]>(
      `INSERT INTO collect_attempts (id, at, team_id, channel_id, user_id, query, outcome, detail, runs)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    listAttempts: db.prepare<
      [string | null, string | null, string | null, string | null, number | null, number | null, number],
      AttemptRow
    >(
      `SELECT a.*, w.attempt_id AS watch_id, w.runs AS watch_runs, w.note AS watch_note, w.done_at AS watch_done
       FROM collect_attempts a LEFT JOIN collect_watches w ON w.attempt_id = a.id
       WHERE (? IS NULL OR a.team_id = ?) AND (? IS NULL OR a.channel_id = ?) AND (? IS NULL OR a.at >= ?)
       ORDER BY a.at DESC, a.rowid DESC LIMIT ?`,
    ),
    claimCooldown: db.prepare<[string, string, string, string, string, number, number], { attempt_id: string }>(
      `INSERT INTO collect_cooldowns (team_id, target, user_id, channel_id, attempt_id, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, target) DO UPDATE SET user_id = excluded.user_id, channel_id = excluded.channel_id,
         attempt_id = excluded.attempt_id, at = excluded.at
       WHERE collect_cooldowns.at <= ?
       RETURNING attempt_id`,
    ),
    cooldownHolder: db.prepare<[string, string], { user_id: string; channel_id: string; at: number; attempt_id: string }>(
      'SELECT user_id, channel_id, at, attempt_id FROM collect_cooldowns WHERE team_id = ? AND target = ?',
    ),
    releaseCooldown: db.prepare<[string, string, string]>(
      'DELETE FROM collect_cooldowns WHERE team_id = ? AND target = ? AND attempt_id = ?',
    ),
    insertWatch: db.prepare<[string, string, string, string, string, string, string, number, number, number, number]>(
      `INSERT INTO collect_watches (attempt_id, team_id, user_id, channel_id, message_ts, query, runs, started_at, deadline, next_poll_at, interval_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    claimWatches: db.prepare<[string, number, number, number, number], WatchRow>(
      `UPDATE collect_watches SET lease_owner = ?, lease_until = ?
       WHERE rowid IN (SELECT rowid FROM collect_watches
         WHERE done_at IS NULL AND next_poll_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_poll_at LIMIT ?)
       RETURNING *`,
    ),
    saveWatch: db.prepare<[string, number, number, number | null, string | null, string, string]>(
      `UPDATE collect_watches SET runs = ?, next_poll_at = ?, interval_ms = ?, done_at = ?, note = ?, lease_owner = NULL, lease_until = NULL
       WHERE attempt_id = ? AND lease_owner = ?`,
    ),
  };
}

export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #keys: Keyring;
  readonly #sql: ReturnType<typeof prepare>;
  readonly #outcomes = new OutcomeThrottle();

  constructor(path: string, key: Secret, previousKey?: Secret) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path);
    if (path !== ':memory:') this.#db.pragma('journal_mode = WAL');
    // With WAL, NORMAL cannot corrupt the database; a power cut may lose the last commits, which
    // for this data (a re-linkable token, a usage timestamp) is the right trade for not syncing per call.
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('busy_timeout = 5000');
    this.#keys = new Keyring(key, previousKey);
    this.#migrate();
    this.#sql = prepare(this.#db);
  }

  #migrate(): void {
    this.#db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
    const applied = new Set(
      this.#db
        .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
        .all()
        .map((r) => r.version),
    );
    MIGRATIONS.forEach((sql, index) => {
      const version = index + 1;
      if (applied.has(version)) return;
      this.#db.transaction(() => {
        this.#db.exec(sql);
        this.#db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, Date.now());
      })();
    });
  }

  async getToken(who: Principal, command: ServiceCommandName): Promise<LinkedToken | undefined> {
    // A workspace-specific link wins over one made for any workspace (team '').
    const row = this.#sql.getToken.get(who.userId, command, who.teamId);
    if (row === undefined) return undefined;
    const token = this.#keys.decrypt(row.ciphertext, { teamId: row.team_id, userId: row.user_id }, command);
    return { token, linkedAt: new Date(row.linked_at), source: row.source };
  }

  async setToken(who: Principal, commands: readonly ServiceCommandName[], token: Secret, source: TokenSource, at: Date): Promise<void> {
    const upsert = this.#sql.upsertToken;
    this.#outcomes.forget();
    this.#db.transaction(() => {
      for (const command of commands) {
        upsert.run(
          who.teamId,
          who.userId,
          command,
          this.#keys.encrypt(token, who, command),
          this.#keys.current.keyId,
          source,
          at.getTime(),
        );
      }
    })();
  }

  async deleteTokens(who: Principal): Promise<number> {
    this.#outcomes.forget();
    return this.#sql.deleteTokens.run(who.teamId, who.userId).changes;
  }

  async listLinks(who?: Principal): Promise<LinkSummary[]> {
    const rows = who === undefined ? this.#sql.allLinks.all() : this.#sql.linksOf.all(who.userId, who.teamId);
    return rows.map((r) => ({
      teamId: r.team_id,
      userId: r.user_id,
      command: r.command,
      linkedAt: new Date(r.linked_at),
      source: r.source,
      lastUsedAt: r.last_used_at === null ? undefined : new Date(r.last_used_at),
      lastOutcome: r.last_outcome ?? undefined,
    }));
  }

  async recordOutcome(who: Principal, command: ServiceCommandName, outcome: 'ok' | 'rejected', at: Date): Promise<void> {
    if (!this.#outcomes.shouldWrite(who, command, outcome, at)) return;
    this.#sql.recordOutcome.run(at.getTime(), outcome, who.userId, command, who.teamId);
  }

  async createConfirmation(c: PendingConfirmation): Promise<void> {
    this.#sql.insertConfirmation.run(c.id, c.teamId, c.channelId, c.userId, c.payload, c.createdAt.getTime(), c.expiresAt.getTime());
    // Old confirmations are kept a day for support questions, then dropped.
    this.#sql.pruneConfirmations.run(c.createdAt.getTime() - 86_400_000);
  }

  async claimConfirmation(id: string, userId: string, at: Date): Promise<ClaimResult> {
    const row = this.#sql.getConfirmation.get(id);
    if (row === undefined) return { status: 'not-found' };
    if (row.user_id !== userId) return { status: 'not-yours', ownerId: row.user_id };
    if (row.used_at !== null) return { status: 'already-used' };
    if (row.expires_at < at.getTime()) return { status: 'expired' };
    // The conditional update is the claim: only one caller can move used_at from NULL.
    const claimed = this.#sql.claimConfirmation.run(at.getTime(), id).changes === 1;
    if (!claimed) return { status: 'already-used' };
    return {
      status: 'claimed',
      confirmation: {
        id: row.id,
        teamId: row.team_id,
        channelId: row.channel_id,
        userId: row.user_id,
        payload: row.payload,
        createdAt: new Date(row.created_at),
        expiresAt: new Date(row.expires_at),
      },
    };
  }

  async setReminder(r: NewReminder): Promise<void> {
    this.#sql.upsertReminder.run(r.teamId, r.userId, r.days, r.minuteOfDay, r.timeZone, r.nextAt.getTime(), r.dueAt.getTime());
  }

  async getReminder(who: Principal): Promise<Reminder | undefined> {
    const row = this.#sql.getReminder.get(who.teamId, who.userId);
    return row === undefined ? undefined : reminderOf(row);
  }

  async deleteReminder(who: Principal): Promise<boolean> {
    return this.#sql.deleteReminder.run(who.teamId, who.userId).changes === 1;
  }

  async pauseReminder(who: Principal, at: Date): Promise<void> {
    this.#sql.pauseReminder.run(at.getTime(), who.teamId, who.userId);
  }

  async claimDueReminders(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<Reminder[]> {
    // One statement: SQLite runs writers one at a time, so two instances cannot lease the same row.
    return this.#sql.claimReminders.all(owner, leaseUntil.getTime(), now.getTime(), now.getTime(), limit).map(reminderOf);
  }

  async markReminderSending(who: Principal, owner: string, nextAt: Date): Promise<boolean> {
    return this.#sql.markSending.run(who.teamId, who.userId, owner, nextAt.getTime()).changes === 1;
  }

  async releaseReminder(who: Principal, owner: string, claimedNextAt: Date, next: ReminderRelease): Promise<boolean> {
    const pause = next.pausedAt === undefined ? 0 : 1;
    const pausedAt = next.pausedAt === undefined || next.pausedAt === null ? null : next.pausedAt.getTime();
    return (
      this.#sql.releaseReminder.run(
        next.nextAt.getTime(),
        next.dueAt.getTime(),
        next.timeZone,
        pause,
        pausedAt,
        who.teamId,
        who.userId,
        owner,
        claimedNextAt.getTime(),
      ).changes === 1
    );
  }

  async recordCollectAttempt(a: Omit<CollectAttempt, 'watch'>): Promise<void> {
    this.#sql.insertAttempt.run(
      a.id,
      a.at.getTime(),
      a.teamId,
      a.channelId,
      a.userId,
      JSON.stringify(a.query),
      a.outcome,
      a.detail ?? null,
      JSON.stringify(a.runs),
    );
  }

  async listCollectAttempts(f: AuditFilter): Promise<CollectAttempt[]> {
    const team = f.teamId ?? null;
    const channel = f.channelId ?? null;
    const since = f.since?.getTime() ?? null;
    return this.#sql.listAttempts.all(team, team, channel, channel, since, since, f.limit).map(attemptOf);
  }

  async claimCooldown(c: Parameters<Store['claimCooldown']>[0]): Promise<CooldownClaim> {
    const won = this.#sql.claimCooldown.get(
      c.teamId,
      c.target,
      c.userId,
      c.channelId,
      c.attemptId,
      c.at.getTime(),
      c.at.getTime() - c.cooldownMs,
    );
    if (won !== undefined) return { claimed: true };
    const h = this.#sql.cooldownHolder.get(c.teamId, c.target);
    if (h === undefined) return { claimed: true };
    return { claimed: false, holder: { userId: h.user_id, channelId: h.channel_id, at: new Date(h.at), attemptId: h.attempt_id } };
  }

  async releaseCooldown(teamId: string, target: string, attemptId: string): Promise<void> {
    this.#sql.releaseCooldown.run(teamId, target, attemptId);
  }

  async createWatch(w: RunWatch): Promise<void> {
    this.#sql.insertWatch.run(
      w.attemptId,
      w.teamId,
      w.userId,
      w.channelId,
      w.messageTs,
      JSON.stringify(w.query),
      JSON.stringify(w.runs),
      w.startedAt.getTime(),
      w.deadline.getTime(),
      w.nextPollAt.getTime(),
      w.intervalMs,
    );
  }

  async claimDueWatches(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<RunWatch[]> {
    return this.#sql.claimWatches.all(owner, leaseUntil.getTime(), now.getTime(), now.getTime(), limit).map(watchOf);
  }

  async saveWatch(w: RunWatch, owner: string): Promise<boolean> {
    return (
      this.#sql.saveWatch.run(
        JSON.stringify(w.runs),
        w.nextPollAt.getTime(),
        w.intervalMs,
        w.doneAt?.getTime() ?? null,
        w.note ?? null,
        w.attemptId,
        owner,
      ).changes === 1
    );
  }

  async rotateKeys(): Promise<number> {
    const stale = this.#db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE key_id <> ?').all(this.#keys.current.keyId);
    const rewrite = this.#db.prepare<[string, string, string, string, string]>(
      'UPDATE tokens SET ciphertext = ?, key_id = ? WHERE team_id = ? AND user_id = ? AND command = ?',
    );
    // Decrypt everything first: a row the keys cannot read stops the rotation before any write.
    const rewritten = stale.map((r) => {
      const who = { teamId: r.team_id, userId: r.user_id };
      return { r, value: this.#keys.encrypt(this.#keys.decrypt(r.ciphertext, who, r.command), who, r.command) };
    });
    this.#db.transaction(() => {
      for (const { r, value } of rewritten) rewrite.run(value, this.#keys.current.keyId, r.team_id, r.user_id, r.command);
    })();
    return rewritten.length;
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

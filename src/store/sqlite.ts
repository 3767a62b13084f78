/**
 * The SQLite store (better-sqlite3, WAL): the default, for one instance. The migrations of
 * schema.ts run at open. Tokens are encrypted by TokenCipher before they reach a row.
 */

import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from '#sqlite';
import type { Secret } from '../runtime/secret.js';
import {
  type ArrivalItemRow,
  type ArrivalMessageRow,
  type ArrivalWatchRow,
  arrivalWatchOf,
  decidedText,
  keptArrivalOf,
  keptMessagesOf,
  notifySettingOf,
  summaryText,
} from './arrival-rows.js';
import {
  AuditIds,
  type AuditRow,
  type AuditValues,
  type CollectRow,
  collectValues,
  decisionValues,
  foldAttempts,
  foldDecisions,
  INSERT_AUDIT,
} from './audit.js';
import { type KeyGroup, keyUsageOf } from './key-check.js';
import { Keyring, OutcomeThrottle } from './keyring.js';
import { LinkCache } from './link-cache.js';
import {
  type ConfirmationRow,
  type CooldownHolderRow,
  confirmationOf,
  cooldownHolderOf,
  type DecisionHoldRow,
  decisionClaimOutcome,
  decisionHoldOf,
  type IdentityRow,
  identityOf,
  identityOutcomeText,
  linkedTokenOf,
  linkOf,
  type ReminderRow,
  reencrypted,
  reminderOf,
  type TokenRow,
  type WatchRow,
  watchOf,
} from './rows.js';
import {
  claimOutcome,
  confirmationPruneHorizon,
  cooldownHorizon,
  cooldownOutcome,
  heldBy,
  judgeClaim,
  pauseChange,
  SignaturePruning,
} from './rules.js';
import { APPLIED_VERSIONS, CREATE_MIGRATIONS_TABLE, pendingMigrations } from './schema.js';
import type {
  ArrivalCheckChanges,
  ArrivalDecided,
  ArrivalWatch,
  AuditFilter,
  ClaimResult,
  CollectAttempt,
  CollectEvent,
  CooldownClaim,
  CooldownHolderOf,
  DecisionClaim,
  DecisionEvent,
  DecisionHold,
  DecisionRecord,
  IdentityLink,
  IdentityOutcome,
  IdentitySource,
  KeptArrival,
  KeptArrivalMessage,
  KeyUsage,
  LinkedToken,
  LinkSummary,
  NewReminder,
  NotifySetting,
  NotifySettingChange,
  PendingConfirmation,
  Principal,
  Reminder,
  ReminderRelease,
  RunWatch,
  ServiceCommandName,
  ServiceIdentity,
  Store,
  TokenSource,
} from './types.js';

/** The outcome throttle's name for an identity's calls, apart from any command's. */
const IDENTITY_OUTCOME = 'service-identity';

/**
 * better-sqlite3 is synchronous: while another process holds the write lock (the CLI linking a
 * token, a key rotation, a backup), SQLite's own busy wait would hold the whole event loop, acks
 * and health checks included. So SQLite waits only this long in one attempt, and the store tries
 * again on a timer, the loop serving everyone else in between.
 */
export const BUSY_WAIT_MS = 5;
/** How long an operation keeps trying before it fails with SQLite's busy error. */
export const BUSY_PATIENCE_MS = 10_000;
/** How long opening the file (and migrating it) may wait for another process: nothing is served yet. */
const OPEN_BUSY_WAIT_MS = 5_000;

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown }).code));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every statement, prepared once: preparing costs more than running these. */
function prepare(db: Database.Database) {
  return {
    // Changes whenever another connection has committed: see LinkCache.
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    getToken: db.prepare<[string, string, string], TokenRow>(
      "SELECT * FROM tokens WHERE user_id = ? AND command = ? AND team_id IN (?, '') ORDER BY team_id = '' LIMIT 1",
    ),
    upsertToken: db.prepare<[string, string, string, string, string, string, number, string | null, string | null]>(
      `INSERT INTO tokens (team_id, user_id, command, ciphertext, key_id, source, linked_at, service_user, authsource)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, user_id, command) DO UPDATE SET ciphertext = excluded.ciphertext, key_id = excluded.key_id,
         source = excluded.source, linked_at = excluded.linked_at, last_used_at = NULL, last_outcome = NULL,
         service_user = excluded.service_user, authsource = excluded.authsource`,
    ),
    deleteServingTokens: db.prepare<[string, string]>("DELETE FROM tokens WHERE user_id = ? AND team_id IN (?, '')"),
    deleteAllTokens: db.prepare<[string]>('DELETE FROM tokens WHERE user_id = ?'),
    allLinks: db.prepare<[], TokenRow>('SELECT * FROM tokens ORDER BY team_id, user_id, command'),
    linksOf: db.prepare<[string, string], TokenRow>(
      "SELECT * FROM tokens WHERE user_id = ? AND team_id IN (?, '') ORDER BY team_id, command",
    ),
    // The row getToken serves (the workspace's before the any-workspace one), and only that one.
    recordOutcome: db.prepare<[number, string, string, string, string, string, string]>(
      `UPDATE tokens SET last_used_at = ?, last_outcome = ? WHERE user_id = ? AND command = ? AND team_id =
         (SELECT team_id FROM tokens WHERE user_id = ? AND command = ? AND team_id IN (?, '') ORDER BY team_id = '' LIMIT 1)`,
    ),
    getIdentity: db.prepare<[string, string], IdentityRow>(
      "SELECT * FROM service_identities WHERE user_id = ? AND team_id IN (?, '') ORDER BY team_id = '' LIMIT 1",
    ),
    upsertIdentity: db.prepare<[string, string, string, string | null, string, number]>(
      `INSERT INTO service_identities (team_id, user_id, service_user, authsource, source, linked_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, user_id) DO UPDATE SET service_user = excluded.service_user, authsource = excluded.authsource,
         source = excluded.source, linked_at = excluded.linked_at, last_used_at = NULL, last_outcome = NULL`,
    ),
    deleteServingIdentities: db.prepare<[string, string]>("DELETE FROM service_identities WHERE user_id = ? AND team_id IN (?, '')"),
    deleteAllIdentities: db.prepare<[string]>('DELETE FROM service_identities WHERE user_id = ?'),
    allIdentities: db.prepare<[], IdentityRow>('SELECT * FROM service_identities ORDER BY team_id, user_id'),
    identitiesOf: db.prepare<[string, string], IdentityRow>(
      "SELECT * FROM service_identities WHERE user_id = ? AND team_id IN (?, '') ORDER BY team_id",
    ),
    recordIdentityOutcome: db.prepare<[number, string, string, string, string]>(
      `UPDATE service_identities SET last_used_at = ?, last_outcome = ? WHERE user_id = ? AND team_id =
         (SELECT team_id FROM service_identities WHERE user_id = ? AND team_id IN (?, '') ORDER BY team_id = '' LIMIT 1)`,
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
    makeSlot: db.prepare<[number]>('INSERT OR IGNORE INTO service_slots (slot) VALUES (?)'),
    takeSlot: db.prepare<[string, number, number, number], { slot: number }>(
      `UPDATE service_slots SET owner = ?, until = ?
       WHERE slot = (SELECT slot FROM service_slots WHERE slot < ? AND (owner IS NULL OR until <= ?) ORDER BY slot LIMIT 1)
       RETURNING slot`,
    ),
    releaseSlot: db.prepare<[number, string]>('UPDATE service_slots SET owner = NULL, until = NULL WHERE slot = ? AND owner = ?'),
    renewSlots: db.prepare<[number, string]>('UPDATE service_slots SET until = ? WHERE owner = ?'),
    renewReminderLeases: db.prepare<[number, string]>('UPDATE reminders SET lease_until = ? WHERE lease_owner = ?'),
    claimReminders: db.prepare<[string, number, number, number, number], ReminderRow>(
      `UPDATE reminders SET lease_owner = ?, lease_until = ?
       WHERE rowid IN (SELECT rowid FROM reminders WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY due_at LIMIT ?)
       RETURNING *`,
    ),
    markSending: db.prepare<[string, string, string, number]>(
      `UPDATE reminders SET sent_for = next_at
       WHERE team_id = ? AND user_id = ? AND lease_owner = ? AND next_at = ? AND (sent_for IS NULL OR sent_for <> next_at)`,
    ),
    releaseReminder: db.prepare<[number, number, string, 0 | 1, number | null, string, string, string, number]>(
      `UPDATE reminders SET next_at = ?, due_at = ?, time_zone = ?, paused_at = CASE WHEN ? = 1 THEN ? ELSE paused_at END,
         lease_owner = NULL, lease_until = NULL
       WHERE team_id = ? AND user_id = ? AND lease_owner = ? AND next_at = ?`,
    ),
    // Linking for findApprovals makes the approver watched, or wakes a watch parked until they linked again.
    wakeArrivalWatch: db.prepare<[string, string, number]>(
      `INSERT INTO arrival_watches (user_id, team_id, enabled, prime, next_at) VALUES (?, ?, 1, 1, ?)
       ON CONFLICT (user_id) DO UPDATE SET
         team_id = CASE WHEN excluded.team_id <> '' THEN excluded.team_id ELSE arrival_watches.team_id END,
         next_at = CASE WHEN arrival_watches.next_at IS NULL OR arrival_watches.next_at > excluded.next_at
           THEN excluded.next_at ELSE arrival_watches.next_at END`,
    ),
    arrivalWatch: db.prepare<[string], ArrivalWatchRow>('SELECT * FROM arrival_watches WHERE user_id = ?'),
    makeArrivalWatch: db.prepare<[string, string, number]>(
      `INSERT INTO arrival_watches (user_id, team_id, enabled, prime, next_at) VALUES (?, ?, 1, 1, ?)
       ON CONFLICT (user_id) DO UPDATE SET team_id = CASE WHEN excluded.team_id <> '' THEN excluded.team_id ELSE arrival_watches.team_id END`,
    ),
    // From off to on: the next check is due now and primes. The right-hand sides read the row as it was.
    switchArrivalsOn: db.prepare<[number, string]>(
      `UPDATE arrival_watches SET enabled = 1, prime = CASE WHEN enabled = 0 THEN 1 ELSE prime END,
         next_at = CASE WHEN enabled = 0 THEN ? ELSE next_at END
       WHERE user_id = ?`,
    ),
    switchArrivalsOff: db.prepare<[string]>('UPDATE arrival_watches SET enabled = 0 WHERE user_id = ?'),
    setQuiet: db.prepare<[number | null, number | null, string]>(
      'UPDATE arrival_watches SET quiet_start = ?, quiet_end = ? WHERE user_id = ?',
    ),
    claimArrivalWatches: db.prepare<[string, number, number, number, number, number], ArrivalWatchRow>(
      `UPDATE arrival_watches SET lease_owner = ?, lease_until = ?, due_at = next_at, next_at = ?
       WHERE rowid IN (SELECT rowid FROM arrival_watches
         WHERE enabled = 1 AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_at LIMIT ?)
       RETURNING *`,
    ),
    arrivalWatchDue: db.prepare<[number, number], { due: number }>(
      `SELECT 1 AS due FROM arrival_watches
       WHERE enabled = 1 AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?) LIMIT 1`,
    ),
    renewArrivalLeases: db.prepare<[number, string, string]>(
      'UPDATE arrival_watches SET lease_until = ? WHERE lease_owner = ? AND user_id IN (SELECT value FROM json_each(?))',
    ),
    pauseArrivalWatch: db.prepare<[string, string, number]>(
      `UPDATE arrival_watches SET next_at = NULL, prime = 1, lease_owner = NULL, lease_until = NULL
       WHERE user_id = ? AND lease_owner = ? AND next_at = ?`,
    ),
    // The lease check of a save, and the priming flag cleared when it primed: one statement.
    holdArrivalWatch: db.prepare<[0 | 1, string, string]>(
      'UPDATE arrival_watches SET prime = CASE WHEN ? = 1 THEN 0 ELSE prime END WHERE user_id = ? AND lease_owner = ?',
    ),
    arrivalItems: db.prepare<[string], ArrivalItemRow>('SELECT * FROM arrival_items WHERE user_id = ?'),
    addArrival: db.prepare<[string, string, string, string, string, number, string | null, number | null]>(
      `INSERT INTO arrival_items (user_id, approval_id, status, summary, actions, seen_at, message_id, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, approval_id) DO NOTHING`,
    ),
    announceHeld: db.prepare<[string, string, number | null, string, string]>(
      `UPDATE arrival_items SET status = 'announced', actions = ?, message_id = ?, position = ?
       WHERE user_id = ? AND approval_id = ? AND status = 'held'`,
    ),
    arrivalBack: db.prepare<[string, string]>('UPDATE arrival_items SET gone_at = NULL WHERE user_id = ? AND approval_id = ?'),
    arrivalGone: db.prepare<[number, string | null, string, string]>(
      `UPDATE arrival_items SET gone_at = ?, decided = COALESCE(decided, ?)
       WHERE user_id = ? AND approval_id = ? AND gone_at IS NULL`,
    ),
    insertArrivalMessage: db.prepare<[string, string, string, number, 0 | 1, number]>(
      'INSERT INTO arrival_messages (id, user_id, team_id, more, after_quiet, at, gone) VALUES (?, ?, ?, ?, ?, ?, 0)',
    ),
    setArrivalMessage: db.prepare<[string, string, string]>('UPDATE arrival_messages SET channel = ?, ts = ? WHERE id = ?'),
    forgetArrivalMessage: db.prepare<[string]>('UPDATE arrival_messages SET gone = 1 WHERE id = ?'),
    arrivalMessages: db.prepare<[string], ArrivalMessageRow>(
      'SELECT * FROM arrival_messages WHERE id IN (SELECT value FROM json_each(?)) AND gone = 0 AND ts IS NOT NULL',
    ),
    arrivalMessageItems: db.prepare<[string], ArrivalItemRow>(
      'SELECT * FROM arrival_items WHERE message_id IN (SELECT value FROM json_each(?)) AND position IS NOT NULL',
    ),
    decideArrival: db.prepare<[string, string]>('UPDATE arrival_items SET decided = ? WHERE approval_id = ? AND decided IS NULL'),
    messagesListing: db.prepare<[string], { message_id: string }>(
      'SELECT DISTINCT message_id FROM arrival_items WHERE approval_id = ? AND message_id IS NOT NULL AND position IS NOT NULL',
    ),
    pruneArrivalItems: db.prepare<[number]>('DELETE FROM arrival_items WHERE gone_at < ?'),
    pruneArrivalMessages: db.prepare<[number]>(
      `DELETE FROM arrival_messages WHERE at < ?
       AND NOT EXISTS (SELECT 1 FROM arrival_items WHERE arrival_items.message_id = arrival_messages.id)`,
    ),
    claimRelinkNotice: db.prepare<[string, number, number]>(
      `INSERT INTO relink_notices (user_id, linked_at, at) VALUES (?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET linked_at = excluded.linked_at, at = excluded.at
       WHERE relink_notices.linked_at <> excluded.linked_at`,
    ),
    // Only ever INSERT: the trail is evidence, and nothing here updates or deletes its rows.
    insertAudit: db.prepare<AuditValues>(INSERT_AUDIT),
    listAttempts: db.prepare<
      [string | null, string | null, string | null, string | null, string | null, string | null, number | null, number | null, number],
      CollectRow
    >(
      `SELECT e.*, w.attempt_id AS watch_id, w.runs AS watch_runs, w.note AS watch_note, w.done_at AS watch_done
       FROM audit_events e LEFT JOIN collect_watches w ON w.attempt_id = e.subject
       WHERE e.kind = 'collection' AND e.subject IN (
         SELECT subject FROM audit_events
         WHERE kind = 'collection' AND (? IS NULL OR team_id = ?) AND (? IS NULL OR channel_id = ?) AND (? IS NULL OR user_id = ?)
         GROUP BY subject HAVING (? IS NULL OR MAX(at) >= ?)
         ORDER BY MAX(id) DESC LIMIT ?)`,
    ),
    listDecisions: db.prepare<[string | null, string | null, string | null, string | null, number | null, number | null, number], AuditRow>(
      `SELECT e.* FROM audit_events e
       WHERE e.kind = 'decision' AND e.subject IN (
         SELECT subject FROM audit_events
         WHERE kind = 'decision' AND (? IS NULL OR team_id = ?) AND (? IS NULL OR user_id = ?)
         GROUP BY subject HAVING (? IS NULL OR MAX(at) >= ?)
         ORDER BY MAX(id) DESC LIMIT ?)`,
    ),
    // The insert is the claim: only one caller can take an approval that is free. A hold that has
    // given way is taken with takeExpiredDecision, once what became of it is recorded.
    claimDecision: db.prepare<[string, string, string, string, string, number, number], { decision_id: string }>(
      `INSERT INTO decision_claims (approval_id, decision_id, team_id, user_id, action, state, claimed_at, until)
       VALUES (?, ?, ?, ?, ?, 'sending', ?, ?)
       ON CONFLICT (approval_id) DO NOTHING
       RETURNING decision_id`,
    ),
    takeExpiredDecision: db.prepare<[string, string, string, string, number, number, string, string, number]>(
      `UPDATE decision_claims SET decision_id = ?, team_id = ?, user_id = ?, action = ?, state = 'sending',
         claimed_at = ?, until = ?, settled_at = NULL
       WHERE approval_id = ? AND decision_id = ? AND state <> 'done' AND until <= ?`,
    ),
    leaseExpiredDecision: db.prepare<[number, string, string, number]>(
      "UPDATE decision_claims SET until = ? WHERE approval_id = ? AND decision_id = ? AND state <> 'done' AND until <= ?",
    ),
    expiredDecisionHolds: db.prepare<[number, number], DecisionHoldRow>(
      "SELECT * FROM decision_claims WHERE state <> 'done' AND until <= ? ORDER BY until LIMIT ?",
    ),
    decisionRecord: db.prepare<[string], AuditRow>("SELECT * FROM audit_events WHERE kind = 'decision' AND subject = ?"),
    decisionHold: db.prepare<[string], DecisionHoldRow>('SELECT * FROM decision_claims WHERE approval_id = ?'),
    decisionHolds: db.prepare<[string], DecisionHoldRow>(
      'SELECT * FROM decision_claims WHERE approval_id IN (SELECT value FROM json_each(?))',
    ),
    settleDecision: db.prepare<[string, number, number, string, string]>(
      'UPDATE decision_claims SET state = ?, until = ?, settled_at = ? WHERE approval_id = ? AND decision_id = ?',
    ),
    extendDecision: db.prepare<[number, string, string]>(
      "UPDATE decision_claims SET until = ? WHERE approval_id = ? AND decision_id = ? AND state = 'sending'",
    ),
    releaseDecision: db.prepare<[string, string]>('DELETE FROM decision_claims WHERE approval_id = ? AND decision_id = ?'),
    claimCooldown: db.prepare<[string, string, string, string, string, number, number], { attempt_id: string }>(
      `INSERT INTO collect_cooldowns (team_id, target, user_id, channel_id, attempt_id, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, target) DO UPDATE SET user_id = excluded.user_id, channel_id = excluded.channel_id,
         attempt_id = excluded.attempt_id, at = excluded.at
       WHERE collect_cooldowns.at <= ?
       RETURNING attempt_id`,
    ),
    cooldownHolder: db.prepare<[string, string], CooldownHolderRow>(
      'SELECT user_id, channel_id, at, attempt_id FROM collect_cooldowns WHERE team_id = ? AND target = ?',
    ),
    releaseCooldown: db.prepare<[string, string, string]>(
      'DELETE FROM collect_cooldowns WHERE team_id = ? AND target = ? AND attempt_id = ?',
    ),
    releaseCooldownsOf: db.prepare<[string, string]>('DELETE FROM collect_cooldowns WHERE team_id = ? AND attempt_id = ?'),
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
    rememberSignature: db.prepare<[string, number, number]>(
      `INSERT INTO slack_signatures_by_expiry (signature, expires_at) VALUES (?, ?)
       ON CONFLICT (expires_at, signature) DO UPDATE SET expires_at = excluded.expires_at WHERE slack_signatures_by_expiry.expires_at < ?`,
    ),
    pruneSignatures: db.prepare<[number]>('DELETE FROM slack_signatures_by_expiry WHERE expires_at < ?'),
    keyGroups: db.prepare<[], { key_id: string; tokens: number }>('SELECT key_id, COUNT(*) AS tokens FROM tokens GROUP BY key_id'),
    keySample: db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE key_id = ? ORDER BY user_id LIMIT 3'),
    ping: db.prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1'),
    setWatchMessage: db.prepare<[string, string]>("UPDATE collect_watches SET message_ts = ? WHERE attempt_id = ? AND message_ts = ''"),
    saveWatch: db.prepare<[string, number, number, number | null, string | null, string, string]>(
      `UPDATE collect_watches SET runs = ?, next_poll_at = ?, interval_ms = ?, done_at = ?, note = ?, lease_owner = NULL, lease_until = NULL
       WHERE attempt_id = ? AND lease_owner = ?`,
    ),
  };
}

/**
 * Creates the database file (and its directory) readable by its owner only, like the key beside
 * it, before SQLite opens it: SQLite gives its -wal and -shm files the database file's mode. An
 * existing file keeps the mode its operator chose.
 */
function createOwnerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  closeSync(openSync(path, 'a', 0o600));
}

export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #keys: Keyring;
  readonly #sql: ReturnType<typeof prepare>;
  /** #remember in one transaction, made once: better-sqlite3 builds a transaction's wrapper each time it is asked for one. */
  readonly #signatureTransaction: (batch: ReadonlyArray<{ signature: string; until: Date; now: Date }>) => boolean[];
  readonly #outcomes = new OutcomeThrottle();
  readonly #links = new LinkCache<LinkedToken | undefined>();
  readonly #auditIds = new AuditIds();
  readonly #pruning = new SignaturePruning();
  /** Signatures waiting for the next write, with whom to tell whether each was new. */
  readonly #signatures: Array<{
    signature: string;
    until: Date;
    now: Date;
    resolve: (fresh: boolean) => void;
    reject: (error: unknown) => void;
  }> = [];
  /** The write of signatures under way, if any. */
  #signatureWrite: Promise<void> | undefined;
  /** Service-call slots known to exist: made once per process, up to the largest limit asked for. */
  #slotsMade = 0;

  /** `now`: the app's clock, for when a migration was applied; the composition root passes its own (openStore). */
  constructor(path: string, key: Secret, previousKey?: Secret, now: () => Date = () => new Date()) {
    if (path !== ':memory:') createOwnerOnly(path);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#keys = new Keyring(key, previousKey);
    const db = new Database(path);
    try {
      if (path !== ':memory:') db.pragma('journal_mode = WAL');
      // With WAL, NORMAL cannot corrupt the database; a power cut may lose the last commits, which
      // for this data (a re-linkable token, a usage timestamp) is the right trade for not syncing per call.
      db.pragma('synchronous = NORMAL');
      db.pragma(`busy_timeout = ${OPEN_BUSY_WAIT_MS}`);
      this.#db = db;
      this.#migrate(now);
      // Once, at open: a damaged page anywhere is found now, not by the first user whose row is on it.
      // It reads the whole file, which for this data (tokens, reminders, the audit trail) takes milliseconds.
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') {
        const first = String(check)
          .split('\n')
          .find((line) => line.trim() !== '' && !line.startsWith('***'));
        throw Object.assign(new Error(`integrity check failed: ${first ?? 'damaged'}`), { code: 'SQLITE_CORRUPT' });
      }
      this.#sql = prepare(db);
      this.#signatureTransaction = db.transaction(this.#remember);
      db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    } catch (error) {
      db.close();
      // A file that is not a database, or a damaged one: the operator must hear which file and what to do.
      if ((error as { code?: string }).code?.startsWith('SQLITE_'))
        throw new Error(
          `DATABASE_URL: the SQLite database ${path} cannot be used (${(error as Error).message}). ` +
            'Restore it from a backup, or move it away to start with an empty one (users then link again)',
          { cause: error },
        );
      throw error;
    }
  }

  #migrate(now: () => Date): void {
    this.#db.exec(CREATE_MIGRATIONS_TABLE);
    const applied = this.#db.prepare<[], { version: number }>(APPLIED_VERSIONS);
    const record = this.#db.prepare<[number, number]>('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
    // One migration per transaction, chosen inside it under the write lock (IMMEDIATE): another
    // process opening the same file at that moment (the CLI beside the app) waits, then finds it applied.
    const applyNext = this.#db.transaction((): boolean => {
      const [next] = pendingMigrations(applied.all().map((r) => r.version));
      if (next === undefined) return false;
      this.#db.exec(next.sql);
      if (next.carry) {
        const insert = this.#db.prepare<AuditValues>(INSERT_AUDIT);
        for (const row of this.#db.prepare<[], Record<string, unknown>>(next.carry.select).all())
          for (const values of next.carry.rows(row)) insert.run(...values);
      }
      record.run(next.version, now().getTime());
      return true;
    });
    let more = true;
    while (more) more = applyNext.immediate();
  }

  getToken(who: Principal, command: ServiceCommandName): Promise<LinkedToken | undefined> {
    return this.#patiently(() => {
      const version = this.#sql.dataVersion.get() as number;
      const key = `${who.teamId}\u0000${who.userId}\u0000${command}`;
      const kept = this.#links.get(version, key);
      if (kept !== undefined) return kept.value;
      // A workspace-specific link wins over one made for any workspace (team '').
      const row = this.#sql.getToken.get(who.userId, command, who.teamId);
      const linked = row === undefined ? undefined : linkedTokenOf(row, this.#keys);
      this.#links.set(version, key, linked);
      return linked;
    });
  }

  setToken(
    who: Principal,
    commands: readonly ServiceCommandName[],
    token: Secret,
    source: TokenSource,
    at: Date,
    account?: ServiceIdentity,
  ): Promise<void> {
    return this.#patiently(() => {
      const upsert = this.#sql.upsertToken;
      this.#outcomes.forget();
      this.#keys.forgetDecrypted();
      this.#links.clear();
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
            account?.serviceUser ?? null,
            account?.serviceUser === undefined ? null : (account.authsource ?? null),
          );
        }
        if (commands.includes('findApprovals')) this.#sql.wakeArrivalWatch.run(who.userId, who.teamId, at.getTime());
      })();
    });
  }

  deleteTokens(who: Parameters<Store['deleteTokens']>[0]): Promise<number> {
    return this.#patiently(() => {
      this.#outcomes.forget();
      this.#keys.forgetDecrypted();
      this.#links.clear();
      if (who.teamId === undefined) return this.#sql.deleteAllTokens.run(who.userId).changes;
      return this.#sql.deleteServingTokens.run(who.userId, who.teamId).changes;
    });
  }

  listLinks(who?: Principal): Promise<LinkSummary[]> {
    return this.#patiently(() => {
      const rows = who === undefined ? this.#sql.allLinks.all() : this.#sql.linksOf.all(who.userId, who.teamId);
      return rows.map(linkOf);
    });
  }

  recordOutcome(who: Principal, command: ServiceCommandName, outcome: 'ok' | 'rejected', at: Date): Promise<void> {
    if (!this.#outcomes.shouldWrite(who, command, outcome, at)) return Promise.resolve();
    return this.#patiently(() => {
      this.#sql.recordOutcome.run(at.getTime(), outcome, who.userId, command, who.userId, command, who.teamId);
    });
  }

  getIdentity(who: Principal): Promise<IdentityLink | undefined> {
    return this.#patiently(() => {
      const row = this.#sql.getIdentity.get(who.userId, who.teamId);
      return row === undefined ? undefined : identityOf(row);
    });
  }

  setIdentity(who: Principal, identity: ServiceIdentity, source: IdentitySource, at: Date): Promise<void> {
    return this.#patiently(() => {
      this.#outcomes.forget();
      this.#keys.forgetDecrypted();
      this.#links.clear();
      this.#db.transaction(() => {
        this.#sql.upsertIdentity.run(who.teamId, who.userId, identity.serviceUser, identity.authsource ?? null, source, at.getTime());
        this.#sql.wakeArrivalWatch.run(who.userId, who.teamId, at.getTime());
      })();
    });
  }

  deleteIdentities(who: Parameters<Store['deleteIdentities']>[0]): Promise<number> {
    return this.#patiently(() => {
      this.#outcomes.forget();
      this.#keys.forgetDecrypted();
      this.#links.clear();
      if (who.teamId === undefined) return this.#sql.deleteAllIdentities.run(who.userId).changes;
      return this.#sql.deleteServingIdentities.run(who.userId, who.teamId).changes;
    });
  }

  listIdentities(who?: Principal): Promise<IdentityLink[]> {
    return this.#patiently(() => {
      const rows = who === undefined ? this.#sql.allIdentities.all() : this.#sql.identitiesOf.all(who.userId, who.teamId);
      return rows.map(identityOf);
    });
  }

  recordIdentityOutcome(who: Principal, outcome: IdentityOutcome, at: Date): Promise<void> {
    const text = identityOutcomeText(outcome);
    if (!this.#outcomes.shouldWrite(who, IDENTITY_OUTCOME, text, at)) return Promise.resolve();
    return this.#patiently(() => {
      this.#sql.recordIdentityOutcome.run(at.getTime(), text, who.userId, who.userId, who.teamId);
    });
  }

  createConfirmation(c: PendingConfirmation): Promise<void> {
    return this.#patiently(() => {
      this.#sql.insertConfirmation.run(c.id, c.teamId, c.channelId, c.userId, c.payload, c.createdAt.getTime(), c.expiresAt.getTime());
      this.#sql.pruneConfirmations.run(confirmationPruneHorizon(c.createdAt));
    });
  }

  claimConfirmation(id: string, userId: string, at: Date): Promise<ClaimResult> {
    return this.#patiently(() => {
      const row = this.#sql.getConfirmation.get(id);
      const verdict = judgeClaim(row === undefined ? undefined : confirmationOf(row), userId, at);
      if (verdict.status !== 'claimable') return verdict;
      // The conditional update is the claim: only one caller can move used_at from NULL.
      return claimOutcome(verdict.confirmation, this.#sql.claimConfirmation.run(at.getTime(), id).changes === 1);
    });
  }

  setReminder(r: NewReminder): Promise<void> {
    return this.#patiently(() => {
      this.#sql.upsertReminder.run(r.teamId, r.userId, r.days, r.minuteOfDay, r.timeZone, r.nextAt.getTime(), r.dueAt.getTime());
    });
  }

  getReminder(who: Principal): Promise<Reminder | undefined> {
    return this.#patiently(() => {
      const row = this.#sql.getReminder.get(who.teamId, who.userId);
      return row === undefined ? undefined : reminderOf(row);
    });
  }

  deleteReminder(who: Principal): Promise<boolean> {
    return this.#patiently(() => {
      return this.#sql.deleteReminder.run(who.teamId, who.userId).changes === 1;
    });
  }

  pauseReminder(who: Principal, at: Date): Promise<void> {
    return this.#patiently(() => {
      this.#sql.pauseReminder.run(at.getTime(), who.teamId, who.userId);
    });
  }

  claimDueReminders(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<Reminder[]> {
    return this.#patiently(() => {
      // One statement: SQLite runs writers one at a time, so two instances cannot lease the same row.
      return this.#sql.claimReminders.all(owner, leaseUntil.getTime(), now.getTime(), now.getTime(), limit).map(reminderOf);
    });
  }

  renewReminderLeases(owner: string, until: Date): Promise<number> {
    return this.#patiently(() => {
      return this.#sql.renewReminderLeases.run(until.getTime(), owner).changes;
    });
  }

  takeServiceSlot(owner: string, limit: number, now: Date, until: Date): Promise<number | undefined> {
    return this.#patiently(() => {
      if (limit > this.#slotsMade) {
        this.#db.transaction(() => {
          for (let slot = this.#slotsMade; slot < limit; slot++) this.#sql.makeSlot.run(slot);
        })();
        this.#slotsMade = limit;
      }
      // One statement: SQLite runs writers one at a time, so two takers never get the same slot.
      return this.#sql.takeSlot.get(owner, until.getTime(), limit, now.getTime())?.slot;
    });
  }

  releaseServiceSlot(owner: string, slot: number): Promise<void> {
    return this.#patiently(() => {
      this.#sql.releaseSlot.run(slot, owner);
    });
  }

  renewServiceSlots(owner: string, until: Date): Promise<number> {
    return this.#patiently(() => {
      return this.#sql.renewSlots.run(until.getTime(), owner).changes;
    });
  }

  markReminderSending(who: Principal, owner: string, nextAt: Date): Promise<boolean> {
    return this.#patiently(() => {
      return this.#sql.markSending.run(who.teamId, who.userId, owner, nextAt.getTime()).changes === 1;
    });
  }

  releaseReminder(who: Principal, owner: string, claimedNextAt: Date, next: ReminderRelease): Promise<boolean> {
    return this.#patiently(() => {
      const pause = pauseChange(next.pausedAt);
      return (
        this.#sql.releaseReminder.run(
          next.nextAt.getTime(),
          next.dueAt.getTime(),
          next.timeZone,
          pause.write ? 1 : 0,
          pause.value,
          who.teamId,
          who.userId,
          owner,
          claimedNextAt.getTime(),
        ).changes === 1
      );
    });
  }

  notifySetting(userId: string): Promise<NotifySetting | undefined> {
    return this.#patiently(() => {
      const row = this.#sql.arrivalWatch.get(userId);
      return row === undefined ? undefined : notifySettingOf(row);
    });
  }

  setNotify(who: Principal, change: NotifySettingChange, at: Date): Promise<NotifySetting> {
    return this.#patiently(() =>
      this.#db.transaction(() => {
        this.#sql.makeArrivalWatch.run(who.userId, who.teamId, at.getTime());
        if ('enabled' in change) {
          if (change.enabled) this.#sql.switchArrivalsOn.run(at.getTime(), who.userId);
          else this.#sql.switchArrivalsOff.run(who.userId);
        } else {
          this.#sql.setQuiet.run(change.quiet?.startMinute ?? null, change.quiet?.endMinute ?? null, who.userId);
        }
        return notifySettingOf(this.#sql.arrivalWatch.get(who.userId) as ArrivalWatchRow);
      })(),
    );
  }

  claimDueArrivalWatches(now: Date, owner: string, leaseUntil: Date, nextAt: Date, limit: number): Promise<ArrivalWatch[]> {
    return this.#patiently(() =>
      this.#sql.claimArrivalWatches
        .all(owner, leaseUntil.getTime(), nextAt.getTime(), now.getTime(), now.getTime(), limit)
        .map(arrivalWatchOf),
    );
  }

  arrivalWatchDue(now: Date): Promise<boolean> {
    return this.#patiently(() => this.#sql.arrivalWatchDue.get(now.getTime(), now.getTime()) !== undefined);
  }

  renewArrivalLeases(owner: string, userIds: readonly string[], until: Date): Promise<number> {
    return this.#patiently(() =>
      userIds.length === 0 ? 0 : this.#sql.renewArrivalLeases.run(until.getTime(), owner, JSON.stringify(userIds)).changes,
    );
  }

  pauseArrivalWatch(userId: string, owner: string, claimedNextAt: Date): Promise<boolean> {
    return this.#patiently(() => this.#sql.pauseArrivalWatch.run(userId, owner, claimedNextAt.getTime()).changes === 1);
  }

  arrivalItems(userId: string): Promise<KeptArrival[]> {
    return this.#patiently(() => this.#sql.arrivalItems.all(userId).map(keptArrivalOf));
  }

  saveArrivalCheck(userId: string, owner: string, at: Date, c: ArrivalCheckChanges): Promise<{ announced: string[] } | undefined> {
    return this.#patiently(() =>
      this.#db.transaction((): { announced: string[] } | undefined => {
        if (this.#sql.holdArrivalWatch.run(c.primed ? 1 : 0, userId, owner).changes !== 1) return undefined;
        const t = at.getTime();
        for (const a of c.add)
          this.#sql.addArrival.run(userId, a.summary.approvalId, a.status, summaryText(a.summary), '[]', t, null, null);
        for (const id of c.back) this.#sql.arrivalBack.run(userId, id);
        for (const g of c.gone) this.#sql.arrivalGone.run(t, g.decided === undefined ? null : decidedText(g.decided), userId, g.approvalId);
        const announced: string[] = [];
        const m = c.announce;
        if (m === undefined) return { announced };
        for (const a of m.approvals) {
          const position = announced.length < m.listed ? announced.length : null;
          const actions = JSON.stringify(a.actions);
          const id = a.summary.approvalId;
          // A held one moves to the message; a new one is inserted, unless a check before this one recorded it.
          const changed =
            this.#sql.announceHeld.run(actions, m.messageId, position, userId, id).changes === 1 ||
            this.#sql.addArrival.run(userId, id, 'announced', summaryText(a.summary), actions, t, m.messageId, position).changes === 1;
          if (changed) announced.push(id);
        }
        if (announced.length > 0)
          this.#sql.insertArrivalMessage.run(
            m.messageId,
            userId,
            m.teamId,
            Math.max(0, announced.length - m.listed),
            m.afterQuiet ? 1 : 0,
            t,
          );
        return { announced };
      })(),
    );
  }

  setArrivalMessage(messageId: string, channel: string, ts: string): Promise<void> {
    return this.#patiently(() => {
      this.#sql.setArrivalMessage.run(channel, ts, messageId);
    });
  }

  forgetArrivalMessage(messageId: string): Promise<void> {
    return this.#patiently(() => {
      this.#sql.forgetArrivalMessage.run(messageId);
    });
  }

  arrivalMessages(messageIds: readonly string[]): Promise<KeptArrivalMessage[]> {
    return this.#patiently(() => this.#messages(messageIds));
  }

  #messages(messageIds: readonly string[]): KeptArrivalMessage[] {
    if (messageIds.length === 0) return [];
    const ids = JSON.stringify(messageIds);
    return keptMessagesOf(this.#sql.arrivalMessages.all(ids), this.#sql.arrivalMessageItems.all(ids));
  }

  decideArrival(approvalId: string, decided: ArrivalDecided): Promise<KeptArrivalMessage[]> {
    return this.#patiently(() => {
      this.#sql.decideArrival.run(decidedText(decided), approvalId);
      return this.#messages(this.#sql.messagesListing.all(approvalId).map((r) => r.message_id));
    });
  }

  pruneArrivals(before: Date): Promise<number> {
    return this.#patiently(() =>
      this.#db.transaction(() => {
        const items = this.#sql.pruneArrivalItems.run(before.getTime()).changes;
        this.#sql.pruneArrivalMessages.run(before.getTime());
        return items;
      })(),
    );
  }

  claimRelinkNotice(who: Principal, linkedAt: Date, at: Date): Promise<boolean> {
    return this.#patiently(() => this.#sql.claimRelinkNotice.run(who.userId, linkedAt.getTime(), at.getTime()).changes === 1);
  }

  recordCollectStep(e: CollectEvent): Promise<void> {
    return this.#patiently(() => {
      this.#sql.insertAudit.run(...collectValues(this.#auditIds.next(e.at), e));
    });
  }

  listCollectAttempts(f: AuditFilter): Promise<CollectAttempt[]> {
    return this.#patiently(() => {
      const team = f.teamId ?? null;
      const channel = f.channelId ?? null;
      const user = f.userId ?? null;
      const since = f.since?.getTime() ?? null;
      return foldAttempts(this.#sql.listAttempts.all(team, team, channel, channel, user, user, since, since, f.limit));
    });
  }

  recordDecisionStep(e: DecisionEvent): Promise<void> {
    return this.#patiently(() => {
      this.#sql.insertAudit.run(...decisionValues(this.#auditIds.next(e.at), e));
    });
  }

  listDecisions(f: AuditFilter): Promise<DecisionRecord[]> {
    return this.#patiently(() => {
      const team = f.teamId ?? null;
      const user = f.userId ?? null;
      const since = f.since?.getTime() ?? null;
      return foldDecisions(this.#sql.listDecisions.all(team, team, user, user, since, since, f.limit));
    });
  }

  claimDecision(c: Parameters<Store['claimDecision']>[0]): Promise<DecisionClaim> {
    return this.#patiently(() => {
      for (;;) {
        const won = this.#sql.claimDecision.get(
          c.approvalId,
          c.decisionId,
          c.teamId,
          c.userId,
          c.action,
          c.at.getTime(),
          c.until.getTime(),
        );
        const row = won === undefined ? this.#sql.decisionHold.get(c.approvalId) : undefined;
        const outcome = decisionClaimOutcome(won !== undefined, row === undefined ? undefined : decisionHoldOf(row));
        if (outcome !== 'again') return outcome;
      }
    });
  }

  settleDecision(approvalId: string, decisionId: string, state: 'done' | 'unsettled', at: Date, until: Date): Promise<boolean> {
    return this.#patiently(() => this.#sql.settleDecision.run(state, until.getTime(), at.getTime(), approvalId, decisionId).changes === 1);
  }

  extendDecision(approvalId: string, decisionId: string, until: Date): Promise<boolean> {
    return this.#patiently(() => this.#sql.extendDecision.run(until.getTime(), approvalId, decisionId).changes === 1);
  }

  releaseDecision(approvalId: string, decisionId: string): Promise<void> {
    return this.#patiently(() => {
      this.#sql.releaseDecision.run(approvalId, decisionId);
    });
  }

  decisionRecord(decisionId: string): Promise<DecisionRecord | undefined> {
    return this.#patiently(() => foldDecisions(this.#sql.decisionRecord.all(decisionId))[0]);
  }

  expiredDecisionHolds(now: Date, limit: number): Promise<Array<{ approvalId: string; hold: DecisionHold }>> {
    return this.#patiently(() =>
      this.#sql.expiredDecisionHolds.all(now.getTime(), limit).map((r) => ({ approvalId: r.approval_id, hold: decisionHoldOf(r) })),
    );
  }

  takeExpiredDecision(...[approvalId, from, now, until, to]: Parameters<Store['takeExpiredDecision']>): Promise<boolean> {
    return this.#patiently(
      () =>
        (to === undefined
          ? this.#sql.leaseExpiredDecision.run(until.getTime(), approvalId, from, now.getTime())
          : this.#sql.takeExpiredDecision.run(
              to.decisionId,
              to.teamId,
              to.userId,
              to.action,
              now.getTime(),
              until.getTime(),
              approvalId,
              from,
              now.getTime(),
            )
        ).changes === 1,
    );
  }

  decisionHolds(approvalIds: readonly string[]): Promise<Map<string, DecisionHold>> {
    return this.#patiently(() => {
      if (approvalIds.length === 0) return new Map();
      const rows = this.#sql.decisionHolds.all(JSON.stringify(approvalIds));
      return new Map(rows.map((r) => [r.approval_id, decisionHoldOf(r)]));
    });
  }

  claimCooldown(c: Parameters<Store['claimCooldown']>[0]): Promise<CooldownClaim> {
    return this.#patiently(() => {
      const won = this.#sql.claimCooldown.get(
        c.teamId,
        c.target,
        c.userId,
        c.channelId,
        c.attemptId,
        c.at.getTime(),
        cooldownHorizon(c.at, c.cooldownMs),
      );
      if (won !== undefined) return cooldownOutcome(true);
      const holder = this.#sql.cooldownHolder.get(c.teamId, c.target);
      return cooldownOutcome(false, holder === undefined ? undefined : cooldownHolderOf(holder));
    });
  }

  peekCooldown(teamId: string, target: string, at: Date, cooldownMs: number): Promise<CooldownHolderOf | undefined> {
    return this.#patiently(() => {
      const row = this.#sql.cooldownHolder.get(teamId, target);
      return heldBy(row === undefined ? undefined : cooldownHolderOf(row), at, cooldownMs);
    });
  }

  releaseCooldown(teamId: string, target: string, attemptId: string): Promise<void> {
    return this.#patiently(() => {
      this.#sql.releaseCooldown.run(teamId, target, attemptId);
    });
  }

  releaseCooldownsOf(teamId: string, attemptId: string): Promise<number> {
    return this.#patiently(() => {
      return this.#sql.releaseCooldownsOf.run(teamId, attemptId).changes;
    });
  }

  createWatch(w: RunWatch): Promise<void> {
    return this.#patiently(() => {
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
    });
  }

  claimDueWatches(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<RunWatch[]> {
    return this.#patiently(() => {
      return this.#sql.claimWatches.all(owner, leaseUntil.getTime(), now.getTime(), now.getTime(), limit).map(watchOf);
    });
  }

  setWatchMessage(attemptId: string, messageTs: string): Promise<void> {
    return this.#patiently(() => {
      this.#sql.setWatchMessage.run(messageTs, attemptId);
    });
  }

  saveWatch(w: RunWatch, owner: string): Promise<boolean> {
    return this.#patiently(() => {
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
    });
  }

  rotateKeys(): Promise<number> {
    return this.#patiently(() => {
      const stale = this.#db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE key_id <> ?').all(this.#keys.current.keyId);
      const rewrite = this.#db.prepare<[string, string, string, string, string]>(
        'UPDATE tokens SET ciphertext = ?, key_id = ? WHERE team_id = ? AND user_id = ? AND command = ?',
      );
      // Decrypt everything first: a row the keys cannot read stops the rotation before any write.
      const rewritten = stale.map((r) => ({ r, value: reencrypted(r, this.#keys) }));
      this.#links.clear();
      this.#db.transaction(() => {
        for (const { r, value } of rewritten) rewrite.run(value, this.#keys.current.keyId, r.team_id, r.user_id, r.command);
      })();
      return rewritten.length;
    });
  }

  keyUsage(): Promise<KeyUsage[]> {
    return this.#patiently(() => {
      const groups: KeyGroup[] = this.#sql.keyGroups
        .all()
        .map((g) => ({ keyId: g.key_id, tokens: Number(g.tokens), sample: this.#sql.keySample.all(g.key_id) }));
      return keyUsageOf(groups, this.#keys);
    });
  }

  rememberSignature(signature: string, until: Date, now: Date): Promise<boolean> {
    // Written with the others that arrive in the same turn of the event loop, in one transaction:
    // every request writes one, and a commit costs several times what an insert does.
    return new Promise((resolve, reject) => {
      this.#signatures.push({ signature, until, now, resolve, reject });
      if (this.#signatures.length === 1 && this.#signatureWrite === undefined) setImmediate(() => this.#writeSignatures());
    });
  }

  /** Each signature of a batch, in order: true where it was new. */
  readonly #remember = (batch: ReadonlyArray<{ signature: string; until: Date; now: Date }>): boolean[] =>
    batch.map(({ signature, until, now }) => {
      // A row still in force makes the upsert change nothing: that is the replay. One past its
      // time (not pruned yet) is taken over. In order, so the second of two alike is the replay.
      return this.#sql.rememberSignature.run(signature, until.getTime(), now.getTime()).changes === 1;
    });

  /**
   * Rows past their time out of the table, at most once a minute, after a write and apart from it:
   * best effort, as on PostgreSQL (the window refuses such requests anyway; pruning keeps the table
   * small). Apart, so that a prune that meets a lock cannot make a lone signature, already committed,
   * be written again and read as its own replay.
   */
  #pruneSignatures(now: Date): Promise<void> | undefined {
    // Undefined when not due: the write's answers need not wait a turn for nothing.
    if (!this.#pruning.due(now) || !this.#db.open) return undefined;
    return this.#patiently(() => {
      this.#sql.pruneSignatures.run(now.getTime());
    }).catch(() => undefined);
  }

  /** Writes what has queued; what queues while a write waits for the lock goes in the next one. */
  #writeSignatures(): Promise<void> {
    const batch = this.#signatures.splice(0);
    if (batch.length === 0 || !this.#db.open) return Promise.resolve();
    // One alone is its own transaction: BEGIN and COMMIT around it would only add two statements.
    const write = this.#patiently(() => (batch.length === 1 ? this.#remember(batch) : this.#signatureTransaction(batch))).then(
      (fresh) => {
        const answer = () => {
          for (const [i, entry] of batch.entries()) entry.resolve(fresh[i] as boolean);
        };
        const pruning = this.#pruneSignatures((batch.at(-1) as { now: Date }).now);
        if (pruning === undefined) answer();
        else return pruning.then(answer);
      },
      (error: unknown) => {
        for (const entry of batch) entry.reject(error);
      },
    );
    this.#signatureWrite = write.finally(() => {
      this.#signatureWrite = undefined;
      if (this.#signatures.length > 0) setImmediate(() => this.#writeSignatures());
    });
    return this.#signatureWrite;
  }

  /**
   * One operation, tried again on a timer while another process holds the lock (see BUSY_WAIT_MS).
   * Without contention it runs at once, as a plain call would.
   */
  async #patiently<T>(work: () => T): Promise<T> {
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || performance.now() - started > BUSY_PATIENCE_MS) throw error;
      }
      await sleep(Math.min(100, 5 * 2 ** attempt));
    }
  }

  ping(): Promise<void> {
    return this.#patiently(() => {
      this.#sql.ping.get();
    });
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    await this.#signatureWrite;
    await this.#writeSignatures();
    if (this.#db.open) this.#db.close();
  }
}

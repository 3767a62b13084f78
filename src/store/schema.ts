/**
 * The one schema both stores keep, as numbered migrations applied at start. The SQL is written
 * once for both databases: BIGINT holds millisecond times in PostgreSQL and has integer affinity
 * in SQLite, and nothing here uses a feature only one of them has.
 *
 * schema_migrations records each version applied, exactly as the stores recorded them before this
 * list was shared, so a database made by any earlier release is recognised as it is.
 */

import type { AuditValues } from './audit.js';
import { carryAttempt, type LegacyAttemptRow } from './legacy-audit.js';

export interface Migration {
  readonly version: number;
  /** What it adds, for people reading the list and the errors. */
  readonly name: string;
  /** Statements separated by semicolons, run together in one transaction. */
  readonly sql: string;
  /**
   * Rows carried into the audit trail by code, after the SQL and in the same transaction, where a
   * sentence must be read into fields (which SQL alike in both databases cannot do): each row
   * `select` returns becomes the audit rows `rows` makes of it, inserted as the stores insert any.
   */
  readonly carry?: { readonly select: string; readonly rows: (row: Record<string, unknown>) => AuditValues[] };
}

/**
 * Never edit or reorder a migration once released: databases that have it will not run it again.
 * To change the schema, append the next one, e.g.
 *   { version: 5, name: 'what it adds', sql: `CREATE TABLE … ;` },
 * in SQL both databases take (TEXT, INTEGER, BIGINT for millisecond times; ALTER TABLE … ADD
 * COLUMN works in both). test/store/migrations.test.ts then upgrades a frozen v3 database on both
 * and checks it ends up like a new one; if the migration moves or rewrites rows, check them there.
 */
const carryAttempts = (row: Record<string, unknown>): AuditValues[] => [carryAttempt(row as unknown as LegacyAttemptRow)];

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tokens and confirmations',
    sql: `CREATE TABLE tokens (
       team_id      TEXT NOT NULL,
       user_id      TEXT NOT NULL,
       command      TEXT NOT NULL,
       ciphertext   TEXT NOT NULL,
       key_id       TEXT NOT NULL,
       source       TEXT NOT NULL,
       linked_at    BIGINT NOT NULL,
       last_used_at BIGINT,
       last_outcome TEXT,
       PRIMARY KEY (team_id, user_id, command)
     );
     CREATE TABLE confirmations (
       id         TEXT PRIMARY KEY,
       team_id    TEXT NOT NULL,
       channel_id TEXT NOT NULL,
       user_id    TEXT NOT NULL,
       payload    TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       expires_at BIGINT NOT NULL,
       used_at    BIGINT
     );
     CREATE INDEX confirmations_expiry ON confirmations (expires_at);`,
  },
  {
    version: 2,
    name: 'reminders',
    sql: `CREATE TABLE reminders (
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
     CREATE INDEX reminders_due ON reminders (due_at);`,
  },
  {
    version: 3,
    name: 'collection attempts, cooldowns and run watches',
    sql: `CREATE TABLE collect_attempts (
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
     CREATE INDEX collect_watches_due ON collect_watches (next_poll_at);`,
  },
  {
    version: 4,
    name: 'replay protection',
    // One row per Slack signature accepted, kept until its request's timestamp leaves the window:
    // the primary key is what makes "seen before?" atomic across instances.
    sql: `CREATE TABLE slack_signatures (
       signature  TEXT PRIMARY KEY,
       expires_at BIGINT NOT NULL
     );
     CREATE INDEX slack_signatures_expiry ON slack_signatures (expires_at);`,
  },
  {
    version: 5,
    name: 'service identities (trusted-application mode)',
    // Who each Slack user is in the service, by the name they sign in with: not a secret, so not
    // encrypted. Team '' holds for any workspace, as in tokens.
    sql: `CREATE TABLE service_identities (
       team_id      TEXT NOT NULL,
       user_id      TEXT NOT NULL,
       service_user TEXT NOT NULL,
       authsource   TEXT,
       source       TEXT NOT NULL,
       linked_at    BIGINT NOT NULL,
       last_used_at BIGINT,
       last_outcome TEXT,
       PRIMARY KEY (team_id, user_id)
     );
     CREATE INDEX service_identities_user ON service_identities (user_id);`,
  },
  {
    version: 6,
    name: 'service-call slots for reminders',
    // REMINDER_CONCURRENCY rows, leased one per call to the service, so that the limit holds
    // across every instance on this database (an owner's lease runs out if it dies).
    sql: `CREATE TABLE service_slots (
       slot  INTEGER PRIMARY KEY,
       owner TEXT,
       until BIGINT
     );`,
  },
  {
    version: 7,
    name: 'an append-only, structured audit trail',
    // One row per step (asked, confirmed, sent, answered, refused…), only ever inserted: the time of
    // each step is kept, and its fields are data (JSON in `data`), not a sentence. collect_attempts,
    // written by earlier releases, is carried over and kept as it was (an older instance still
    // running beside a newer one during a deploy writes there); this release no longer reads it.
    sql: `CREATE TABLE audit_events (
       id          TEXT PRIMARY KEY,
       at          BIGINT NOT NULL,
       kind        TEXT NOT NULL,
       subject     TEXT NOT NULL,
       step        TEXT NOT NULL,
       team_id     TEXT NOT NULL,
       user_id     TEXT NOT NULL,
       channel_id  TEXT NOT NULL,
       approval_id TEXT NOT NULL,
       data        TEXT NOT NULL
     );
     CREATE INDEX audit_events_subject ON audit_events (subject);
     CREATE INDEX audit_events_kind_at ON audit_events (kind, at);
     CREATE INDEX audit_events_channel ON audit_events (team_id, channel_id, at);
     CREATE INDEX audit_events_approval ON audit_events (approval_id);`,
    carry: { select: 'SELECT * FROM collect_attempts', rows: carryAttempts },
  },
  {
    version: 8,
    name: 'decisions in chat: one hold per approval',
    // The row is the claim that makes a decision exactly once across clicks, retries and instances;
    // 'done' holds for good (the approval is not offered again), while 'sending' and 'unsettled'
    // give way at `until`, so that a user is never locked out by a call whose outcome is unknown.
    sql: `CREATE TABLE decision_claims (
       approval_id TEXT PRIMARY KEY,
       decision_id TEXT NOT NULL,
       team_id     TEXT NOT NULL,
       user_id     TEXT NOT NULL,
       action      TEXT NOT NULL,
       state       TEXT NOT NULL,
       claimed_at  BIGINT NOT NULL,
       until       BIGINT NOT NULL,
       settled_at  BIGINT
     );`,
  },
  {
    version: 9,
    name: 'replay protection keyed by time',
    // Keyed by signature alone, every insert went to a random place in an index as large as six
    // minutes of requests, and cost more the more rows there were (26 → 44 µs a signature on SQLite
    // from 16,000 to 144,000 rows); keyed by expiry first, inserts land at the end and cost the same
    // whatever the table holds (8–13 µs). A signature covers its request's timestamp, from which the
    // expiry is computed, so the same request again has the same key: the key still decides.
    // The rows in force are carried over. slack_signatures stays for an older instance still
    // running during a deploy, which writes there; a later release drops it.
    sql: `CREATE TABLE slack_signatures_by_expiry (
       expires_at BIGINT NOT NULL,
       signature  TEXT NOT NULL,
       PRIMARY KEY (expires_at, signature)
     );
     INSERT INTO slack_signatures_by_expiry (expires_at, signature) SELECT expires_at, signature FROM slack_signatures;`,
  },
  {
    version: 10,
    name: 'the service account a sign-in named',
    // The username (and authentication source) a user signed in with, so that whoami and Home can
    // say which account of the service acts for them: an identifier, never a credential, so not
    // encrypted. NULL for a token pasted or set by an admin, which does not say whose it is.
    sql: `ALTER TABLE tokens ADD COLUMN service_user TEXT;
     ALTER TABLE tokens ADD COLUMN authsource TEXT;`,
  },
  {
    version: 11,
    name: 'decisions left unsettled, found by when their hold ended',
    // Done holds stay for good, one per approval ever decided from chat; the reconciler looks only
    // at the few that are not, by when they end, without reading the rest.
    sql: `CREATE INDEX decision_claims_open ON decision_claims (until) WHERE state <> 'done';`,
  },
  {
    version: 12,
    name: 'arrivals: who is watched, what each approver was told of, and the relink message told once',
    // One watch per approver (by Slack user id: one person, one DM, whichever workspace linked them),
    // created when they link for findApprovals (and here for those linked already). Its claim leases it
    // and moves next_at on in one statement; next_at NULL parks it until the user links again.
    // arrival_items remembers every approval ever on an approver's pending list, so that each is
    // announced once; arrival_messages the DMs that list them, to be redrawn in place.
    // relink_notices: the one "link again" message per lapse, shared by the digests and the arrivals.
    sql: `CREATE TABLE arrival_watches (
       user_id     TEXT PRIMARY KEY,
       team_id     TEXT NOT NULL,
       enabled     INTEGER NOT NULL,
       quiet_start INTEGER,
       quiet_end   INTEGER,
       prime       INTEGER NOT NULL,
       next_at     BIGINT,
       due_at      BIGINT,
       lease_owner TEXT,
       lease_until BIGINT
     );
     CREATE INDEX arrival_watches_next ON arrival_watches (next_at);
     CREATE TABLE arrival_items (
       user_id     TEXT NOT NULL,
       approval_id TEXT NOT NULL,
       status      TEXT NOT NULL,
       summary     TEXT NOT NULL,
       actions     TEXT NOT NULL,
       seen_at     BIGINT NOT NULL,
       gone_at     BIGINT,
       decided     TEXT,
       message_id  TEXT,
       position    INTEGER,
       PRIMARY KEY (user_id, approval_id)
     );
     CREATE INDEX arrival_items_approval ON arrival_items (approval_id);
     CREATE INDEX arrival_items_message ON arrival_items (message_id);
     CREATE INDEX arrival_items_gone ON arrival_items (gone_at);
     CREATE TABLE arrival_messages (
       id          TEXT PRIMARY KEY,
       user_id     TEXT NOT NULL,
       team_id     TEXT NOT NULL,
       channel     TEXT,
       ts          TEXT,
       more        INTEGER NOT NULL,
       after_quiet INTEGER NOT NULL,
       at          BIGINT NOT NULL,
       gone        INTEGER NOT NULL
     );
     CREATE INDEX arrival_messages_at ON arrival_messages (at);
     CREATE TABLE relink_notices (
       user_id   TEXT PRIMARY KEY,
       linked_at BIGINT NOT NULL,
       at        BIGINT NOT NULL
     );
     INSERT INTO arrival_watches (user_id, team_id, enabled, prime, next_at)
       SELECT user_id, MAX(team_id), 1, 1, 0 FROM (
         SELECT user_id, team_id FROM tokens WHERE command = 'findApprovals'
         UNION SELECT user_id, team_id FROM service_identities) linked
       GROUP BY user_id;`,
  },
];

/** Run first, every start: a no-op once the table exists, whichever release created it. */
export const CREATE_MIGRATIONS_TABLE =
  'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)';

export const APPLIED_VERSIONS = 'SELECT version FROM schema_migrations';

/**
 * The migrations a database with `applied` still needs, oldest first. A version this list does not
 * know (a newer release migrated the database) is ignored, as it always was: during a rolling
 * deploy an older instance may start against a schema that is already newer.
 */
export function pendingMigrations(applied: Iterable<number>, migrations: readonly Migration[] = MIGRATIONS): Migration[] {
  const done = new Set(applied);
  return migrations.filter((m) => !done.has(m.version)).sort((a, b) => a.version - b.version);
}

/**
 * Storage of the reference Command Service: SQLite, shaped for the one query that matters at
 * scale (an approver's approvals in due-date order, filtered, paged). Timestamps are stored as
 * the service writes them (`YYYY-MM-DD hh:mm:ss.f`), which sort correctly as text.
 */

import Database from '#sqlite';

export type Db = Database.Database;

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS users (
  id            TEXT PRIMARY KEY,
  first_name    TEXT NOT NULL,
  last_name     TEXT NOT NULL,
  auth_source   TEXT NOT NULL DEFAULT 'internal',
  password_hash TEXT,
  commands      TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS approvals (
  id                   INTEGER PRIMARY KEY,
  work_item_id         TEXT NOT NULL,
  work_item_name       TEXT NOT NULL,
  request_id           INTEGER NOT NULL,
  request_name         TEXT NOT NULL,
  approver_id          TEXT NOT NULL,
  requester_id         TEXT NOT NULL,
  requester_first_name TEXT NOT NULL,
  requester_last_name  TEXT NOT NULL,
  business_source      TEXT NOT NULL,
  entitlement_name     TEXT NOT NULL,
  entitlement_type     TEXT NOT NULL,
  state                TEXT NOT NULL CHECK (state IN ('pending', 'completed')),
  requested_at         TEXT NOT NULL,
  due_at               TEXT NOT NULL,
  completed_at         TEXT
);

-- performWorkItem's decisions: what a completed item ended as, and what its approver wrote.
CREATE TABLE IF NOT EXISTS decisions (
  work_item_id TEXT PRIMARY KEY,
  action       TEXT NOT NULL,
  comment      TEXT NOT NULL,
  decided_by   TEXT NOT NULL,
  decided_at   TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS collectors (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL,
  application     TEXT NOT NULL,
  breaker_tripped INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS runs (
  id           INTEGER PRIMARY KEY,
  collector_id INTEGER NOT NULL REFERENCES collectors(id),
  user_id      TEXT NOT NULL,
  forced       INTEGER NOT NULL,
  queued_at_ms INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS tokens (
  hash          TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL,
  kind          TEXT NOT NULL CHECK (kind IN ('user', 'app')),
  commands      TEXT NOT NULL,
  issued_at_ms  INTEGER NOT NULL,
  last_used_ms  INTEGER NOT NULL,
  lifespan_ms   INTEGER,
  inactivity_ms INTEGER,
  revoked       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`;

/**
 * Indexes are created after bulk loads (creating them on a full table is several times faster
 * than maintaining them row by row). The two approver indexes serve "pending/completed" and "all"
 * in due order without a sort step, so a page costs the same at 1,000 or 1,000,000 rows.
 */
const INDEXES = `
CREATE UNIQUE INDEX IF NOT EXISTS approvals_work_item ON approvals (work_item_id);
CREATE INDEX IF NOT EXISTS approvals_approver_state_due ON approvals (approver_id, state, due_at, id);
CREATE INDEX IF NOT EXISTS approvals_approver_due ON approvals (approver_id, due_at, id);
CREATE INDEX IF NOT EXISTS collectors_name ON collectors (name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS collectors_application ON collectors (application COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS runs_collector ON runs (collector_id, queued_at_ms);
`;

export function openReferenceDb(path = ':memory:'): Db {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const version = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get();
  if (version !== undefined && Number(version.value) !== SCHEMA_VERSION) {
    db.close();
    throw new Error(`${path}: reference data has schema version ${version.value}, this build reads ${SCHEMA_VERSION}`);
  }
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
  return db;
}

export function createIndexes(db: Db): void {
  db.exec(INDEXES);
  db.exec('ANALYZE');
}

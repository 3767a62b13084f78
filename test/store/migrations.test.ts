/**
 * Databases made by earlier releases open with today's stores as they are: a database built by the
 * frozen v3 schema (fixtures/schema-v3.ts) and filled with rows keeps every row, readable through
 * the Store interface, and nothing is applied twice. On SQLite always, on PostgreSQL when one answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import Database from '#sqlite';
import { Secret } from '../../src/runtime/secret.js';
import { Keyring } from '../../src/store/keyring.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { MIGRATIONS } from '../../src/store/schema.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Principal, ServiceCommandName, Store } from '../../src/store/types.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { buildPostgresV3, buildSqliteV3 } from './fixtures/schema-v3.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = new Secret(Buffer.alloc(32, 7).toString('base64'));
const TOKEN = new Secret('ws3101bbbb:-28aff589:18a2758240d:-7c4e0.57');
const OTHER_TOKEN = new Secret('ws3101cccc:-11bbe211:18a2758240d:-1a2b3.99');
const at = new Date('2026-11-22T10:00:00Z');
const ms = (offset: number) => at.getTime() + offset;
const MINUTE = 60_000;
/** The app's clock when the store is opened: far from the machine's, so that a migration dated by the machine would show. */
const OPENED_AT = new Date('2031-03-04T05:06:07Z');

/** schema_migrations.applied_at of version v is APPLIED_AT + v in the fixture, so a rewrite would show. */
const APPLIED_AT = Date.UTC(2026, 0, 1);
/** The tables of v3, which fill() writes to. */
const V3_TABLES = ['tokens', 'confirmations', 'reminders', 'collect_attempts', 'collect_cooldowns', 'collect_watches'];

type Value = string | number | null;

interface Raw {
  insert(table: string, row: Record<string, Value>): Promise<void>;
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  exec(sql: string): Promise<void>;
  /** Every table and index with its identity in the database: one re-created would show. */
  objects(): Promise<unknown[]>;
  /** Columns and indexes, comparable between two databases of the same kind. */
  shape(): Promise<unknown>;
  open(): Promise<Store>;
  close(): Promise<void>;
}

interface Backend {
  available: boolean;
  /** An empty database, or one built by the frozen v3 schema. */
  create(from: 'empty' | 'v3'): Promise<Raw>;
}

let files = 0;

const backends: Record<string, Backend> = {
  sqlite: {
    available: true,
    async create(from) {
      const path = join(dir, `m${++files}.db`);
      const db = new Database(path);
      if (from === 'v3') buildSqliteV3(db, APPLIED_AT);
      const all = (sql: string) => db.prepare<[], Record<string, unknown>>(sql).all();
      return {
        async insert(table, row) {
          const columns = Object.keys(row);
          db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(
            ...Object.values(row),
          );
        },
        rows: async (sql) => all(sql),
        exec: async (sql) => {
          db.exec(sql);
        },
        objects: async () => all('SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master ORDER BY name'),
        async shape() {
          const tables = all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((t) => String(t.name));
          return tables.map((table) => ({
            table,
            // INTEGER and BIGINT are the same to SQLite (integer affinity): an older database may say either.
            columns: all(`PRAGMA table_info(${table})`).map((c) => ({ ...c, type: /INT/i.test(String(c.type)) ? 'INTEGER' : c.type })),
            indexes: all(`PRAGMA index_list(${table})`).map((i) => ({
              ...i,
              columns: all(`PRAGMA index_info(${String(i.name)})`).map((c) => c.name),
            })),
          }));
        },
        open: async () => new SqliteStore(path, KEY, undefined, () => OPENED_AT),
        close: async () => {
          db.close();
        },
      };
    },
  },
  postgres: {
    available: await postgresAvailable('PostgreSQL migration tests'),
    async create(from) {
      const schema = await freshSchema();
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      if (from === 'v3') await buildPostgresV3(client, APPLIED_AT);
      const all = async (sql: string) => (await client.query<Record<string, unknown>>(sql)).rows;
      return {
        async insert(table, row) {
          const columns = Object.keys(row);
          await client.query(
            `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            Object.values(row),
          );
        },
        rows: all,
        exec: async (sql) => {
          await client.query(sql);
        },
        objects: () =>
          all(`SELECT c.oid::BIGINT AS oid, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = current_schema() ORDER BY c.relname`),
        async shape() {
          return {
            columns: await all(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
                                FROM information_schema.columns WHERE table_schema = current_schema()
                                ORDER BY table_name, ordinal_position`),
            indexes: (
              await all('SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname')
            ).map((i) => ({ ...i, indexdef: String(i.indexdef).replace(/ ON \S+\./, ' ON ') })),
          };
        },
        open: () => PostgresStore.open(new Secret(schema.url), KEY, undefined, undefined, () => OPENED_AT),
        async close() {
          await client.end();
          await schema.drop();
        },
      };
    },
  },
};

/** Columns later migrations add to v3's tables (ALTER TABLE … ADD COLUMN): NULL in every row carried over. */
const ADDED_COLUMNS: Readonly<Record<string, readonly string[]>> = { tokens: ['service_user', 'authsource'] };

/** Every row of every v3 table, in a stable order, as v3 had it: a column added since must be NULL, and is left out. */
async function contents(raw: Raw): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of V3_TABLES)
    out[table] = (await raw.rows(`SELECT * FROM ${table}`))
      .map((r) => {
        for (const column of ADDED_COLUMNS[table] ?? []) {
          if (column in r) expect(r[column], `${table}.${column}`).toBeNull();
          delete r[column];
        }
        return JSON.stringify(r);
      })
      .sort();
  return out;
}

/** Tables and indexes, their identity kept (SQLite's rootpage, PostgreSQL's oid); a table's text only where no column was added to it since. */
const comparable = (objects: unknown[]) =>
  (objects as Array<Record<string, unknown>>).map((o) =>
    o.type === 'table' && String(o.name) in ADDED_COLUMNS ? { ...o, sql: 'columns added since v3' } : o,
  );

const ADA: Principal = { teamId: 'T1', userId: 'UADA' };
const BOB_ANYWHERE: Principal = { teamId: '', userId: 'UBOB' };
const TARGET = 'name=ad accounts;application=*';

/** One or more rows in every table, written as a v3 store would have written them. */
async function fill(raw: Raw): Promise<void> {
  const keys = new Keyring(KEY);
  const token = (who: Principal, command: ServiceCommandName, secret: Secret, rest: Record<string, Value>) =>
    raw.insert('tokens', {
      team_id: who.teamId,
      user_id: who.userId,
      command,
      ciphertext: keys.encrypt(secret, who, command),
      key_id: keys.current.keyId,
      ...rest,
    });
  await token(ADA, 'findApprovals', TOKEN, { source: 'admin', linked_at: ms(-86_400_000), last_used_at: ms(-MINUTE), last_outcome: 'ok' });
  await token(ADA, 'collectEntitlements', TOKEN, { source: 'login', linked_at: ms(-86_400_000), last_used_at: null, last_outcome: null });
  await token(BOB_ANYWHERE, 'findApprovals', OTHER_TOKEN, {
    source: 'pasted',
    linked_at: ms(-3_600_000),
    last_used_at: ms(-2 * MINUTE),
    last_outcome: 'rejected',
  });

  const confirmation = { team_id: 'T1', channel_id: 'C1', user_id: 'UOPS', created_at: ms(-30_000), expires_at: ms(MINUTE) };
  await raw.insert('confirmations', { id: 'confirm-open', payload: '{"query":{"name":"AD Accounts"}}', ...confirmation, used_at: null });
  await raw.insert('confirmations', { id: 'confirm-used', payload: '{"query":{}}', ...confirmation, used_at: ms(-10_000) });

  await raw.insert('reminders', {
    team_id: 'T1',
    user_id: 'UADA',
    days: 'weekdays',
    minute_of_day: 540,
    time_zone: 'Europe/London',
    next_at: ms(0),
    due_at: ms(37_000),
    paused_at: null,
    sent_for: ms(-86_400_000),
    // A lease of an instance that has since gone: it must be taken again.
    lease_owner: 'old-instance',
    lease_until: ms(-MINUTE),
  });
  await raw.insert('reminders', {
    team_id: 'T1',
    user_id: 'UBOB',
    days: 'daily',
    minute_of_day: 480,
    time_zone: 'America/New_York',
    next_at: ms(86_400_000),
    due_at: ms(86_400_000),
    paused_at: ms(-3_600_000),
    sent_for: null,
    lease_owner: null,
    lease_until: null,
  });

  const started = { team_id: 'T1', channel_id: 'C1', user_id: 'UOPS' };
  await raw.insert('collect_attempts', {
    id: 'a1',
    at: ms(-5 * MINUTE),
    ...started,
    query: '{"name":"AD Accounts"}',
    outcome: 'started',
    detail: null,
    runs: '[{"runId":"7","collector":"AD Accounts"}]',
  });
  await raw.insert('collect_attempts', {
    id: 'a2',
    at: ms(-4 * MINUTE),
    ...started,
    query: '{"name":"AD Accounts","force":true}',
    outcome: 'refused',
    detail: 'may not force',
    runs: '[]',
  });
  // As the release just before the structured trail wrote a cooldown: the collector held, where it was part of a bigger target.
  await raw.insert('collect_attempts', {
    id: 'a0',
    at: ms(-6 * MINUTE),
    ...started,
    query: '{}',
    outcome: 'refused',
    detail: `cooldown: started by UADA at ${new Date(ms(-7 * MINUTE)).toISOString()}; offered start anyway; collector AD Accounts`,
    runs: '[]',
  });
  await raw.insert('collect_cooldowns', {
    team_id: 'T1',
    target: TARGET,
    user_id: 'UOPS',
    channel_id: 'C1',
    attempt_id: 'a1',
    at: ms(-5 * MINUTE),
  });
  await raw.insert('collect_watches', {
    attempt_id: 'a1',
    ...started,
    message_ts: '1700000000.000100',
    query: '{"name":"AD Accounts"}',
    runs: '[{"runId":"7","collector":"AD Accounts","state":"Running"}]',
    started_at: ms(-5 * MINUTE),
    deadline: ms(55 * MINUTE),
    next_poll_at: ms(-1000),
    interval_ms: 1000,
    done_at: null,
    note: 'watching',
    lease_owner: null,
    lease_until: null,
  });
}

/** Reads back every row filled above through the Store interface. */
async function expectReadable(store: Store): Promise<void> {
  expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
  expect((await store.getToken(ADA, 'collectEntitlements'))?.token.reveal()).toBe(TOKEN.reveal());
  // Bob's link was made for any workspace.
  const bob = await store.getToken({ teamId: 'T9', userId: 'UBOB' }, 'findApprovals');
  expect(bob?.token.reveal()).toBe(OTHER_TOKEN.reveal());
  expect(bob).toMatchObject({ linkedAt: new Date(ms(-3_600_000)), source: 'pasted' });
  expect(await store.listLinks()).toEqual([
    {
      teamId: '',
      userId: 'UBOB',
      command: 'findApprovals',
      linkedAt: new Date(ms(-3_600_000)),
      source: 'pasted',
      lastUsedAt: new Date(ms(-2 * MINUTE)),
      lastOutcome: 'rejected',
    },
    {
      teamId: 'T1',
      userId: 'UADA',
      command: 'collectEntitlements',
      linkedAt: new Date(ms(-86_400_000)),
      source: 'login',
      lastUsedAt: undefined,
      lastOutcome: undefined,
    },
    {
      teamId: 'T1',
      userId: 'UADA',
      command: 'findApprovals',
      linkedAt: new Date(ms(-86_400_000)),
      source: 'admin',
      lastUsedAt: new Date(ms(-MINUTE)),
      lastOutcome: 'ok',
    },
  ]);
  // Every token is under the current key already: nothing to rewrite, and every one decrypts.
  expect(await store.rotateKeys()).toBe(0);

  const ada = {
    teamId: 'T1',
    userId: 'UADA',
    days: 'weekdays',
    minuteOfDay: 540,
    timeZone: 'Europe/London',
    nextAt: at,
    dueAt: new Date(ms(37_000)),
    pausedAt: undefined,
    sentFor: new Date(ms(-86_400_000)),
  };
  expect(await store.getReminder(ADA)).toEqual(ada);
  expect(await store.getReminder({ teamId: 'T1', userId: 'UBOB' })).toEqual({
    teamId: 'T1',
    userId: 'UBOB',
    days: 'daily',
    minuteOfDay: 480,
    timeZone: 'America/New_York',
    nextAt: new Date(ms(86_400_000)),
    dueAt: new Date(ms(86_400_000)),
    pausedAt: new Date(ms(-3_600_000)),
    sentFor: undefined,
  });
  expect(await store.claimDueReminders(new Date(ms(37_000)), 'new-instance', new Date(ms(5 * MINUTE)), 10)).toEqual([ada]);

  // Migration 7: the one row each attempt had is the step it last recorded, its sentence read into fields.
  const attempt = { teamId: 'T1', channelId: 'C1', userId: 'UOPS' };
  const noneLeftOut = { leftOut: [], ranAgain: [] };
  expect(await store.listCollectAttempts({ limit: 10 })).toEqual([
    {
      id: 'a2',
      at: new Date(ms(-4 * MINUTE)),
      lastAt: new Date(ms(-4 * MINUTE)),
      ...attempt,
      ...noneLeftOut,
      query: { name: 'AD Accounts', force: true },
      outcome: 'refused',
      reason: { kind: 'force' },
      runs: [],
      steps: [{ step: 'refused', at: new Date(ms(-4 * MINUTE)) }],
      watch: undefined,
    },
    {
      id: 'a1',
      at: new Date(ms(-5 * MINUTE)),
      lastAt: new Date(ms(-5 * MINUTE)),
      ...attempt,
      ...noneLeftOut,
      query: { name: 'AD Accounts' },
      outcome: 'started',
      reason: undefined,
      runs: [{ runId: '7', collector: 'AD Accounts', state: 'Running' }],
      steps: [{ step: 'answered', at: new Date(ms(-5 * MINUTE)) }],
      watch: { note: 'watching', done: false },
    },
    {
      id: 'a0',
      at: new Date(ms(-6 * MINUTE)),
      lastAt: new Date(ms(-6 * MINUTE)),
      ...attempt,
      ...noneLeftOut,
      query: {},
      outcome: 'refused',
      reason: { kind: 'cooldown', userId: 'UADA', at: new Date(ms(-7 * MINUTE)), offered: true, collector: 'AD Accounts' },
      runs: [],
      steps: [{ step: 'refused', at: new Date(ms(-6 * MINUTE)) }],
      watch: undefined,
    },
  ]);
  // And the trail goes on from them: a new step of a carried attempt joins it.
  await store.recordCollectStep({ ...attempt, attemptId: 'a2', at, query: { name: 'AD Accounts', force: true }, step: 'asked' });
  expect((await store.listCollectAttempts({ limit: 1 }))[0]?.steps.map((s) => s.step)).toEqual(['refused', 'asked']);
  expect(
    await store.claimCooldown({
      teamId: 'T1',
      target: TARGET,
      userId: 'UEVE',
      channelId: 'C2',
      attemptId: 'a3',
      at,
      cooldownMs: 10 * MINUTE,
    }),
  ).toEqual({
    claimed: false,
    holder: { userId: 'UOPS', channelId: 'C1', at: new Date(ms(-5 * MINUTE)), attemptId: 'a1' },
  });
  expect(await store.claimDueWatches(at, 'new-instance', new Date(ms(MINUTE)), 10)).toEqual([
    {
      attemptId: 'a1',
      ...attempt,
      messageTs: '1700000000.000100',
      query: { name: 'AD Accounts' },
      runs: [{ runId: '7', collector: 'AD Accounts', state: 'Running' }],
      startedAt: new Date(ms(-5 * MINUTE)),
      deadline: new Date(ms(55 * MINUTE)),
      nextPollAt: new Date(ms(-1000)),
      intervalMs: 1000,
      doneAt: undefined,
      note: 'watching',
    },
  ]);

  // Migration 4: replay protection works on the upgraded database.
  expect(await store.rememberSignature('v0=upgraded', new Date(ms(5 * MINUTE)), at)).toBe(true);
  expect(await store.rememberSignature('v0=upgraded', new Date(ms(5 * MINUTE)), at)).toBe(false);

  // Migration 10: a sign-in's account beside its token, on a table v3 made.
  await store.setToken(opsUserOf(), ['findApprovals'], TOKEN, 'login', at, { serviceUser: 'oscar.ops', authsource: 'corp-ldap' });
  expect((await store.listLinks(opsUserOf())).map((l) => l.account)).toEqual([{ serviceUser: 'oscar.ops', authsource: 'corp-ldap' }]);
  await store.deleteTokens(opsUserOf());

  // Migration 5: identities for the trusted mode, beside the tokens the database already held.
  const opsUser = { teamId: 'T1', userId: 'UOPS' };
  expect(await store.getIdentity(opsUser)).toBeUndefined();
  await store.setIdentity(opsUser, { serviceUser: 'oscar.ops', authsource: undefined }, 'admin', at);
  expect(await store.getIdentity(opsUser)).toMatchObject({ serviceUser: 'oscar.ops', source: 'admin', linkedAt: at });
  expect(await store.deleteIdentities(opsUser)).toBe(1);

  expect(await store.claimConfirmation('confirm-used', 'UOPS', at)).toEqual({ status: 'already-used' });
  expect(await store.claimConfirmation('confirm-open', 'UOPS', at)).toEqual({
    status: 'claimed',
    confirmation: {
      id: 'confirm-open',
      teamId: 'T1',
      channelId: 'C1',
      userId: 'UOPS',
      payload: '{"query":{"name":"AD Accounts"}}',
      createdAt: new Date(ms(-30_000)),
      expiresAt: new Date(ms(MINUTE)),
    },
  });
}

const opsUserOf = (): Principal => ({ teamId: 'T1', userId: 'UOPS' });

async function versions(raw: Raw): Promise<Array<{ version: number; applied_at: number }>> {
  const rows = await raw.rows('SELECT version, applied_at FROM schema_migrations ORDER BY version');
  return rows.map((r) => ({ version: Number(r.version), applied_at: Number(r.applied_at) }));
}

for (const [name, backend] of Object.entries(backends)) {
  describe.skipIf(!backend.available)(`${name} migrations`, () => {
    it('opens a database made by the v3 schema keeping every row, readable, and versions 1-3 as they were recorded', async () => {
      const raw = await backend.create('v3');
      try {
        await fill(raw);
        const objects = await raw.objects();
        const rows = await contents(raw);

        const store = await raw.open();
        try {
          // Nothing of v3 re-created or rewritten; later migrations only add (tables, indexes, columns).
          expect(comparable(await raw.objects())).toEqual(expect.arrayContaining(comparable(objects)));
          expect(await contents(raw)).toEqual(rows);
          expect(await versions(raw)).toEqual(
            // The later ones dated by the clock the store was given, not the machine's.
            MIGRATIONS.map(({ version }) => ({ version, applied_at: version <= 3 ? APPLIED_AT + version : OPENED_AT.getTime() })),
          );
          await expectReadable(store);
        } finally {
          await store.close();
        }

        // A second start is a no-op.
        const before = { objects: await raw.objects(), rows: await contents(raw), versions: await versions(raw) };
        await (await raw.open()).close();
        expect({ objects: await raw.objects(), rows: await contents(raw), versions: await versions(raw) }).toEqual(before);
      } finally {
        await raw.close();
      }
    });

    it('brings a v3 database and a new one to the same tables, columns and indexes, each version recorded once', async () => {
      const upgraded = await backend.create('v3');
      const fresh = await backend.create('empty');
      try {
        await (await upgraded.open()).close();
        await (await fresh.open()).close();
        expect(await fresh.shape()).toEqual(await upgraded.shape());
        const all = MIGRATIONS.map((m) => m.version);
        expect((await versions(fresh)).map((r) => r.version)).toEqual(all);
        expect((await versions(upgraded)).map((r) => r.version)).toEqual(all);

        const before = { objects: await fresh.objects(), versions: await versions(fresh) };
        await (await fresh.open()).close();
        expect({ objects: await fresh.objects(), versions: await versions(fresh) }).toEqual(before);
      } finally {
        await upgraded.close();
        await fresh.close();
      }
    });
  });
}

for (const [name, backend] of Object.entries(backends)) {
  describe.skipIf(!backend.available)(`${name} migration 9, replay protection keyed by time`, () => {
    it('carries the signatures in force over, so a request accepted before the upgrade is still refused after it', async () => {
      const raw = await backend.create('empty');
      try {
        // A database as version 8 left it, with signatures remembered in the table of then.
        await (await raw.open()).close();
        await raw.exec('DROP TABLE slack_signatures_by_expiry');
        await raw.exec('DELETE FROM schema_migrations WHERE version = 9');
        await raw.insert('slack_signatures', { signature: 'v0=accepted', expires_at: ms(5 * MINUTE) });
        const store = await raw.open();
        try {
          expect(await store.rememberSignature('v0=accepted', new Date(ms(5 * MINUTE)), at)).toBe(false);
          expect(await store.rememberSignature('v0=new', new Date(ms(5 * MINUTE)), at)).toBe(true);
          expect((await versions(raw)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
        } finally {
          await store.close();
        }
      } finally {
        await raw.close();
      }
    });
  });
}

for (const [name, backend] of Object.entries(backends)) {
  describe.skipIf(!backend.available)(`${name} migration 12, arrivals`, () => {
    it('watches every approver linked for findApprovals already, each first check priming (a link for any workspace too), and no one else', async () => {
      const raw = await backend.create('v3');
      try {
        await fill(raw);
        const store = await raw.open();
        try {
          expect(await store.notifySetting('UADA')).toEqual({ enabled: true, quiet: undefined });
          expect(await store.notifySetting('UOPS')).toBeUndefined();
          const claimed = await store.claimDueArrivalWatches(at, 'a', new Date(ms(MINUTE)), new Date(ms(5 * MINUTE)), 10);
          expect(claimed.map((w) => [w.userId, w.teamId, w.prime]).sort()).toEqual([
            ['UADA', 'T1', true],
            ['UBOB', '', true],
          ]);
        } finally {
          await store.close();
        }
      } finally {
        await raw.close();
      }
    });
  });
}

describe.skipIf(!backends.postgres?.available)('postgres migrations, several instances', () => {
  it('lets instances starting together on an empty schema all open, each migration applied once', async () => {
    const raw = await backends.postgres?.create('empty');
    if (raw === undefined) throw new Error('no PostgreSQL backend');
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => raw.open()));
      expect((await versions(raw)).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      // And each of them works on the one schema.
      await stores[0]?.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      for (const store of stores) expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
      for (const store of stores) await store.close();
    } finally {
      await raw.close();
    }
  });
});

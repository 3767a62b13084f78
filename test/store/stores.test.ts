/**
 * One suite for both stores: SQLite (always) and PostgreSQL (when a server answers at
 * TEST_DATABASE_URL, default postgres://127.0.0.1:5432/test; otherwise skipped, saying so).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import Database from '#sqlite';
import { Secret } from '../../src/runtime/secret.js';
import { DecryptError, generateKey, TokenCipher } from '../../src/store/cipher.js';
import { associatedData } from '../../src/store/keyring.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { RunWatch, Store } from '../../src/store/types.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = new Secret(Buffer.alloc(32, 1).toString('base64'));
const ADA = { teamId: 'T1', userId: 'UADA' };
const TOKEN = new Secret('ws3101aaaa:-28aff589:18a2758240d:-7c4e0.57');
const at = new Date('2026-11-22T10:00:00Z');
let n = 0;
const file = () => join(dir, `s${++n}.db`);

describe('TokenCipher', () => {
  const cipher = new TokenCipher(KEY);
  it('round-trips with a fresh IV each time', () => {
    const a = cipher.encrypt(TOKEN, 'T1/UADA/findApprovals');
    const b = cipher.encrypt(TOKEN, 'T1/UADA/findApprovals');
    expect(a).not.toBe(b);
    expect(cipher.decrypt(a, 'T1/UADA/findApprovals').reveal()).toBe(TOKEN.reveal());
  });
  it('refuses another row, another key, and tampering', () => {
    const value = cipher.encrypt(TOKEN, 'T1/UADA/findApprovals');
    expect(() => cipher.decrypt(value, 'T1/UEVE/findApprovals')).toThrow(DecryptError);
    expect(() => new TokenCipher(generateKey()).decrypt(value, 'T1/UADA/findApprovals')).toThrow(/another key/);
    const parts = value.split(':');
    const body = Buffer.from(parts[3] as string, 'base64');
    body[0] = (body[0] as number) ^ 1;
    parts[3] = body.toString('base64');
    expect(() => cipher.decrypt(parts.join(':'), 'T1/UADA/findApprovals')).toThrow(/failed authentication/);
    expect(() => cipher.decrypt('garbage', 'x')).toThrow(/known format/);
  });
  it('refuses a tag cut short, which GCM would otherwise check only as far as it goes', () => {
    const value = cipher.encrypt(TOKEN, 'T1/UADA/findApprovals');
    const parts = value.split(':');
    expect(Buffer.from(parts[4] as string, 'base64')).toHaveLength(16);
    for (const bytes of [4, 8, 12, 15]) {
      parts[4] = Buffer.from(value.split(':')[4] as string, 'base64')
        .subarray(0, bytes)
        .toString('base64');
      expect(() => cipher.decrypt(parts.join(':'), 'T1/UADA/findApprovals')).toThrow(DecryptError);
    }
  });
  it('refuses a key that is not 32 bytes', () => {
    expect(() => new TokenCipher(new Secret(Buffer.alloc(16).toString('base64')))).toThrow(/32 bytes/);
  });
});

describe('SQLite files', () => {
  it('creates the database and its -wal and -shm files readable by their owner only, as the key is', async () => {
    const path = join(dir, 'fresh', 'countersign.db');
    const store = new SqliteStore(path, KEY);
    await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect([f, statSync(f).mode & 0o777]).toEqual([f, 0o600]);
    await store.close();
  });

  it('refuses a token at once after another process on the same file unlinked it, however often it was read before', async () => {
    const path = file();
    const store = new SqliteStore(path, KEY);
    await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
    for (let i = 0; i < 3; i++) expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
    const script = `import Database from '#sqlite'; const db = new Database(process.argv[1]); db.prepare("DELETE FROM tokens WHERE user_id = 'UADA'").run(); db.close();`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script, path], { cwd: process.cwd() });
    expect(await store.getToken(ADA, 'findApprovals')).toBeUndefined();
    await store.close();
  });
});

const pgAvailable = await postgresAvailable('PostgreSQL store tests');

interface Backend {
  /** A new, empty database; open() may be called several times on it (instances, restarts). */
  database(): Promise<{
    open(key: Secret, previous?: Secret): Promise<Store>;
    raw(sql: string): Promise<void>;
    count(sql: string): Promise<number>;
    files?: string[];
  }>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const backends: Record<string, Backend & { available: boolean }> = {
  sqlite: {
    available: true,
    async database() {
      const path = file();
      return {
        open: async (key, previous) => new SqliteStore(path, key, previous),
        raw: async (sql) => {
          const db = new Database(path);
          db.exec(sql);
          db.close();
        },
        count: async (sql) => {
          const db = new Database(path);
          const n = Number(db.prepare<[], { n: number }>(sql).get()?.n);
          db.close();
          return n;
        },
        files: [path, `${path}-wal`],
      };
    },
  },
  postgres: {
    available: pgAvailable,
    async database() {
      const db = await freshSchema();
      cleanups.push(db.drop);
      return {
        open: (key, previous) => PostgresStore.open(new Secret(db.url), key, previous),
        raw: async (sql) => {
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          await c.query(sql);
          await c.end();
        },
        count: async (sql) => {
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          const { rows } = await c.query<{ n: string }>(sql);
          await c.end();
          return Number(rows[0]?.n);
        },
      };
    },
  },
};

for (const [name, backend] of Object.entries(backends)) {
  describe.skipIf(!backend.available)(`${name} store`, () => {
    it('keeps tokens encrypted at rest and across a restart', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals', 'collectEntitlements'], TOKEN, 'admin', at);
      await store.close();
      for (const f of db.files ?? []) {
        try {
          expect(readFileSync(f).includes(Buffer.from('28aff589'))).toBe(false);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
      const again = await db.open(KEY);
      expect((await again.getToken(ADA, 'collectEntitlements'))?.token.reveal()).toBe(TOKEN.reveal());
      expect(await again.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).toBeUndefined();
      await again.close();
    });

    it('keeps the account a sign-in named beside its token, and forgets it when linked again without one', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals', 'collectEntitlements'], TOKEN, 'login', at, {
        serviceUser: 'katherine.johnson',
        authsource: 'corp-ldap',
      });
      await store.setToken({ teamId: 'T1', userId: 'UEVE' }, ['findApprovals'], TOKEN, 'login', at, {
        serviceUser: 'eve',
        authsource: undefined,
      });
      await store.close();
      const again = await db.open(KEY);
      const accounts = async (userId: string) =>
        (await again.listLinks({ teamId: 'T1', userId })).map((l) => [l.command, l.source, l.account]);
      expect(await accounts('UADA')).toEqual([
        ['collectEntitlements', 'login', { serviceUser: 'katherine.johnson', authsource: 'corp-ldap' }],
        ['findApprovals', 'login', { serviceUser: 'katherine.johnson', authsource: 'corp-ldap' }],
      ]);
      expect(await accounts('UEVE')).toEqual([['findApprovals', 'login', { serviceUser: 'eve', authsource: undefined }]]);
      // A pasted token says nothing of whose it is: the name from before is not carried over to it.
      await again.setToken(ADA, ['findApprovals'], TOKEN, 'pasted', at);
      expect(await accounts('UADA')).toEqual([
        ['collectEntitlements', 'login', { serviceUser: 'katherine.johnson', authsource: 'corp-ldap' }],
        ['findApprovals', 'pasted', undefined],
      ]);
      await again.close();
    });

    it('fails to read with the wrong key, and a row copied to another user fails to decrypt', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      await store.close();
      const wrong = await db.open(generateKey());
      await expect(wrong.getToken(ADA, 'findApprovals')).rejects.toThrow(DecryptError);
      await wrong.close();
      await db.raw(
        "INSERT INTO tokens SELECT team_id, 'UEVE', command, ciphertext, key_id, source, linked_at, NULL, NULL, NULL, NULL FROM tokens WHERE user_id = 'UADA'",
      );
      const again = await db.open(KEY);
      await expect(again.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).rejects.toThrow(/failed authentication/);
      await again.close();
    });

    it('refuses a row copied to another user, and a tampered one, even right after reading the token (decrypted tokens are kept by row and ciphertext)', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
      await db.raw(
        "INSERT INTO tokens SELECT team_id, 'UEVE', command, ciphertext, key_id, source, linked_at, NULL, NULL, NULL, NULL FROM tokens WHERE user_id = 'UADA'",
      );
      await expect(store.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).rejects.toThrow(/failed authentication/);
      const overwrite =
        name === 'sqlite'
          ? "substr(ciphertext, 1, 29) || 'AAAA' || substr(ciphertext, 34)"
          : "overlay(ciphertext placing 'AAAA' from 30 for 4)";
      await db.raw(`UPDATE tokens SET ciphertext = ${overwrite} WHERE user_id = 'UADA'`);
      await expect(store.getToken(ADA, 'findApprovals')).rejects.toThrow(DecryptError);
      await store.deleteTokens({ userId: 'UADA' });
      expect(await store.getToken(ADA, 'findApprovals')).toBeUndefined();
      await store.close();
    });

    it('answers from a token unlinked or relinked by another instance, or deleted by another process, never once after', async () => {
      const db = await backend.database();
      const [mine, other] = [await db.open(KEY), await db.open(KEY)];
      const OTHER = new Secret('ws3101bbbb:-11bbe211:18a2758240d:-1a2b3.99');
      await mine.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      // Read again and again: SQLite answers these from memory while nothing has changed.
      for (let i = 0; i < 3; i++) expect((await mine.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
      expect(await other.deleteTokens(ADA)).toBe(1);
      expect(await mine.getToken(ADA, 'findApprovals')).toBeUndefined();
      await other.setToken(ADA, ['findApprovals'], OTHER, 'login', at);
      expect((await mine.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(OTHER.reveal());
      expect((await mine.getToken(ADA, 'findApprovals'))?.source).toBe('login');
      // Another process (for SQLite, one more connection to the file), in plain SQL.
      await db.raw("DELETE FROM tokens WHERE user_id = 'UADA'");
      expect(await mine.getToken(ADA, 'findApprovals')).toBeUndefined();
      // And this instance's own unlink, after a read.
      await mine.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      expect((await mine.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
      await mine.deleteTokens(ADA);
      expect(await mine.getToken(ADA, 'findApprovals')).toBeUndefined();
      for (const s of [mine, other]) await s.close();
    });

    it('detects a tampered ciphertext', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      // Four characters of the ciphertext body overwritten, in each database's own SQL.
      const overwrite =
        name === 'sqlite'
          ? "substr(ciphertext, 1, 29) || 'AAAA' || substr(ciphertext, 34)"
          : "overlay(ciphertext placing 'AAAA' from 30 for 4)";
      await db.raw(`UPDATE tokens SET ciphertext = ${overwrite}`);
      await expect(store.getToken(ADA, 'findApprovals')).rejects.toThrow(DecryptError);
      await store.close();
    });

    it('refuses a stored token whose tag was cut to 4 bytes', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      await store.close();
      const value = new TokenCipher(KEY).encrypt(TOKEN, associatedData(ADA, 'findApprovals'));
      const parts = value.split(':');
      parts[4] = Buffer.from(parts[4] as string, 'base64')
        .subarray(0, 4)
        .toString('base64');
      await db.raw(`UPDATE tokens SET ciphertext = '${parts.join(':')}'`);
      const again = await db.open(KEY);
      await expect(again.getToken(ADA, 'findApprovals')).rejects.toThrow(/failed authentication/);
      await again.close();
    });

    it('rotates keys: the old key stays readable while previous, and rotation rewrites every row', async () => {
      const db = await backend.database();
      const oldKey = generateKey();
      const newKey = generateKey();
      const before = await db.open(oldKey);
      await before.setToken(ADA, ['findApprovals', 'collectEntitlements'], TOKEN, 'admin', at);
      await before.close();
      await expect((await db.open(newKey)).rotateKeys()).rejects.toThrow(/another key/);
      const during = await db.open(newKey, oldKey);
      expect((await during.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe(TOKEN.reveal());
      expect(await during.rotateKeys()).toBe(2);
      expect(await during.rotateKeys()).toBe(0);
      await during.close();
      const after = await db.open(newKey);
      expect((await after.getToken(ADA, 'collectEntitlements'))?.token.reveal()).toBe(TOKEN.reveal());
      await after.close();
    });

    it('prefers a workspace link over an any-workspace link', async () => {
      const store = await (await backend.database()).open(KEY);
      await store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals'], new Secret('any-workspace'), 'admin', at);
      expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe('any-workspace');
      await store.setToken(ADA, ['findApprovals'], new Secret('this-workspace'), 'admin', at);
      expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe('this-workspace');
      await store.close();
    });

    it('forgets every link that would serve the user in a workspace, the any-workspace one included', async () => {
      const store = await (await backend.database()).open(KEY);
      await store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals', 'collectEntitlements'], new Secret('any'), 'admin', at);
      await store.setToken(ADA, ['findApprovals'], new Secret('this-workspace'), 'login', at);
      await store.setToken({ teamId: 'T2', userId: 'UADA' }, ['findApprovals'], new Secret('other-workspace'), 'admin', at);
      await store.setToken({ teamId: 'T1', userId: 'UEVE' }, ['findApprovals'], new Secret('eve'), 'admin', at);
      expect(await store.deleteTokens(ADA)).toBe(3);
      expect(await store.getToken(ADA, 'findApprovals')).toBeUndefined();
      expect(await store.getToken(ADA, 'collectEntitlements')).toBeUndefined();
      // Another workspace's own link stays: it never served the user in this one.
      expect((await store.getToken({ teamId: 'T2', userId: 'UADA' }, 'findApprovals'))?.token.reveal()).toBe('other-workspace');
      expect((await store.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals'))?.token.reveal()).toBe('eve');
      // Without a workspace, every link of the user goes, and nobody else's.
      await store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals'], new Secret('any'), 'admin', at);
      expect(await store.deleteTokens({ userId: 'UADA' })).toBe(2);
      expect((await store.listLinks()).map((l) => l.userId)).toEqual(['UEVE']);
      expect(await store.deleteTokens({ userId: 'UADA' })).toBe(0);
      await store.close();
    });

    it('records an outcome on the link whose token was used, not on the user’s other link', async () => {
      const store = await (await backend.database()).open(KEY);
      const any = { teamId: '', userId: 'UADA' };
      const later = new Date('2026-11-22T11:00:00Z');
      await store.setToken(any, ['findApprovals'], new Secret('any'), 'admin', at);
      await store.setToken(ADA, ['findApprovals'], new Secret('this-workspace'), 'login', at);
      await store.recordOutcome(ADA, 'findApprovals', 'rejected', later);
      const outcomes = async () => (await store.listLinks()).map((l) => [l.teamId, l.lastOutcome ?? null]);
      expect(await outcomes()).toEqual([
        ['', null],
        ['T1', 'rejected'],
      ]);
      // In another workspace the any-workspace link is the one used.
      await store.recordOutcome({ teamId: 'T2', userId: 'UADA' }, 'findApprovals', 'ok', later);
      expect(await outcomes()).toEqual([
        ['', 'ok'],
        ['T1', 'rejected'],
      ]);
      await store.close();
    });

    it('records outcomes and lists links without tokens', async () => {
      const store = await (await backend.database()).open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      await store.recordOutcome(ADA, 'findApprovals', 'rejected', new Date('2026-11-22T11:00:00Z'));
      const links = await store.listLinks();
      expect(links).toEqual([
        {
          teamId: 'T1',
          userId: 'UADA',
          command: 'findApprovals',
          linkedAt: at,
          source: 'admin',
          lastUsedAt: new Date('2026-11-22T11:00:00Z'),
          lastOutcome: 'rejected',
        },
      ]);
      expect(JSON.stringify(links)).not.toContain('28aff589');
      await store.close();
    });

    it("lists one user's links: their workspace's and any-workspace ones, no one else's", async () => {
      const store = await (await backend.database()).open(KEY);
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
      await store.setToken({ teamId: '', userId: 'UADA' }, ['collectEntitlements'], TOKEN, 'admin', at);
      await store.setToken({ teamId: 'T2', userId: 'UADA' }, ['findApprovals'], TOKEN, 'admin', at);
      await store.setToken({ teamId: 'T1', userId: 'UEVE' }, ['findApprovals'], TOKEN, 'admin', at);
      expect((await store.listLinks(ADA)).map((l) => [l.teamId, l.userId, l.command])).toEqual([
        ['', 'UADA', 'collectEntitlements'],
        ['T1', 'UADA', 'findApprovals'],
      ]);
      expect(await store.listLinks()).toHaveLength(4);
      await store.close();
    });

    it('keeps service identities: the workspace’s before an any-workspace one, re-linked afresh, never a token', async () => {
      const store = await (await backend.database()).open(KEY);
      const any = { teamId: '', userId: 'UADA' };
      expect(await store.getIdentity(ADA)).toBeUndefined();
      await store.setIdentity(any, { serviceUser: 'ada.anywhere', authsource: undefined }, 'admin', at);
      expect(await store.getIdentity(ADA)).toEqual({
        teamId: '',
        userId: 'UADA',
        serviceUser: 'ada.anywhere',
        authsource: undefined,
        source: 'admin',
        linkedAt: at,
        lastUsedAt: undefined,
        lastOutcome: undefined,
      });
      await store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: 'corp-ldap' }, 'login', at);
      expect(await store.getIdentity(ADA)).toMatchObject({
        teamId: 'T1',
        serviceUser: 'ada.lovelace',
        authsource: 'corp-ldap',
        source: 'login',
      });

      // The outcome lands on the identity that served, and a new link starts afresh.
      const later = new Date('2026-11-22T11:00:00Z');
      await store.recordIdentityOutcome(ADA, 'rejected', later);
      expect(await store.getIdentity(ADA)).toMatchObject({ lastOutcome: 'rejected', lastUsedAt: later });
      expect((await store.getIdentity({ teamId: 'T2', userId: 'UADA' }))?.lastOutcome).toBeUndefined();
      // A command the service does not let the user run is kept with its name; the next call's outcome replaces it.
      await store.recordIdentityOutcome(ADA, { notPermitted: 'collectEntitlements' }, later);
      expect(await store.getIdentity(ADA)).toMatchObject({ lastOutcome: 'not-permitted', notPermitted: 'collectEntitlements' });
      await store.recordIdentityOutcome(ADA, 'ok', later);
      expect((await store.getIdentity(ADA))?.notPermitted).toBeUndefined();
      await store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: 'corp-ldap' }, 'login', later);
      expect(await store.getIdentity(ADA)).toMatchObject({ lastOutcome: undefined, lastUsedAt: undefined, linkedAt: later });

      await store.setIdentity({ teamId: 'T2', userId: 'UADA' }, { serviceUser: 'ada.t2', authsource: undefined }, 'admin', at);
      await store.setIdentity({ teamId: 'T1', userId: 'UEVE' }, { serviceUser: 'eve', authsource: undefined }, 'admin', at);
      expect((await store.listIdentities(ADA)).map((i) => [i.teamId, i.serviceUser])).toEqual([
        ['', 'ada.anywhere'],
        ['T1', 'ada.lovelace'],
      ]);
      expect(await store.listIdentities()).toHaveLength(4);

      // Forgetting, by the tokens' rule: this workspace's and the any-workspace one; then, without a team, all.
      expect(await store.deleteIdentities(ADA)).toBe(2);
      expect(await store.getIdentity(ADA)).toBeUndefined();
      expect((await store.getIdentity({ teamId: 'T2', userId: 'UADA' }))?.serviceUser).toBe('ada.t2');
      expect(await store.deleteIdentities({ userId: 'UADA' })).toBe(1);
      expect((await store.listIdentities()).map((i) => i.userId)).toEqual(['UEVE']);
      // Identities are not tokens: a key check and a rotation do not see them.
      expect(await store.keyUsage()).toEqual([]);
      await store.close();
    });

    it('takes concurrent writes for many users from two instances', async () => {
      const db = await backend.database();
      const instances = [await db.open(KEY), await db.open(KEY)];
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (instances[i % 2] as Store).setToken(
            { teamId: 'T1', userId: `U${i}XX` },
            ['findApprovals'],
            new Secret(`token-${i}`),
            'admin',
            at,
          ),
        ),
      );
      for (let i = 0; i < 40; i++)
        expect(
          (await (instances[(i + 1) % 2] as Store).getToken({ teamId: 'T1', userId: `U${i}XX` }, 'findApprovals'))?.token.reveal(),
        ).toBe(`token-${i}`);
      for (const s of instances) await s.close();
    });

    it('lets exactly one of many concurrent claims through, on two instances, checks the owner first, and expires', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)];
      const base = {
        teamId: 'T1',
        channelId: 'C1',
        userId: 'UOPS',
        payload: '{}',
        createdAt: at,
        expiresAt: new Date(at.getTime() + 60_000),
      };
      await stores[0]?.createConfirmation({ id: 'confirm-1', ...base });
      expect(await stores[1]?.claimConfirmation('confirm-1', 'UEVE', at)).toEqual({ status: 'not-yours', ownerId: 'UOPS' });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (stores[i % 2] as Store).claimConfirmation('confirm-1', 'UOPS', at)),
      );
      expect(results.filter((r) => r.status === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'already-used')).toHaveLength(9);
      await stores[0]?.createConfirmation({ id: 'confirm-2', ...base });
      expect(await stores[0]?.claimConfirmation('confirm-2', 'UOPS', new Date(at.getTime() + 61_000))).toEqual({ status: 'expired' });
      expect(await stores[0]?.claimConfirmation('nope', 'UOPS', at)).toEqual({ status: 'not-found' });
      for (const s of stores) await s.close();
    });

    const reminder = (userId: string, dueAt: Date) => ({
      teamId: 'T1',
      userId,
      days: 'weekdays' as const,
      minuteOfDay: 540,
      timeZone: 'Europe/London',
      nextAt: dueAt,
      dueAt,
    });

    it('keeps the collection trail, newest first, filtered, with the runs’ latest states from the watch', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      const attempt = (attemptId: string, minutes: number, channelId: string, outcome: 'started' | 'refused') =>
        store.recordCollectStep({
          attemptId,
          at: new Date(at.getTime() + minutes * 60_000),
          teamId: 'T1',
          channelId,
          userId: 'UOPS',
          query: { name: 'AD Accounts', force: outcome === 'refused' },
          ...(outcome === 'refused'
            ? { step: 'refused', reason: { kind: 'force' } }
            : { step: 'answered', runs: [{ runId: '7', collector: 'AD Accounts', state: undefined }], leftOut: [], ranAgain: [] }),
        });
      await attempt('a1', 0, 'C1', 'started');
      await attempt('a2', 1, 'C1', 'refused');
      await attempt('a3', 2, 'C2', 'started');
      await store.createWatch({
        attemptId: 'a1',
        teamId: 'T1',
        userId: 'UOPS',
        channelId: 'C1',
        messageTs: '1.1',
        query: { name: 'AD Accounts' },
        runs: [{ runId: '7', collector: 'AD Accounts', state: undefined }],
        startedAt: at,
        deadline: new Date(at.getTime() + 3_600_000),
        nextPollAt: at,
        intervalMs: 1000,
        doneAt: undefined,
        note: undefined,
      });
      expect((await store.listCollectAttempts({ limit: 10 })).map((a) => a.id)).toEqual(['a3', 'a2', 'a1']);
      expect((await store.listCollectAttempts({ teamId: 'T1', channelId: 'C1', limit: 10 })).map((a) => a.id)).toEqual(['a2', 'a1']);
      expect((await store.listCollectAttempts({ since: new Date(at.getTime() + 60_000), limit: 10 })).map((a) => a.id)).toEqual([
        'a3',
        'a2',
      ]);
      expect((await store.listCollectAttempts({ limit: 1 })).map((a) => a.id)).toEqual(['a3']);
      const [taken] = await store.claimDueWatches(at, 'w1', new Date(at.getTime() + 60_000), 10);
      expect(taken).toMatchObject({ attemptId: 'a1', messageTs: '1.1', intervalMs: 1000, doneAt: undefined });
      expect(await store.claimDueWatches(at, 'w2', new Date(at.getTime() + 60_000), 10)).toEqual([]);
      const done = { ...(taken as RunWatch), runs: [{ runId: '7', collector: 'AD Accounts', state: 'Completed' as const, endedAt: 5 }] };
      expect(await store.saveWatch({ ...done, doneAt: at, note: 'finished' }, 'w2')).toBe(false);
      expect(await store.saveWatch({ ...done, doneAt: at, note: 'finished' }, 'w1')).toBe(true);
      const [first] = (await store.listCollectAttempts({ channelId: 'C1', limit: 10 })).slice(-1);
      expect(first?.runs).toEqual([{ runId: '7', collector: 'AD Accounts', state: 'Completed', endedAt: 5 }]);
      expect(first?.watch).toEqual({ note: 'finished', done: true });
      // A finished watch is never taken again.
      expect(await store.claimDueWatches(new Date(at.getTime() + 86_400_000), 'w3', new Date(at.getTime() + 86_500_000), 10)).toEqual([]);
      await store.close();
    });

    it('stores a watch before its channel message, and learns the message once, whoever holds the lease', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      const watch: RunWatch = {
        attemptId: 'w-early',
        teamId: 'T1',
        userId: 'UOPS',
        channelId: 'C1',
        messageTs: '',
        query: { name: 'AD Accounts' },
        runs: [{ runId: '8', collector: 'AD Accounts', state: undefined }],
        startedAt: at,
        deadline: new Date(at.getTime() + 3_600_000),
        nextPollAt: at,
        intervalMs: 1000,
        doneAt: undefined,
        note: undefined,
      };
      await store.createWatch(watch);
      const [leased] = await store.claimDueWatches(at, 'w1', new Date(at.getTime() + 60_000), 10);
      expect(leased?.messageTs).toBe('');
      await store.setWatchMessage('w-early', '1700000000.000042');
      // Set once: a second post (one that came late) does not move the watch to another message.
      await store.setWatchMessage('w-early', '1700000000.000043');
      expect(await store.saveWatch({ ...(leased as RunWatch), nextPollAt: at }, 'w1')).toBe(true);
      const [again] = await store.claimDueWatches(at, 'w2', new Date(at.getTime() + 60_000), 10);
      expect(again?.messageTs).toBe('1700000000.000042');
      await store.close();
    });

    it('appends a row per step, never rewriting one: a question and its answer keep their own times, on two instances', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const asked = { attemptId: 'a1', teamId: 'T1', channelId: 'C1', userId: 'UOPS', query: {} };
      await stores[0].recordCollectStep({ ...asked, at, step: 'asked' });
      await stores[0].recordCollectStep({ ...asked, attemptId: 'a2', at: new Date(at.getTime() + 1_000), step: 'asked' });
      const answered = new Date(at.getTime() + 30_000);
      // The click that answers it lands on the other instance; its steps, in one millisecond, keep their order.
      await stores[1].recordCollectStep({ ...asked, at: answered, step: 'confirmed' });
      await stores[1].recordCollectStep({ ...asked, at: answered, step: 'sent' });
      await stores[1].recordCollectStep({
        ...asked,
        at: answered,
        step: 'answered',
        runs: [{ runId: '7', collector: 'AD Accounts', state: undefined }],
        leftOut: [],
        ranAgain: [],
      });
      for (const store of stores) {
        const rows = await store.listCollectAttempts({ limit: 10 });
        expect(rows.map((a) => [a.id, a.outcome, a.at.getTime(), a.lastAt.getTime()])).toEqual([
          ['a1', 'started', at.getTime(), answered.getTime()],
          ['a2', 'unanswered', at.getTime() + 1_000, at.getTime() + 1_000],
        ]);
        expect(rows[0]?.steps).toEqual([
          { step: 'asked', at },
          { step: 'confirmed', at: answered },
          { step: 'sent', at: answered },
          { step: 'answered', at: answered },
        ]);
        expect(rows[0]?.runs).toEqual([{ runId: '7', collector: 'AD Accounts' }]);
      }
      expect(await db.count('SELECT COUNT(*) AS n FROM audit_events')).toBe(5);
      for (const store of stores) await store.close();
    });

    it('reads a step it does not know (a newer release wrote it) without failing, and keeps its time', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.recordCollectStep({ attemptId: 'a1', at, teamId: 'T1', channelId: 'C1', userId: 'UOPS', query: {}, step: 'asked' });
      await db.raw(
        `INSERT INTO audit_events (id, at, kind, subject, step, team_id, user_id, channel_id, approval_id, data)
         VALUES ('zz-newer', ${at.getTime() + 5_000}, 'collection', 'a1', 'escalated', 'T1', 'UOPS', 'C1', '', 'not json')`,
      );
      const [attempt] = await store.listCollectAttempts({ limit: 10 });
      expect(attempt).toMatchObject({ id: 'a1', query: {}, lastAt: new Date(at.getTime() + 5_000) });
      expect(attempt?.steps.map((s) => s.step)).toEqual(['asked', 'escalated']);
      await store.close();
    });

    /** Decision i's claim on an approval, `seconds` after `at` for a minute, through one of two instances in turn. */
    /**
     * A decision taking an approval as decide does: a claim, and a hold whose time is up taken over
     * (once what became of it is recorded, which is the use case's, not the store's).
     */
    const claimOn = async (stores: [Store, Store], i: number, seconds: number, approvalId = '1:WPDS:1') => {
      const store = stores[i % 2] as Store;
      const mine = { decisionId: `decision-${i}`, teamId: 'T1', userId: `U${i}`, action: 'Accepted' };
      const when = new Date(at.getTime() + seconds * 1000);
      const until = new Date(at.getTime() + (seconds + 60) * 1000);
      const claim = await store.claimDecision({ approvalId, ...mine, at: when, until });
      if (claim.claimed || claim.holder.state === 'done' || claim.holder.until > when) return claim;
      return (await store.takeExpiredDecision(approvalId, claim.holder.decisionId, when, until, mine)) ? { claimed: true as const } : claim;
    };

    it('never takes over a hold in the claim; one whose time is up is taken by exactly one of many, or leased for reading, and listed meanwhile', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);
      const first = { approvalId: '1:WPDS:1', decisionId: 'decision-a', teamId: 'T1', userId: 'UA', action: 'Accepted' };
      expect(await stores[0].claimDecision({ ...first, at, until: later(60) })).toEqual({ claimed: true });
      // Past its time, a plain claim still finds it held: it is reconciled before it changes hands.
      expect(
        await stores[1].claimDecision({ ...first, decisionId: 'decision-b', userId: 'UB', at: later(61), until: later(121) }),
      ).toMatchObject({
        claimed: false,
        holder: { decisionId: 'decision-a' },
      });
      expect(await stores[1].expiredDecisionHolds(later(59), 10)).toEqual([]);
      expect((await stores[1].expiredDecisionHolds(later(61), 10)).map((o) => [o.approvalId, o.hold.decisionId])).toEqual([
        ['1:WPDS:1', 'decision-a'],
      ]);
      // Not before its time, not from another decision than the one holding it.
      expect(await stores[0].takeExpiredDecision('1:WPDS:1', 'decision-a', later(59), later(120))).toBe(false);
      expect(await stores[0].takeExpiredDecision('1:WPDS:1', 'decision-z', later(61), later(120))).toBe(false);
      // Eight at once: one takes it.
      const takes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (stores[i % 2] as Store).takeExpiredDecision('1:WPDS:1', 'decision-a', later(61), later(121), {
            decisionId: `decision-t${i}`,
            teamId: 'T1',
            userId: `UT${i}`,
            action: 'Rejected',
          }),
        ),
      );
      expect(takes.filter(Boolean)).toHaveLength(1);
      const winner = takes.indexOf(true);
      expect((await stores[0].decisionHolds(['1:WPDS:1'])).get('1:WPDS:1')).toMatchObject({
        decisionId: `decision-t${winner}`,
        userId: `UT${winner}`,
        action: 'Rejected',
        state: 'sending',
        at: later(61),
        until: later(121),
      });
      // Leased for reading: the same decision keeps it, until the lease is up; then it is listed again.
      await stores[0].settleDecision('1:WPDS:1', `decision-t${winner}`, 'unsettled', later(62), later(100));
      expect(await stores[1].takeExpiredDecision('1:WPDS:1', `decision-t${winner}`, later(100), later(160))).toBe(true);
      expect(await stores[0].takeExpiredDecision('1:WPDS:1', `decision-t${winner}`, later(100), later(160))).toBe(false);
      expect((await stores[0].decisionHolds(['1:WPDS:1'])).get('1:WPDS:1')).toMatchObject({ state: 'unsettled', until: later(160) });
      expect(await stores[0].expiredDecisionHolds(later(159), 10)).toEqual([]);
      expect(await stores[0].expiredDecisionHolds(later(160), 10)).toHaveLength(1);
      // Done is never listed, nor taken.
      await stores[0].settleDecision('1:WPDS:1', `decision-t${winner}`, 'done', later(161), later(161));
      expect(await stores[0].expiredDecisionHolds(later(100_000), 10)).toEqual([]);
      expect(await stores[0].takeExpiredDecision('1:WPDS:1', `decision-t${winner}`, later(100_000), later(100_060))).toBe(false);
      for (const store of stores) await store.close();
    });

    it('gives an approval to one of many concurrent decisions, on two instances; done is for good, the rest give way in time', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const claim = (i: number, seconds = 0, approvalId = '1:WPDS:1') => claimOn(stores, i, seconds, approvalId);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(i)));
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      const winner = results.findIndex((r) => r.claimed);
      for (const r of results.filter((r) => !r.claimed))
        expect(r).toEqual({
          claimed: false,
          holder: {
            decisionId: `decision-${winner}`,
            teamId: 'T1',
            userId: `U${winner}`,
            action: 'Accepted',
            state: 'sending',
            at,
            until: new Date(at.getTime() + 60_000),
            settledAt: undefined,
          },
        });
      // Only its holder settles or releases it.
      expect(await stores[0].settleDecision('1:WPDS:1', 'decision-x', 'done', at, at)).toBe(false);
      await stores[1].releaseDecision('1:WPDS:1', 'decision-x');
      expect((await claim(9, 30)).claimed).toBe(false);
      // A hold sending past its time gives way; one unsettled too.
      expect((await claim(9, 60)).claimed).toBe(true);
      expect(await stores[1].settleDecision('1:WPDS:1', 'decision-9', 'unsettled', at, new Date(at.getTime() + 120_000))).toBe(true);
      expect((await claim(10, 119)).claimed).toBe(false);
      expect((await claim(10, 120)).claimed).toBe(true);
      // Released, it is free at once; done, it never is again.
      await stores[0].releaseDecision('1:WPDS:1', 'decision-10');
      expect((await claim(11, 121)).claimed).toBe(true);
      expect(await stores[0].settleDecision('1:WPDS:1', 'decision-11', 'done', new Date(at.getTime() + 122_000), at)).toBe(true);
      expect(await claim(12, 86_400)).toMatchObject({
        claimed: false,
        holder: { state: 'done', userId: 'U11', settledAt: new Date(at.getTime() + 122_000) },
      });
      expect((await claim(13, 0, '2:WPDS:1')).claimed).toBe(true);
      const holds = await stores[1].decisionHolds(['1:WPDS:1', '2:WPDS:1', '3:WPDS:1']);
      expect([...holds.entries()].map(([id, h]) => [id, h.state]).sort()).toEqual([
        ['1:WPDS:1', 'done'],
        ['2:WPDS:1', 'sending'],
      ]);
      expect(await stores[0].decisionHolds([])).toEqual(new Map());
      for (const store of stores) await store.close();
    });

    it('extends a hold only for the decision that still holds it, sending: not once another took it, nor once settled', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const claim = (i: number, seconds: number) => claimOn(stores, i, seconds);
      const later = (seconds: number) => new Date(at.getTime() + seconds * 1000);
      expect((await claim(1, 0)).claimed).toBe(true);
      expect(await stores[0].extendDecision('1:WPDS:1', 'decision-1', later(150))).toBe(true);
      // Extended, it keeps others off past its first time.
      expect((await claim(2, 100)).claimed).toBe(false);
      expect(await stores[1].extendDecision('1:WPDS:1', 'decision-2', later(300))).toBe(false);
      // Given way and taken by another: the first may not extend it again.
      expect((await claim(2, 150)).claimed).toBe(true);
      expect(await stores[0].extendDecision('1:WPDS:1', 'decision-1', later(400))).toBe(false);
      expect((await stores[1].decisionHolds(['1:WPDS:1'])).get('1:WPDS:1')).toMatchObject({ decisionId: 'decision-2', until: later(210) });
      // Settled, a hold is no longer sending: nothing extends it.
      expect(await stores[1].settleDecision('1:WPDS:1', 'decision-2', 'unsettled', later(151), later(240))).toBe(true);
      expect(await stores[0].extendDecision('1:WPDS:1', 'decision-2', later(500))).toBe(false);
      expect(await stores[0].extendDecision('9:WPDS:1', 'decision-2', later(500))).toBe(false);
      for (const store of stores) await store.close();
    });

    it('keeps every step of a decision, and reads each decision back whole, filtered by team and user', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      const base = { decisionId: 'd1', teamId: 'T1', userId: 'UADA', approvalId: '1:WPDS:1', action: 'Rejected', requestId: 'req-1' };
      await store.recordDecisionStep({ ...base, at, step: 'asked' });
      await store.recordDecisionStep({ ...base, at: new Date(at.getTime() + 5_000), step: 'confirmed', comment: 'Not <b>needed</b>' });
      await store.recordDecisionStep({ ...base, at: new Date(at.getTime() + 5_000), step: 'sent' });
      await store.recordDecisionStep({
        ...base,
        at: new Date(at.getTime() + 6_000),
        step: 'answered',
        result: 'done',
        seen: { pending: false, state: 'Rejected', completedDate: '2026-11-22 10:00:06.0', completedBy: 'Lovelace, Ada' },
      });
      const other = { ...base, decisionId: 'd2', userId: 'UEVE', approvalId: '2:WPDS:1', action: 'Accepted' };
      await store.recordDecisionStep({ ...other, at: new Date(at.getTime() + 1_000), step: 'asked' });
      await store.recordDecisionStep({
        ...other,
        at: new Date(at.getTime() + 2_000),
        step: 'refused',
        reason: { kind: 'already-decided', userId: 'UADA', action: 'Rejected', at },
      });
      const all = await store.listDecisions({ limit: 10 });
      expect(all.map((d) => [d.id, d.outcome])).toEqual([
        ['d1', 'done'],
        ['d2', 'refused'],
      ]);
      expect(all[0]).toEqual({
        id: 'd1',
        at,
        lastAt: new Date(at.getTime() + 6_000),
        teamId: 'T1',
        userId: 'UADA',
        approvalId: '1:WPDS:1',
        action: 'Rejected',
        comment: 'Not <b>needed</b>',
        outcome: 'done',
        refusal: undefined,
        answer: {
          result: 'done',
          seen: { pending: false, state: 'Rejected', completedDate: '2026-11-22 10:00:06.0', completedBy: 'Lovelace, Ada' },
        },
        found: undefined,
        unsettled: false,
        steps: [
          { step: 'asked', at, requestId: 'req-1' },
          { step: 'confirmed', at: new Date(at.getTime() + 5_000), requestId: 'req-1' },
          { step: 'sent', at: new Date(at.getTime() + 5_000), requestId: 'req-1' },
          { step: 'answered', at: new Date(at.getTime() + 6_000), requestId: 'req-1' },
        ],
      });
      expect(all[1]?.refusal).toEqual({ kind: 'already-decided', userId: 'UADA', action: 'Rejected', at });
      expect(await store.decisionRecord('d2')).toEqual(all[1]);
      expect(await store.decisionRecord('d9')).toBeUndefined();
      expect((await store.listDecisions({ userId: 'UEVE', limit: 10 })).map((d) => d.id)).toEqual(['d2']);
      expect(await store.listDecisions({ teamId: 'T2', limit: 10 })).toEqual([]);
      expect((await store.listDecisions({ since: new Date(at.getTime() + 3_000), limit: 10 })).map((d) => d.id)).toEqual(['d1']);
      // Decisions and collections share the trail and never mix.
      expect(await store.listCollectAttempts({ limit: 10 })).toEqual([]);
      await store.close();
    });

    it('reads a decision no answer settled as unsettled until what was found afterwards is recorded, and a refused submission with its comment', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      const base = { decisionId: 'd1', teamId: 'T1', userId: 'UADA', approvalId: '1:WPDS:1', action: 'Accepted' };
      const later = (s: number) => new Date(at.getTime() + s * 1000);
      await store.recordDecisionStep({ ...base, at, step: 'confirmed', comment: 'ok' });
      await store.recordDecisionStep({ ...base, at, step: 'sent' });
      expect(await store.decisionRecord('d1')).toMatchObject({ outcome: 'sent', unsettled: true, found: undefined });
      await store.recordDecisionStep({
        ...base,
        at: later(1),
        step: 'answered',
        result: 'unknown',
        error: 'not-shown',
        message: '',
        status: 200,
        seen: { pending: true, state: 'Available', completedDate: '', completedBy: '' },
      });
      expect(await store.decisionRecord('d1')).toMatchObject({
        outcome: 'unknown',
        unsettled: true,
        answer: { result: 'unknown', status: 200, seen: { pending: true } },
      });
      const seen = { pending: false, state: 'Accepted', completedDate: '2026-11-22 10:05:00.0', completedBy: 'Lovelace, Ada' };
      await store.recordDecisionStep({ ...base, at: later(120), step: 'reconciled', found: 'completed', seen, by: 'reconciler' });
      expect(await store.decisionRecord('d1')).toMatchObject({
        outcome: 'unknown',
        unsettled: false,
        found: { found: 'completed', seen, by: 'reconciler', at: later(120) },
      });
      expect((await store.decisionRecord('d1'))?.steps.map((s) => s.step)).toEqual(['confirmed', 'sent', 'answered', 'reconciled']);
      // Turned away at its claim (no confirmed step): what they typed is kept with the refusal.
      const second = { ...base, decisionId: 'd2', userId: 'UEVE' };
      await store.recordDecisionStep({
        ...second,
        at,
        step: 'refused',
        reason: { kind: 'held', userId: 'UADA', action: 'Accepted', state: 'sending', until: later(60) },
        comment: 'mine <!here>',
      });
      expect(await store.decisionRecord('d2')).toMatchObject({ outcome: 'refused', comment: 'mine <!here>', unsettled: false });
      await store.close();
    });

    it('gives a cooldown to one of many concurrent starts, on two instances, until it runs out or is released', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const claim = (i: number, minutes = 0, cooldownMs = 600_000) =>
        (stores[i % 2] as Store).claimCooldown({
          teamId: 'T1',
          target: 'name=ad accounts;application=*',
          userId: `U${i}`,
          channelId: `C${i}`,
          attemptId: `attempt-${i}-${minutes}`,
          at: new Date(at.getTime() + minutes * 60_000),
          cooldownMs,
        });
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(i)));
      const winners = results.filter((r) => r.claimed);
      expect(winners).toHaveLength(1);
      const winner = results.findIndex((r) => r.claimed);
      for (const r of results.filter((x) => !x.claimed)) {
        expect(r).toEqual({
          claimed: false,
          holder: { userId: `U${winner}`, channelId: `C${winner}`, at, attemptId: `attempt-${winner}-0` },
        });
      }
      // Another workspace or target is another cooldown.
      expect(
        await stores[0].claimCooldown({
          teamId: 'T2',
          target: 'name=ad accounts;application=*',
          userId: 'U1',
          channelId: 'C1',
          attemptId: 'x',
          at,
          cooldownMs: 600_000,
        }),
      ).toEqual({ claimed: true });
      expect((await claim(1, 9)).claimed).toBe(false);
      expect((await claim(1, 10)).claimed).toBe(true);
      // Only the attempt that holds it can give it back; then anyone may start at once.
      await stores[0].releaseCooldown('T1', 'name=ad accounts;application=*', 'attempt-0-10');
      expect((await claim(2, 11)).claimed).toBe(false);
      await stores[0].releaseCooldown('T1', 'name=ad accounts;application=*', 'attempt-2-11');
      await stores[1].releaseCooldown('T1', 'name=ad accounts;application=*', 'attempt-1-10');
      expect((await claim(3, 12)).claimed).toBe(true);
      // A cooldown of zero (Start anyway) always takes it.
      expect((await claim(4, 13, 0)).claimed).toBe(true);
      // Every cooldown one attempt holds goes back at once (its runs aborted); another attempt's stay.
      const take = (target: string, attemptId: string) =>
        stores[1].claimCooldown({ teamId: 'T1', target, userId: 'U5', channelId: 'C5', attemptId, at, cooldownMs: 0 });
      await take('collector=ad accounts', 'attempt-5');
      await take('name=*;application=active directory', 'attempt-5');
      await take('collector=ad groups', 'attempt-6');
      expect(await stores[0].releaseCooldownsOf('T2', 'attempt-5')).toBe(0);
      expect(await stores[0].releaseCooldownsOf('T1', 'attempt-5')).toBe(2);
      expect(await stores[0].peekCooldown('T1', 'collector=ad accounts', at, 600_000)).toBeUndefined();
      expect(await stores[0].peekCooldown('T1', 'collector=ad groups', at, 600_000)).toMatchObject({ attemptId: 'attempt-6' });
      for (const s of stores) await s.close();
    });

    it('keeps reminders: set, replace, read, pause, delete', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      expect(await store.getReminder(ADA)).toBeUndefined();
      await store.setReminder(reminder('UADA', at));
      await store.setReminder({ ...reminder('UADA', at), days: 'daily', minuteOfDay: 600 });
      expect(await store.getReminder(ADA)).toEqual({
        ...reminder('UADA', at),
        days: 'daily',
        minuteOfDay: 600,
        pausedAt: undefined,
        sentFor: undefined,
      });
      await store.pauseReminder(ADA, at);
      // Changing the schedule does not lift a pause: only linking again does.
      await store.setReminder(reminder('UADA', at));
      expect((await store.getReminder(ADA))?.pausedAt).toEqual(at);
      expect(await store.getReminder({ teamId: 'T2', userId: 'UADA' })).toBeUndefined();
      expect(await store.deleteReminder(ADA)).toBe(true);
      expect(await store.deleteReminder(ADA)).toBe(false);
      await store.close();
    });

    it('leases each due reminder to one taker of many, on two instances, and again once a lease runs out', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      for (let i = 0; i < 30; i++) await stores[0].setReminder(reminder(`U${i}`, new Date(at.getTime() - i * 1000)));
      await stores[0].setReminder(reminder('ULATER', new Date(at.getTime() + 60_000)));
      const lease = new Date(at.getTime() + 300_000);
      const takes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (stores[i % 2] as Store).claimDueReminders(at, `owner-${i}`, lease, 7)),
      );
      const taken = takes.flat().map((r) => r.userId);
      expect(taken).toHaveLength(30);
      expect(new Set(taken).size).toBe(30);
      expect(taken).not.toContain('ULATER');
      // While the leases hold, only what has come due since; everything again once they run out.
      const meanwhile = await stores[1].claimDueReminders(new Date(at.getTime() + 299_000), 'late', lease, 100);
      expect(meanwhile.map((r) => r.userId)).toEqual(['ULATER']);
      const again = await stores[1].claimDueReminders(new Date(at.getTime() + 300_000), 'late', new Date(at.getTime() + 600_000), 100);
      expect(again.map((r) => r.userId).sort()).toContain('ULATER');
      expect(again).toHaveLength(31);
      for (const s of stores) await s.close();
    });

    it('sends each occurrence once: only the lease holder may mark it, once, and only it may move it on', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await store.setReminder(reminder('UADA', at));
      const [taken] = await store.claimDueReminders(at, 'a', new Date(at.getTime() + 1000), 10);
      expect(taken?.userId).toBe('UADA');
      expect(await store.markReminderSending(ADA, 'b', at)).toBe(false);
      expect(await store.markReminderSending(ADA, 'a', at)).toBe(true);
      expect(await store.markReminderSending(ADA, 'a', at)).toBe(false);
      // A taker after the lease ran out sees that it was sent.
      const [retaken] = await store.claimDueReminders(new Date(at.getTime() + 2000), 'b', new Date(at.getTime() + 9000), 10);
      expect(retaken?.sentFor).toEqual(at);
      expect(await store.markReminderSending(ADA, 'b', at)).toBe(false);
      const tomorrow = new Date(at.getTime() + 86_400_000);
      const next = { nextAt: tomorrow, dueAt: tomorrow, timeZone: 'Europe/Paris' };
      expect(await store.releaseReminder(ADA, 'a', at, next)).toBe(false);
      expect(await store.releaseReminder(ADA, 'b', at, { ...next, pausedAt: at })).toBe(true);
      expect(await store.getReminder(ADA)).toMatchObject({ nextAt: tomorrow, timeZone: 'Europe/Paris', pausedAt: at });
      expect(await store.claimDueReminders(new Date(at.getTime() + 10_000), 'c', tomorrow, 10)).toHaveLength(0);
      // A change by the user while a digest is being made wins over the taker's release.
      const [third] = await store.claimDueReminders(tomorrow, 'c', new Date(tomorrow.getTime() + 1000), 10);
      expect(third?.pausedAt).toEqual(at);
      await store.setReminder(reminder('UADA', new Date(tomorrow.getTime() + 5000)));
      expect(await store.releaseReminder(ADA, 'c', tomorrow, { ...next, pausedAt: null })).toBe(false);
      expect((await store.getReminder(ADA))?.nextAt).toEqual(new Date(tomorrow.getTime() + 5000));
      // null lifts the pause.
      const [fourth] = await store.claimDueReminders(new Date(tomorrow.getTime() + 5000), 'd', new Date(tomorrow.getTime() + 9000), 10);
      expect(await store.releaseReminder(ADA, 'd', fourth?.nextAt ?? at, { ...next, pausedAt: null })).toBe(true);
      expect((await store.getReminder(ADA))?.pausedAt).toBeUndefined();
      await store.close();
    });

    it('leases at most `limit` service slots across two instances, gives back what is released or has run out, and renews', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as [Store, Store];
      const until = new Date(at.getTime() + 60_000);
      const takes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (stores[i % 2] as Store).takeServiceSlot(`owner-${i % 2}`, 4, at, until)),
      );
      const held = takes.filter((s) => s !== undefined);
      expect(held.sort()).toEqual([0, 1, 2, 3]);
      // Another instance set to a higher limit shares the same four, and has more of its own.
      expect(await stores[1].takeServiceSlot('owner-big', 6, at, until)).toBe(4);
      expect(await stores[0].takeServiceSlot('owner-0', 4, at, until)).toBeUndefined();
      // Only its owner can give a slot back.
      const [one, ownerOfOne] = takes.flatMap((s, i) => (s === undefined ? [] : [[s, `owner-${i % 2}`] as const]))[0] ?? [0, ''];
      const other = ownerOfOne === 'owner-0' ? 'owner-1' : 'owner-0';
      await stores[0].releaseServiceSlot(other, one);
      expect(await stores[1].takeServiceSlot(other, 4, at, until)).toBeUndefined();
      await stores[0].releaseServiceSlot(ownerOfOne, one);
      expect(await stores[1].takeServiceSlot(other, 4, at, until)).toBe(one);
      // A lease renewed holds past its first time; one not renewed runs out and is taken again.
      const held0 = takes.filter((s, i) => s !== undefined && s !== one && `owner-${i % 2}` === 'owner-0').length;
      const held1 = 4 - 1 - held0;
      expect(await stores[1].renewServiceSlots('owner-1', new Date(until.getTime() + 60_000))).toBe(held1 + (other === 'owner-1' ? 1 : 0));
      const late = async () => stores[0].takeServiceSlot('owner-late', 4, until, new Date(until.getTime() + 1000));
      const expired = held0 + (other === 'owner-0' ? 1 : 0);
      for (let i = 0; i < expired; i++) expect(await late()).toBeTypeOf('number');
      expect(await late()).toBeUndefined();
      for (const s of stores) await s.close();
    });

    it('renews the leases an owner holds on reminders, and no one else’s', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      for (const u of ['UONE', 'UTWO', 'UTHREE']) await store.setReminder(reminder(u, at));
      const lease = new Date(at.getTime() + 1000);
      expect(await store.claimDueReminders(at, 'a', lease, 2)).toHaveLength(2);
      expect(await store.claimDueReminders(at, 'b', lease, 2)).toHaveLength(1);
      expect(await store.renewReminderLeases('a', new Date(at.getTime() + 60_000))).toBe(2);
      // Past the first lease: b's has run out and is taken again; a's are still a's.
      const later = new Date(at.getTime() + 2000);
      const retaken = await store.claimDueReminders(later, 'c', new Date(later.getTime() + 1000), 10);
      expect(retaken).toHaveLength(1);
      await store.close();
    });

    it('remembers a Slack signature once: of many concurrent tries on two instances one wins, until it expires', async () => {
      const db = await backend.database();
      const stores = [await db.open(KEY), await db.open(KEY)] as const;
      const until = new Date(at.getTime() + 300_000);
      const tries = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (stores[i % 2] as Store).rememberSignature('v0=aaaa', until, new Date(at.getTime() + i))),
      );
      expect(tries.filter(Boolean)).toHaveLength(1);
      // Another signature is its own; the same one (always with the same time: the signature covers
      // the timestamp its time is computed from) is refused up to its time, inclusive.
      expect(await stores[1].rememberSignature('v0=bbbb', until, at)).toBe(true);
      expect(await stores[0].rememberSignature('v0=aaaa', until, until)).toBe(false);
      // Past its time (not pruned yet) it is taken over: the window check, not this table, refuses a stale request.
      const later = new Date(until.getTime() + 1);
      expect(await stores[0].rememberSignature('v0=aaaa', until, later)).toBe(true);
      for (const s of stores) await s.close();
    });

    it('answers each of the signatures sent at once on its own, the second of two alike as a replay, and writes them before closing', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      const until = new Date(at.getTime() + 300_000);
      const sent = ['v0=one', 'v0=two', 'v0=one', 'v0=three'].map((s) => store.rememberSignature(s, until, at));
      // SQLite writes them together, later in the turn: a close before then writes them first.
      const closing = name === 'sqlite' ? store.close() : undefined;
      const fresh = await Promise.all(sent);
      // Of the two alike exactly one is new: on SQLite the first (written in order, in one
      // transaction); on PostgreSQL whichever of the pool's connections commits first.
      expect([fresh[1], fresh[3]]).toEqual([true, true]);
      expect([fresh[0], fresh[2]].filter(Boolean)).toHaveLength(1);
      if (name === 'sqlite') expect(fresh).toEqual([true, true, false, true]);
      await (closing ?? store.close());
      expect(await db.count('SELECT COUNT(*) AS n FROM slack_signatures_by_expiry')).toBe(3);
    });

    it('prunes signatures past their time, and keeps the ones in force', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      for (let i = 0; i < 5; i++) await store.rememberSignature(`v0=old${i}`, new Date(at.getTime() + i), at);
      await store.close();
      expect(await db.count('SELECT COUNT(*) AS n FROM slack_signatures_by_expiry')).toBe(5);
      // A new instance prunes on its first call.
      const next = await db.open(KEY);
      expect(await next.rememberSignature('v0=new', new Date(at.getTime() + 400_000), new Date(at.getTime() + 3))).toBe(true);
      expect(await db.count('SELECT COUNT(*) AS n FROM slack_signatures_by_expiry')).toBe(3);
      await next.close();
    });

    it('answers a ping while open, and rejects one once closed', async () => {
      const db = await backend.database();
      const store = await db.open(KEY);
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });

    it('reports which keys wrote the stored tokens and whether the configured keys read them', async () => {
      const db = await backend.database();
      const oldKey = generateKey();
      const first = await db.open(oldKey);
      expect(await first.keyUsage()).toEqual([]);
      await first.setToken(ADA, ['findApprovals', 'collectEntitlements'], TOKEN, 'admin', at);
      const oldId = new TokenCipher(oldKey).keyId;
      expect(await first.keyUsage()).toEqual([{ keyId: oldId, tokens: 2, readable: true, users: ['UADA (T1)'] }]);
      await first.close();
      const wrong = await db.open(KEY);
      expect(await wrong.keyUsage()).toEqual([{ keyId: oldId, tokens: 2, readable: false, users: ['UADA (T1)'] }]);
      await wrong.setToken({ teamId: '', userId: 'UBOB' }, ['findApprovals'], TOKEN, 'admin', at);
      expect((await wrong.keyUsage()).map((u) => [u.keyId, u.readable, u.users])).toEqual(
        expect.arrayContaining([
          [oldId, false, ['UADA (T1)']],
          [new TokenCipher(KEY).keyId, true, ['UBOB']],
        ]),
      );
      await wrong.close();
      const rotating = await db.open(KEY, oldKey);
      expect((await rotating.keyUsage()).every((u) => u.readable)).toBe(true);
      await rotating.close();
    });
  });
}

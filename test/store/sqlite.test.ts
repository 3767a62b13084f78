import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/secret.js';
import { DecryptError, generateKey, TokenCipher } from '../../src/store/cipher.js';
import { SqliteStore } from '../../src/store/sqlite.js';

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
  it('refuses a key that is not 32 bytes', () => {
    expect(() => new TokenCipher(new Secret(Buffer.alloc(16).toString('base64')))).toThrow(/32 bytes/);
  });
});

describe('SqliteStore', () => {
  it('keeps tokens encrypted at rest and across a restart', async () => {
    const path = file();
    const store = new SqliteStore(path, KEY);
    await store.setToken(ADA, ['findApprovals', 'collectEntitlements'], TOKEN, 'admin', at);
    await store.close();
    for (const f of [path, `${path}-wal`]) {
      try {
        expect(readFileSync(f).includes(Buffer.from('28aff589'))).toBe(false);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    const again = new SqliteStore(path, KEY);
    expect((await again.getToken(ADA, 'collectEntitlements'))?.token.reveal()).toBe(TOKEN.reveal());
    expect(await again.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).toBeUndefined();
    await again.close();
  });

  it('fails to read with the wrong key, and a row copied to another user fails to decrypt', async () => {
    const path = file();
    const store = new SqliteStore(path, KEY);
    await store.setToken(ADA, ['findApprovals'], TOKEN, 'admin', at);
    await store.close();
    const wrong = new SqliteStore(path, generateKey());
    await expect(wrong.getToken(ADA, 'findApprovals')).rejects.toThrow(DecryptError);
    await wrong.close();
    const db = new Database(path);
    db.prepare(
      "INSERT INTO tokens SELECT team_id, 'UEVE', command, ciphertext, key_id, source, linked_at, NULL, NULL FROM tokens WHERE user_id = 'UADA'",
    ).run();
    db.close();
    const store2 = new SqliteStore(path, KEY);
    await expect(store2.getToken({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).rejects.toThrow(/failed authentication/);
    await store2.close();
  });

  it('prefers a workspace link over an any-workspace link, and deletes per workspace', async () => {
    const store = new SqliteStore(file(), KEY);
    await store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals'], new Secret('any-workspace'), 'admin', at);
    expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe('any-workspace');
    await store.setToken(ADA, ['findApprovals'], new Secret('this-workspace'), 'admin', at);
    expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe('this-workspace');
    expect(await store.deleteTokens(ADA)).toBe(1);
    expect((await store.getToken(ADA, 'findApprovals'))?.token.reveal()).toBe('any-workspace');
    await store.close();
  });

  it('records outcomes and lists links without tokens', async () => {
    const store = new SqliteStore(file(), KEY);
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

  it('lets exactly one of many concurrent claims through, checks the owner first, and expires', async () => {
    const path = file();
    const stores = [new SqliteStore(path, KEY), new SqliteStore(path, KEY)];
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
      Array.from({ length: 10 }, (_, i) => (stores[i % 2] as SqliteStore).claimConfirmation('confirm-1', 'UOPS', at)),
    );
    expect(results.filter((r) => r.status === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'already-used')).toHaveLength(9);
    await stores[0]?.createConfirmation({ id: 'confirm-2', ...base });
    expect(await stores[0]?.claimConfirmation('confirm-2', 'UOPS', new Date(at.getTime() + 61_000))).toEqual({ status: 'expired' });
    expect(await stores[0]?.claimConfirmation('nope', 'UOPS', at)).toEqual({ status: 'not-found' });
    for (const s of stores) await s.close();
  });
});

/**
 * Tokens as docs/service-contract.md describes them: opaque, containing ':', acting as one user, valid
 * for a set of commands, ending after a lifespan or a stretch of inactivity, or at logoutUser.
 * Only a SHA-256 of each token is stored, as a real service should.
 *
 * Where the sessions live is the operator's choice, as it is for a servlet container: in the
 * data's `tokens` table, shared by every instance over the same data and kept across restarts
 * (the default), or in this instance's memory alone, where a restart forgets them and another
 * instance over the same data does not know them (two nodes without session replication).
 */

import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';

export type TokenKind = 'user' | 'app';

export interface TokenPolicy {
  /** token-lifespan-timeout; null = never; 0 = ended as soon as issued. */
  lifespanMs: number | null;
  /** token-inactivity-timeout; null = never. */
  inactivityMs: number | null;
}

export const LOGIN_TOKEN_POLICY: Readonly<TokenPolicy> = Object.freeze({ lifespanMs: 120 * 60_000, inactivityMs: 10 * 60_000 });

/** An application's tokens end as users' do (the service's configured time). */
export const APP_TOKEN_POLICY: Readonly<TokenPolicy> = LOGIN_TOKEN_POLICY;

/** 'shared': in the data, for every instance over it; 'instance': in this instance's memory only. */
export type SessionStorage = 'shared' | 'instance';

export type TokenCheck = { ok: true; userId: string; kind: TokenKind } | { ok: false; reason: 'invalid-or-expired' | 'not-permitted' };

interface TokenRow {
  user_id: string;
  kind: TokenKind;
  commands: string;
  issued_at_ms: number;
  last_used_ms: number;
  lifespan_ms: number | null;
  inactivity_ms: number | null;
  revoked: number;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Looks like the real thing (`ws3101…:-28aff589:18a2758240d:-7c4e0.57…`), so clients meet the colons. */
function newToken(): string {
  const hex = (n: number) => randomBytes(n).toString('hex');
  return `ws${hex(6)}:-${hex(4)}:${hex(6)}:-${hex(3)}.${randomBytes(4).readUInt32BE()}`;
}

/** Where the token rows are kept: one interface, the data's table or this instance's memory. */
interface SessionTable {
  get(hash: string): TokenRow | undefined;
  put(hash: string, row: TokenRow): void;
  touch(hash: string, at: number): void;
  /** Ends the sessions `which` selects: the one with this hash, or every one of a kind. */
  revoke(which: { hash: string } | { kind: TokenKind }): void;
  /** Forgets every session, as a restart does to sessions held in memory. */
  clear(): void;
}

function sharedSessions(db: Db): SessionTable {
  const find = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?');
  const touch = db.prepare<[number, string]>('UPDATE tokens SET last_used_ms = ? WHERE hash = ?');
  const insert = db.prepare<[string, string, TokenKind, string, number, number, number | null, number | null]>(
    `INSERT INTO tokens (hash, user_id, kind, commands, issued_at_ms, last_used_ms, lifespan_ms, inactivity_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    get: (hash) => find.get(hash),
    put: (hash, r) => insert.run(hash, r.user_id, r.kind, r.commands, r.issued_at_ms, r.last_used_ms, r.lifespan_ms, r.inactivity_ms),
    touch: (hash, at) => touch.run(at, hash),
    revoke: (which) =>
      'hash' in which
        ? db.prepare('UPDATE tokens SET revoked = 1 WHERE hash = ?').run(which.hash)
        : db.prepare('UPDATE tokens SET revoked = 1 WHERE kind = ?').run(which.kind),
    clear: () => db.prepare('DELETE FROM tokens').run(),
  };
}

/** Sessions past this many are pruned of the ended ones, so that a long-running instance stays bounded. */
const MAX_INSTANCE_SESSIONS = 100_000;

function instanceSessions(now: () => Date): SessionTable {
  const rows = new Map<string, TokenRow>();
  return {
    get: (hash) => rows.get(hash),
    put: (hash, row) => {
      if (rows.size >= MAX_INSTANCE_SESSIONS) for (const [h, r] of rows) if (ended(r, now().getTime())) rows.delete(h);
      rows.set(hash, { ...row });
    },
    touch: (hash, at) => {
      const row = rows.get(hash);
      if (row) row.last_used_ms = at;
    },
    revoke: (which) => {
      for (const [h, r] of rows) if ('hash' in which ? h === which.hash : r.kind === which.kind) r.revoked = 1;
    },
    clear: () => rows.clear(),
  };
}

/** A token lives through its whole lifespan; one of 0 ends as soon as it is issued, as a token-lifespan-timeout of 0 would. */
function ended(row: TokenRow, now: number): boolean {
  return (
    row.revoked === 1 ||
    (row.lifespan_ms !== null && (row.lifespan_ms === 0 || now - row.issued_at_ms > row.lifespan_ms)) ||
    (row.inactivity_ms !== null && now - row.last_used_ms > row.inactivity_ms)
  );
}

export class TokenRegistry {
  readonly #db: Db;
  readonly #now: () => Date;
  readonly #sessions: SessionTable;

  constructor(db: Db, now: () => Date, storage: SessionStorage = 'shared') {
    this.#db = db;
    this.#now = now;
    this.#sessions = storage === 'shared' ? sharedSessions(db) : instanceSessions(now);
  }

  issue(userId: string, commands: readonly string[], policy: TokenPolicy, kind: TokenKind = 'user', issuedAt = this.#now()): string {
    const token = newToken();
    this.#sessions.put(hash(token), {
      user_id: userId,
      kind,
      commands: commands.join(','),
      issued_at_ms: issuedAt.getTime(),
      last_used_ms: issuedAt.getTime(),
      lifespan_ms: policy.lifespanMs,
      inactivity_ms: policy.inactivityMs,
      revoked: 0,
    });
    return token;
  }

  check(token: string | undefined, command: string): TokenCheck {
    if (!token) return { ok: false, reason: 'invalid-or-expired' };
    const key = hash(token);
    const row = this.#sessions.get(key);
    const now = this.#now().getTime();
    if (row === undefined || ended(row, now)) return { ok: false, reason: 'invalid-or-expired' };
    if (!row.commands.split(',').includes(command)) return { ok: false, reason: 'not-permitted' };
    this.#sessions.touch(key, now);
    return { ok: true, userId: row.user_id, kind: row.kind };
  }

  /**
   * Whose a token is, and whether it still works, without using it (its inactivity clock is left
   * alone): how local mode finds the service account a linked Slack user acts as.
   */
  whose(token: string): { userId: string; kind: TokenKind; ended: boolean } | undefined {
    const row = this.#sessions.get(hash(token));
    return row === undefined ? undefined : { userId: row.user_id, kind: row.kind, ended: ended(row, this.#now().getTime()) };
  }

  revoke(token: string): void {
    this.#sessions.revoke({ hash: hash(token) });
  }

  /** Ends every session of this kind: what an administrator does to a trusted application's ('app'). */
  revokeAll(kind: TokenKind): void {
    this.#sessions.revoke({ kind });
  }

  /** Forgets every session, users' and applications' alike. */
  forgetAll(): void {
    this.#sessions.clear();
  }

  /** A user of the service by the name they sign in with (any case), with the commands they may run. */
  user(id: string): { id: string; commands: string[] } | undefined {
    const row = this.#db
      .prepare<[string], { id: string; commands: string }>('SELECT id, commands FROM users WHERE id = ? COLLATE NOCASE')
      .get(id);
    return row === undefined ? undefined : { id: row.id, commands: row.commands.split(',').filter(Boolean) };
  }

  /** loginUser: the user's token, or undefined; the same answer for a wrong user and a wrong password. */
  login(username: string, password: string, authSource: string | undefined, policy: TokenPolicy): string | undefined {
    const user = this.#db
      .prepare<[string], { id: string; auth_source: string; password_hash: string | null; commands: string }>(
        'SELECT id, auth_source, password_hash, commands FROM users WHERE id = ? COLLATE NOCASE',
      )
      .get(username);
    // Without an authsource the service checks its own users only: someone from a directory must name it.
    const source = authSource ?? 'internal';
    const ok =
      user !== undefined &&
      user.password_hash !== null &&
      source.toLowerCase() === user.auth_source.toLowerCase() &&
      passwordMatches(password, user.password_hash);
    if (!ok || user === undefined) return undefined;
    return this.issue(user.id, user.commands.split(',').filter(Boolean), policy);
  }
}

function passwordMatches(password: string, stored: string): boolean {
  const [saltHex, hashHex] = stored.split(':');
  if (!saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, 'hex');
  const actual = scryptSync(password, Buffer.from(saltHex, 'hex'), expected.length, { N: 1024 });
  return timingSafeEqual(expected, actual);
}

/**
 * Tokens as service-notes.md describes them: opaque, containing ':', acting as one user, valid
 * for a set of commands, ending after a lifespan or a stretch of inactivity, or at logoutUser.
 * Only a SHA-256 of each token is stored, as a real service should.
 */

import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.js';

export type TokenKind = 'user' | 'app';

export interface TokenPolicy {
  /** token-lifespan-timeout; null = never. */
  lifespanMs: number | null;
  /** token-inactivity-timeout; null = never. */
  inactivityMs: number | null;
}

export const LOGIN_TOKEN_POLICY: Readonly<TokenPolicy> = Object.freeze({ lifespanMs: 120 * 60_000, inactivityMs: 10 * 60_000 });

/** An application's tokens end as users' do (the service's configured time). */
export const APP_TOKEN_POLICY: Readonly<TokenPolicy> = LOGIN_TOKEN_POLICY;

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

export class TokenRegistry {
  readonly #db: Db;
  readonly #now: () => Date;
  readonly #find;
  readonly #touch;

  constructor(db: Db, now: () => Date) {
    this.#db = db;
    this.#now = now;
    this.#find = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?');
    this.#touch = db.prepare<[number, string]>('UPDATE tokens SET last_used_ms = ? WHERE hash = ?');
  }

  issue(userId: string, commands: readonly string[], policy: TokenPolicy, kind: TokenKind = 'user', issuedAt = this.#now()): string {
    const token = newToken();
    this.#db
      .prepare(
        `INSERT INTO tokens (hash, user_id, kind, commands, issued_at_ms, last_used_ms, lifespan_ms, inactivity_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(hash(token), userId, kind, commands.join(','), issuedAt.getTime(), issuedAt.getTime(), policy.lifespanMs, policy.inactivityMs);
    return token;
  }

  check(token: string | undefined, command: string): TokenCheck {
    if (!token) return { ok: false, reason: 'invalid-or-expired' };
    const key = hash(token);
    const row = this.#find.get(key);
    const now = this.#now().getTime();
    if (
      row === undefined ||
      row.revoked ||
      (row.lifespan_ms !== null && now - row.issued_at_ms > row.lifespan_ms) ||
      (row.inactivity_ms !== null && now - row.last_used_ms > row.inactivity_ms)
    ) {
      return { ok: false, reason: 'invalid-or-expired' };
    }
    if (!row.commands.split(',').includes(command)) return { ok: false, reason: 'not-permitted' };
    this.#touch.run(now, key);
    return { ok: true, userId: row.user_id, kind: row.kind };
  }

  revoke(token: string): void {
    this.#db.prepare('UPDATE tokens SET revoked = 1 WHERE hash = ?').run(hash(token));
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

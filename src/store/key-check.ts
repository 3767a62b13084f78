/**
 * The start-up check of TOKEN_ENCRYPTION_KEY against the tokens already stored. A wrong key does
 * not fail anything at start by itself: every user would instead be told, one command at a time,
 * that their link is broken. Found at start, it is one clear message to the operator instead.
 */

import type { Secret } from '../runtime/secret.js';
import { DecryptError, TokenCipher } from './cipher.js';
import type { Keyring } from './keyring.js';
import { linkedTokenOf, type TokenRow } from './rows.js';
import type { KeyUsage, Store } from './types.js';

/** The stored tokens of one key id, with a few of its rows to try. */
export interface KeyGroup {
  keyId: string;
  tokens: number;
  sample: readonly TokenRow[];
}

/** Whether the keyring reads each group: the key id says which key wrote it, and one row decrypted proves it. */
export function keyUsageOf(groups: readonly KeyGroup[], keys: Keyring): KeyUsage[] {
  return groups.map((g) => ({
    keyId: g.keyId,
    tokens: g.tokens,
    readable: g.sample.some((row) => {
      try {
        linkedTokenOf(row, keys);
        return true;
      } catch (error) {
        if (error instanceof DecryptError) return false;
        throw error;
      }
    }),
    users: [...new Set(g.sample.map((r) => (r.team_id === '' ? r.user_id : `${r.user_id} (${r.team_id})`)))],
  }));
}

/** The configuration cannot read any stored token: the app must not start. Names the variables, never a key. */
export class KeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyMismatchError';
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function describe(groups: readonly KeyUsage[]): string {
  const tokens = groups.reduce((n, g) => n + g.tokens, 0);
  const ids = groups.map((g) => g.keyId).join(', ');
  const users = groups.flatMap((g) => g.users).slice(0, 3);
  return `${plural(tokens, 'stored token')} (written with key id ${ids}; users ${users.join(', ')}${tokens > users.length ? ', …' : ''})`;
}

/**
 * What to do about the stored tokens at start: refuse (no configured key reads any of them), warn
 * (some are unreadable: those users must link again), or nothing. `currentKeyId` is the id of
 * TOKEN_ENCRYPTION_KEY, shown so that an operator can tell which key the app has.
 */
export function judgeKeyUsage(usage: readonly KeyUsage[], currentKeyId: string): { refuse?: string; warn?: string } {
  const unreadable = usage.filter((g) => !g.readable);
  if (unreadable.length === 0) return {};
  const what = describe(unreadable);
  if (unreadable.length === usage.length) {
    return {
      refuse:
        `TOKEN_ENCRYPTION_KEY (key id ${currentKeyId}) cannot read any of the ${what}. ` +
        'Set TOKEN_ENCRYPTION_KEY to the key they were written with. When changing keys, set the new key as ' +
        'TOKEN_ENCRYPTION_KEY and the old one as TOKEN_ENCRYPTION_KEY_PREVIOUS, then run `countersign keys rotate`. ' +
        'To give them up instead, delete them (`countersign tokens delete --user <U…>`): those users then link again',
    };
  }
  return {
    warn:
      `neither TOKEN_ENCRYPTION_KEY (key id ${currentKeyId}) nor TOKEN_ENCRYPTION_KEY_PREVIOUS reads ${what}: ` +
      'those users are asked to link again. If the key they were written with is still known, set it as TOKEN_ENCRYPTION_KEY_PREVIOUS',
  };
}

/**
 * Checks the configured keys against the stored tokens: throws KeyMismatchError when they read
 * none of them, returns a warning when they read only some.
 */
export async function checkStoredKeys(store: Pick<Store, 'keyUsage'>, key: Secret): Promise<string | undefined> {
  const verdict = judgeKeyUsage(await store.keyUsage(), new TokenCipher(key).keyId);
  if (verdict.refuse !== undefined) throw new KeyMismatchError(verdict.refuse);
  return verdict.warn;
}

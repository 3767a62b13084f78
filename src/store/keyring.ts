/**
 * The keys tokens are encrypted with: the current one for every write, and the previous one
 * (TOKEN_ENCRYPTION_KEY_PREVIOUS) still readable during a rotation. Each stored value names its
 * key, so reading picks the right one and rotation knows which rows to rewrite.
 */

import type { Secret } from '../runtime/secret.js';
import { DecryptError, TokenCipher } from './cipher.js';
import { Kept } from './kept.js';
import type { Principal } from './types.js';

/** How long a decrypted token is kept at hand, and how many at most. */
const RECENT_MS = 5 * 60_000;
const MAX_RECENT = 10_000;

export class Keyring {
  readonly current: TokenCipher;
  readonly #all: TokenCipher[];
  /**
   * Tokens decrypted lately, by row and ciphertext: a user's commands read their row every time
   * (an unlinked token is never found), but the same ciphertext is only decrypted once every few
   * minutes. Decryption gives the same token for the same row and ciphertext, so this changes no
   * answer; it keeps a token in this process's memory a few minutes longer, in the process that
   * holds the key to every token anyway, and each goes when its minutes are up, read again or not.
   * Cleared whenever links change on this instance.
   */
  readonly #recent: Kept<Secret>;

  constructor(current: Secret, previous?: Secret, now?: () => number) {
    this.#recent = new Kept<Secret>(RECENT_MS, MAX_RECENT, now);
    this.current = new TokenCipher(current);
    this.#all = previous === undefined ? [this.current] : [this.current, new TokenCipher(previous)];
  }

  encrypt(token: Secret, who: Principal, command: string): string {
    return this.current.encrypt(token, associatedData(who, command));
  }

  decrypt(value: string, who: Principal, command: string): Secret {
    const associated = associatedData(who, command);
    const recentKey = `${associated}\u0000${value}`;
    const recent = this.#recent.get(recentKey);
    if (recent !== undefined) return recent.value;
    const keyId = value.split(':')[1];
    const cipher = this.#all.find((c) => c.keyId === keyId);
    if (cipher === undefined) throw new DecryptError('other-key', keyId);
    const token = cipher.decrypt(value, associated);
    this.#recent.set(recentKey, token);
    return token;
  }

  /** Links changed: nothing decrypted before is kept. */
  forgetDecrypted(): void {
    this.#recent.clear();
  }

  /** How many decrypted tokens are kept at hand now. */
  get decryptedKept(): number {
    return this.#recent.size;
  }
}

/** The row's identity, bound into the ciphertext: a value moved to another row fails to decrypt. */
export function associatedData(who: Principal, command: string): string {
  return `${who.teamId}\u0000${who.userId}\u0000${command}`;
}

/**
 * Remembers the last outcome written per link, so that the same outcome within a minute is not
 * written again: whoami shows "last used" to the minute, and a write per call is waste.
 */
export class OutcomeThrottle {
  readonly #last = new Map<string, { outcome: string; at: number }>();

  shouldWrite(who: Principal, command: string, outcome: string, at: Date): boolean {
    const key = associatedData(who, command);
    const last = this.#last.get(key);
    if (last !== undefined && last.outcome === outcome && at.getTime() - last.at < 60_000) return false;
    if (this.#last.size >= 50_000) this.#last.clear();
    this.#last.set(key, { outcome, at: at.getTime() });
    return true;
  }

  forget(): void {
    this.#last.clear();
  }
}

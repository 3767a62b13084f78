/**
 * The keys tokens are encrypted with: the current one for every write, and the previous one
 * (TOKEN_ENCRYPTION_KEY_PREVIOUS) still readable during a rotation. Each stored value names its
 * key, so reading picks the right one and rotation knows which rows to rewrite.
 */

import type { Secret } from '../runtime/secret.js';
import { DecryptError, TokenCipher } from './cipher.js';
import type { Principal } from './types.js';

export class Keyring {
  readonly current: TokenCipher;
  readonly #all: TokenCipher[];

  constructor(current: Secret, previous?: Secret) {
    this.current = new TokenCipher(current);
    this.#all = previous === undefined ? [this.current] : [this.current, new TokenCipher(previous)];
  }

  encrypt(token: Secret, who: Principal, command: string): string {
    return this.current.encrypt(token, associatedData(who, command));
  }

  decrypt(value: string, who: Principal, command: string): Secret {
    const keyId = value.split(':')[1];
    const cipher = this.#all.find((c) => c.keyId === keyId);
    if (cipher === undefined) throw new DecryptError('other-key', keyId);
    return cipher.decrypt(value, associatedData(who, command));
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

/**
 * Tokens at rest: AES-256-GCM with a fresh 96-bit IV per write and the row's identity (team,
 * user, command) as associated data, so a ciphertext copied onto another user's row fails to
 * decrypt instead of lending them someone else's token. Each value names the key it was written
 * with, so that the key can be rotated.
 */

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Secret } from '../runtime/secret.js';

const VERSION = 'v1';
/**
 * GCM's full 128-bit tag, on both sides: a decipher told no length accepts a tag cut to as little
 * as 4 bytes, and a tag that short can be forged by trying.
 */
const TAG_BYTES = 16;

export class TokenCipher {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(key: Secret) {
    const bytes = Buffer.from(key.reveal(), 'base64');
    if (bytes.length !== 32) throw new RangeError('the token encryption key must be 32 bytes');
    this.#key = bytes;
    // Derived, not random: the same key always has the same id, on every instance.
    this.keyId = createHash('sha256').update('countersign-key-id').update(bytes).digest('hex').slice(0, 12);
  }

  encrypt(token: Secret, associated: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associated, 'utf8'));
    const body = Buffer.concat([cipher.update(token.reveal(), 'utf8'), cipher.final()]);
    return [VERSION, this.keyId, iv.toString('base64'), body.toString('base64'), cipher.getAuthTag().toString('base64')].join(':');
  }

  /** Throws DecryptError for a value written with another key, tampered with, or moved to another row. */
  decrypt(value: string, associated: string): Secret {
    const [version, keyId, iv, body, tag] = value.split(':');
    if (version !== VERSION || !keyId || !iv || body === undefined || !tag) throw new DecryptError('malformed');
    if (keyId !== this.keyId) throw new DecryptError('other-key', keyId);
    const tagBytes = Buffer.from(tag, 'base64');
    if (tagBytes.length !== TAG_BYTES) throw new DecryptError('auth-failed');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associated, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return new Secret(Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8'));
    } catch {
      throw new DecryptError('auth-failed');
    }
  }
}

export class DecryptError extends Error {
  constructor(
    readonly reason: 'malformed' | 'other-key' | 'auth-failed',
    readonly keyId?: string,
  ) {
    super(
      {
        malformed: 'stored token is not in a known format',
        'other-key': `stored token was written with another key (${keyId})`,
        'auth-failed': 'stored token failed authentication (wrong key, tampered, or moved)',
      }[reason],
    );
    this.name = 'DecryptError';
  }
}

export function generateKey(): Secret {
  return new Secret(randomBytes(32).toString('base64'));
}

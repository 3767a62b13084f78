/**
 * The answers of getToken on SQLite, kept only while no link can have changed. SQLite's
 * `PRAGMA data_version` changes whenever another connection (another process, another instance on
 * the same file, the admin CLI) has committed anything; this store's own writes to links clear the
 * cache as they are made. Reading the version costs a fraction of reading and decrypting the row
 * (about 4 µs against 16 µs), and an unlink anywhere still takes effect on the very next command.
 * Entries also go after a minute, read again or not, so that a decrypted token is not held longer
 * than the keyring would hold it anyway.
 */

import { Kept } from './kept.js';

const KEEP_MS = 60_000;
const MAX_ENTRIES = 10_000;

export class LinkCache<T> {
  readonly #entries: Kept<T>;
  #version: number | undefined;

  constructor(now?: () => number) {
    this.#entries = new Kept<T>(KEEP_MS, MAX_ENTRIES, now);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** What was kept for `key`, if the database is still at `version` (anything else empties the cache). */
  get(version: number, key: string): { value: T } | undefined {
    if (version !== this.#version) {
      this.#entries.clear();
      this.#version = version;
      return undefined;
    }
    return this.#entries.get(key);
  }

  /** Keeps `value`, read at `version` (read before the row, so a commit in between empties the cache next time). */
  set(version: number, key: string, value: T): void {
    if (version !== this.#version) return;
    this.#entries.set(key, value);
  }

  /** This store changed links itself: nothing read before is kept. */
  clear(): void {
    this.#entries.clear();
  }
}

/**
 * Values kept in memory for a while, decrypted tokens among them: each goes when its time is up,
 * whether or not it is asked for again. Dropping an entry only when it is read again would keep the
 * token of a user who never comes back for as long as the process lives; so a sweep, on a timer
 * that does not hold the process open, runs while anything is kept.
 */

export class Kept<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #keepMs: number;
  readonly #max: number;
  /** A duration, not a date: the monotonic clock measures it. */
  readonly #now: () => number;
  #sweep: NodeJS.Timeout | undefined;

  constructor(keepMs: number, max: number, now: () => number = () => performance.now()) {
    this.#keepMs = keepMs;
    this.#max = max;
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** What is kept for `key` (wrapped, since the value kept may itself be undefined), if its time is not up. */
  get(key: string): { readonly value: V } | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: V): void {
    if (this.#entries.size >= this.#max) {
      this.sweep();
      if (this.#entries.size >= this.#max) this.#entries.clear();
    }
    this.#entries.set(key, { value, until: this.#now() + this.#keepMs });
    this.#sweep ??= setTimeout(() => this.#swept(), this.#keepMs).unref();
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Drops what is past its time. */
  sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (entry.until <= now) this.#entries.delete(key);
  }

  #swept(): void {
    this.#sweep = undefined;
    this.sweep();
    if (this.#entries.size > 0) this.#sweep = setTimeout(() => this.#swept(), this.#keepMs).unref();
  }
}

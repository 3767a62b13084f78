/**
 * Replay protection: a signed request is accepted once. Slack's signature covers the timestamp
 * and the body, so the same signature again within the window is the same request sent again,
 * whether by a network retry of a proxy or by someone who captured it. The store remembers
 * signatures for every instance that shares it; this instance also remembers them itself, so that
 * while the database is away (or slow) replays to this instance are still refused, and commands
 * are still acked and answered with the database's own error rather than not at all.
 */

import type { Logger } from '../../runtime/logger.js';
import type { Store } from '../../store/index.js';

/** How long the ack may wait on the store for this check before it trusts this instance's memory alone. */
export const REPLAY_STORE_TIMEOUT_MS = 500;

/** At 200 requests a second, the 6 minutes a signature is kept are about 72,000 entries. */
const MAX_REMEMBERED = 250_000;

export class ReplayGuard {
  readonly #store: Pick<Store, 'rememberSignature'>;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  /** Signature → when it may be forgotten (ms). */
  readonly #seen = new Map<string, number>();
  /**
   * The same signatures in the order they came, which is about expiry order: forgetting takes from
   * the front of this. Walking the map from its start instead steps over every entry deleted since
   * V8 last rebuilt it, so once signatures began to expire each request cost more the more requests
   * came before it (37–106 µs a request with 100,000 held, against 2–3 µs with 1,000).
   */
  #order: string[] = [];
  #head = 0;
  #storeTrouble = false;

  constructor(store: Pick<Store, 'rememberSignature'>, logger: Logger, timeoutMs = REPLAY_STORE_TIMEOUT_MS) {
    this.#store = store;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  /** True the first time this signature is seen before `untilMs`; false for a replay. */
  async firstTime(signature: string, untilMs: number, nowMs: number): Promise<boolean> {
    this.#forget(nowMs);
    const known = this.#seen.get(signature);
    if (known !== undefined && known >= nowMs) return false;
    this.#seen.set(signature, untilMs);
    this.#order.push(signature);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.#timeoutMs);
    });
    try {
      const fresh = await Promise.race([this.#store.rememberSignature(signature, new Date(untilMs), new Date(nowMs)), timedOut]);
      if (fresh === 'timeout') throw new Error(`no answer within ${this.#timeoutMs} ms`);
      this.#recovered();
      return fresh;
    } catch (error) {
      // Failing open on the store, closed on this instance: see the module comment.
      if (!this.#storeTrouble) this.#logger.warn({ error }, 'replay check: the store did not answer; checking on this instance only');
      this.#storeTrouble = true;
      return true;
    } finally {
      clearTimeout(timer);
    }
  }

  #recovered(): void {
    if (!this.#storeTrouble) return;
    this.#storeTrouble = false;
    this.#logger.info({}, 'replay check: the store answers again');
  }

  #forget(nowMs: number): void {
    const order = this.#order;
    while (this.#head < order.length) {
      const signature = order[this.#head] as string;
      // A signature seen again after its time is in the map with its later time: kept until then.
      const until = this.#seen.get(signature);
      if (until !== undefined && until >= nowMs && this.#seen.size <= MAX_REMEMBERED) break;
      this.#seen.delete(signature);
      this.#head++;
    }
    // The forgotten front dropped once it is most of the array, so each entry is copied about once.
    if (this.#head > 1024 && this.#head * 2 > order.length) {
      this.#order = order.slice(this.#head);
      this.#head = 0;
    }
  }
}

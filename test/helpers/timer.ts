/**
 * A Timer that tests move by hand: nothing sleeps for real, so a Retry-After of seconds costs a
 * test nothing, and what a sleeper does is seen at the time it woke on this clock.
 */

import type { Timer } from '../../src/runtime/timer.js';
import { eventually } from './eventually.js';

export class ManualTimer implements Timer {
  #ms = 0;
  #sleepers: Array<{ at: number; wake: () => void }> = [];

  now = (): number => this.#ms;

  sleep = (ms: number): Promise<void> =>
    ms <= 0 ? Promise.resolve() : new Promise((wake) => this.#sleepers.push({ at: this.#ms + ms, wake }));

  /** How many wait on this clock now. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  /** Moves the clock on by `ms`, waking those due by then. */
  advance(ms: number): void {
    this.#ms += ms;
    const due = this.#sleepers.filter((s) => s.at <= this.#ms);
    this.#sleepers = this.#sleepers.filter((s) => s.at > this.#ms);
    for (const s of due.sort((a, b) => a.at - b.at)) s.wake();
  }

  /** Moves the clock to the soonest sleeper's time, waking it (and any due then too). */
  next(): void {
    const soonest = Math.min(...this.#sleepers.map((s) => s.at));
    if (Number.isFinite(soonest)) this.advance(soonest - this.#ms);
  }

  /**
   * Sees `work` to its end, moving the clock to the next sleeper's time whenever something sleeps:
   * time passes only while the work waits on it, however long it is asked to wait.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    work.then(
      () => (done = true),
      () => (done = true),
    );
    for (;;) {
      await eventually(`the work to end or sleep (the clock at ${this.#ms} ms)`, () => done || this.sleeping > 0);
      if (done) return work;
      this.next();
      // What woke goes on (and perhaps sleeps again) before the clock moves further.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

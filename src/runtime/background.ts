/**
 * Work that runs after Slack's ack: tracked so that shutdown can wait for it, and guarded so that
 * whatever escapes it reaches the log and, when it can, the user.
 */

import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

export class Background {
  readonly #running = new Set<Promise<void>>();
  readonly #logger: Logger;
  readonly #metrics: Metrics | undefined;

  constructor(logger: Logger, metrics?: Metrics) {
    this.#logger = logger;
    this.#metrics = metrics;
  }

  /**
   * `answer` is called with any error that escapes `work`, so that the user hears of it too
   * (a store that went away, say); if answering fails as well, the log is all that is left.
   */
  run(name: string, work: () => Promise<void>, answer?: (error: unknown) => Promise<void>): void {
    // The request this work belongs to is counted in the metrics only when the work has ended.
    const release = this.#metrics?.hold();
    let failed = false;
    const task = work()
      .catch(async (error: unknown) => {
        failed = true;
        this.#logger.error({ task: name, error }, 'background task failed');
        if (answer)
          await answer(error).catch((again: unknown) => this.#logger.error({ task: name, error: again }, 'could not tell the user either'));
      })
      .finally(() => {
        this.#running.delete(task);
        release?.(failed);
      });
    this.#running.add(task);
  }

  get size(): number {
    return this.#running.size;
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}

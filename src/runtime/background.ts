/**
 * Work that runs after Slack's ack: tracked so that shutdown can wait for it, and guarded so that
 * whatever escapes it reaches the log and, when it can, the user.
 */

import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** What a request's handler may do with work after the ack. */
export interface BackgroundWork {
  /**
   * `answer` is called with any error that escapes `work`, so that the user hears of it too
   * (a store that went away, say); if answering fails as well, the log is all that is left.
   */
  run(name: string, work: () => Promise<void>, answer?: (error: unknown) => Promise<void>): void;
  /** Work of every request still running. */
  readonly size: number;
  /**
   * The same, for one request: failures are logged with the request's logger, and the request is
   * counted in its metrics only once its work here has ended too.
   */
  forRequest(logger: Logger, metrics: Metrics): BackgroundWork;
  /** Resolves once no work of any request is left. */
  drain(): Promise<void>;
}

export class Background implements BackgroundWork {
  readonly #running = new Set<Promise<void>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  run(name: string, work: () => Promise<void>, answer?: (error: unknown) => Promise<void>): void {
    this.start(name, work, answer, this.#logger, undefined);
  }

  forRequest(logger: Logger, metrics: Metrics): BackgroundWork {
    return new RequestWork(this, logger, metrics);
  }

  /**
   * Runs `work`, its failures logged with `logger`, `release` called once it has ended. Public for
   * RequestWork, a request's view of this, which is a class of its own rather than a closure per request.
   */
  start(
    name: string,
    work: () => Promise<void>,
    answer: ((error: unknown) => Promise<void>) | undefined,
    logger: Logger,
    release: ((failed?: boolean) => void) | undefined,
  ): void {
    let failed = false;
    const task = work()
      .catch(async (error: unknown) => {
        failed = true;
        logger.error({ task: name, error }, 'background task failed');
        if (answer)
          await answer(error).catch((again: unknown) => logger.error({ task: name, error: again }, 'could not tell the user either'));
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

/**
 * One request's view of the work after the ack. A class, not an object literal with a getter for
 * `size`: V8 builds such a literal slowly, half a microsecond a request.
 */
class RequestWork implements BackgroundWork {
  readonly #background: Background;
  readonly #logger: Logger;
  readonly #metrics: Metrics;

  constructor(background: Background, logger: Logger, metrics: Metrics) {
    this.#background = background;
    this.#logger = logger;
    this.#metrics = metrics;
  }

  run(name: string, work: () => Promise<void>, answer?: (error: unknown) => Promise<void>): void {
    this.#background.start(name, work, answer, this.#logger, this.#metrics.hold());
  }

  get size(): number {
    return this.#background.size;
  }

  forRequest(logger: Logger, metrics: Metrics): BackgroundWork {
    return this.#background.forRequest(logger, metrics);
  }

  drain(): Promise<void> {
    return this.#background.drain();
  }
}

/** Background work counted by kind, so that a stop that runs out of time can say what it gave up. */
export class CountedBackground extends Background {
  readonly #kinds = new Map<string, number>();

  override start(...[name, work, ...rest]: Parameters<Background['start']>): void {
    this.#kinds.set(name, (this.#kinds.get(name) ?? 0) + 1);
    const counted = async () => {
      try {
        await work();
      } finally {
        const left = (this.#kinds.get(name) ?? 1) - 1;
        if (left === 0) this.#kinds.delete(name);
        else this.#kinds.set(name, left);
      }
    };
    super.start(name, counted, ...rest);
  }

  kinds(): Record<string, number> {
    return Object.fromEntries(this.#kinds);
  }
}

/**
 * A job that runs every so often in each instance (reminders, run-status polling): ticks never
 * overlap, the timer never keeps the process alive, stop() waits for a tick in progress, and a
 * test may call tick() itself on a clock of its own.
 */
export class Ticker<R> {
  readonly #intervalMs: number;
  readonly #work: () => Promise<R>;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<R> | undefined;
  #stopped = false;

  constructor(intervalMs: number, work: () => Promise<R>) {
    this.#intervalMs = intervalMs;
    this.#work = work;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = setInterval(() => {
      if (this.#running === undefined) void this.tick().catch(() => undefined);
    }, this.#intervalMs);
    this.#timer.unref();
    // Work that came due while no instance ran is taken at once.
    void this.tick().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** Runs the work now; a call during a tick waits for it, then runs its own. */
  async tick(): Promise<R> {
    while (this.#running !== undefined) await this.#running.catch(() => undefined);
    this.#running = this.#work().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}

/** Runs `handle` over `items` with at most `concurrency` at once. */
export async function eachLimited<T>(items: readonly T[], concurrency: number, handle: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await handle(item);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

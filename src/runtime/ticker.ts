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

/**
 * The workers of one tick of a leased job (arrival checks, digests): one takes work until it finds
 * some, so an idle tick costs one look; then the others join it, and `renew` keeps the leases this
 * instance holds from running out under a long queue, every `renewMs` until the last worker is done.
 * `step` takes and handles one item, calls `found` once it holds one, and returns false when there
 * is nothing more to take, which ends every worker's loop after its current item.
 */
export async function leasedWorkers(
  o: { workers: number; renewMs: number; renew: () => void; stopped: () => boolean },
  step: (found: () => void) => Promise<boolean>,
): Promise<void> {
  let more = true;
  let joined: Promise<void>[] = [];
  // Started once, by the first item found: with one worker as with many, one renewal for the tick.
  let renewal: NodeJS.Timeout | undefined;
  const found = () => {
    if (renewal !== undefined) return;
    renewal = setInterval(o.renew, o.renewMs);
    renewal.unref();
    joined = Array.from({ length: o.workers - 1 }, work);
  };
  const work = async (): Promise<void> => {
    while (more && !o.stopped()) if (!(await step(found))) more = false;
  };
  try {
    await work();
    await Promise.all(joined);
  } finally {
    if (renewal !== undefined) clearInterval(renewal);
  }
}

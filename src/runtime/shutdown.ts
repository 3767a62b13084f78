/**
 * A graceful stop, in the order the composition root lists: each part stops in turn, the whole
 * bounded by a limit past which the work still in flight is given up (and said, by kind); then the
 * clients close together, within a moment. One part that fails to stop is logged, and the next is
 * still stopped.
 */

import type { Logger } from './logger.js';

/** A part that stops or closes, named for the log: what a stop that runs out of time was still waiting for. */
export type Part = readonly [what: string, stop: () => Promise<void>];

export interface StopPlan {
  logger: Logger;
  /** SHUTDOWN_TIMEOUT: how long the steps may take together. */
  limitMs: number;
  /** Stopped one after the other, in this order. */
  steps: readonly Part[];
  /** The work in flight, as the steps finish it: what is left when the limit is reached is given up. */
  inFlight: { readonly size: number; kinds(): Record<string, number> };
  /** Called once the limit is reached, before the clients close: the listener lets go of what it still holds. */
  abandon(): void;
  /** Closed together after the steps, each within a moment. */
  closers: readonly Part[];
}

export interface Stopper {
  /** Runs the plan once; later calls get the same promise. */
  stop(): Promise<void>;
  /** After stop(): the requests still being worked on when it ran out of time, and given up. */
  readonly abandoned: number;
}

/** How long the clients are given to close at the end of a stop; once work has been given up, only a moment. */
const CLOSE_GRACE_MS = 2_000;
const ABANDONED_CLOSE_GRACE_MS = 250;

export function gracefulStop(plan: StopPlan): Stopper {
  const { logger } = plan;
  let stopping: Promise<void> | undefined;
  let abandoned = 0;
  const run = async () => {
    logger.info({ inFlight: plan.inFlight.size }, 'shutting down: no new requests, finishing in-flight work');
    const waitingFor = new Set<string>();
    const step = async ([what, work]: Part) => {
      waitingFor.add(what);
      try {
        await work();
      } catch (error) {
        logger.warn({ error, what }, 'could not stop cleanly');
      } finally {
        waitingFor.delete(what);
      }
    };
    const graceful = (async () => {
      for (const part of plan.steps) await step(part);
    })();
    const finished = await within(plan.limitMs, graceful);
    abandoned = finished ? 0 : plan.inFlight.size;
    if (!finished) {
      logger.warn(
        { limitMs: plan.limitMs, inFlight: abandoned, kinds: plan.inFlight.kinds(), waitingFor: [...waitingFor] },
        'shutdown limit reached: abandoning the work still in flight',
      );
      plan.abandon();
    }
    // Closed together, within a moment: a client with a call that hangs (work just given up) never
    // finishes closing, and the exit that follows ends it anyway.
    const left = await Promise.all(
      plan.closers.map(async ([what, close]) => {
        const closed = await within(
          finished ? CLOSE_GRACE_MS : ABANDONED_CLOSE_GRACE_MS,
          close().catch((error: unknown) => logger.warn({ error, what }, 'could not close')),
        );
        return closed ? [] : [what];
      }),
    );
    if (left.flat().length > 0) logger.warn({ open: left.flat() }, 'not closed in time; left to the exit');
    logger.info({ abandoned }, 'stopped');
  };
  return {
    stop() {
      stopping ??= run();
      return stopping;
    },
    get abandoned() {
      return abandoned;
    },
  };
}

/** Whether `work` settled within `ms` (a rejection counts as settled: it is the caller's to report). */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

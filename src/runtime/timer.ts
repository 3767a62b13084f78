/**
 * Waiting, for the parts that pace their calls or wait out a Retry-After: a monotonic clock and a
 * sleep on it, passed in like the wall clock, so that a test moves it by hand instead of waiting
 * out real seconds. main.ts passes realTimer.
 */
export interface Timer {
  /** Milliseconds on a monotonic clock, as performance.now() counts them. */
  now(): number;
  /** Resolves once `ms` have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const realTimer: Timer = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

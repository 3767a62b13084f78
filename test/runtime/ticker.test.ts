/**
 * The workers of a leased job's tick (runtime/ticker.ts leasedWorkers): an idle tick is one look,
 * the others join once something is found, every item is handled once, and the lease renewal runs
 * while they work and is gone when the tick is, with one worker as with several.
 */

import { afterEach, describe, expect, it, vi } from 'vitest';
import { leasedWorkers } from '../../src/runtime/ticker.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A queue of `n` items the step takes one at a time; each handled item waits for a turn of the loop. */
function queue(n: number) {
  const left = Array.from({ length: n }, (_, i) => i);
  const handled: number[] = [];
  const looks = { count: 0 };
  const step = async (found: () => void): Promise<boolean> => {
    looks.count++;
    await Promise.resolve();
    const item = left.shift();
    if (item === undefined) return false;
    found();
    await new Promise((resolve) => setImmediate(resolve));
    handled.push(item);
    return true;
  };
  return { step, handled, looks };
}

describe('leasedWorkers', () => {
  it('looks once on an idle tick, and starts no renewal', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const q = queue(0);
    const renew = vi.fn();
    await leasedWorkers({ workers: 4, renewMs: 1000, renew, stopped: () => false }, q.step);
    expect(q.looks.count).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('handles every item once, renews while the workers run, and leaves no renewal behind, whatever the number of workers', async () => {
    for (const workers of [1, 3]) {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const q = queue(7);
      const renew = vi.fn();
      const running = leasedWorkers({ workers, renewMs: 1000, renew, stopped: () => false }, async (found) => {
        const more = await q.step(found);
        // Time passes while an item is handled: the renewal is due.
        if (more) vi.advanceTimersByTime(1000);
        return more;
      });
      await running;
      expect(q.handled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(renew).toHaveBeenCalled();
      expect(vi.getTimerCount()).toBe(0);
      vi.useRealTimers();
    }
  });

  it('takes nothing more once stopped', async () => {
    const q = queue(5);
    let stopped = false;
    await leasedWorkers({ workers: 2, renewMs: 1000, renew: () => {}, stopped: () => stopped }, async (found) => {
      const more = await q.step(found);
      stopped = true;
      return more;
    });
    expect(q.handled.length).toBeLessThanOrEqual(2);
  });
});

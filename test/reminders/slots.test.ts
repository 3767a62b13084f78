/**
 * ServiceSlots on a real store (SQLite in memory): the limit holds across owners sharing the
 * store, a slot given back goes to whoever waits, a stop turns waiters away, a long call keeps its
 * slot, and an owner that died loses its slots when their lease runs out.
 */

import { describe, expect, it } from 'vitest';
import { ServiceSlots, SlotsStoppedError } from '../../src/reminders/slots.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';

const logger = createLogger({ level: 'error', write: () => {} });

function setUp() {
  const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 6).toString('base64')));
  const clock = new TestClock('2026-11-23T09:00:00Z');
  const slots = (owner: string, limit: number, leaseMs = 60_000) =>
    new ServiceSlots({ store, owner, limit, now: clock.now, logger, leaseMs, pollMs: 5 });
  return { store, clock, slots };
}

const settled = async <T>(p: Promise<T>) => {
  let done = false;
  void p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 30));
  return done;
};

describe('ServiceSlots', () => {
  it('lets `limit` calls in at once across owners, and gives a slot back to whoever waits, here or on another', async () => {
    const t = setUp();
    const a = t.slots('a', 2);
    const b = t.slots('b', 2);
    const first = await a.acquire();
    const second = await b.acquire();
    const third = a.acquire();
    const fourth = b.acquire();
    expect(await settled(third)).toBe(false);
    expect(await settled(fourth)).toBe(false);
    // A's slot goes to A's waiter at once; B's waiter gets B's.
    await first.release();
    const handed = await third;
    await second.release();
    const polled = await fourth;
    // Once released for good, the store has both free again.
    await handed.release();
    await polled.release();
    await handed.release();
    const c = t.slots('c', 2);
    const [x, y] = [await c.acquire(), await c.acquire()];
    expect(await settled(c.acquire())).toBe(false);
    await x.release();
    await y.release();
  });

  it('turns waiters away when stopped, and takes no slot after', async () => {
    const t = setUp();
    const slots = t.slots('a', 1);
    const held = await slots.acquire();
    const waiting = slots.acquire();
    slots.stop();
    await expect(waiting).rejects.toBeInstanceOf(SlotsStoppedError);
    await expect(slots.acquire()).rejects.toBeInstanceOf(SlotsStoppedError);
    await held.release();
    expect(await t.store.takeServiceSlot('other', 1, t.clock.now(), new Date(t.clock.now().getTime() + 1000))).toBe(0);
  });

  it('frees the slots of an owner that died once their lease runs out, and keeps a live owner’s by renewing', async () => {
    const t = setUp();
    // An instance that took the slot and died: nobody renews it.
    await t.store.takeServiceSlot('dead', 1, t.clock.now(), new Date(t.clock.now().getTime() + 300));
    const live = t.slots('live', 1, 300);
    const waiting = live.acquire();
    expect(await settled(waiting)).toBe(false);
    t.clock.advance(300);
    const taken = await waiting;
    // Past the live owner's first lease: it renews every third of a lease (real timers), so the slot stays its own.
    t.clock.advance(500);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await t.store.takeServiceSlot('someone', 1, t.clock.now(), new Date(t.clock.now().getTime() + 1000))).toBeUndefined();
    await taken.release();
    expect(await t.store.takeServiceSlot('someone', 1, t.clock.now(), new Date(t.clock.now().getTime() + 1000))).toBe(0);
  });
});

/**
 * The scheduler's decisions with a fake service and Slack (the store is a real SQLite file in
 * memory): what is retried, what is given up, what is sent, and that the query is the digest's.
 */

import { describe, expect, it } from 'vitest';
import { storedTokens } from '../../src/accounts/credentials.js';
import type { Digest } from '../../src/reminders/digest.js';
import { ReminderScheduler, type TickReport } from '../../src/reminders/scheduler.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { type Approval, type ApprovalQuery, type ServiceClient, ServiceUnavailableError } from '../../src/service/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';

const WHO = { teamId: 'T1', userId: 'UADA' };
const approval = (due: string, i: number): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'Manager Approval',
  requestName: `Request ${i}`,
  dueDate: `${due} 10:00:00.0`,
  completedDate: '',
  fields: {},
});

function build(answer: (query: ApprovalQuery, signal: AbortSignal | undefined) => Promise<Approval[]>) {
  const clock = new TestClock('2026-11-23T08:00:00Z');
  const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 3).toString('base64')));
  const queries: ApprovalQuery[] = [];
  const dms: Array<{ userId: string; digest?: Digest; relink?: string }> = [];
  const service = {
    findApprovals: async (query: ApprovalQuery, _token: unknown, options?: { signal?: AbortSignal }) => {
      queries.push(query);
      const approvals = await answer(query, options?.signal);
      return { approvals, count: approvals.length };
    },
  } as unknown as ServiceClient;
  const scheduler = new ReminderScheduler({
    store,
    service,
    credentials: storedTokens(store),
    logger: createLogger({ level: 'error', write: () => {} }),
    now: clock.now,
    timeZones: { lookup: async () => 'Europe/London' },
    outbox: {
      digest: async (userId, digest) => void dms.push({ userId, digest }),
      relink: async (userId, reason) => void dms.push({ userId, relink: reason }),
    },
    owner: 'test',
    windowDays: 3,
    serviceTimeZone: undefined,
    spreadMs: 0,
    retryMs: 10 * 60_000,
    giveUpAfterMs: 60 * 60_000,
  });
  const setUp = async () => {
    await store.setToken(WHO, ['findApprovals'], new Secret('tok'), 'admin', clock.now());
    const schedule = { days: 'daily' as const, minuteOfDay: 540, timeZone: 'Europe/London' };
    await store.setReminder({ ...WHO, ...schedule, ...scheduler.plan(WHO, schedule, clock.now()) });
  };
  return { clock, store, scheduler, queries, dms, setUp };
}

describe('ReminderScheduler', () => {
  it('asks for pending approvals due within the window, soonest first, and sends nothing when none are due', async () => {
    const t = build(async () => [approval('2026-12-20', 1)]);
    await t.setUp();
    t.clock.advance(3_600_000 + 1000);
    expect(await t.scheduler.tick()).toMatchObject({ taken: 1, quiet: 1, sent: 0 });
    // Monday the 23rd: a window of 3 days is today and the two after it.
    expect(t.queries).toEqual([{ state: 'pending', sort: 'asc', 'page-size': 100, 'due-before': '25-nov-2026' }]);
    expect(t.dms).toHaveLength(0);
    expect((await t.store.getReminder(WHO))?.nextAt.toISOString()).toBe('2026-11-24T09:00:00.000Z');
  });

  it('asks again from today when the hundred soonest are all overdue, so that the digest still counts today’s and soon’s', async () => {
    const t = build(async (query) =>
      query['due-after'] === undefined
        ? Array.from({ length: 100 }, (_, i) => approval('2026-11-01', i))
        : [approval('2026-11-23', 100), approval('2026-11-24', 101), approval('2026-11-25', 102)],
    );
    await t.setUp();
    t.clock.advance(3_600_000 + 1000);
    expect(await t.scheduler.tick()).toMatchObject({ sent: 1 });
    const window = { state: 'pending', sort: 'asc', 'page-size': 100, 'due-before': '25-nov-2026' };
    expect(t.queries).toEqual([window, { ...window, 'due-after': '23-nov-2026' }]);
    const groups = t.dms[0]?.digest?.groups;
    expect(groups?.overdue).toMatchObject({ more: true });
    expect(groups?.overdue.approvals).toHaveLength(100);
    expect(groups?.today).toEqual({ approvals: [approval('2026-11-23', 100)], more: false });
    expect(groups?.soon).toEqual({ approvals: [approval('2026-11-24', 101), approval('2026-11-25', 102)], more: false });
  });

  it('retries a service that does not answer, then gives the day up once the digest would be too late', async () => {
    let down = true;
    const t = build(async () => {
      if (down) throw new ServiceUnavailableError('network', 'The Command Service could not be reached', { command: 'findApprovals' });
      return [approval('2026-11-22', 1)];
    });
    await t.setUp();
    t.clock.advance(3_600_000 + 1000);
    expect(await t.scheduler.tick()).toMatchObject({ retried: 1 });
    expect((await t.store.getReminder(WHO))?.dueAt.toISOString()).toBe('2026-11-23T09:10:01.000Z');
    expect((await t.scheduler.tick()).taken).toBe(0);
    // Back within the hour: the digest goes out, late but useful.
    down = false;
    t.clock.advance(10 * 60_000);
    expect(await t.scheduler.tick()).toMatchObject({ sent: 1 });
    expect(t.dms[0]?.digest?.groups.overdue.approvals).toHaveLength(1);
    // Next day the service is down all morning: tried, then skipped; Wednesday's is next.
    down = true;
    t.clock.advance(24 * 3_600_000 - 10 * 60_000);
    expect(await t.scheduler.tick()).toMatchObject({ retried: 1 });
    t.clock.advance(61 * 60_000);
    expect(await t.scheduler.tick()).toMatchObject({ skipped: 1 });
    expect((await t.store.getReminder(WHO))?.nextAt.toISOString()).toBe('2026-11-25T09:00:00.000Z');
    expect(t.dms).toHaveLength(1);
  });

  it('stops without waiting for a digest whose call to the service hangs: the call is cancelled, and the reminder goes back as it was', async () => {
    let callStarted: () => void = () => {};
    const underWay = new Promise<void>((resolve) => {
      callStarted = resolve;
    });
    let signal: AbortSignal | undefined;
    // A service that never answers: only the caller's signal ends the call, as the client's does.
    const t = build((_query, s) => {
      signal = s;
      callStarted();
      return new Promise((_, reject) =>
        s?.addEventListener('abort', () =>
          reject(new ServiceUnavailableError('aborted', 'The call to the Command Service was cancelled.', { command: 'findApprovals' })),
        ),
      );
    });
    await t.setUp();
    t.clock.advance(3_600_000 + 1000);
    const tick = t.scheduler.tick();
    await underWay;
    // Were the call not cancelled, this would wait for SERVICE_TIMEOUT, past a short SHUTDOWN_TIMEOUT.
    await t.scheduler.stop();
    expect(signal?.aborted).toBe(true);
    expect(await tick).toMatchObject({ taken: 1, retried: 1 });
    expect(t.dms).toHaveLength(0);
    // Due as it was, not put off by the retry delay: another instance takes it at once.
    expect((await t.store.getReminder(WHO))?.dueAt.toISOString()).toBe('2026-11-23T09:00:00.000Z');
  });

  it('does not send a digest another taker already handed to Slack', async () => {
    const t = build(async () => [approval('2026-11-22', 1)]);
    await t.setUp();
    t.clock.advance(3_600_000 + 1000);
    // A taker that marked the digest sent, then died before moving the reminder on.
    await t.store.claimDueReminders(t.clock.now(), 'dead', new Date(t.clock.now().getTime() + 1000), 10);
    expect(await t.store.markReminderSending(WHO, 'dead', new Date('2026-11-23T09:00:00Z'))).toBe(true);
    t.clock.advance(2000);
    expect(await t.scheduler.tick()).toMatchObject({ taken: 1, skipped: 1 });
    expect(t.dms).toHaveLength(0);
    expect((await t.store.getReminder(WHO))?.nextAt.toISOString()).toBe('2026-11-24T09:00:00.000Z');
  });
});

describe('ReminderScheduler under load', () => {
  /** `users` reminders at 09:00 London on one store; schedulers made by `scheduler()` share it, as instances share a database. */
  function many(users: number, serviceMs: number) {
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 5).toString('base64')));
    const load = { inFlight: 0, max: 0, calls: 0 };
    const service = {
      findApprovals: async () => {
        load.calls++;
        load.max = Math.max(load.max, ++load.inFlight);
        await new Promise((resolve) => setTimeout(resolve, serviceMs));
        load.inFlight--;
        return { approvals: [approval('2026-11-22', 1)], count: 1 };
      },
    } as unknown as ServiceClient;
    const dms: string[] = [];
    let gate: Promise<void> = Promise.resolve();
    const scheduler = (owner: string, concurrency: number, leaseMs = 5 * 60_000) =>
      new ReminderScheduler({
        leaseMs,
        store,
        service,
        credentials: storedTokens(store),
        logger: createLogger({ level: 'error', write: () => {} }),
        now: clock.now,
        timeZones: { lookup: async () => 'Europe/London' },
        outbox: {
          digest: async (userId) => {
            dms.push(userId);
            await gate;
          },
          relink: async () => {},
        },
        owner,
        windowDays: 3,
        serviceTimeZone: undefined,
        concurrency,
      });
    const setUp = async () => {
      const planner = scheduler('setup', 1);
      for (let i = 0; i < users; i++) {
        const who = { teamId: 'T1', userId: `U${String(i).padStart(3, '0')}` };
        await store.setToken(who, ['findApprovals'], new Secret(`tok-${i}`), 'admin', clock.now());
        const schedule = { days: 'daily' as const, minuteOfDay: 540, timeZone: 'Europe/London' };
        await store.setReminder({ ...who, ...schedule, ...planner.plan(who, schedule, clock.now()) });
      }
      clock.advance(3_600_000 + 2_000);
    };
    return {
      clock,
      store,
      load,
      dms,
      scheduler,
      setUp,
      closeGate: () => {
        let open = () => {};
        gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        return open;
      },
    };
  }

  it('keeps the service calls of two instances within the one concurrency they share, and sends each digest once', async () => {
    const t = many(30, 15);
    await t.setUp();
    const [a, b] = [t.scheduler('instance-a', 3), t.scheduler('instance-b', 3)];
    const reports = await Promise.all([a.tick(), b.tick()]);
    expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(30);
    expect(t.load.calls).toBe(30);
    // Three at once, on both together: not six (three each), and not fewer than asked for.
    expect(t.load.max).toBe(3);
    expect(new Set(t.dms).size).toBe(30);
    expect(t.dms).toHaveLength(30);
    // Every slot was given back, and every lease: another tick can use all three.
    expect(await t.store.takeServiceSlot('check', 3, new Date('2026-11-23T09:00:02Z'), new Date('2026-11-23T09:01:00Z'))).toBe(0);
  });

  it('gives the service slot back before the digest goes to Slack, so a slow Slack does not idle the service', async () => {
    const t = many(8, 1);
    await t.setUp();
    const open = t.closeGate();
    const scheduler = t.scheduler('instance-a', 2);
    const tick = scheduler.tick();
    // Slack takes nothing: all eight digests wait on it, the service has answered all eight, and
    // nothing is in flight there: the two slots were not held while Slack was.
    await eventually('eight digests waiting on Slack', () => t.dms.length >= 8);
    expect(t.load.calls).toBe(8);
    expect(t.load.inFlight).toBe(0);
    open();
    expect(await tick).toMatchObject({ taken: 8, sent: 8 });
    expect(t.load.max).toBeLessThanOrEqual(2);
  });

  it('asks the store once on a tick with nothing due (no slot), and takes due reminders one after another until none is left', async () => {
    const t = many(12, 1);
    await t.setUp();
    const scheduler = t.scheduler('instance-a', 2);
    // Twelve in one tick, by its eight workers: each took another once done with one, until none was left.
    expect(await scheduler.tick()).toMatchObject({ taken: 12, sent: 12 });
    expect(new Set(t.dms).size).toBe(12);
    for (const userId of t.dms)
      expect((await t.store.getReminder({ teamId: 'T1', userId }))?.nextAt.toISOString()).toBe('2026-11-24T09:00:00.000Z');

    // A day later, one reminder per claim, not a batch: while each worker's digest waits on Slack,
    // the four reminders no worker has taken yet are another instance's to take.
    t.clock.advance(24 * 3_600_000);
    const open = t.closeGate();
    const tick = scheduler.tick();
    await eventually('eight digests waiting on Slack', () => t.dms.length === 12 + 8);
    const other = t.scheduler('instance-b', 2).tick();
    await eventually('the other four taken by instance-b', () => t.dms.length === 12 + 12);
    open();
    expect([(await tick).taken, (await other).taken]).toEqual([8, 4]);
    expect(new Set(t.dms.slice(12)).size).toBe(12);

    // Nothing due: no service slot is asked for, so the tick ends though another instance holds every one.
    const now = t.clock.now();
    for (let i = 0; i < 2; i++) expect(await t.store.takeServiceSlot('busy', 2, now, new Date(now.getTime() + 3_600_000))).toBe(i);
    let idle: TickReport | undefined;
    void scheduler.tick().then((report) => {
      idle = report;
    });
    expect(await eventually('the tick with nothing due to end, every service slot held elsewhere', () => idle)).toMatchObject({
      taken: 0,
      failed: 0,
    });
    // And the store is asked once: when it cannot answer, the tick meets one failure, not one per worker.
    await t.store.close();
    expect(await scheduler.tick()).toMatchObject({ taken: 0, failed: 1 });
  });

  it('keeps the lease of a reminder whose digest waits its turn at the service, however long the wait', async () => {
    const t = many(1, 1);
    await t.setUp();
    // Another instance holds the only slot.
    const now = t.clock.now();
    expect(await t.store.takeServiceSlot('busy', 1, now, new Date(now.getTime() + 3_600_000))).toBe(0);
    const waiting = t.scheduler('instance-a', 1, 300);
    const tick = waiting.tick();
    // Well past its first lease, in steps shorter than one, each followed by a renewal (every 100 ms).
    for (let i = 0; i < 5; i++) {
      t.clock.advance(250);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(await t.scheduler('instance-b', 1, 300).tick()).toMatchObject({ taken: 0 });
    await t.store.releaseServiceSlot('busy', 0);
    expect(await tick).toMatchObject({ taken: 1, sent: 1 });
    expect(t.dms).toHaveLength(1);
  });
});

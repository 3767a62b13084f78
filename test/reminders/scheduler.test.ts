/**
 * The scheduler's decisions with a fake service and Slack (the store is a real SQLite file in
 * memory): what is retried, what is given up, what is sent, and that the query is the digest's.
 */

import { describe, expect, it } from 'vitest';
import { storedTokens } from '../../src/accounts/credentials.js';
import type { Digest } from '../../src/reminders/digest.js';
import { ReminderScheduler } from '../../src/reminders/scheduler.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { type Approval, type ApprovalQuery, type ServiceClient, ServiceUnavailableError } from '../../src/service/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';

const WHO = { teamId: 'T1', userId: 'UADA' };
const approval = (due: string, i: number): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'Manager Approval',
  requestName: `Request ${i}`,
  dueDate: `${due} 10:00:00.0`,
  completedDate: '',
  fields: {},
});

function build(answer: (query: ApprovalQuery) => Promise<Approval[]>) {
  const clock = new TestClock('2026-11-23T08:00:00Z');
  const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 3).toString('base64')));
  const queries: ApprovalQuery[] = [];
  const dms: Array<{ userId: string; digest?: Digest; relink?: string }> = [];
  const service = {
    findApprovals: async (query: ApprovalQuery) => {
      queries.push(query);
      const approvals = await answer(query);
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
    expect(t.queries).toEqual([{ state: 'pending', sort: 'asc', 'page-size': 100, 'due-before': '26-nov-2026' }]);
    expect(t.dms).toHaveLength(0);
    expect((await t.store.getReminder(WHO))?.nextAt.toISOString()).toBe('2026-11-24T09:00:00.000Z');
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
    expect(t.dms[0]?.digest?.groups.overdue).toHaveLength(1);
    // Next day the service is down all morning: tried, then skipped; Wednesday's is next.
    down = true;
    t.clock.advance(24 * 3_600_000 - 10 * 60_000);
    expect(await t.scheduler.tick()).toMatchObject({ retried: 1 });
    t.clock.advance(61 * 60_000);
    expect(await t.scheduler.tick()).toMatchObject({ skipped: 1 });
    expect((await t.store.getReminder(WHO))?.nextAt.toISOString()).toBe('2026-11-25T09:00:00.000Z');
    expect(t.dms).toHaveLength(1);
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

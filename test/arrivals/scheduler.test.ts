/**
 * The arrivals' checks with a scripted service and Slack (the store is real SQLite): what arrives,
 * what a check that changed nothing costs (one service call, no Slack call, no store write beyond
 * the claim), priming, quiet hours in the approver's zone, DMs redrawn when an approval leaves the
 * list or is decided from Slack, the relink message told once with the digests, and two
 * instances on one store.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { storedTokens } from '../../src/accounts/credentials.js';
import { afterDecision } from '../../src/arrivals/decided.js';
import { inQuietHours } from '../../src/arrivals/message.js';
import type { ArrivalMessage, ArrivalOutbox } from '../../src/arrivals/ports.js';
import { ArrivalScheduler } from '../../src/arrivals/scheduler.js';
import { changeNotify, notifySettings } from '../../src/arrivals/settings.js';
import { ReminderScheduler } from '../../src/reminders/scheduler.js';
import { ServiceSlots } from '../../src/reminders/slots.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Metrics } from '../../src/runtime/metrics.js';
import { Secret } from '../../src/runtime/secret.js';
import {
  type Approval,
  type ApprovalQuery,
  InvalidTokenError,
  type ServiceClient,
  ServiceUnavailableError,
} from '../../src/service/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-arrivals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = new Secret(Buffer.alloc(32, 9).toString('base64'));
const INTERVAL = 5 * 60_000;
const logger = createLogger({ level: 'error', write: () => {} });
let files = 0;

const approval = (id: number): Approval => ({
  workItemId: `${id}:WPDS:1`,
  workItemName: `Manager Approval ${id}`,
  requestName: `Request <${id}> & "more"`,
  dueDate: '2026-11-30 17:00:00.0',
  completedDate: '',
  fields: { RequestedByName: 'Lovelace, Ada' },
});

/** Every store method a test's check calls, by name, beside the store itself. */
function counted(store: Store): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

type Sent =
  | { kind: 'announce'; message: ArrivalMessage }
  | { kind: 'redraw'; ts: string; message: ArrivalMessage }
  | { kind: 'waiting'; userId: string; count: number }
  | { kind: 'relink'; userId: string; reason: string }
  | { kind: 'digest'; userId: string };

/** One world: a clock, a store file, a service whose lists the test sets per user, and Slack's sent messages. */
function world(start = '2026-11-23T12:00:00Z') {
  const clock = new TestClock(start);
  const path = join(dir, `w${++files}.db`);
  const lists = new Map<string, Approval[]>();
  const refused = new Set<string>();
  const serviceCalls: Array<{ token: string; query?: ApprovalQuery; details?: string }> = [];
  const details = new Map<string, { actions: string[]; lineItemApprovalEnabled?: boolean }>();
  const hangs = new Map<string, { started: () => void; signal: AbortSignal | undefined }>();
  /** The service takes the token's next calls and never answers them; resolves once one is under way. */
  const hang = (token: string) => {
    const h = { started: () => {}, signal: undefined as AbortSignal | undefined };
    const started = new Promise<void>((resolve) => {
      h.started = resolve;
    });
    hangs.set(token, h);
    return { started, call: h };
  };
  const service = {
    findApprovals: async (query: ApprovalQuery, token: Secret, options?: { signal?: AbortSignal }) => {
      serviceCalls.push({ token: token.reveal(), query });
      const hang = hangs.get(token.reveal());
      if (hang !== undefined) {
        // A service that never answers: only the caller's signal ends the call, as the client's does.
        hang.signal = options?.signal;
        hang.started();
        await new Promise((_, reject) =>
          options?.signal?.addEventListener('abort', () =>
            reject(new ServiceUnavailableError('aborted', 'The call to the Command Service was cancelled.', { command: 'findApprovals' })),
          ),
        );
      }
      if (refused.has(token.reveal()))
        throw new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'The token is invalid or expired.' });
      const all = lists.get(token.reveal()) ?? [];
      const size = query['page-size'] ?? 10;
      const page = all.slice(((query['start-page'] ?? 1) - 1) * size, (query['start-page'] ?? 1) * size);
      return { approvals: page, count: page.length };
    },
    getApprovalDetails: async (id: string, token: Secret) => {
      serviceCalls.push({ token: token.reveal(), details: id });
      return { workItemId: id, actions: ['Accepted', 'Rejected'], lineItemApprovalEnabled: false, ...details.get(id) };
    },
    offers: () => true,
  } as unknown as ServiceClient;
  const sent: Sent[] = [];
  const zones = new Map<string, string>();
  const zoneLookups: string[] = [];
  let ts = 0;
  const outbox: ArrivalOutbox & { digest: (u: string) => Promise<void>; relink: (u: string, r: string) => Promise<void> } = {
    announce: async (message) => {
      sent.push({ kind: 'announce', message });
      return { channel: `D${message.userId}`, ts: `1700000000.${String(++ts).padStart(6, '0')}` };
    },
    redraw: async (_channel, at, message) => {
      sent.push({ kind: 'redraw', ts: at, message });
      return 'updated';
    },
    alreadyWaiting: async (userId, count) => void sent.push({ kind: 'waiting', userId, count }),
    relink: async (userId, reason) => void sent.push({ kind: 'relink', userId, reason }),
    digest: async (userId) => void sent.push({ kind: 'digest', userId }),
  };
  const timeZones = {
    lookup: async (userId: string) => {
      zoneLookups.push(userId);
      return zones.get(userId);
    },
  };
  let ids = 0;
  const scheduler = (store: Store, owner = 'one', options: { decisionActions?: boolean; slots?: ServiceSlots } = {}) =>
    new ArrivalScheduler({
      deps: {
        store,
        service,
        credentials: storedTokens(store),
        logger,
        metrics: new Metrics({ defaultMetrics: false }),
        now: clock.now,
        newId: () => `m${++ids}`,
      },
      outbox,
      timeZones,
      owner,
      intervalMs: INTERVAL,
      slots: options.slots ?? new ServiceSlots({ store, owner, limit: 2, now: clock.now, logger }),
      serviceTimeZone: undefined,
      decisionActions: options.decisionActions ?? false,
      tickMs: 60_000,
    });
  const open = () => new SqliteStore(path, KEY, undefined, clock.now);
  /** Links the user with a token named after them; their list is what the service answers that token. */
  const link = async (store: Store, userId: string, list: Approval[]) => {
    lists.set(`tok-${userId}`, list);
    await store.setToken({ teamId: 'T1', userId }, ['findApprovals'], new Secret(`tok-${userId}`), 'login', clock.now());
  };
  const next = () => clock.advance(INTERVAL);
  return { clock, lists, refused, serviceCalls, details, sent, zones, zoneLookups, outbox, scheduler, open, link, next, service, hang };
}

const announced = (sent: Sent[]) => sent.flatMap((s) => (s.kind === 'announce' ? [s.message] : []));

describe('ArrivalScheduler', () => {
  it('primes on the first check with one line, then announces what arrives once, and a check that changed nothing costs one call, no Slack call and no write beyond the claim', async () => {
    const w = world();
    const { store, calls } = counted(w.open());
    const scheduler = w.scheduler(store);
    await w.link(store, 'UADA', [approval(1), approval(2)]);
    expect(await scheduler.tick()).toMatchObject({ checked: 1, primed: 1, serviceCalls: 1, messages: 0 });
    expect(w.sent).toEqual([{ kind: 'waiting', userId: 'UADA', count: 2 }]);

    w.lists.set('tok-UADA', [approval(1), approval(3), approval(2)]);
    w.next();
    expect(await scheduler.tick()).toMatchObject({ checked: 1, announced: 1, messages: 1 });
    expect(announced(w.sent)).toEqual([
      {
        userId: 'UADA',
        entries: [
          {
            approval: {
              approvalId: '3:WPDS:1',
              workItemName: 'Manager Approval 3',
              requestName: 'Request <3> & "more"',
              requestedBy: 'Lovelace, Ada',
              dueDate: '2026-11-30 17:00:00.0',
            },
            state: { kind: 'waiting', actions: [] },
          },
        ],
        more: 0,
        afterQuiet: false,
      },
    ]);

    // Unchanged: the claim, the link and what is remembered read, one service call under the shared bound's slot; nothing else.
    w.next();
    const before = { sent: w.sent.length, calls: w.serviceCalls.length };
    calls.length = 0;
    expect(await scheduler.tick()).toMatchObject({ checked: 1, unchanged: 1, serviceCalls: 1, messages: 0, redrawn: 0 });
    // (Whether one is due, and the claim, are the tick's, not the check's: the slot is taken before the claim.)
    expect(calls.filter((c) => c !== 'claimDueArrivalWatches' && c !== 'arrivalWatchDue')).toEqual([
      'takeServiceSlot',
      'getToken',
      'arrivalItems',
      'releaseServiceSlot',
    ]);
    expect(w.sent).toHaveLength(before.sent);
    expect(w.serviceCalls).toHaveLength(before.calls + 1);
    expect(w.zoneLookups).toEqual([]);
    // Not due again until the interval has passed: an idle tick is one read, and writes nothing.
    calls.length = 0;
    expect(await scheduler.tick()).toMatchObject({ checked: 0 });
    expect(calls).toEqual(['arrivalWatchDue']);
    await store.close();
  });

  it('sends nothing at priming when nothing waits, and lists several arrivals in one DM, five by name and the rest counted, with their decision buttons', async () => {
    const w = world();
    const store = w.open();
    const scheduler = w.scheduler(store, 'one', { decisionActions: true });
    await w.link(store, 'UADA', []);
    expect(await scheduler.tick()).toMatchObject({ primed: 1 });
    expect(w.sent).toEqual([]);
    w.lists.set(
      'tok-UADA',
      Array.from({ length: 7 }, (_, i) => approval(10 + i)),
    );
    w.details.set('11:WPDS:1', { actions: [], lineItemApprovalEnabled: true });
    w.next();
    expect(await scheduler.tick()).toMatchObject({ announced: 7, messages: 1, serviceCalls: 1 + 5 });
    const [message] = announced(w.sent);
    expect(message?.more).toBe(2);
    expect(message?.entries.map((e) => [e.approval.approvalId, e.state])).toEqual([
      ['10:WPDS:1', { kind: 'waiting', actions: ['Accepted', 'Rejected'] }],
      // Decided item by item, in the service: Details only.
      ['11:WPDS:1', { kind: 'waiting', actions: [] }],
      ['12:WPDS:1', { kind: 'waiting', actions: ['Accepted', 'Rejected'] }],
      ['13:WPDS:1', { kind: 'waiting', actions: ['Accepted', 'Rejected'] }],
      ['14:WPDS:1', { kind: 'waiting', actions: ['Accepted', 'Rejected'] }],
    ]);
    await store.close();
  });

  it('reads a list that fills a page page by page, and takes nothing for gone from a list cut short', async () => {
    const w = world();
    const store = w.open();
    const scheduler = w.scheduler(store);
    await w.link(
      store,
      'UADA',
      Array.from({ length: 150 }, (_, i) => approval(i)),
    );
    expect(await scheduler.tick()).toMatchObject({ primed: 1, serviceCalls: 2 });
    expect(w.serviceCalls.map((c) => c.query?.['start-page'])).toEqual([undefined, 2]);
    expect(w.sent).toEqual([{ kind: 'waiting', userId: 'UADA', count: 150 }]);
    await store.close();
  });

  it('holds what arrives in quiet hours, read in the approver’s own zone, and sends what still waits as one DM when they end (a range across midnight)', async () => {
    // 12:00 UTC: 07:00 in New York, in quiet hours 19:00–08:00; 17:30 in Kolkata, outside them.
    const w = world('2026-11-23T12:00:00Z');
    const store = w.open();
    const scheduler = w.scheduler(store);
    w.zones.set('UADA', 'America/New_York');
    w.zones.set('UBOB', 'Asia/Kolkata');
    await w.link(store, 'UADA', []);
    await w.link(store, 'UBOB', []);
    await scheduler.tick();
    for (const u of ['UADA', 'UBOB'])
      await changeNotify({ store, now: w.clock.now }, { teamId: 'T1', userId: u }, { quiet: { startMinute: 19 * 60, endMinute: 8 * 60 } });
    expect(await notifySettings({ store }, { teamId: 'T1', userId: 'UADA' })).toEqual({
      enabled: true,
      quiet: { startMinute: 1140, endMinute: 480 },
    });
    w.lists.set('tok-UADA', [approval(1), approval(2)]);
    w.lists.set('tok-UBOB', [approval(1)]);
    w.clock.advance(10 * 60_000);
    expect(await scheduler.tick()).toMatchObject({ checked: 2, held: 2, announced: 1, messages: 1 });
    expect(announced(w.sent).map((m) => [m.userId, m.afterQuiet])).toEqual([['UBOB', false]]);
    // Still quiet in New York at 07:40; one of the two held is decided in the service meanwhile.
    w.lists.set('tok-UADA', [approval(2)]);
    w.clock.advance(30 * 60_000);
    expect(await scheduler.tick()).toMatchObject({ messages: 0 });
    // 08:00 in New York: what still waits comes in one DM, said to come after the quiet hours.
    w.clock.advance(20 * 60_000);
    await scheduler.tick();
    const after = announced(w.sent).filter((m) => m.userId === 'UADA');
    expect(after).toEqual([expect.objectContaining({ afterQuiet: true, more: 0 })]);
    expect(after[0]?.entries.map((e) => e.approval.approvalId)).toEqual(['2:WPDS:1']);
    w.next();
    await scheduler.tick();
    expect(announced(w.sent)).toHaveLength(2);
    await store.close();
  });

  it('reads quiet hours on the approver’s wall clock: a range within a day, one across midnight, and none', () => {
    const at = new Date('2026-07-01T22:30:00Z');
    const day = { startMinute: 9 * 60, endMinute: 17 * 60 };
    const night = { startMinute: 22 * 60, endMinute: 7 * 60 };
    expect(inQuietHours(night, at, 'UTC')).toBe(true);
    expect(inQuietHours(night, at, 'Europe/London')).toBe(true); // 23:30 BST
    expect(inQuietHours(night, at, 'America/Los_Angeles')).toBe(false); // 15:30
    expect(inQuietHours(day, at, 'America/Los_Angeles')).toBe(true);
    expect(inQuietHours(day, at, 'Asia/Tokyo')).toBe(false); // 07:30 next day
    expect(inQuietHours(night, at, 'Asia/Tokyo')).toBe(false); // 07:30: the end is not quiet
    expect(inQuietHours(undefined, at, 'UTC')).toBe(false);
  });

  it('redraws a DM whose approval left the list as gone, and one decided from Slack with who decided what and when, for every approver it reached', async () => {
    const w = world();
    const store = w.open();
    const scheduler = w.scheduler(store);
    await w.link(store, 'UADA', []);
    await w.link(store, 'UBOB', []);
    await scheduler.tick();
    w.lists.set('tok-UADA', [approval(1), approval(2)]);
    w.lists.set('tok-UBOB', [approval(2)]);
    w.next();
    await scheduler.tick();
    expect(announced(w.sent)).toHaveLength(2);
    // Approval 2 decided from Slack by Ada: both DMs listing it say so at once.
    const decidedAt = w.clock.now();
    await store.claimDecision({
      approvalId: '2:WPDS:1',
      decisionId: 'd1',
      teamId: 'T1',
      userId: 'UADA',
      action: 'Accepted',
      at: decidedAt,
      until: decidedAt,
    });
    await store.settleDecision('2:WPDS:1', 'd1', 'done', decidedAt, decidedAt);
    await afterDecision({ store, logger, arrivals: w.outbox }, '2:WPDS:1');
    const redraws = w.sent.flatMap((s) => (s.kind === 'redraw' ? [s] : []));
    expect(redraws.map((r) => r.message.userId).sort()).toEqual(['UADA', 'UBOB']);
    const ada = redraws.find((r) => r.message.userId === 'UADA')?.message;
    expect(ada?.entries.map((e) => e.state)).toEqual([
      { kind: 'waiting', actions: [] },
      { kind: 'decided', action: 'Accepted', by: 'UADA', at: decidedAt },
    ]);
    // Approval 1 decided in the service's own pages, 2 leaves the lists: redrawn at the next check, 1 as gone, 2 still decided.
    w.lists.set('tok-UADA', []);
    w.lists.set('tok-UBOB', []);
    w.next();
    const goneAt = w.clock.now();
    // Bob's DM lists only 2, drawn as decided already: 2 leaving his list changes nothing on it, so it is not drawn again.
    expect(await scheduler.tick()).toMatchObject({ redrawn: 1 });
    const last = w.sent.slice(-1).flatMap((s) => (s.kind === 'redraw' ? [s.message] : []));
    expect(last.find((m) => m.userId === 'UADA')?.entries.map((e) => e.state)).toEqual([
      { kind: 'gone', at: goneAt },
      { kind: 'decided', action: 'Accepted', by: 'UADA', at: decidedAt },
    ]);
    // A decision found done at the check, never told by afterDecision, is said the same way.
    w.lists.set('tok-UADA', [approval(5)]);
    w.next();
    await scheduler.tick();
    await store.claimDecision({
      approvalId: '5:WPDS:1',
      decisionId: 'd5',
      teamId: 'T1',
      userId: 'UEVE',
      action: 'Rejected',
      at: goneAt,
      until: goneAt,
    });
    await store.settleDecision('5:WPDS:1', 'd5', 'done', goneAt, goneAt);
    w.lists.set('tok-UADA', []);
    w.next();
    await scheduler.tick();
    const final = w.sent.at(-1);
    expect(final?.kind === 'redraw' && final.message.entries[0]?.state).toEqual({
      kind: 'decided',
      action: 'Rejected',
      by: 'UEVE',
      at: goneAt,
    });
    await store.close();
  });

  it('stops checking a refused token with one message shared with the digests, and resumes, priming, once the user links again', async () => {
    const w = world('2026-11-23T08:00:00Z');
    const store = w.open();
    const scheduler = w.scheduler(store);
    const who = { teamId: 'T1', userId: 'UADA' };
    await w.link(store, 'UADA', [approval(1)]);
    await scheduler.tick();
    const reminders = new ReminderScheduler({
      store,
      service: w.service,
      credentials: storedTokens(store),
      logger,
      now: w.clock.now,
      timeZones: { lookup: async () => 'Europe/London' },
      outbox: w.outbox,
      owner: 'one',
      windowDays: 3,
      serviceTimeZone: undefined,
      spreadMs: 0,
    });
    const schedule = { days: 'daily' as const, minuteOfDay: 540, timeZone: 'Europe/London' };
    await store.setReminder({ ...who, ...schedule, ...reminders.plan(who, schedule, w.clock.now()) });

    w.refused.add('tok-UADA');
    w.next();
    expect(await scheduler.tick()).toMatchObject({ relinkAsked: 1 });
    // The digest at 09:00 meets the same refusal: not told twice.
    w.clock.advance(3_600_000);
    expect(await reminders.tick()).toMatchObject({ relinkAsked: 0, quiet: 1 });
    expect(w.sent.filter((s) => s.kind === 'relink')).toEqual([{ kind: 'relink', userId: 'UADA', reason: 'expired' }]);
    // Parked: no more checks, however long.
    const calls = w.serviceCalls.length;
    for (let i = 0; i < 3; i++) {
      w.next();
      expect(await scheduler.tick()).toMatchObject({ checked: 0 });
    }
    expect(w.serviceCalls).toHaveLength(calls);
    // Linked again: checked at once, and the first check primes (what waited is counted, not announced).
    w.refused.clear();
    await w.link(store, 'UADA', [approval(1), approval(2)]);
    expect(await scheduler.tick()).toMatchObject({ primed: 1 });
    expect(w.sent.at(-1)).toEqual({ kind: 'waiting', userId: 'UADA', count: 2 });
    expect(announced(w.sent)).toEqual([]);
    // A later lapse of the new link is told once again.
    w.refused.add('tok-UADA');
    w.next();
    expect(await scheduler.tick()).toMatchObject({ relinkAsked: 1 });
    expect(w.sent.filter((s) => s.kind === 'relink')).toHaveLength(2);
    await store.close();
  });

  it('stops without waiting for a check whose call to the service hangs: the call is cancelled, and nothing is sent or recorded for it', async () => {
    const w = world();
    const store = w.open();
    const scheduler = w.scheduler(store);
    await w.link(store, 'UADA', [approval(1)]);
    const hanging = w.hang('tok-UADA');
    const tick = scheduler.tick();
    await hanging.started;
    // Were the call not cancelled, this would wait for SERVICE_TIMEOUT, past a short SHUTDOWN_TIMEOUT.
    await scheduler.stop();
    expect(hanging.call.signal?.aborted).toBe(true);
    expect(await tick).toMatchObject({ checked: 1, retried: 1, primed: 0 });
    expect(w.sent).toEqual([]);
    expect(await store.arrivalItems('UADA')).toEqual([]);
  });

  it('does not check an approver who switched off; switching on primes', async () => {
    const w = world();
    const store = w.open();
    const scheduler = w.scheduler(store);
    const who = { teamId: 'T1', userId: 'UADA' };
    await w.link(store, 'UADA', []);
    await scheduler.tick();
    expect(await changeNotify({ store, now: w.clock.now }, who, { enabled: false })).toEqual({ enabled: false, quiet: undefined });
    w.lists.set('tok-UADA', [approval(1)]);
    w.next();
    expect(await scheduler.tick()).toMatchObject({ checked: 0 });
    await changeNotify({ store, now: w.clock.now }, who, { enabled: true });
    expect(await scheduler.tick()).toMatchObject({ checked: 1, primed: 1 });
    expect(w.sent).toEqual([{ kind: 'waiting', userId: 'UADA', count: 1 }]);
    await store.close();
  });

  it('claims no more approvers than it can check: an instance the others leave no service slot leaves their approvers to them', async () => {
    const w = world();
    const { store, calls } = counted(w.open());
    const users = Array.from({ length: 6 }, (_, i) => `U${i}`);
    for (const u of users) await w.link(store, u, []);
    // Another instance holds both slots (REMINDER_CONCURRENCY 2) for as long as the service is slow.
    const until = new Date(w.clock.now().getTime() + 3_600_000);
    const held = [
      await store.takeServiceSlot('other', 2, w.clock.now(), until),
      await store.takeServiceSlot('other', 2, w.clock.now(), until),
    ];
    const slots = new ServiceSlots({ store, owner: 'b', limit: 2, now: w.clock.now, logger, pollMs: 5 });
    const b = w.scheduler(store, 'b', { slots });
    const tick = b.tick();
    // It asks for a slot again and again, and claims nobody meanwhile.
    await eventually('the scheduler asking for a service slot', () => calls.filter((c) => c === 'takeServiceSlot').length >= 5);
    const now = w.clock.now();
    const left = await store.claimDueArrivalWatches(now, 'other', new Date(now.getTime() + 60_000), new Date(now.getTime() + INTERVAL), 10);
    expect(left).toHaveLength(6);
    // The other instance checked them all: once its slots come free, this one finds nothing due.
    for (const slot of held) await store.releaseServiceSlot('other', slot as number);
    expect(await tick).toMatchObject({ checked: 0 });
    slots.stop();
    await b.stop();
  });

  it('checks each approver on one instance at a time and messages each arrival once, with two schedulers on one store and after a restart', async () => {
    const w = world();
    const stores = [w.open(), w.open()];
    const users = Array.from({ length: 12 }, (_, i) => `U${i}`);
    for (const u of users) await w.link(stores[0] as Store, u, []);
    const [a, b] = [w.scheduler(stores[0] as Store, 'a'), w.scheduler(stores[1] as Store, 'b')];
    const primed = await Promise.all([a.tick(), b.tick()]);
    expect(primed.reduce((n, r) => n + r.checked, 0)).toBe(12);
    for (const u of users) w.lists.set(`tok-${u}`, [approval(7)]);
    w.next();
    const checked = await Promise.all([a.tick(), b.tick()]);
    expect(checked.reduce((n, r) => n + r.checked, 0)).toBe(12);
    expect(
      announced(w.sent)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([...users].sort());
    // Restarted with a new name in the leases: nothing announced again.
    await stores[0]?.close();
    const restarted = w.open();
    const c = w.scheduler(restarted, 'c');
    w.next();
    const again = await Promise.all([c.tick(), b.tick()]);
    expect(again.reduce((n, r) => n + r.unchanged, 0)).toBe(12);
    expect(announced(w.sent)).toHaveLength(12);
    await restarted.close();
    await stores[1]?.close();
  });

  it('leaves no lease renewal running after a tick, with one worker as with several', async () => {
    // Only the interval timers are the test's: a tick's renewal must be gone when the tick is.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      for (const workers of [1, 3]) {
        const w = world();
        const store = w.open();
        for (const u of ['UA', 'UB', 'UC']) await w.link(store, u, [approval(1)]);
        const scheduler = new ArrivalScheduler({
          deps: {
            store,
            service: w.service,
            credentials: storedTokens(store),
            logger,
            metrics: new Metrics({ defaultMetrics: false }),
            now: w.clock.now,
            newId: () => 'm',
          },
          outbox: w.outbox,
          timeZones: { lookup: async () => undefined },
          owner: 'one',
          intervalMs: INTERVAL,
          slots: new ServiceSlots({ store, owner: 'one', limit: 1, now: w.clock.now, logger }),
          serviceTimeZone: undefined,
          decisionActions: false,
          workers,
        });
        expect((await scheduler.tick()).checked).toBe(3);
        expect(vi.getTimerCount()).toBe(0);
        await store.close();
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('tells the cycle’s length while a tick still runs, when the service cannot keep the interval (due watches never run out)', async () => {
    const w = world();
    const store = w.open();
    const metrics = new Metrics({ defaultMetrics: false });
    const cycle = async () => (await metrics.registry.getSingleMetric('countersign_arrival_cycle_seconds')?.get())?.values[0]?.value ?? 0;
    // Each of the first calls takes half the interval: three approvers take one and a half.
    let slow = 6;
    const told: number[] = [];
    const service = {
      ...w.service,
      findApprovals: async (query: ApprovalQuery, token: Secret) => {
        told.push(await cycle());
        if (slow-- > 0) w.clock.advance(INTERVAL / 2);
        return w.service.findApprovals(query, token);
      },
    } as ServiceClient;
    for (const u of ['UA', 'UB', 'UC']) await w.link(store, u, []);
    const scheduler = new ArrivalScheduler({
      deps: { store, service, credentials: storedTokens(store), logger, metrics, now: w.clock.now, newId: () => 'm' },
      outbox: w.outbox,
      timeZones: { lookup: async () => undefined },
      owner: 'one',
      intervalMs: INTERVAL,
      slots: new ServiceSlots({ store, owner: 'one', limit: 1, now: w.clock.now, logger }),
      serviceTimeZone: undefined,
      decisionActions: false,
      workers: 1,
    });
    const report = await scheduler.tick();
    // One tick went round more than once: the fourth check was already told of a cycle past the interval.
    expect(report.checked).toBeGreaterThan(3);
    expect(told[3]).toBeGreaterThan(INTERVAL / 1000);
    await store.close();
  });
});

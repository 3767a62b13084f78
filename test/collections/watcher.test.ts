/**
 * The run-status watcher's decisions, with a fake service and Slack (the store is a real SQLite
 * database in memory): backing off, the time limit, transient failures, a message that is gone.
 */

import { describe, expect, it } from 'vitest';
import { storedTokens } from '../../src/accounts/credentials.js';
import type { CollectStatus } from '../../src/collections/runs.js';
import { RunWatcher } from '../../src/collections/watcher.js';
import type { Message } from '../../src/render/blocks.js';
import { renderCollectStatus } from '../../src/render/collect.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { type RunStatus, type ServiceClient, ServiceUnavailableError } from '../../src/service/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';

const WHO = { teamId: 'T1', userId: 'UOPS' };

function build(status: (runId: string, polls: number) => Promise<Partial<RunStatus>>, messageGone = false) {
  const clock = new TestClock('2026-11-22T10:00:00Z');
  const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 6).toString('base64')));
  let polls = 0;
  const service = {
    getRunStatus: async (runId: string) => {
      polls++;
      return { runId, state: 'Running', rawState: 'Running', startTime: '', completedTime: '', ...(await status(runId, polls)) };
    },
  } as unknown as ServiceClient;
  const statuses: CollectStatus[] = [];
  const dms: string[] = [];
  const watcher = new RunWatcher({
    store,
    service,
    credentials: storedTokens(store),
    chat: {
      postStatus: async () => ({ ts: '1' }),
      updateStatus: async (_channel, _ts, update) => {
        if (messageGone) return 'gone';
        statuses.push(update);
        return 'updated';
      },
      tellAborted: async (userId) => {
        dms.push(userId);
      },
      userGroupMembers: async () => [],
    },
    logger: createLogger({ level: 'error', write: () => {} }),
    now: clock.now,
    owner: 'test',
    firstPollMs: 5_000,
    maxIntervalMs: 60_000,
  });
  const watch = async (limitMs = 3_600_000) => {
    await store.setToken(WHO, ['collectEntitlements'], new Secret('tok'), 'admin', clock.now());
    await store.createWatch({
      attemptId: 'a1',
      ...WHO,
      channelId: 'C1',
      messageTs: '1.1',
      query: { name: 'AD Accounts' },
      runs: [{ runId: '7', collector: 'AD Accounts', state: undefined }],
      startedAt: clock.now(),
      deadline: new Date(clock.now().getTime() + limitMs),
      nextPollAt: new Date(clock.now().getTime() + 5_000),
      intervalMs: 5_000,
      doneAt: undefined,
      note: undefined,
    });
  };
  /** Ticks every 5 s for `ms`, as the timer would. */
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 5_000) {
      clock.advance(5_000);
      await watcher.tick();
    }
  };
  // Rendered as the channel would see them, so that what the user reads is what is checked.
  const updates = (): Message[] => statuses.map((s) => renderCollectStatus(s));
  return { clock, store, watcher, statuses, updates, dms, watch, run, polls: () => polls };
}

const last = (m: Message[]) => JSON.stringify(m.at(-1)?.blocks ?? []);

describe('RunWatcher', () => {
  it('backs off from 5 s to a minute between polls', async () => {
    const t = build(async () => ({}));
    await t.watch();
    await t.run(10 * 60_000);
    // 5, 7.5, 11, 17, 25, 38, 57 s, then once a minute: about 15 polls in ten minutes, not 120.
    expect(t.polls()).toBeGreaterThanOrEqual(12);
    expect(t.polls()).toBeLessThanOrEqual(18);
  });

  it('keeps polling through a service that is down for a while, and finishes when it answers', async () => {
    const t = build(async (_id, n) => {
      if (n <= 3) throw new ServiceUnavailableError('network', 'down', { command: 'getRunStatus' });
      return { state: 'Completed', startTime: '2026-11-22 10:00:00', completedTime: '2026-11-22 10:02:30' };
    });
    await t.watch();
    await t.run(2 * 60_000);
    expect(t.polls()).toBe(4);
    expect(t.statuses.at(-1)?.live).toEqual({ kind: 'finished' });
    expect(last(t.updates())).toContain('completed in 2m 30s');
    expect(t.dms).toEqual([]);
  });

  it('stops at the time limit, saying so', async () => {
    const t = build(async () => ({}));
    await t.watch(10 * 60_000);
    await t.run(15 * 60_000);
    expect(last(t.updates())).toContain('Stopped following the runs after 10m 00s');
    const polls = t.polls();
    await t.run(5 * 60_000);
    expect(t.polls()).toBe(polls);
  });

  it('stops when the starter unlinked, and when the message is gone', async () => {
    const unlinked = build(async () => ({}));
    await unlinked.watch();
    await unlinked.store.deleteTokens(WHO);
    await unlinked.run(10_000);
    expect(unlinked.statuses.at(-1)?.live).toEqual({ kind: 'off', reason: 'unlinked' });
    expect(last(unlinked.updates())).toContain('unlinked their account');
    expect(unlinked.polls()).toBe(0);

    const gone = build(async () => ({}), true);
    await gone.watch();
    await gone.run(70_000);
    const polls = gone.polls();
    await gone.run(5 * 60_000);
    expect(polls).toBe(1);
    expect(gone.polls()).toBe(polls);
  });
});

describe('RunWatcher: an aborted run does not hold the cooldown', () => {
  const COOLDOWN = 600_000;
  /** Takes the cooldown of these targets for attempt a1 (what the start took), at the clock's time. */
  const hold = async (t: ReturnType<typeof build>, targets: string[], attemptId = 'a1') => {
    for (const target of targets)
      await t.store.claimCooldown({ ...WHO, target, channelId: 'C1', attemptId, at: t.clock.now(), cooldownMs: COOLDOWN });
  };
  const holder = (t: ReturnType<typeof build>, target: string) => t.store.peekCooldown(WHO.teamId, target, t.clock.now(), COOLDOWN);

  it('gives the cooldown back once the watcher sees the run aborted, so that it can be started again at once', async () => {
    const t = build(async (_id, n) => (n < 2 ? {} : { state: 'Aborted' }));
    await t.watch();
    await hold(t, ['collector=ad accounts']);
    await t.run(5_000);
    expect(await holder(t, 'collector=ad accounts')).toMatchObject({ attemptId: 'a1' });
    await t.run(10_000);
    expect(t.statuses.at(-1)?.live).toEqual({ kind: 'finished' });
    expect(await holder(t, 'collector=ad accounts')).toBeUndefined();
    expect(t.dms).toEqual(['UOPS']);
  });

  it('keeps it for a run that completed', async () => {
    const t = build(async () => ({ state: 'Completed' }));
    await t.watch();
    await hold(t, ['collector=ad accounts']);
    await t.run(10_000);
    expect(t.statuses.at(-1)?.live).toEqual({ kind: 'finished' });
    expect(await holder(t, 'collector=ad accounts')).toMatchObject({ attemptId: 'a1' });
  });

  it('of several runs, gives back the aborted ones’ collectors; once every run aborted, the whole start’s too', async () => {
    const states: Record<string, string> = { '7': 'Aborted', '8': 'Completed' };
    const t = build(async (id) => ({ state: states[id] as 'Aborted' | 'Completed' }));
    const application = 'name=*;application=active directory';
    const twoRuns = async (attemptId: string) => {
      await t.store.setToken(WHO, ['collectEntitlements'], new Secret('tok'), 'admin', t.clock.now());
      await t.store.createWatch({
        attemptId,
        ...WHO,
        channelId: 'C1',
        messageTs: `1.${attemptId}`,
        query: { application: 'Active Directory' },
        runs: [
          { runId: '7', collector: 'AD Accounts', state: undefined },
          { runId: '8', collector: 'AD Groups', state: undefined },
        ],
        startedAt: t.clock.now(),
        deadline: new Date(t.clock.now().getTime() + 3_600_000),
        nextPollAt: new Date(t.clock.now().getTime() + 5_000),
        intervalMs: 5_000,
        doneAt: undefined,
        note: undefined,
      });
    };
    await twoRuns('a1');
    await hold(t, ['collector=ad accounts', 'collector=ad groups', application]);
    await t.run(5_000);
    expect(await holder(t, 'collector=ad accounts')).toBeUndefined();
    expect(await holder(t, 'collector=ad groups')).toMatchObject({ attemptId: 'a1' });
    expect(await holder(t, application)).toMatchObject({ attemptId: 'a1' });

    states['8'] = 'Aborted';
    t.clock.advance(COOLDOWN);
    await twoRuns('a2');
    await hold(t, ['collector=ad accounts', 'collector=ad groups', application], 'a2');
    await t.run(5_000);
    expect(await holder(t, 'collector=ad accounts')).toBeUndefined();
    expect(await holder(t, 'collector=ad groups')).toBeUndefined();
    expect(await holder(t, application)).toBeUndefined();
  });

  it('gives back only what that start holds: a cooldown taken over since (Start anyway) stays', async () => {
    const t = build(async () => ({ state: 'Aborted' }));
    await t.watch();
    await hold(t, ['collector=ad accounts']);
    // Someone started it anyway meanwhile: the cooldown is theirs now.
    await t.store.claimCooldown({
      ...WHO,
      target: 'collector=ad accounts',
      channelId: 'C2',
      attemptId: 'a9',
      at: t.clock.now(),
      cooldownMs: 0,
    });
    await t.run(5_000);
    expect(await holder(t, 'collector=ad accounts')).toMatchObject({ attemptId: 'a9' });
  });
});

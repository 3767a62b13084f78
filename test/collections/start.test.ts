/**
 * startCollection with a scripted service, a recording chat port and a real in-memory store: who
 * is refused (and what the audit trail keeps), the cooldown and its release, the run watch.
 */

import { describe, expect, it } from 'vitest';
import { decideConfirmation } from '../../src/collections/confirm.js';
import { type CollectionRequest, startCollection } from '../../src/collections/start.js';
import { ConflictError, InvalidTokenError, ServiceUnavailableError } from '../../src/service/errors.js';
import type { CollectionResult } from '../../src/service/index.js';
import { type FakeDepsOptions, fakeDeps, fakeService } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
const ADA = { teamId: 'T1', userId: 'UADA' };
const EVE = { teamId: 'T1', userId: 'UEVE' };
const OSCAR = { teamId: 'T1', userId: 'UOSCAR' };
const COOLDOWN = 600_000;

const req = (over: Partial<CollectionRequest> = {}): CollectionRequest => ({
  who: ADA,
  channelId: 'C1',
  query: { name: 'AD Accounts' },
  ...over,
});

function build(options: FakeDepsOptions = {}) {
  const t = fakeDeps(options);
  /** Moves the fixed clock `ms` past NOW. */
  const later = (ms: number) => {
    t.deps.now = () => new Date(NOW.getTime() + ms);
  };
  const attempts = async () =>
    (await t.deps.store.listCollectAttempts({ limit: 20 })).map((a) => ({ user: a.userId, outcome: a.outcome, reason: a.reason }));
  const watchesDue = (at: Date) => t.deps.store.claimDueWatches(at, 'test', new Date(at.getTime() + 60_000), 10);
  return { ...t, later, attempts, watchesDue };
}

/** A service whose collectEntitlements answers in turn with these (a function throws or answers). */
function collectAnswers(...answers: Array<() => Promise<CollectionResult>>) {
  let n = 0;
  return fakeService({
    collect: async () => {
      const answer = answers[Math.min(n++, answers.length - 1)];
      if (answer === undefined) throw new Error('no answer scripted');
      return answer();
    },
  });
}

describe('startCollection: who may', () => {
  it('refuses outside the allowed channels, without a call, and keeps the refusal in the audit trail', async () => {
    const t = build({ policy: { allowedChannels: ['C0OPS', 'C0SEC'] } });
    await t.link();
    expect(await startCollection(t.deps, req())).toEqual({
      kind: 'refused',
      refusal: { kind: 'channel', allowedChannels: ['C0OPS', 'C0SEC'] },
    });
    expect(t.fake.calls).toEqual([]);
    expect(t.groupLookups).toEqual([]);
    const [attempt] = await t.deps.store.listCollectAttempts({ limit: 5 });
    expect(attempt).toMatchObject({
      id: 'id-000001',
      at: NOW,
      teamId: 'T1',
      channelId: 'C1',
      userId: 'UADA',
      query: { name: 'AD Accounts' },
      outcome: 'refused',
      reason: { kind: 'channel', allowedChannels: ['C0OPS', 'C0SEC'] },
      runs: [],
    });
  });

  it('refuses a user neither named nor in an allowed group, asking the chat port about groups only when needed', async () => {
    const policy = { allowedUsers: ['UOSCAR'], allowedUserGroups: ['S0OPS', 'S0SEC'] };
    const t = build({ policy, groups: { S0OPS: ['UOSCAR'], S0SEC: ['UADA'] } });
    for (const user of ['UADA', 'UEVE', 'UOSCAR']) await t.link(user);

    expect(await startCollection(t.deps, req({ who: EVE }))).toEqual({
      kind: 'refused',
      refusal: { kind: 'user', allowedUsers: ['UOSCAR'], allowedUserGroups: ['S0OPS', 'S0SEC'] },
    });
    expect(t.groupLookups).toEqual(['S0OPS', 'S0SEC']);
    expect(t.fake.calls).toEqual([]);

    // Named: no lookup at all.
    t.groupLookups.length = 0;
    expect((await startCollection(t.deps, req({ who: OSCAR }))).kind).toBe('started');
    expect(t.groupLookups).toEqual([]);

    // In the second group: allowed, and the lookup stops there.
    expect((await startCollection(t.deps, req({ who: ADA, query: { name: 'AWS IAM' } }))).kind).toBe('started');
    expect(t.groupLookups).toEqual(['S0OPS', 'S0SEC']);
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['token-of-UOSCAR', 'token-of-UADA']);
    expect(await t.attempts()).toEqual([
      { user: 'UADA', outcome: 'started', reason: undefined },
      { user: 'UOSCAR', outcome: 'started', reason: undefined },
      { user: 'UEVE', outcome: 'refused', reason: { kind: 'user' } },
    ]);
  });

  it('keeps force for those allowed to force', async () => {
    const t = build({ policy: { forceAllowedUsers: ['UOSCAR'] } });
    await t.link('UADA');
    await t.link('UOSCAR');
    const forced = { name: 'AD Accounts', force: true };
    expect(await startCollection(t.deps, req({ query: forced }))).toEqual({
      kind: 'refused',
      refusal: { kind: 'force', forceAllowedUsers: ['UOSCAR'] },
    });
    expect(t.fake.calls).toEqual([]);
    expect((await startCollection(t.deps, req({ who: OSCAR, query: forced }))).kind).toBe('started');
    expect(t.fake.calls).toEqual([{ command: 'collectEntitlements', query: forced, token: 'token-of-UOSCAR' }]);
    expect((await t.attempts()).at(-1)).toEqual({ user: 'UADA', outcome: 'refused', reason: { kind: 'force' } });
  });

  it('answers not-linked without a call, and records it', async () => {
    const t = build();
    await t.link('UEVE');
    expect(await startCollection(t.deps, req())).toEqual({ kind: 'not-linked' });
    expect(t.fake.calls).toEqual([]);
    expect(await t.attempts()).toEqual([{ user: 'UADA', outcome: 'refused', reason: { kind: 'not-linked' } }]);
  });
});

describe('startCollection: the cooldown', () => {
  it('turns away a second start of the same target within the cooldown, whatever its case and spacing', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    await t.link('UADA');
    await t.link('UEVE');
    expect((await startCollection(t.deps, req())).kind).toBe('started');

    t.later(COOLDOWN - 1);
    const again = await startCollection(t.deps, req({ who: EVE, channelId: 'C2', query: { name: '  ad   ACCOUNTS ' } }));
    // The collector is named as the service first named it, not as the second asker typed it.
    expect(again).toEqual({
      kind: 'cooldown',
      query: { name: 'AD Accounts' },
      held: [{ collector: 'AD Accounts', holder: { userId: 'UADA', channelId: 'C1', at: NOW, attemptId: 'id-000001' } }],
      cooldownMs: COOLDOWN,
      overrideId: expect.stringMatching(/^id-\d{6}$/),
      unknownRest: false,
    });
    expect(t.fake.calls).toHaveLength(1);
    expect((await t.attempts())[0]).toEqual({
      user: 'UEVE',
      outcome: 'refused',
      reason: { kind: 'cooldown', userId: 'UADA', at: NOW, offered: true },
    });

    // Another collector is another collection.
    expect((await startCollection(t.deps, req({ who: EVE, query: { name: 'AD Groups' } }))).kind).toBe('started');
    // Once the cooldown has run out, the same target starts again.
    t.later(COOLDOWN);
    expect((await startCollection(t.deps, req({ who: EVE, query: { name: 'ad accounts' } }))).kind).toBe('started');
    expect(t.fake.calls).toHaveLength(3);
  });

  it('offers "Start anyway" only to someone who may force, and only they can take it', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN, forceAllowedUsers: ['UOSCAR'] } });
    for (const user of ['UADA', 'UEVE', 'UOSCAR']) await t.link(user);
    await startCollection(t.deps, req());

    const eve = await startCollection(t.deps, req({ who: EVE }));
    expect(eve).toMatchObject({ kind: 'cooldown', overrideId: undefined });
    // Eve cannot override by asking to.
    expect(await startCollection(t.deps, req({ who: EVE, overrideCooldown: true }))).toMatchObject({
      kind: 'cooldown',
      overrideId: undefined,
    });

    const oscar = await startCollection(t.deps, req({ who: OSCAR }));
    if (oscar.kind !== 'cooldown' || oscar.overrideId === undefined)
      throw new Error(`expected a cooldown with an override, got ${oscar.kind}`);
    const decision = await decideConfirmation(t.deps, OSCAR, oscar.overrideId, 'run');
    // The click is a step of Oscar's refused attempt.
    const [oscarsLine] = await t.deps.store.listCollectAttempts({ limit: 1 });
    expect(oscarsLine).toMatchObject({ userId: 'UOSCAR', outcome: 'confirmed', reason: { kind: 'cooldown', offered: true } });
    expect(oscarsLine?.steps.map((s) => s.step)).toEqual(['refused', 'confirmed']);
    expect(decision).toEqual({
      kind: 'confirmed',
      request: { who: OSCAR, channelId: 'C1', query: { name: 'AD Accounts' }, overrideCooldown: true, attemptId: oscarsLine?.id },
    });
    if (decision.kind !== 'confirmed') return;
    expect((await startCollection(t.deps, decision.request)).kind).toBe('started');
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['token-of-UADA', 'token-of-UOSCAR']);
  });

  it('"Start anyway" takes the cooldown over, and the next start is held by the new starter', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    await t.link('UADA');
    await t.link('UEVE');
    await startCollection(t.deps, req());
    t.later(60_000);
    expect((await startCollection(t.deps, req({ who: EVE, channelId: 'C2', overrideCooldown: true }))).kind).toBe('started');
    expect(t.fake.calls).toHaveLength(2);
    t.later(120_000);
    expect(await startCollection(t.deps, req())).toMatchObject({
      kind: 'cooldown',
      held: [{ holder: { userId: 'UEVE', channelId: 'C2', at: new Date(NOW.getTime() + 60_000) } }],
    });
  });

  it('gives the cooldown back when nothing matched', async () => {
    const service = collectAnswers(
      async () => ({ runs: [] }),
      async () => ({ runs: [{ runId: '9', collector: 'AD Accounts' }] }),
    );
    const t = build({ service, policy: { cooldownMs: COOLDOWN } });
    await t.link();
    expect(await startCollection(t.deps, req())).toEqual({
      kind: 'nothing-matched',
      query: { name: 'AD Accounts' },
      known: [],
      meant: undefined,
      retry: undefined,
    });
    expect(t.posted).toEqual([]);
    expect((await startCollection(t.deps, req())).kind).toBe('started');
    expect(t.fake.calls).toHaveLength(2);
    expect((await t.attempts()).map((a) => a.outcome)).toEqual(['started', 'nothing-matched']);
  });

  it('keeps the cooldown after a timeout (the collection may be running), and records the failure', async () => {
    const timeout = new ServiceUnavailableError('timeout', 'The Command Service did not answer in time', {
      command: 'collectEntitlements',
    });
    const service = collectAnswers(async () => {
      throw timeout;
    });
    const t = build({ service, policy: { cooldownMs: COOLDOWN } });
    await t.link();
    expect(await startCollection(t.deps, req())).toEqual({ kind: 'failed', error: timeout });
    expect(await startCollection(t.deps, req())).toMatchObject({
      kind: 'cooldown',
      held: [{ holder: { userId: 'UADA', attemptId: 'id-000001' } }],
    });
    expect(t.fake.calls).toHaveLength(1);
    expect((await t.attempts()).at(-1)).toEqual({
      user: 'UADA',
      outcome: 'failed',
      reason: { kind: 'service', error: 'service-unavailable', message: 'The Command Service did not answer in time' },
    });
  });

  it('gives the cooldown back when the request never reached the service (refused connection)', async () => {
    let down = true;
    const service = collectAnswers(async () => {
      if (down) throw new ServiceUnavailableError('network', 'connection refused', { command: 'collectEntitlements' });
      return { runs: [{ runId: '1', collector: 'AD Accounts' }] };
    });
    const t = build({ service, policy: { cooldownMs: COOLDOWN } });
    await t.link();
    expect((await startCollection(t.deps, req())).kind).toBe('failed');
    down = false;
    expect((await startCollection(t.deps, req())).kind).toBe('started');
  });

  it('gives the cooldown back after a 409 (the service did not start it)', async () => {
    const conflict = new ConflictError({ command: 'collectEntitlements', status: 409, serviceMessage: 'Already queued' });
    const service = collectAnswers(
      async () => {
        throw conflict;
      },
      async () => ({ runs: [{ runId: '9', collector: 'AD Accounts' }] }),
    );
    const t = build({ service, policy: { cooldownMs: COOLDOWN } });
    await t.link();
    expect(await startCollection(t.deps, req())).toEqual({ kind: 'failed', error: conflict });
    expect((await startCollection(t.deps, req())).kind).toBe('started');
    expect(t.fake.calls).toHaveLength(2);
    expect((await t.attempts()).map((a) => [a.outcome, a.reason])).toEqual([
      ['started', undefined],
      ['failed', { kind: 'service', error: 'conflict', message: 'Already queued' }],
    ]);
  });

  it('keeps the cooldown when the store fails after the service has started the runs', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    await t.link();
    const record = t.deps.store.recordCollectStep.bind(t.deps.store);
    // The audit row of the started runs cannot be written: the database went away just then.
    t.deps.store.recordCollectStep = async (event) => {
      if (event.step === 'answered') throw new Error('connection terminated unexpectedly');
      return record(event);
    };
    expect((await startCollection(t.deps, req())).kind).toBe('failed');
    t.deps.store.recordCollectStep = record;
    // The runs are going: starting them again at once is what the cooldown is for.
    expect(await startCollection(t.deps, req())).toMatchObject({
      kind: 'cooldown',
      held: [{ holder: { userId: 'UADA', attemptId: 'id-000001' } }],
    });
    expect(t.fake.calls).toHaveLength(1);
  });

  it('records a refused token on the link', async () => {
    const service = collectAnswers(async () => {
      throw new InvalidTokenError({ command: 'collectEntitlements', status: 401, serviceMessage: 'Token is invalid or expired' });
    });
    const t = build({ service });
    await t.link();
    expect((await startCollection(t.deps, req())).kind).toBe('failed');
    const links = await t.deps.store.listLinks(ADA);
    expect(links.map((l) => [l.command, l.lastOutcome])).toEqual([
      ['collectEntitlements', 'rejected'],
      ['findApprovals', undefined],
    ]);
  });
});

describe('startCollection: announcing the runs', () => {
  it('posts the runs in the channel and asks the watcher to follow them from firstPollMs on', async () => {
    const runs = [
      { runId: '41', collector: 'AD Accounts' },
      { runId: '42', collector: null },
    ];
    const t = build({ service: collectAnswers(async () => ({ runs })), policy: { watchLimitMs: 1_800_000 } });
    await t.link();
    const watched = [
      { runId: '41', collector: 'AD Accounts', state: undefined },
      { runId: '42', collector: undefined, state: undefined },
    ];
    const status = { userId: 'UADA', query: { name: 'AD Accounts' }, runs: watched, startedAt: NOW, now: NOW };
    expect(await startCollection(t.deps, req())).toEqual({
      kind: 'started',
      posted: true,
      status: { ...status, live: { kind: 'watching', checkedAt: NOW } },
      leftOut: [],
      ranAgain: [],
      cooldownMs: 0,
    });
    expect(t.posted).toEqual([{ channel: 'C1', status: { ...status, live: { kind: 'watching', checkedAt: NOW } } }]);
    expect(t.fake.calls).toEqual([{ command: 'collectEntitlements', query: { name: 'AD Accounts' }, token: 'token-of-UADA' }]);

    expect(await t.watchesDue(new Date(NOW.getTime() + t.deps.firstPollMs - 1))).toEqual([]);
    expect(await t.watchesDue(new Date(NOW.getTime() + t.deps.firstPollMs))).toEqual([
      {
        attemptId: 'id-000001',
        teamId: 'T1',
        userId: 'UADA',
        channelId: 'C1',
        messageTs: '1700000000.000001',
        query: { name: 'AD Accounts' },
        runs: watched,
        startedAt: NOW,
        deadline: new Date(NOW.getTime() + 1_800_000),
        nextPollAt: new Date(NOW.getTime() + t.deps.firstPollMs),
        intervalMs: t.deps.firstPollMs,
        doneAt: undefined,
        note: undefined,
      },
    ]);
    const [attempt] = await t.deps.store.listCollectAttempts({ limit: 5 });
    expect(attempt).toMatchObject({ id: 'id-000001', outcome: 'started' });
    expect(attempt?.runs).toEqual(watched);
    expect((await t.deps.store.listLinks(ADA)).find((l) => l.command === 'collectEntitlements')?.lastOutcome).toBe('ok');
  });

  it('still says started when the bot may not post there, with live status off, and follows the runs without a message', async () => {
    const t = build({ postFails: 'not_in_channel' });
    await t.link();
    expect(await startCollection(t.deps, req())).toEqual({
      kind: 'started',
      posted: false,
      status: {
        userId: 'UADA',
        query: { name: 'AD Accounts' },
        runs: [{ runId: '1', collector: 'AD Accounts', state: undefined }],
        startedAt: NOW,
        now: NOW,
        live: { kind: 'off', reason: 'not-in-channel' },
      },
      leftOut: [],
      ranAgain: [],
      cooldownMs: 0,
    });
    expect(t.posted).toEqual([]);
    // Followed all the same (a cooldown given back when they abort, a DM to the starter), with no message to update.
    expect((await t.watchesDue(new Date(NOW.getTime() + 86_400_000))).map((w) => [w.attemptId, w.messageTs])).toEqual([['id-000001', '']]);
    expect((await t.attempts()).map((a) => a.outcome)).toEqual(['started']);
  });

  it('stores the watch before posting, and answers through the command when Slack does not take the message in time', async () => {
    const t = build({ postTakesMs: 300, announceWithinMs: 50 });
    await t.link();
    const outcome = await startCollection(t.deps, req());
    expect(outcome).toMatchObject({ kind: 'started', posted: false, status: { live: { kind: 'off', reason: 'slack-slow' } } });
    // The watch was there before the post, so a restart now would still follow the runs.
    expect((await t.watchesDue(new Date(NOW.getTime() + 86_400_000))).map((w) => w.messageTs)).toEqual(['']);
  });

  it('follows the channel message Slack takes late: the watch learns its ts', async () => {
    const t = build({ postTakesMs: 100, announceWithinMs: 20 });
    await t.link();
    expect(await startCollection(t.deps, req())).toMatchObject({ posted: false });
    await expect.poll(() => t.posted.length, { timeout: 2000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await t.watchesDue(new Date(NOW.getTime() + 86_400_000))).map((w) => w.messageTs)).toEqual(['1700000000.000001']);
  });
});

describe('startCollection: the cooldown across targets (what earlier runs covered)', () => {
  /** A service that runs what it is asked, as the reference one does: an application runs each of its collectors. */
  const APPS: Record<string, string[]> = { 'active directory': ['AD Accounts', 'AD Groups'], salesforce: ['Salesforce Users'] };
  let runId = 100;
  const realistic = () =>
    fakeService({
      collect: async (q) => {
        const names = q.name ? [q.name] : q.application ? (APPS[q.application.toLowerCase()] ?? []) : Object.values(APPS).flat();
        return { runs: names.map((collector) => ({ runId: String(++runId), collector })) };
      },
    });

  it('leaves out of a whole application the collector started a moment ago, starts the rest by name, and says so', async () => {
    const t = build({ service: realistic(), policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    // Earlier, the whole application ran: now it is known which collectors it covers.
    expect((await startCollection(t.deps, req({ query: { application: 'Active Directory' } }))).kind).toBe('started');
    t.later(COOLDOWN + 1);
    expect((await startCollection(t.deps, req({ query: { name: 'ad accounts' } }))).kind).toBe('started');
    t.later(COOLDOWN + 60_000);
    const again = await startCollection(t.deps, req({ who: EVE, query: { application: 'Active Directory' } }));
    expect(again).toMatchObject({
      kind: 'started',
      leftOut: [{ collector: 'AD Accounts', holder: { userId: 'UADA' } }],
      status: { runs: [{ collector: 'AD Groups' }] },
    });
    expect(t.fake.calls.at(-1)).toMatchObject({ query: { name: 'AD Groups', application: 'Active Directory' } });
  });

  it('does not start everything again when part of it was started a moment ago and the rest is not known', async () => {
    const t = build({ service: realistic(), policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    expect((await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }))).kind).toBe('started');
    const everything = await startCollection(t.deps, req({ who: EVE, query: {} }));
    expect(everything).toMatchObject({ kind: 'cooldown', held: [{ collector: 'AD Accounts', holder: { userId: 'UADA' } }] });
    expect(t.fake.calls).toHaveLength(1);
    // What it took for the attempt, it gave back: Salesforce alone still starts.
    expect((await startCollection(t.deps, req({ who: EVE, query: { application: 'Salesforce' } }))).kind).toBe('started');
  });

  it('says so when a whole application started again a collector started by name a moment ago (the service never said its application), and knows from then on', async () => {
    const t = build({ service: realistic(), policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE', 'UOSCAR']) await t.link(user);
    expect((await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }))).kind).toBe('started');
    t.later(40_000);
    const app = await startCollection(t.deps, req({ who: EVE, query: { application: 'Active Directory' } }));
    expect(app).toMatchObject({
      kind: 'started',
      leftOut: [],
      ranAgain: [{ collector: 'AD Accounts', holder: { userId: 'UADA', channelId: 'C1', at: NOW } }],
      status: { runs: [{ collector: 'AD Accounts' }, { collector: 'AD Groups' }] },
    });
    expect((await t.attempts())[0]).toEqual({ user: 'UEVE', outcome: 'started', reason: undefined });
    expect((await t.deps.store.listCollectAttempts({ limit: 1 }))[0]).toMatchObject({ leftOut: [], ranAgain: ['AD Accounts'] });
    // It ran, so its cooldown is Eve's now; and the application's collectors are known.
    t.later(60_000);
    expect(await startCollection(t.deps, req({ who: OSCAR, query: { name: 'AD Accounts' } }))).toMatchObject({
      kind: 'cooldown',
      held: [{ collector: 'AD Accounts', holder: { userId: 'UEVE' } }],
    });
    expect(await startCollection(t.deps, req({ who: OSCAR, query: { application: 'active directory' } }))).toMatchObject({
      kind: 'cooldown',
      unknownRest: false,
    });
  });

  it('says, when part of a target is held and the rest is not known, that it could not start the rest by name', async () => {
    const t = build({ service: realistic(), policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    // Named with its application: it is known to belong to it, but not which others do.
    await startCollection(t.deps, req({ query: { name: 'AD Accounts', application: 'Active Directory' } }));
    expect(await startCollection(t.deps, req({ who: EVE, query: { application: 'Active Directory' } }))).toMatchObject({
      kind: 'cooldown',
      held: [{ collector: 'AD Accounts' }],
      unknownRest: true,
    });
    expect(await startCollection(t.deps, req({ who: EVE, query: { name: 'AD Accounts' } }))).toMatchObject({
      kind: 'cooldown',
      unknownRest: false,
    });
  });

  it('learns what a start ran: a named start of a collector an application run started is held', async () => {
    const t = build({ service: realistic(), policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    expect((await startCollection(t.deps, req({ query: { application: 'Active Directory' } }))).kind).toBe('started');
    expect(await startCollection(t.deps, req({ who: EVE, query: { name: 'ad groups' } }))).toMatchObject({
      kind: 'cooldown',
      query: { name: 'AD Groups' },
      held: [{ collector: 'AD Groups', holder: { userId: 'UADA' } }],
    });
  });
});

describe('startCollection: a name that matches nothing', () => {
  it('offers the collectors earlier runs reported, and the nearest one', async () => {
    const service = fakeService({
      collect: async (q) => ({ runs: q.name === 'AD Accounts' || q.name === 'Workday Workers' ? [{ runId: '7', collector: q.name }] : [] }),
    });
    const t = build({ service });
    await t.link();
    await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }));
    await startCollection(t.deps, req({ query: { name: 'Workday Workers' } }));
    expect(await startCollection(t.deps, req({ query: { name: 'AD Acounts' } }))).toEqual({
      kind: 'nothing-matched',
      query: { name: 'AD Acounts' },
      known: ['AD Accounts', 'Workday Workers'],
      meant: 'AD Accounts',
      retry: undefined,
    });
    expect(await startCollection(t.deps, req({ query: { name: 'Nonexistent Collector' } }))).toMatchObject({ meant: undefined });
  });

  /** A service with these collectors, matched as the reference one matches them (whole name, any case). */
  const withCollectors = (...names: string[]) =>
    fakeService({
      collect: async (q) => ({
        runs: names.filter((n) => n.toLowerCase() === q.name?.toLowerCase()).map((collector) => ({ runId: '7', collector })),
      }),
    });

  it('offers “force” for a last word a letter or two off it, once the service has said no and the rest is a known collector', async () => {
    const t = build({ service: withCollectors('AD Accounts') });
    await t.link();
    await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }));
    for (const typo of ['forse', 'FROCE', 'foce', 'forced']) {
      expect(await startCollection(t.deps, req({ query: { name: `ad accounts ${typo}` } }))).toMatchObject({
        kind: 'nothing-matched',
        retry: '/collect AD Accounts force',
        meant: undefined,
      });
    }
    expect(await startCollection(t.deps, req({ query: { name: 'AD Accounts forse', application: 'Active Directory' } }))).toMatchObject({
      retry: '/collect AD Accounts application:"Active Directory" force',
    });
    // Each was sent as typed: the service is the one that says no collector has that name.
    expect(t.fake.calls.filter((c) => c.command === 'collectEntitlements')).toHaveLength(6);
  });

  it('offers nothing when the rest is not a known collector, the word is too far from force or too short, or force was meant as part of the name', async () => {
    const t = build({ service: withCollectors('AD Accounts', 'Backup', 'Backup Forge') });
    await t.link();
    await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }));
    await startCollection(t.deps, req({ query: { name: 'Backup' } }));
    for (const name of ['AWS IAM forse', 'AD Accounts fortune', 'AD Accounts for', 'AD Accounts force', 'forse']) {
      expect(await startCollection(t.deps, req({ query: { name } }))).toMatchObject({ kind: 'nothing-matched', retry: undefined });
    }
    // A real collector whose last word is near force is started, never questioned.
    expect(await startCollection(t.deps, req({ query: { name: 'Backup Forge' } }))).toMatchObject({ kind: 'started' });
  });
});

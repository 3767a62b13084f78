/**
 * The confirmation before a collection that starts everything or forces: who is asked, and how
 * Run and Cancel are decided (once, by the asker, within its time), with a real in-memory store.
 */

import { describe, expect, it } from 'vitest';
import { decideConfirmation, offerConfirmation } from '../../src/collections/confirm.js';
import { type CollectionRequest, createConfirmation, startCollection } from '../../src/collections/start.js';
import type { PendingConfirmation } from '../../src/store/index.js';
import { type FakeDepsOptions, fakeDeps } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
const ADA = { teamId: 'T1', userId: 'UADA' };
const EVE = { teamId: 'T1', userId: 'UEVE' };

const req = (over: Partial<CollectionRequest> = {}): CollectionRequest => ({ who: ADA, channelId: 'C1', query: {}, ...over });

function build(options: FakeDepsOptions = {}) {
  const t = fakeDeps(options);
  const created: PendingConfirmation[] = [];
  const createConfirmationInStore = t.deps.store.createConfirmation;
  t.deps.store.createConfirmation = (c) => {
    created.push(c);
    return createConfirmationInStore.call(t.deps.store, c);
  };
  const attempts = async () =>
    (await t.deps.store.listCollectAttempts({ limit: 20 })).map((a) => ({
      user: a.userId,
      channel: a.channelId,
      query: a.query,
      outcome: a.outcome,
      reason: a.reason,
    }));
  /** A confirmation Ada was offered for `query`. */
  const offered = async (query: CollectionRequest['query'] = {}) => {
    const offer = await offerConfirmation(t.deps, req({ query }), ['all-collectors']);
    if (offer.kind !== 'confirm') throw new Error(`expected a confirmation, got ${offer.kind}`);
    return offer.id;
  };
  return { ...t, created, attempts, offered };
}

describe('offerConfirmation', () => {
  it('offers the asker a confirmation that lasts confirmationTtlMs', async () => {
    const t = build();
    await t.link();
    const offer = await offerConfirmation(t.deps, req({ query: { application: 'AD', force: true } }), ['force']);
    expect(offer).toEqual({
      kind: 'confirm',
      id: expect.stringMatching(/^id-\d{6}$/),
      query: { application: 'AD', force: true },
      reasons: ['force'],
    });
    expect(t.created).toEqual([
      {
        id: offer.kind === 'confirm' ? offer.id : '',
        teamId: 'T1',
        channelId: 'C1',
        userId: 'UADA',
        // The attempt it completes when clicked: recorded as the question was asked.
        payload: JSON.stringify({ query: { application: 'AD', force: true }, attemptId: 'id-000001' }),
        createdAt: NOW,
        expiresAt: new Date(NOW.getTime() + t.deps.confirmationTtlMs),
      },
    ]);
    expect(t.fake.calls).toEqual([]);
    expect(await t.attempts()).toEqual([
      { user: 'UADA', channel: 'C1', query: { application: 'AD', force: true }, outcome: 'unanswered', reason: undefined },
    ]);
  });

  it('tells the refused so before storing any confirmation, and records the refusal', async () => {
    const t = build({ policy: { allowedChannels: ['C0OPS'] } });
    await t.link();
    expect(await offerConfirmation(t.deps, req(), ['all-collectors'])).toEqual({
      kind: 'refused',
      refusal: { kind: 'channel', allowedChannels: ['C0OPS'] },
    });
    expect(t.created).toEqual([]);
    expect(await t.attempts()).toEqual([
      { user: 'UADA', channel: 'C1', query: {}, outcome: 'refused', reason: { kind: 'channel', allowedChannels: ['C0OPS'] } },
    ]);
  });

  it('refuses a force by someone who may not force before asking', async () => {
    const t = build({ policy: { forceAllowedUsers: ['UOSCAR'] } });
    await t.link();
    expect(await offerConfirmation(t.deps, req({ query: { name: 'AD Accounts', force: true } }), ['force'])).toEqual({
      kind: 'refused',
      refusal: { kind: 'force', forceAllowedUsers: ['UOSCAR'] },
    });
    expect(t.created).toEqual([]);
  });

  it('tells the unlinked so before storing any confirmation', async () => {
    const t = build();
    await t.link('UEVE');
    expect(await offerConfirmation(t.deps, req(), ['all-collectors'])).toEqual({ kind: 'not-linked' });
    expect(t.created).toEqual([]);
    expect(t.fake.calls).toEqual([]);
  });
});

describe('decideConfirmation', () => {
  it('confirms the stored request for its asker, with the channel it was asked in', async () => {
    const t = build();
    await t.link();
    const id = await t.offered({ application: 'AD' });
    expect(await decideConfirmation(t.deps, ADA, id, 'run')).toEqual({
      kind: 'confirmed',
      request: { who: ADA, channelId: 'C1', query: { application: 'AD' }, overrideCooldown: false, attemptId: 'id-000001' },
    });
    expect(await decideConfirmation(t.deps, ADA, id, 'run')).toEqual({ kind: 'already-used' });
    expect(t.fake.calls).toEqual([]);
  });

  it('refuses anyone else, and does not burn the confirmation for its asker', async () => {
    const t = build();
    await t.link();
    const id = await t.offered();
    expect(await decideConfirmation(t.deps, EVE, id, 'run')).toEqual({ kind: 'not-yours', ownerId: 'UADA' });
    expect(await decideConfirmation(t.deps, EVE, id, 'cancel')).toEqual({ kind: 'not-yours', ownerId: 'UADA' });
    // Someone else's clicks leave Ada's question as it was.
    expect((await t.attempts()).map((a) => [a.user, a.outcome])).toEqual([['UADA', 'unanswered']]);
    expect((await decideConfirmation(t.deps, ADA, id, 'run')).kind).toBe('confirmed');
  });

  it('calls a malformed or unknown id unreadable, without asking the store about a malformed one', async () => {
    const t = build();
    await t.link();
    const asked: string[] = [];
    const claim = t.deps.store.claimConfirmation;
    t.deps.store.claimConfirmation = (id, userId, at) => {
      asked.push(id);
      return claim.call(t.deps.store, id, userId, at);
    };
    for (const id of ['', 'short', 'id 000001; DROP TABLE', 'x'.repeat(65)]) {
      expect(await decideConfirmation(t.deps, ADA, id, 'run')).toEqual({ kind: 'unreadable' });
    }
    expect(asked).toEqual([]);
    expect(await decideConfirmation(t.deps, ADA, 'id-999999', 'run')).toEqual({ kind: 'unreadable' });
    expect(asked).toEqual(['id-999999']);
  });

  it('calls a stored confirmation that does not hold a valid query unreadable on Run, and cancels it quietly', async () => {
    const t = build();
    const stored = { teamId: 'T1', channelId: 'C1', userId: 'UADA', createdAt: NOW, expiresAt: new Date(NOW.getTime() + 60_000) };
    await t.deps.store.createConfirmation({ ...stored, id: 'garbled-1', payload: '{not json' });
    await t.deps.store.createConfirmation({ ...stored, id: 'garbled-2', payload: JSON.stringify({ query: { force: 'yes' } }) });
    expect(await decideConfirmation(t.deps, ADA, 'garbled-1', 'run')).toEqual({ kind: 'unreadable' });
    expect(await decideConfirmation(t.deps, ADA, 'garbled-2', 'cancel')).toEqual({ kind: 'cancelled' });
    expect(await t.attempts()).toEqual([]);
  });

  it('reads a confirmation stored as the bare query, as builds before "Start anyway" wrote them', async () => {
    const t = build();
    await t.deps.store.createConfirmation({
      id: 'older-build-1',
      teamId: 'T1',
      channelId: 'C9',
      userId: 'UADA',
      payload: JSON.stringify({ name: 'AD Accounts', force: true }),
      createdAt: NOW,
      expiresAt: new Date(NOW.getTime() + 60_000),
    });
    expect(await decideConfirmation(t.deps, ADA, 'older-build-1', 'run')).toEqual({
      kind: 'confirmed',
      // Without an attempt of its own, the click begins one: its steps and the start's share it.
      request: { who: ADA, channelId: 'C9', query: { name: 'AD Accounts', force: true }, overrideCooldown: false, attemptId: 'id-000001' },
    });
    expect((await t.deps.store.listCollectAttempts({ limit: 5 })).map((a) => [a.id, a.outcome, a.steps.map((s) => s.step)])).toEqual([
      ['id-000001', 'confirmed', ['confirmed']],
    ]);
  });

  it('holds up to its expiry, and is expired after it', async () => {
    const t = build();
    await t.link();
    const first = await t.offered();
    const second = await t.offered();
    t.deps.now = () => new Date(NOW.getTime() + t.deps.confirmationTtlMs + 1);
    expect(await decideConfirmation(t.deps, ADA, first, 'run')).toEqual({ kind: 'expired' });
    t.deps.now = () => new Date(NOW.getTime() + t.deps.confirmationTtlMs);
    expect((await decideConfirmation(t.deps, ADA, second, 'run')).kind).toBe('confirmed');
  });

  it('cancels once, recording it, and a Run after Cancel does nothing', async () => {
    const t = build();
    await t.link();
    const id = await t.offered({ application: 'AD' });
    expect(await decideConfirmation(t.deps, ADA, id, 'cancel')).toEqual({ kind: 'cancelled' });
    expect(await decideConfirmation(t.deps, ADA, id, 'run')).toEqual({ kind: 'already-used' });
    expect(await decideConfirmation(t.deps, ADA, id, 'cancel')).toEqual({ kind: 'already-used' });
    expect(await t.attempts()).toEqual([
      { user: 'UADA', channel: 'C1', query: { application: 'AD' }, outcome: 'cancelled', reason: { kind: 'cancelled' } },
    ]);
  });

  it('confirms exactly once under concurrent decisions', async () => {
    const t = build();
    await t.link();
    const id = await t.offered();
    const decisions = await Promise.all([
      decideConfirmation(t.deps, ADA, id, 'run'),
      decideConfirmation(t.deps, ADA, id, 'run'),
      decideConfirmation(t.deps, ADA, id, 'cancel'),
      decideConfirmation(t.deps, ADA, id, 'run'),
    ]);
    const kinds = decisions.map((d) => d.kind);
    expect(kinds.filter((k) => k === 'confirmed' || k === 'cancelled')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'already-used')).toHaveLength(3);

    const other = await t.offered();
    const runs = await Promise.all([decideConfirmation(t.deps, ADA, other, 'run'), decideConfirmation(t.deps, ADA, other, 'run')]);
    expect(runs.map((d) => d.kind).sort()).toEqual(['already-used', 'confirmed']);
  });

  it('carries "Start anyway" in its payload, and words its cancel as not starting it again', async () => {
    const t = build();
    await t.link();
    const request = req({ query: { name: 'AD Accounts' } });
    const run = await createConfirmation(t.deps, request, true);
    const cancel = await createConfirmation(t.deps, request, true);
    expect(t.created.map((c) => c.payload)).toEqual([
      JSON.stringify({ query: { name: 'AD Accounts' }, overrideCooldown: true }),
      JSON.stringify({ query: { name: 'AD Accounts' }, overrideCooldown: true }),
    ]);
    expect(await decideConfirmation(t.deps, ADA, run, 'run')).toEqual({
      kind: 'confirmed',
      request: { who: ADA, channelId: 'C1', query: { name: 'AD Accounts' }, overrideCooldown: true, attemptId: expect.any(String) },
    });
    expect(await decideConfirmation(t.deps, ADA, cancel, 'cancel')).toEqual({ kind: 'cancelled' });
    expect(await t.attempts()).toEqual([
      {
        user: 'UADA',
        channel: 'C1',
        query: { name: 'AD Accounts' },
        outcome: 'cancelled',
        reason: { kind: 'not-again' },
      },
      // The Run was clicked and no start followed it here: the trail says so, and no more.
      { user: 'UADA', channel: 'C1', query: { name: 'AD Accounts' }, outcome: 'confirmed', reason: undefined },
    ]);
  });
});

describe('one question, not two', () => {
  it('asks only "Start anyway" (forced) when what a forced start asks for was started a moment ago', async () => {
    const t = build({ policy: { cooldownMs: 600_000 } });
    await t.link('UADA');
    await t.link('UEVE');
    expect((await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }))).kind).toBe('started');
    const offer = await offerConfirmation(t.deps, req({ who: EVE, query: { name: 'ad accounts', force: true } }), ['force']);
    expect(offer).toMatchObject({
      kind: 'cooldown',
      query: { name: 'AD Accounts', force: true },
      held: [{ collector: 'AD Accounts', holder: { userId: 'UADA' } }],
      overrideId: expect.any(String),
    });
    if (offer.kind !== 'cooldown' || offer.overrideId === undefined) return;
    // The one click starts it, forced, past the cooldown.
    const decided = await decideConfirmation(t.deps, EVE, offer.overrideId, 'run');
    expect(decided).toMatchObject({ kind: 'confirmed', request: { query: { name: 'ad accounts', force: true }, overrideCooldown: true } });
    if (decided.kind !== 'confirmed') return;
    expect((await startCollection(t.deps, decided.request)).kind).toBe('started');
    expect(t.fake.calls.at(-1)).toMatchObject({
      command: 'collectEntitlements',
      query: { name: 'ad accounts', force: true },
      token: 'token-of-UEVE',
    });
  });
});

describe('the audit trail: one line per attempt, with how it ended', () => {
  const COOLDOWN = 600_000;

  it('records a bare /collect that hit the cooldown and whose "Start anyway" was ignored, as the same refusal without force is', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    expect((await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }))).kind).toBe('started');
    const offer = await offerConfirmation(t.deps, req({ who: EVE, query: {} }), ['all-collectors']);
    expect(offer).toMatchObject({ kind: 'cooldown', overrideId: expect.any(String) });
    const forced = await offerConfirmation(t.deps, req({ who: EVE, query: { name: 'AD Accounts', force: true } }), ['force']);
    expect(forced).toMatchObject({ kind: 'cooldown', overrideId: expect.any(String) });
    const cooldown = { kind: 'cooldown', userId: 'UADA', at: NOW, offered: true };
    expect(await t.attempts()).toEqual([
      { user: 'UEVE', channel: 'C1', query: { name: 'AD Accounts', force: true }, outcome: 'refused', reason: cooldown },
      // Everything was held by one collector of it: the reason says which, so that history can say who started what.
      { user: 'UEVE', channel: 'C1', query: {}, outcome: 'refused', reason: { ...cooldown, collector: 'AD Accounts' } },
      { user: 'UADA', channel: 'C1', query: { name: 'AD Accounts' }, outcome: 'started', reason: undefined },
    ]);
  });

  it('completes that same line when "Start anyway" or its Cancel is clicked, rather than adding one', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }));
    const run = await offerConfirmation(t.deps, req({ who: EVE, query: { name: 'AD Accounts', force: true } }), ['force']);
    const cancel = await offerConfirmation(t.deps, req({ who: EVE, channelId: 'C2', query: { name: 'AD Accounts', force: true } }), [
      'force',
    ]);
    if (run.kind !== 'cooldown' || !run.overrideId || cancel.kind !== 'cooldown' || !cancel.overrideId)
      throw new Error('expected two cooldowns');
    expect((await t.attempts()).map((a) => [a.user, a.channel, a.outcome])).toEqual([
      ['UEVE', 'C2', 'refused'],
      ['UEVE', 'C1', 'refused'],
      ['UADA', 'C1', 'started'],
    ]);
    expect(await decideConfirmation(t.deps, EVE, cancel.overrideId, 'cancel')).toEqual({ kind: 'cancelled' });
    const later = new Date(NOW.getTime() + 30_000);
    t.deps.now = () => later;
    const decided = await decideConfirmation(t.deps, EVE, run.overrideId, 'run');
    if (decided.kind !== 'confirmed') throw new Error(`expected confirmed, got ${decided.kind}`);
    expect((await startCollection(t.deps, decided.request)).kind).toBe('started');
    const rows = await t.deps.store.listCollectAttempts({ limit: 20 });
    expect(rows.map((a) => [a.userId, a.channelId, a.outcome, a.reason])).toEqual([
      ['UEVE', 'C1', 'started', undefined],
      ['UEVE', 'C2', 'cancelled', { kind: 'not-again' }],
      ['UADA', 'C1', 'started', undefined],
    ]);
    // Each step keeps its own time: when it was refused (and "Start anyway" offered), and when that was taken.
    expect(rows[0]?.steps.map((s) => [s.step, s.at])).toEqual([
      ['refused', NOW],
      ['confirmed', later],
      ['sent', later],
      ['answered', later],
    ]);
    expect([rows[0]?.at, rows[0]?.lastAt]).toEqual([NOW, later]);
  });

  it('records a confirmation that is never answered as asked, not answered; Run or Cancel completes that line', async () => {
    const t = build();
    await t.link();
    await t.offered({ application: 'AD' });
    expect(await t.attempts()).toEqual([
      { user: 'UADA', channel: 'C1', query: { application: 'AD' }, outcome: 'unanswered', reason: undefined },
    ]);
    const run = await t.offered({});
    const cancel = await t.offered({ application: 'AWS' });
    expect(await decideConfirmation(t.deps, ADA, cancel, 'cancel')).toEqual({ kind: 'cancelled' });
    const decided = await decideConfirmation(t.deps, ADA, run, 'run');
    if (decided.kind !== 'confirmed') throw new Error(`expected confirmed, got ${decided.kind}`);
    expect((await startCollection(t.deps, decided.request)).kind).toBe('started');
    // Latest activity first: the start came after the cancel.
    expect((await t.attempts()).map((a) => [a.query, a.outcome])).toEqual([
      [{}, 'started'],
      [{ application: 'AWS' }, 'cancelled'],
      [{ application: 'AD' }, 'unanswered'],
    ]);
  });

  it('records the unlinked asked to confirm, as a start records them', async () => {
    const t = build();
    await t.link('UEVE');
    expect(await offerConfirmation(t.deps, req(), ['all-collectors'])).toEqual({ kind: 'not-linked' });
    expect(await t.attempts()).toEqual([{ user: 'UADA', channel: 'C1', query: {}, outcome: 'refused', reason: { kind: 'not-linked' } }]);
  });

  it('completes the line of a typed start turned away by the cooldown when its "Start anyway" is clicked', async () => {
    const t = build({ policy: { cooldownMs: COOLDOWN } });
    for (const user of ['UADA', 'UEVE']) await t.link(user);
    await startCollection(t.deps, req({ query: { name: 'AD Accounts' } }));
    const held = await startCollection(t.deps, req({ who: EVE, query: { name: 'AD Accounts' } }));
    if (held.kind !== 'cooldown' || !held.overrideId) throw new Error('expected a cooldown with Start anyway');
    const decided = await decideConfirmation(t.deps, EVE, held.overrideId, 'run');
    if (decided.kind !== 'confirmed') throw new Error(`expected confirmed, got ${decided.kind}`);
    expect((await startCollection(t.deps, decided.request)).kind).toBe('started');
    expect((await t.attempts()).map((a) => [a.user, a.outcome])).toEqual([
      ['UEVE', 'started'],
      ['UADA', 'started'],
    ]);
  });
});

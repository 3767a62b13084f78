/**
 * Decisions that no answer settled, read again once their call can no longer land: by the reconciler
 * (as the approver, while their link works), or by the next decision that takes the approval. The
 * trail gets what the service shows, marked as found afterwards; nothing is claimed from it.
 */
import { describe, expect, it } from 'vitest';
import { decide, startDecision } from '../../src/approvals/decide.js';
import { DecisionReconciler } from '../../src/approvals/reconcile.js';
import { ServiceUnavailableError } from '../../src/service/index.js';
import { fakeDeps, fakeDetails, fakeService } from '../helpers/fakes.js';

const ADA = { teamId: 'T1', userId: 'UADA' };
const EVE = { teamId: 'T1', userId: 'UEVE' };
const ID = '10001:WPDS:1';
const NOW = new Date('2026-11-22T06:30:00Z');
const HOLD_MS = 90_000;
const DECISIONS = { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' };

/** A service whose approval a test completes by hand, and whose decision call times out having done what `lands` says. */
function setup() {
  let current = fakeDetails({ workItemId: ID });
  let lands = false;
  let readable = true;
  const pendingPage = () =>
    current.completedDate === ''
      ? { approvals: [{ workItemId: ID, workItemName: 'w', requestName: 'r', dueDate: '', completedDate: '', fields: {} }], count: 1 }
      : { approvals: [], count: 0 };
  const fake = fakeService({
    details: async () => {
      if (!readable) throw new ServiceUnavailableError('network', 'down', { command: 'getApprovalDetails' });
      return current;
    },
    findApprovals: async () => pendingPage(),
    decide: async (values) => {
      if (lands)
        current = {
          ...current,
          completedDate: '2026-11-22 06:31:00.0',
          completedByName: 'Lovelace, Ada',
          state: values.action,
          actions: [],
        };
      throw new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' });
    },
  });
  const t = fakeDeps({ service: fake, decisions: DECISIONS, decisionHoldMs: HOLD_MS });
  const at = (ms: number) => {
    t.deps.now = () => new Date(NOW.getTime() + ms);
  };
  const reconciler = new DecisionReconciler({ deps: t.deps, leaseMs: 30_000, giveUpAfterMs: 3_600_000 });
  let n = 0;
  const request = (who = ADA, action = 'Accepted') => ({
    approvalId: ID,
    action,
    comment: '',
    decisionId: startDecision({ newId: () => `nonce-${++n}-000` }, who, ID),
  });
  return {
    ...t,
    reconciler,
    at,
    request,
    land: (v: boolean) => {
      lands = v;
    },
    readable: (v: boolean) => {
      readable = v;
    },
    complete: (state: string) => {
      current = { ...current, completedDate: '2026-11-22 06:40:00.0', completedByName: 'Hopper, Grace', state, actions: [] };
    },
    hold: async () => (await t.deps.store.decisionHolds([ID])).get(ID),
  };
}

describe('the reconciler', () => {
  it('leaves a hold alone until its time is up, then records what the service shows as the approver, and gives it back', async () => {
    const s = setup();
    await s.link('UADA');
    s.land(true);
    const outcome = await decide(s.deps, ADA, s.request());
    expect(outcome).toMatchObject({ kind: 'unknown', sameAction: true });
    // Completed: given back at once, and the trail already says what the service showed.
    expect(await s.hold()).toBeUndefined();
    expect(await s.reconciler.tick()).toBe(0);
  });

  it('a decision the service still showed waiting: read again after its hold, found not taken', async () => {
    const s = setup();
    await s.link('UADA');
    const outcome = await decide(s.deps, ADA, s.request());
    expect(outcome).toMatchObject({ kind: 'unknown', details: { completedDate: '' } });
    const [before] = await s.deps.store.listDecisions({ limit: 1 });
    expect(before).toMatchObject({ outcome: 'unknown', unsettled: true });
    s.at(HOLD_MS - 1);
    expect(await s.reconciler.tick()).toBe(0);
    s.at(HOLD_MS);
    expect(await s.reconciler.tick()).toBe(1);
    expect(await s.hold()).toBeUndefined();
    const [after] = await s.deps.store.listDecisions({ limit: 1 });
    expect(after).toMatchObject({
      outcome: 'unknown',
      unsettled: false,
      found: { found: 'pending', by: 'reconciler', at: new Date(NOW.getTime() + HOLD_MS), seen: { pending: true } },
    });
    expect(after?.steps.map((x) => x.step)).toEqual(['confirmed', 'sent', 'answered', 'reconciled']);
    // As the approver: Ada's token.
    expect(s.fake.calls.at(-1)).toMatchObject({ command: 'getApprovalDetails', token: 'token-of-UADA' });
  });

  it('a decision the service showed nothing of, completed since: found completed, as the service names who', async () => {
    const s = setup();
    await s.link('UADA');
    s.readable(true);
    await decide(s.deps, ADA, s.request());
    s.complete('Accepted');
    s.at(HOLD_MS);
    expect(await s.reconciler.tick()).toBe(1);
    expect((await s.deps.store.listDecisions({ limit: 1 }))[0]?.found).toMatchObject({
      found: 'completed',
      seen: { state: 'Accepted', completedBy: 'Hopper, Grace' },
    });
  });

  it('a service that cannot be read is tried again later, until it is given up on; an approver no longer linked is said', async () => {
    const s = setup();
    await s.link('UADA');
    await decide(s.deps, ADA, s.request());
    s.readable(false);
    s.at(HOLD_MS);
    expect(await s.reconciler.tick()).toBe(0);
    expect(await s.hold()).toMatchObject({ state: 'unsettled', until: new Date(NOW.getTime() + HOLD_MS + 30_000) });
    // Leased to this reading: not looked at again before the lease is up.
    s.at(HOLD_MS + 29_999);
    expect(await s.reconciler.tick()).toBe(0);
    expect(s.fake.calls.filter((c) => c.command === 'getApprovalDetails')).toHaveLength(3);
    s.at(3_600_000);
    expect(await s.reconciler.tick()).toBe(1);
    expect((await s.deps.store.listDecisions({ limit: 1 }))[0]?.found).toMatchObject({
      found: 'unreadable',
      why: expect.stringContaining('service-unavailable'),
    });

    const u = setup();
    await u.link('UADA');
    await decide(u.deps, ADA, u.request());
    await u.deps.store.deleteTokens(ADA);
    u.at(HOLD_MS);
    expect(await u.reconciler.tick()).toBe(1);
    expect((await u.deps.store.listDecisions({ limit: 1 }))[0]?.found).toMatchObject({
      found: 'unreadable',
      why: 'their account is no longer linked',
    });
  });

  it('a decision that ended before it was sent (a process stopped mid-check) is found not sent', async () => {
    const s = setup();
    await s.link('UADA');
    const decisionId = startDecision({ newId: () => 'nonce-kill-000' }, ADA, ID);
    await s.deps.store.claimDecision({
      approvalId: ID,
      decisionId,
      ...ADA,
      action: 'Accepted',
      at: NOW,
      until: new Date(NOW.getTime() + HOLD_MS),
    });
    await s.deps.store.recordDecisionStep({
      step: 'confirmed',
      comment: '',
      decisionId,
      approvalId: ID,
      action: 'Accepted',
      at: NOW,
      ...ADA,
    });
    s.at(HOLD_MS);
    expect(await s.reconciler.tick()).toBe(1);
    expect(await s.deps.store.decisionRecord(decisionId)).toMatchObject({ found: { found: 'not-sent' } });
    expect(s.fake.calls.filter((c) => c.command === 'getApprovalDetails')).toHaveLength(1);
  });
});

describe('the next decision on the approval', () => {
  it('records what became of the one before under that one’s id, from its own check, then takes the approval', async () => {
    const s = setup();
    await s.link('UADA');
    await s.link('UEVE');
    const first = await decide(s.deps, ADA, s.request());
    expect(first).toMatchObject({ kind: 'unknown' });
    s.at(HOLD_MS);
    const reads = s.fake.calls.filter((c) => c.command === 'getApprovalDetails').length;
    // Eve decides: her check's reading is the one recorded for Ada's, and is not made twice.
    const second = await decide(s.deps, EVE, s.request(EVE, 'Accepted'));
    expect(second).toMatchObject({ kind: 'unknown' });
    expect(s.fake.calls.filter((c) => c.command === 'getApprovalDetails').length - reads).toBe(2);
    const trails = await s.deps.store.listDecisions({ limit: 10 });
    const adas = trails.find((d) => d.userId === 'UADA');
    expect(adas).toMatchObject({ unsettled: false, found: { found: 'pending', by: 'next-decision' } });
    expect(adas?.steps.map((x) => x.step)).toEqual(['confirmed', 'sent', 'answered', 'reconciled']);
    expect(trails.find((d) => d.userId === 'UEVE')?.steps.map((x) => x.step)).toEqual(['confirmed', 'sent', 'answered']);
  });
});

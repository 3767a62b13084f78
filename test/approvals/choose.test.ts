/**
 * A decision button's click, checked before the confirmation opens, with a scripted service and a
 * real in-memory store: a stale button is refused with the reason the approver needs, and the
 * service is asked only when the Details may be out of date (never for a button drawn moments ago).
 */
import { describe, expect, it } from 'vitest';
import { checkChoice, FRESH_MS, freshChoice } from '../../src/approvals/choose.js';
import {
  type ApprovalDetails,
  InvalidTokenError,
  NotOfferedError,
  NotVisibleError,
  ServiceUnavailableError,
} from '../../src/service/index.js';
import { fakeDeps, fakeDetails, fakeService, type ServiceScript } from '../helpers/fakes.js';

const ADA = { teamId: 'T1', userId: 'UADA' };
const ID = '10001:WPDS:1';
const NOW = new Date('2026-11-22T06:30:00Z');
const DECISIONS = { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' };
const FRESH = new Date(NOW.getTime() - 30_000);
const STALE = new Date(NOW.getTime() - FRESH_MS - 1_000);

function build(script: ServiceScript = {}, details: Partial<ApprovalDetails> = {}) {
  const current = fakeDetails({ workItemId: ID, ...details });
  const t = fakeDeps({ service: fakeService({ details: async () => current, ...script }), decisions: DECISIONS, decisionHoldMs: 90_000 });
  const check = (action: string, shownAt: Date | undefined) => checkChoice(t.deps, ADA, { approvalId: ID, action, shownAt });
  const calls = () => t.fake.calls.map((c) => c.command);
  const claim = (state: 'done' | 'sending', userId = 'UEVE') =>
    t.deps.store
      .claimDecision({
        approvalId: ID,
        decisionId: 'decision-eve',
        teamId: 'T1',
        userId,
        action: 'Rejected',
        at: NOW,
        until: new Date(NOW.getTime() + 90_000),
      })
      .then(() => (state === 'done' ? t.deps.store.settleDecision(ID, 'decision-eve', 'done', NOW, NOW) : true));
  return { ...t, check, calls, claim };
}

describe('a click on a button drawn moments ago', () => {
  it('is offered with no call to the service, when countersign’s records hold nothing on it', async () => {
    const t = build();
    await t.link('UADA');
    expect(await t.check('Accepted', FRESH)).toEqual({ kind: 'offered', asked: 'records' });
    expect(t.calls()).toEqual([]);
  });

  it('is refused, still with no call, when it was decided from Slack since, or a decision on it is under way', async () => {
    const decided = build();
    await decided.link('UADA');
    await decided.claim('done');
    expect(await decided.check('Accepted', FRESH)).toEqual({
      kind: 'refused',
      refusal: { kind: 'already-decided', userId: 'UEVE', action: 'Rejected', at: NOW },
    });
    const held = build();
    await held.link('UADA');
    await held.claim('sending');
    expect(await held.check('Accepted', FRESH)).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'held', userId: 'UEVE', state: 'sending' },
    });
    expect([...decided.calls(), ...held.calls()]).toEqual([]);
  });
});

describe('a click on a button drawn a while ago, or that does not say when', () => {
  it('asks the service once, with the approver’s token, and is offered when the action is listed now', async () => {
    for (const shownAt of [STALE, undefined, new Date(NOW.getTime() + 60_000)]) {
      const t = build();
      await t.link('UADA');
      expect(await t.check('Accepted', shownAt)).toEqual({ kind: 'offered', asked: 'service' });
      expect(t.fake.calls).toEqual([{ command: 'getApprovalDetails', approvalId: ID, token: 'token-of-UADA' }]);
    }
  });

  const refusals: Array<[string, Partial<ApprovalDetails>, string, unknown]> = [
    [
      'completed in the service',
      { completedDate: '2026-11-22 06:00:00.0', completedByName: 'Hopper, Grace', state: 'Accepted', actions: [] },
      'Accepted',
      { kind: 'not-pending', state: 'Accepted', by: 'Hopper, Grace' },
    ],
    [
      'its action no longer listed',
      { actions: ['Approved', 'Rejected'] },
      'Accepted',
      { kind: 'action-not-listed', listed: ['Approved', 'Rejected'] },
    ],
    ['decided item by item', { lineItemApprovalEnabled: true }, 'Accepted', { kind: 'line-items' }],
    // Exactly as listed: a workflow's "rejected" is not its "Rejected".
    ['an action in another case', {}, 'accepted', { kind: 'action-not-listed', listed: ['Accepted', 'Rejected'] }],
  ];
  for (const [what, details, action, refusal] of refusals)
    it(`is refused when ${what}`, async () => {
      const t = build({}, details);
      await t.link('UADA');
      expect(await t.check(action, STALE)).toEqual({ kind: 'refused', refusal });
    });

  it('is refused when the service no longer shows it to the approver, or does not offer details; unlinked, it says so', async () => {
    const gone = build({ details: async () => Promise.reject(new NotVisibleError({ command: 'getApprovalDetails', status: 412 })) });
    await gone.link('UADA');
    expect(await gone.check('Accepted', STALE)).toEqual({ kind: 'refused', refusal: { kind: 'not-visible' } });
    const off = build({ details: async () => Promise.reject(new NotOfferedError({ command: 'getApprovalDetails', status: 404 })) });
    await off.link('UADA');
    expect(await off.check('Accepted', STALE)).toEqual({
      kind: 'refused',
      refusal: { kind: 'not-offered', command: 'getApprovalDetails' },
    });
    expect(await build().check('Accepted', STALE)).toEqual({ kind: 'refused', refusal: { kind: 'not-linked' } });
  });

  it('fails, to be said at the click, when the service cannot be asked: a refused token is noted on the link', async () => {
    const slow = build({
      details: async () => Promise.reject(new ServiceUnavailableError('timeout', 'slow', { command: 'getApprovalDetails' })),
    });
    await slow.link('UADA');
    expect(await slow.check('Accepted', STALE)).toMatchObject({ kind: 'failed', error: { kind: 'service-unavailable' } });
    const refused = build({
      details: async () =>
        Promise.reject(
          new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage: 'Token is invalid or expired' }),
        ),
    });
    await refused.link('UADA');
    expect(await refused.check('Accepted', STALE)).toMatchObject({ kind: 'failed', error: { kind: 'invalid-token' } });
    expect((await refused.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals')).toMatchObject({ lastOutcome: 'rejected' });
  });
});

describe('decisions switched off', () => {
  it('refuses every click, asking nothing', async () => {
    const t = fakeDeps();
    expect(await checkChoice(t.deps, ADA, { approvalId: ID, action: 'Accepted', shownAt: FRESH })).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not-offered' },
    });
    expect(t.fake.calls).toEqual([]);
  });
});

describe('freshChoice', () => {
  it('takes a button as it stands for two minutes after it was drawn, by the app’s clock, and never one from the future', () => {
    expect(freshChoice(new Date(NOW.getTime() - FRESH_MS), NOW)).toBe(true);
    expect(freshChoice(new Date(NOW.getTime() - FRESH_MS - 1), NOW)).toBe(false);
    expect(freshChoice(new Date(NOW.getTime() + 1), NOW)).toBe(false);
    expect(freshChoice(undefined, NOW)).toBe(false);
  });
});

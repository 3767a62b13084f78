/**
 * Deciding an approval, with a scripted service and a real in-memory store: what is sent (exactly
 * once, with the approver's own credentials, only an action the service lists now), what every
 * answer becomes, how the hold on the approval is taken, given back and settled, and the audit trail.
 */
import { describe, expect, it } from 'vitest';
import { decide, recordAsked, startDecision } from '../../src/approvals/decide.js';
import { decidedAmong, decisionOffer } from '../../src/approvals/decision-offer.js';
import { approvalDetails } from '../../src/approvals/details.js';
import { Secret } from '../../src/runtime/secret.js';
import { AppTokenRefusedError } from '../../src/service/credentials.js';
import {
  type ApprovalDetails,
  AppSignInError,
  InvalidParameterError,
  InvalidTokenError,
  NotFoundError,
  NotOfferedError,
  NotVisibleError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { type Call, failing, fakeDeps, fakeDetails, fakeService, type ServiceScript } from '../helpers/fakes.js';

const ADA = { teamId: 'T1', userId: 'UADA' };
const EVE = { teamId: 'T1', userId: 'UEVE' };
const ID = '10001:WPDS:1';
const NOW = new Date('2026-11-22T06:30:00Z');
const DECISIONS = { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' };
const HOLD_MS = 90_000;

/** A service whose approval stays pending until a decision is taken, then shows it completed as that action. */
function serviceOf(over: ServiceScript = {}, start: Partial<ApprovalDetails> = {}) {
  let current = fakeDetails({ workItemId: ID, ...start });
  const script: ServiceScript = {
    details: async () => current,
    // The approver's own pending list, narrowed to the approval asked about.
    findApprovals: async (q) =>
      current.completedDate === '' && q['approval-id'] === current.workItemId
        ? {
            approvals: [
              {
                workItemId: current.workItemId,
                workItemName: current.workItemName,
                requestName: current.requestName,
                dueDate: current.dueDate,
                completedDate: '',
                fields: {},
              },
            ],
            count: 1,
          }
        : { approvals: [], count: 0 },
    decide: async (values) => {
      current = { ...current, completedDate: '2026-11-22 06:30:00.0', completedByName: 'Lovelace, Ada', state: values.action, actions: [] };
    },
    ...over,
  };
  return {
    fake: fakeService(script),
    complete: (state: string) => (current = { ...current, completedDate: '2026-11-22 06:29:00.0', state, actions: [] }),
  };
}

/** A decision id as the click that chose the action makes it, for this user and the approval. */
const decisionIdOf = (nonce: string, who = ADA) => startDecision({ newId: () => nonce }, who, ID);

/** The approval as the service shows it once decided as `action`. */
const completedAs = (action: string) =>
  fakeDetails({ workItemId: ID, completedDate: '2026-11-22 06:30:00.0', completedByName: 'Lovelace, Ada', state: action, actions: [] });

function build(over: ServiceScript = {}, start: Partial<ApprovalDetails> = {}, options: Parameters<typeof fakeDeps>[0] = {}) {
  const s = serviceOf(over, start);
  const t = fakeDeps({ service: s.fake, decisions: DECISIONS, decisionHoldMs: HOLD_MS, ...options });
  let n = 0;
  /** A submission as Slack delivers one: its decision id as the click made it, for Ada unless `who` says. */
  const request = (action = 'Accepted', comment = '', nonce = `decision-${String(++n).padStart(4, '0')}`, who = ADA) => ({
    approvalId: ID,
    action,
    comment,
    decisionId: decisionIdOf(nonce, who),
  });
  const decided = () => t.fake.calls.filter((c): c is Extract<Call, { command: 'decide' }> => c.command === 'decide');
  const trail = async () =>
    (await t.deps.store.listDecisions({ limit: 20 })).map((d) => [d.userId, d.action, d.outcome, d.steps.map((s) => s.step)]);
  const hold = async () => (await t.deps.store.decisionHolds([ID])).get(ID);
  /**
   * Another approver's decision claiming the approval from `at` until `until`, as a second instance
   * would: a hold whose time is up is taken over (decide reconciles it first; the trail is not this helper's).
   */
  const eveClaims = async (at: Date, until: Date) => {
    const eve = { decisionId: 'decision-eve', teamId: 'T1', userId: 'UEVE', action: 'Rejected' };
    const claim = await t.deps.store.claimDecision({ approvalId: ID, ...eve, at, until });
    if (claim.claimed || claim.holder.state === 'done' || claim.holder.until > at) return claim;
    return (await t.deps.store.takeExpiredDecision(ID, claim.holder.decisionId, at, until, eve)) ? { claimed: true as const } : claim;
  };
  return { ...t, ...s, request, decided, trail, hold, eveClaims };
}

describe('decide: what is sent', () => {
  it('approves with the approver’s own token, after reading the approval again, and records every step', async () => {
    const t = build();
    await t.link('UADA');
    await recordAsked(t.deps, ADA, { approvalId: ID, action: 'Accepted', decisionId: decisionIdOf('decision-0001') });
    const outcome = await decide(t.deps, ADA, t.request('Accepted', '  Looks right  '));
    expect(outcome).toMatchObject({
      kind: 'done',
      action: 'Accepted',
      at: NOW,
      details: { state: 'Accepted', completedByName: 'Lovelace, Ada' },
    });
    expect(t.fake.calls.map((c) => c.command)).toEqual(['getApprovalDetails', 'findApprovals', 'decide', 'getApprovalDetails']);
    expect(t.fake.calls[1]).toMatchObject({ query: { 'approval-id': ID, state: 'pending' }, token: 'token-of-UADA' });
    expect(t.decided()).toEqual([
      { command: 'decide', values: { id: ID, action: 'Accepted', comment: 'Looks right' }, token: 'token-of-UADA' },
    ]);
    const [record] = await t.deps.store.listDecisions({ limit: 5 });
    expect(record).toMatchObject({
      id: decisionIdOf('decision-0001'),
      userId: 'UADA',
      approvalId: ID,
      action: 'Accepted',
      comment: 'Looks right',
      outcome: 'done',
      answer: { result: 'done', seen: { pending: false, state: 'Accepted', completedBy: 'Lovelace, Ada' } },
    });
    expect(record?.steps.map((s) => s.step)).toEqual(['asked', 'confirmed', 'sent', 'answered']);
    expect(await t.hold()).toMatchObject({ state: 'done', userId: 'UADA', action: 'Accepted' });
  });

  it('refuses an empty comment for an action that needs one before anything is claimed or sent, and sends one that has it', async () => {
    const t = build();
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Rejected', '   '))).toEqual({
      kind: 'bad-comment',
      problem: 'Rejected needs a comment: say why, for the requester and the audit trail.',
    });
    expect(await decide(t.deps, ADA, t.request('Rejected', 'evil \u202Etxt'))).toMatchObject({ kind: 'bad-comment' });
    expect(t.fake.calls).toEqual([]);
    expect(await t.hold()).toBeUndefined();
    expect(await decide(t.deps, ADA, t.request('Rejected', 'Not needed\r\nany more'))).toMatchObject({ kind: 'done', action: 'Rejected' });
    expect(t.decided()[0]?.values.comment).toBe('Not needed\nany more');
  });

  it('sends an action no comment is required for with an empty comment', async () => {
    const t = build();
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Accepted', ''))).toMatchObject({ kind: 'done' });
    expect(t.decided()[0]?.values.comment).toBe('');
  });

  it('acts for the linked identity in the trusted mode, naming them from the store only', async () => {
    const t = build({ loginApp: async () => new Secret('app-token') }, {}, { trusted: true });
    await t.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', NOW);
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'done' });
    expect(t.decided()).toEqual([
      { command: 'decide', values: { id: ID, action: 'Accepted', comment: '' }, token: 'app-token', onBehalfOf: 'ada.lovelace' },
    ]);
  });
});

describe('decide: exactly once', () => {
  it('sends one of a double submit of the same decision; the other is told nothing new', async () => {
    const t = build();
    await t.link('UADA');
    const request = t.request('Accepted', '', 'decision-same');
    const outcomes = await Promise.all([decide(t.deps, ADA, request), decide(t.deps, ADA, request)]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['done', 'duplicate']);
    expect(t.decided()).toHaveLength(1);
  });

  it('sends one of two decisions at once (two modals, two instances); the other is refused naming the one under way', async () => {
    const t = build();
    await t.link('UADA');
    const outcomes = await Promise.all([decide(t.deps, ADA, t.request('Accepted')), decide(t.deps, ADA, t.request('Rejected', 'no'))]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['done', 'refused']);
    expect(outcomes.find((o) => o.kind === 'refused')).toMatchObject({ refusal: { kind: 'held', state: 'sending', userId: 'UADA' } });
    expect(t.decided()).toHaveLength(1);
  });

  it('does not decide an approval twice: once done, it is refused as decided, by whom, and not offered again', async () => {
    const t = build();
    await t.link('UADA');
    await decide(t.deps, ADA, t.request('Accepted'));
    expect(await decide(t.deps, ADA, t.request('Rejected', 'changed my mind'))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'already-decided', userId: 'UADA', action: 'Accepted', at: NOW },
    });
    expect(t.decided()).toHaveLength(1);
    // Even while the service still lists it as waiting (it is slow to show the change).
    expect(await decisionOffer(t.deps, fakeDetails({ workItemId: ID }))).toMatchObject({ kind: 'decided', hold: { action: 'Accepted' } });
    expect([...(await decidedAmong(t.deps, [{ workItemId: ID } as never])).keys()]).toEqual([ID]);
  });
});

describe('decide: what is refused before sending', () => {
  it('refuses an action the service does not list now (a forged button), sends nothing, and gives the approval back', async () => {
    const t = build();
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Approved'))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'action-not-listed', listed: ['Accepted', 'Rejected'] },
    });
    expect(await decide(t.deps, ADA, t.request('accepted'))).toMatchObject({ refusal: { kind: 'action-not-listed' } });
    expect(t.decided()).toEqual([]);
    expect(await t.hold()).toBeUndefined();
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'done' });
  });

  it('refuses, sending no decision, an approval the service will not show this user (another’s, or reassigned)', async () => {
    const t = build(failing('getApprovalDetails', new NotVisibleError({ command: 'getApprovalDetails', status: 412 })));
    await t.link('UEVE');
    expect(await decide(t.deps, EVE, t.request('Accepted', '', undefined, EVE))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not-visible' },
    });
    expect(t.decided()).toEqual([]);
    expect(t.fake.calls).toEqual([{ command: 'getApprovalDetails', approvalId: ID, token: 'token-of-UEVE' }]);
    expect(await t.trail()).toEqual([['UEVE', 'Accepted', 'refused', ['confirmed', 'refused']]]);
  });

  it('refuses an approval completed meanwhile in the service, and one whose items are decided one by one', async () => {
    const t = build();
    await t.link('UADA');
    t.complete('Rejected');
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'not-pending', state: 'Rejected' } });
    const items = build({}, { lineItemApprovalEnabled: true });
    await items.link('UADA');
    expect(await decide(items.deps, ADA, items.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'line-items' } });
    expect(await decisionOffer(items.deps, fakeDetails({ workItemId: ID, lineItemApprovalEnabled: true }))).toEqual({ kind: 'line-items' });
    expect([...t.decided(), ...items.decided()]).toEqual([]);
  });

  it('refuses the unlinked, and sends nothing when decisions are off', async () => {
    const t = build();
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'not-linked' } });
    const off = fakeDeps();
    await off.link('UADA');
    expect(await decide(off.deps, ADA, { approvalId: ID, action: 'Accepted', comment: '', decisionId: 'decision-x' })).toEqual({
      kind: 'off',
    });
    expect(await decisionOffer(off.deps, fakeDetails({ workItemId: ID }))).toEqual({ kind: 'off' });
    expect([...t.fake.calls, ...off.fake.calls]).toEqual([]);
  });

  it('gives the approval back when the check before sending fails: nothing was sent, and trying again works', async () => {
    let down = true;
    let decided: string | undefined;
    const t = build({
      details: async () => {
        if (down) throw new ServiceUnavailableError('timeout', 'slow', { command: 'getApprovalDetails' });
        return decided === undefined ? fakeDetails({ workItemId: ID }) : completedAs(decided);
      },
      decide: async (values) => {
        decided = values.action;
      },
    });
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'failed' });
    expect(t.decided()).toEqual([]);
    expect(await t.hold()).toBeUndefined();
    down = false;
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'done' });
  });
});

describe('decide: what the service answers', () => {
  it('gives the approval back when the service refuses: "could not be retrieved", an action it rejects, a command refused to the user', async () => {
    const errors = [
      new NotVisibleError({ command: 'performWorkItem', status: 412 }),
      new InvalidParameterError(undefined, {
        command: 'performWorkItem',
        status: 412,
        serviceMessage: "The action 'Accepted' is not valid",
      }),
      new InvalidTokenError({
        command: 'performWorkItem',
        status: 401,
        serviceMessage: "The token is not valid for the command 'performWorkItem'. ",
      }),
    ];
    const t = build({
      decide: async () => {
        throw errors.shift();
      },
    });
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'not-done', why: 'not-visible' });
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'not-done', why: 'rejected' });
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'not-done', why: 'not-permitted' });
    expect(await t.hold()).toBeUndefined();
    // Refused the command alone, the link still works for the rest.
    expect((await t.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals')?.lastOutcome).not.toBe('rejected');
    expect((await t.deps.store.listDecisions({ limit: 5 }))[0]).toMatchObject({
      outcome: 'not-done',
      answer: { result: 'refused', error: 'invalid-token', status: 401 },
    });
  });

  it('in the trusted mode, countersign’s own token refused after a new sign-in is a failure of countersign’s, not a refusal of the decision', async () => {
    const t = build(
      failing(
        'decide',
        new AppTokenRefusedError(
          new InvalidTokenError({
            command: 'performWorkItem',
            status: 401,
            serviceMessage: "The token is not valid for the command 'performWorkItem'. Token is invalid or expired",
          }),
        ),
      ),
    );
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'failed', error: { kind: 'app-sign-in' } });
    // Given back: it was refused before it was run, and may be decided again once the service takes countersign's token.
    expect(await t.hold()).toBeUndefined();
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      outcome: 'not-done',
      answer: { result: 'refused', error: 'app-sign-in', status: 401 },
    });
    // Nobody's link is at fault.
    expect((await t.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals')?.lastOutcome).not.toBe('rejected');
  });

  it('says a switched-off decision command is not offered', async () => {
    const t = build(failing('decide', new NotOfferedError({ command: 'performWorkItem', status: 404 })));
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'not-done', why: 'not-offered' });
    expect(await t.hold()).toBeUndefined();
  });

  it('a call that never reached the service decided nothing: the approval is given back', async () => {
    let down = true;
    const s = build({
      decide: async (values) => {
        if (down) throw new ServiceUnavailableError('network', 'refused', { command: 'performWorkItem' });
        s.complete(values.action);
      },
    });
    await s.link('UADA');
    expect(await decide(s.deps, ADA, s.request())).toMatchObject({ kind: 'failed' });
    expect((await s.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({ outcome: 'not-sent' });
    down = false;
    expect(await decide(s.deps, ADA, s.request())).toMatchObject({ kind: 'done' });
    expect(s.decided()).toHaveLength(2);
  });

  it('a timeout whose call did land: never sent again, the service read again, what it shows told, and nothing claimed as theirs', async () => {
    const t = build({
      decide: async (values) => {
        t.complete(values.action);
        throw new ServiceUnavailableError('timeout', 'The Command Service did not answer within 20 s.', { command: 'performWorkItem' });
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request('Accepted'));
    expect(outcome).toMatchObject({
      kind: 'unknown',
      sameAction: true,
      details: { state: 'Accepted', completedDate: '2026-11-22 06:29:00.0' },
    });
    expect(t.fake.calls.map((c) => c.command)).toEqual(['getApprovalDetails', 'findApprovals', 'decide', 'getApprovalDetails']);
    // Another approver may have taken the same action meanwhile: the service does not say who in a
    // way countersign can match, so no "Accepted by you" anywhere, and the trail says unknown.
    expect(await t.hold()).toBeUndefined();
    expect([...(await decidedAmong(t.deps, [{ workItemId: ID } as never])).keys()]).toEqual([]);
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      outcome: 'unknown',
      answer: { result: 'unknown', error: 'service-unavailable', seen: { pending: false, state: 'Accepted' } },
    });
    // Tried again, it is checked first and refused as completed; nothing more is sent.
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'refused', refusal: { kind: 'not-pending' } });
    expect(t.decided()).toHaveLength(1);
  });

  it('a timeout after which the service shows it completed as another action: nothing claimed, recorded unknown, given back', async () => {
    const t = build({
      decide: async () => {
        // Someone decided it otherwise, in the service, while ours was under way.
        t.complete('Rejected');
        throw new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' });
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request('Accepted'));
    expect(outcome).toMatchObject({ kind: 'unknown', sameAction: false, details: { state: 'Rejected' } });
    // Not "Accepted by you" anywhere: no hold that is done, and the trail says unknown.
    expect(await t.hold()).toBeUndefined();
    expect([...(await decidedAmong(t.deps, [{ workItemId: ID } as never])).keys()]).toEqual([]);
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      outcome: 'unknown',
      answer: { result: 'unknown', error: 'service-unavailable', seen: { pending: false, state: 'Rejected' } },
    });
    // Tried again, it is checked first and refused as completed; nothing more is sent.
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not-pending', state: 'Rejected' },
    });
    expect(t.decided()).toHaveLength(1);
  });

  it('an answer that cannot be read (a 2xx page of a gateway) is an unknown outcome: the service read again, nothing claimed while it shows it waiting', async () => {
    const t = build(
      failing('decide', new UnexpectedResponseError('status 200 with an HTML page', { command: 'performWorkItem', status: 200 })),
    );
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({
      kind: 'unknown',
      sameAction: false,
      details: { completedDate: '' },
      error: { kind: 'unexpected-response' },
    });
    expect(await t.hold()).toMatchObject({ state: 'unsettled' });
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      outcome: 'unknown',
      answer: { error: 'unexpected-response' },
    });
  });

  it('a timeout while the service still shows it waiting: held until the call cannot still land, then tried again after a fresh check', async () => {
    let slow = true;
    const t = build({
      decide: async (values) => {
        if (slow) throw new ServiceUnavailableError('dropped', 'connection lost', { command: 'performWorkItem' });
        t.complete(values.action);
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'unknown', details: { completedDate: '' }, retryAt: new Date(NOW.getTime() + HOLD_MS) });
    expect(await t.hold()).toMatchObject({ state: 'unsettled', until: new Date(NOW.getTime() + HOLD_MS) });
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'held', state: 'unsettled' } });
    expect(t.decided()).toHaveLength(1);
    expect(await decisionOffer(t.deps, fakeDetails({ workItemId: ID }))).toMatchObject({ kind: 'held' });
    t.deps.now = () => new Date(NOW.getTime() + HOLD_MS);
    slow = false;
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'done' });
    expect(t.decided()).toHaveLength(2);
  });

  it('a timeout after which the service cannot be read either: held a while, never claimed done', async () => {
    let calls = 0;
    const t = build({
      details: async () => {
        if (++calls > 1) throw new ServiceUnavailableError('network', 'down', { command: 'getApprovalDetails' });
        return fakeDetails({ workItemId: ID });
      },
      decide: async () => {
        throw new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' });
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'unknown' });
    expect(outcome.kind === 'unknown' && outcome.details).toBeUndefined();
    expect(await t.hold()).toMatchObject({ state: 'unsettled' });
  });
});

describe('approvalDetails with decisions on', () => {
  it('offers the actions the service lists for a pending approval, and nothing once it is completed', async () => {
    const t = build();
    await t.link('UADA');
    expect(await approvalDetails(t.deps, ADA, ID)).toMatchObject({
      kind: 'details',
      decision: { kind: 'actions', actions: ['Accepted', 'Rejected'] },
    });
    t.complete('Accepted');
    const after = await approvalDetails(t.deps, ADA, ID);
    expect(after.kind === 'details' && after.decision).toBeUndefined();
  });

  it('offers nothing once the service said the decision command is switched off', async () => {
    const t = build({ offers: (command) => command !== 'decision' });
    await t.link('UADA');
    const outcome = await approvalDetails(t.deps, ADA, ID);
    expect(outcome.kind === 'details' && outcome.decision).toBeUndefined();
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not-offered', command: 'performWorkItem' },
    });
    expect(t.decided()).toEqual([]);
  });
});

describe('decide: the hold is kept only while it is this decision’s', () => {
  it('sends nothing when the hold gave way during a slow check and another decision took it', async () => {
    let t: ReturnType<typeof build>;
    t = build({
      details: async () => {
        // The service is slow: the hold gives way, and someone else's decision claims the approval.
        const later = new Date(NOW.getTime() + HOLD_MS + 1_000);
        t.deps.now = () => later;
        await t.eveClaims(later, new Date(later.getTime() + HOLD_MS));
        return fakeDetails({ workItemId: ID });
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request('Accepted'));
    expect(outcome).toMatchObject({ kind: 'refused', refusal: { kind: 'hold-lost' } });
    expect(t.decided()).toEqual([]);
    // Eve's hold is untouched.
    expect(await t.hold()).toMatchObject({ decisionId: 'decision-eve', state: 'sending' });
    expect((await t.trail())[0]).toEqual(['UADA', 'Accepted', 'refused', ['confirmed', 'refused']]);
    expect(t.logs.join('\n')).toContain('the hold on the approval gave way while it was checked; nothing sent');
  });

  it('extends the hold just before sending, so a check that took most of it leaves the whole hold for the call', async () => {
    let decided: string | undefined;
    const t = build({
      details: async () => {
        t.deps.now = () => new Date(NOW.getTime() + HOLD_MS - 1_000);
        return decided === undefined ? fakeDetails({ workItemId: ID }) : completedAs(decided);
      },
      decide: async (values) => {
        // While the call is under way, past the first hold's time, nobody else may take it.
        const claim = await t.eveClaims(new Date(NOW.getTime() + HOLD_MS + 5_000), new Date(NOW.getTime() + 2 * HOLD_MS));
        expect(claim.claimed).toBe(false);
        decided = values.action;
      },
    });
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'done' });
  });

  it('warns when settling finds the hold no longer this decision’s', async () => {
    const t = build({
      decide: async () => {
        // A call slower than the hold: it gives way and another takes it before the answer.
        await t.deps.store.releaseDecision(ID, decisionIdOf('decision-0001'));
        await t.eveClaims(NOW, new Date(NOW.getTime() + HOLD_MS));
        throw new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' });
      },
    });
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'unknown', sameAction: false });
    expect(await t.hold()).toMatchObject({ decisionId: 'decision-eve', state: 'sending' });
    expect(t.logs.some((l) => l.includes('"level":"warn"') && l.includes('no longer this decision'))).toBe(true);
  });
});

describe('decide: only the approver’s own', () => {
  it('refuses, sending no decision, an approval the user can see but that is not on their own pending list', async () => {
    const t = build({ findApprovals: async () => ({ approvals: [], count: 0 }) });
    await t.link('UEVE');
    expect(await decide(t.deps, EVE, t.request('Accepted', '', undefined, EVE))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'not-theirs' },
    });
    expect(t.decided()).toEqual([]);
    expect(await t.hold()).toBeUndefined();
    expect(await t.trail()).toEqual([['UEVE', 'Accepted', 'refused', ['confirmed', 'refused']]]);
  });

  it('offers no buttons in Details for an approval not on the user’s own pending list, and none when that list cannot be read', async () => {
    const t = build({ findApprovals: async () => ({ approvals: [], count: 0 }) });
    await t.link('UEVE');
    expect(await approvalDetails(t.deps, EVE, ID)).toMatchObject({ kind: 'details', decision: { kind: 'not-theirs' } });
    const down = build(failing('findApprovals', new ServiceUnavailableError('timeout', 'slow', { command: 'findApprovals' })));
    await down.link('UADA');
    const outcome = await approvalDetails(down.deps, ADA, ID);
    expect(outcome.kind === 'details' && outcome.decision).toBeUndefined();
  });

  it('a refusal of getApprovalDetails alone, or a 403 for this one approval, says they cannot act on it, and leaves their link alone', async () => {
    for (const error of [
      new InvalidTokenError({
        command: 'getApprovalDetails',
        status: 401,
        serviceMessage: "The token is not valid for the command 'getApprovalDetails'. ",
      }),
      new NotFoundError({ command: 'getApprovalDetails', status: 403, serviceMessage: 'Forbidden' }),
    ]) {
      const t = build(failing('getApprovalDetails', error));
      await t.link('UADA');
      expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'not-allowed' } });
      expect(t.decided()).toEqual([]);
      expect((await t.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals')?.lastOutcome).not.toBe('rejected');
    }
    // The user's token itself refused: the link is marked, as everywhere.
    const expired = build(
      failing(
        'getApprovalDetails',
        new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage: 'Token is invalid or expired' }),
      ),
    );
    await expired.link('UADA');
    expect(await decide(expired.deps, ADA, expired.request())).toMatchObject({ kind: 'failed' });
    expect((await expired.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals')?.lastOutcome).toBe('rejected');
  });
});

describe('decide: the trusted mode’s sign-in', () => {
  it('signs in before the decision is marked sent: a failed sign-in sends nothing, gives the approval back and says so', async () => {
    let signIns = 0;
    const t = build(
      {
        loginApp: async () => {
          // The first sign-in (for the checks) works; the next, after the token's age limit, does not.
          if (++signIns > 1)
            throw new AppSignInError({ command: 'loginTrustedApp', status: 401, serviceMessage: 'Client could not be validated' });
          return new Secret('app-token');
        },
      },
      {},
      { trusted: true },
    );
    await t.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', NOW);
    const checks = t.deps.service.findApprovals.bind(t.deps.service);
    t.deps.service.findApprovals = async (...args) => {
      const page = await checks(...args);
      // The application's token reaches its age limit between the checks and the call.
      t.deps.now = () => new Date(NOW.getTime() + 3_600_000);
      return page;
    };
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'failed', error: { kind: 'app-sign-in' } });
    expect(t.decided()).toEqual([]);
    expect(await t.hold()).toBeUndefined();
    const [record] = await t.deps.store.listDecisions({ limit: 1 });
    expect(record?.steps.map((s) => s.step)).toEqual(['confirmed', 'refused']);
    expect(record).toMatchObject({ outcome: 'refused', refusal: { kind: 'sign-in-failed', error: 'app-sign-in' } });
  });

  it('records sending again after a new sign-in (the first refused as expired before it ran) as a step of its own', async () => {
    let calls = 0;
    const t = build(
      {
        loginApp: async () => new Secret(`app-token-${calls}`),
        decide: async (values) => {
          if (++calls === 1)
            throw new InvalidTokenError({
              command: 'performWorkItem',
              status: 401,
              serviceMessage: "The token is not valid for the command 'performWorkItem'. Token is invalid or expired",
            });
          t.complete(values.action);
        },
      },
      {},
      { trusted: true },
    );
    await t.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', NOW);
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'done' });
    const [record] = await t.deps.store.listDecisions({ limit: 1 });
    expect(record?.steps.map((s) => s.step)).toEqual(['confirmed', 'sent', 'resent', 'answered']);
    expect(record?.outcome).toBe('done');
  });
});

describe('decide: what the service shows afterwards decides, not the answer alone', () => {
  const pendingStill = async (t: ReturnType<typeof build>, answer: { status: number; saysError?: string }, expected: RegExp) => {
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request('Accepted', 'looks right'));
    expect(outcome).toMatchObject({ kind: 'unknown', answer, details: { completedDate: '' }, sameAction: false });
    // Not done anywhere: no hold that is done (nothing shows "by you"), the trail says unknown with the status.
    expect(await t.hold()).toMatchObject({ state: 'unsettled', until: new Date(NOW.getTime() + HOLD_MS) });
    expect([...(await decidedAmong(t.deps, [{ workItemId: ID } as never])).keys()]).toEqual([]);
    const [record] = await t.deps.store.listDecisions({ limit: 1 });
    expect(record).toMatchObject({
      outcome: 'unknown',
      unsettled: true,
      answer: { result: 'unknown', error: 'not-shown', status: answer.status, seen: { pending: true } },
    });
    expect(t.logs.join('\n')).toMatch(expected);
    expect(t.decided()).toHaveLength(1);
  };

  it('a 200 for a call that did nothing: not done, the hold gives way as for any unknown outcome', async () => {
    // The proxy's 200 {}: the service never saw it, and shows the approval waiting.
    await pendingStill(build({ decide: async () => ({ status: 200 }) }), { status: 200 }, /does not show it taken/);
  });

  it('a 204, and a 200 whose body says it failed: not done either, and the failure kept', async () => {
    await pendingStill(build({ decide: async () => ({ status: 204 }) }), { status: 204 }, /does not show it taken/);
    const t = build({ decide: async () => ({ status: 200, saysError: 'Work item locked' }) });
    await pendingStill(t, { status: 200, saysError: 'Work item locked' }, /"saysError":true/);
    const [record] = await t.deps.store.listDecisions({ limit: 1 });
    expect(record?.answer).toMatchObject({ says: 'Work item locked', message: 'Work item locked' });
  });

  it('a 2xx after which the service shows it completed as another action: what it shows is said, and nothing is claimed', async () => {
    const t = build({
      decide: async () => {
        t.complete('Rejected');
        return { status: 200 };
      },
    });
    await t.link('UADA');
    const outcome = await decide(t.deps, ADA, t.request('Accepted'));
    expect(outcome).toMatchObject({ kind: 'unknown', answer: { status: 200 }, details: { state: 'Rejected' }, sameAction: false });
    expect(await t.hold()).toBeUndefined();
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      outcome: 'unknown',
      unsettled: false,
      answer: { status: 200, seen: { pending: false, state: 'Rejected' } },
    });
  });

  it('a 2xx whose body says it failed, though the service shows it completed as sent: not claimed', async () => {
    const t = build({
      decide: async (values) => {
        t.complete(values.action);
        return { status: 200, saysError: 'partial failure' };
      },
    });
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'unknown', sameAction: true });
    expect(await t.hold()).toBeUndefined();
  });

  it('a 408, a 400, a 409 or a 410 after the service acted: read again, and never told as nothing decided', async () => {
    for (const status of [408, 400, 409, 410]) {
      const t = build({
        decide: async (values) => {
          t.complete(values.action);
          throw status === 408
            ? new ServiceUnavailableError('timeout', 'The Command Service timed out the request (408).', {
                command: 'performWorkItem',
                status,
              })
            : new NotFoundError({ command: 'performWorkItem', status, serviceMessage: 'odd' });
        },
      });
      await t.link('UADA');
      const outcome = await decide(t.deps, ADA, t.request('Accepted'));
      expect(outcome, `status ${status}`).toMatchObject({ kind: 'unknown', sameAction: true, details: { state: 'Accepted' } });
      expect(t.fake.calls.map((c) => c.command)).toEqual(['getApprovalDetails', 'findApprovals', 'decide', 'getApprovalDetails']);
      expect((await t.deps.store.listDecisions({ limit: 1 }))[0], `status ${status}`).toMatchObject({
        outcome: 'unknown',
        answer: { result: 'unknown', seen: { state: 'Accepted' } },
      });
    }
  });

  it('a 429, a 403 and a 412 refuse the call before it ran: nothing decided, not read again, the approval given back', async () => {
    const refusals = [
      new ServiceUnavailableError('busy', 'The Command Service is busy (429).', { command: 'performWorkItem', status: 429 }),
      new NotFoundError({ command: 'performWorkItem', status: 403, serviceMessage: 'Forbidden' }),
      new InvalidParameterError('action', {
        command: 'performWorkItem',
        status: 412,
        serviceMessage: "The action 'Accepted' is not valid",
      }),
    ];
    for (const error of refusals) {
      const t = build(failing('decide', error));
      await t.link('UADA');
      const outcome = await decide(t.deps, ADA, t.request('Accepted'));
      expect(['failed', 'not-done']).toContain(outcome.kind);
      expect(t.fake.calls.map((c) => c.command)).toEqual(['getApprovalDetails', 'findApprovals', 'decide']);
      expect(await t.hold()).toBeUndefined();
      expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({ outcome: 'not-done', unsettled: false });
    }
  });

  it('a command found switched off between the claim and the call was never sent', async () => {
    const t = build(failing('decide', new NotOfferedError({ command: 'performWorkItem', status: 404 }, true)));
    await t.link('UADA');
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'failed' });
    expect((await t.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({ outcome: 'not-sent', answer: { result: 'not-sent' } });
  });

  it('keeps what the store would not take from being told as a plain Done', async () => {
    const t = build();
    await t.link('UADA');
    const record = t.deps.store.recordDecisionStep.bind(t.deps.store);
    t.deps.store.recordDecisionStep = async (e) => {
      if (e.step === 'answered') throw new Error('disk full');
      return record(e);
    };
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({
      kind: 'done',
      recorded: false,
      hold: { state: 'done', userId: 'UADA' },
    });
  });
});

describe('decide: one decision’s trail is one user’s', () => {
  it('records a submission carrying another user’s decision id under an id of its own; the other’s trail is untouched', async () => {
    const t = build();
    await t.link('UADA');
    await t.link('UEVE');
    const adas = decisionIdOf('decision-ada');
    await recordAsked(t.deps, ADA, { approvalId: ID, action: 'Accepted', decisionId: adas });
    // Eve's submission names Ada's decision: it is taken as hers (this fake service lets her decide it), recorded apart.
    expect(await decide(t.deps, EVE, { approvalId: ID, action: 'Accepted', comment: 'mine', decisionId: adas })).toMatchObject({
      kind: 'done',
      hold: { userId: 'UEVE' },
    });
    const trails = await t.deps.store.listDecisions({ limit: 10 });
    expect(trails.find((d) => d.id === adas)?.steps.map((s) => s.step)).toEqual(['asked']);
    const eves = trails.find((d) => d.id !== adas);
    expect(eves).toMatchObject({ userId: 'UEVE', comment: 'mine', outcome: 'done' });
    expect(eves?.steps.map((s) => s.step)).toEqual(['confirmed', 'sent', 'answered']);
    expect(t.logs.join('\n')).toContain('a submission carried a decision id not made for its user and approval');
    // Ada's own submission joins her own trail, and nobody else's.
    expect(await decide(t.deps, ADA, { approvalId: ID, action: 'Accepted', comment: 'ok', decisionId: adas })).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'already-decided', userId: 'UEVE' },
    });
    expect((await t.deps.store.decisionRecord(adas))?.steps.map((s) => s.step)).toEqual(['asked', 'refused']);
    expect((await t.deps.store.decisionRecord(eves?.id ?? ''))?.steps.map((s) => s.step)).toEqual(['confirmed', 'sent', 'answered']);
  });

  it('records a second attempt refused at its claim with the comment typed', async () => {
    const t = build();
    await t.link('UADA');
    await t.link('UEVE');
    expect(await decide(t.deps, ADA, t.request('Accepted'))).toMatchObject({ kind: 'done' });
    expect(await decide(t.deps, EVE, t.request('Rejected', 'too late?', undefined, EVE))).toMatchObject({
      kind: 'refused',
      refusal: { kind: 'already-decided' },
    });
    expect((await t.deps.store.listDecisions({ userId: 'UEVE', limit: 1 }))[0]).toMatchObject({ comment: 'too late?', outcome: 'refused' });
  });
});

describe('decide: countersign stopping', () => {
  it('sends nothing once the stop has begun, and gives the approval back', async () => {
    const t = build();
    await t.link('UADA');
    t.deps.stopping = () => true;
    expect(await decide(t.deps, ADA, t.request())).toMatchObject({ kind: 'refused', refusal: { kind: 'stopping' } });
    expect(t.decided()).toEqual([]);
    expect(await t.hold()).toBeUndefined();
  });

  it('ends its call at its deadline: the outcome unknown, the hold unsettled for the reconciler', async () => {
    const t = build({
      decide: (_values) => new Promise(() => undefined),
    });
    await t.link('UADA');
    t.deps.decisionDeadlineMs = 50;
    // The fake ignores the signal as a hung connection would; the client's own abort is what ends it.
    const send = t.deps.service.decide.bind(t.deps.service);
    t.deps.service.decide = (call, values, token, options) =>
      Promise.race([
        send(call, values, token, options),
        new Promise<never>((_, reject) =>
          options?.signal?.addEventListener('abort', () =>
            reject(new ServiceUnavailableError('aborted', 'cut short', { command: 'performWorkItem' })),
          ),
        ),
      ]);
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'unknown', error: { kind: 'service-unavailable', reason: 'aborted' } });
    expect(await t.hold()).toMatchObject({ state: 'unsettled' });
  });
});

describe('decide: the trusted mode’s new sign-in after an expired token', () => {
  it('a sign-in that fails after the call was refused as expired decided nothing: said so, and the approval given back', async () => {
    let signIns = 0;
    const t = build(
      {
        loginApp: async () => {
          if (++signIns > 1) throw new ServiceUnavailableError('timeout', 'slow sign-in', { command: 'loginTrustedApp' });
          return new Secret('app-token');
        },
        decide: async () => {
          throw new InvalidTokenError({
            command: 'performWorkItem',
            status: 401,
            serviceMessage: "The token is not valid for the command 'performWorkItem'. Token is invalid or expired",
          });
        },
      },
      {},
      { trusted: true },
    );
    await t.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', NOW);
    const outcome = await decide(t.deps, ADA, t.request());
    expect(outcome).toMatchObject({ kind: 'failed', error: { kind: 'service-unavailable', command: 'loginTrustedApp' } });
    expect(await t.hold()).toBeUndefined();
    expect(t.decided()).toHaveLength(1);
    const [record] = await t.deps.store.listDecisions({ limit: 1 });
    expect(record).toMatchObject({ outcome: 'not-done', unsettled: false, answer: { result: 'refused', error: 'service-unavailable' } });
    expect(record?.answer && 'message' in record.answer ? record.answer.message : '').toContain(
      'refused as expired, and signing in again failed',
    );
  });
});

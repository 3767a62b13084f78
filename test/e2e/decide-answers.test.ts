/**
 * What an approver is told, and what the audit trail says, when the answer to a decision is odd: a
 * proxy in front of the reference service answers the decision call its own way (a 200 `{}` for a
 * call it never passed on, a 204, a 200 saying "error", a 408 or a 409 sent after the service acted,
 * the call passed on as another action). The service behind is the truth the test reads. Then a
 * decision no answer settled is read again by the reconciler once its hold is over; and a
 * confirmation carrying another user's decision id is recorded as its submitter's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnswerProxy, type OddAnswer, startAnswerProxy } from '../helpers/answer-proxy.js';
import { TestClock } from '../helpers/clock.js';
import { actionButtons, deciding, type View } from '../helpers/deciding.js';
import { type ResponseBody, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const HOLD_MS = 3 * 2_000 + 30_000;
const ERROR_PAGE = (title: string) => `<html><head><title>Error</title></head><body><h1>${title}</h1></body></html>`;

let h: Harness;
let proxy: AnswerProxy;
const clock = new TestClock('2026-11-22T12:00:00Z');
const flow = deciding(() => h);

beforeAll(async () => {
  proxy = await startAnswerProxy();
  h = await startHarness({
    serviceUrl: proxy.url,
    now: clock.now,
    env: {
      DECISION_REQUEST: 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}',
      APPROVAL_URL_TEMPLATE: 'https://igl.example.com/aveksa/main?WorkItemId={WorkItemId}',
      COMMANDS_PER_MINUTE: '0',
      SERVICE_TIMEOUT: '2s',
    },
    startScheduler: false,
  });
  proxy.target = h.service.url;
  await h.link('UADA', 'approver');
  await h.link('UGRACE', 'approver+ops');
});

afterAll(async () => {
  await h?.close();
  await proxy?.close();
});

/** Ada decides a fresh approval as its first action, the proxy answering the call by `rule`: what the modal says, and the approval. */
async function decideThrough(rule: OddAnswer | undefined, comment = 'as asked') {
  const { id, actions } = flow.decidable();
  const action = actions[0] as string;
  const details = await flow.openDetails('UADA', id);
  const confirm = await flow.choose('UADA', details, action);
  proxy.rule = rule;
  try {
    const { outcome } = await flow.submit('UADA', confirm, comment);
    return { id, action, actions, details, confirm, ...(await outcome()) };
  } finally {
    proxy.rule = undefined;
  }
}

const latest = async () => (await h.app.deps.store.listDecisions({ limit: 1 }))[0];
const hold = async (id: string) => (await h.app.deps.store.decisionHolds([id])).get(id);
/** Every message sent to the page's response_url so far. */
const pageTexts = (responseId: string) => h.slack.responses(responseId).map((b) => textOf(b as ResponseBody));

describe('a 2xx that did nothing', () => {
  for (const [name, rule] of [
    ['a 200 {} for a call never passed on', { status: 200, body: '{}' }],
    ['a 204 for a call never passed on', { status: 204, body: '' }],
    ['a 200 saying "error" for a call never passed on', { status: 200, body: '{"status":"error","message":"Work item locked"}' }],
  ] as const)
    it(`${name}: not done, told that the service still shows it waiting, recorded so, and decided again once the hold is over`, async () => {
      const before = flow.performed();
      const r = await decideThrough({ command: 'performWorkItem', passOn: false, ...rule });
      expect(flow.performed()).toBe(before);
      expect(r.text).not.toContain('Done');
      expect(r.text).toContain(`The Command Service answered (status ${rule.status})`);
      expect(r.text).toContain('but still shows this approval waiting for a decision');
      expect(r.text).toContain('Check it in the service before deciding again.');
      if (rule.body.includes('error')) expect(r.text).toContain('saying “Work item locked”');
      expect(await latest()).toMatchObject({
        approvalId: r.id,
        outcome: 'unknown',
        unsettled: true,
        answer: { result: 'unknown', status: rule.status, seen: { pending: true } },
      });
      expect(await hold(r.id)).toMatchObject({ state: 'unsettled' });
      // Nowhere "by you": the page is not redrawn as decided, and Details offers nothing while the hold lasts.
      expect(pageTexts(r.details.responseUrl.id).join('\n')).not.toContain('(from Slack)');
      const meanwhile = await flow.openDetails('UADA', r.id);
      expect(meanwhile.text).not.toContain(`*${r.action}* by you`);
      expect(meanwhile.text).toContain('is not shown taken by the service: check in the service');
      expect(actionButtons(meanwhile.view)).toEqual([]);

      // Once its call can no longer land: the reconciler reads it as Ada, and the trail says what it found.
      clock.advance(HOLD_MS);
      expect(await h.app.decisionReconciler.tick()).toBe(1);
      expect(await latest()).toMatchObject({ approvalId: r.id, unsettled: false, found: { found: 'pending', by: 'reconciler' } });
      expect(await hold(r.id)).toBeUndefined();
      const again = await flow.openDetails('UADA', r.id);
      expect(actionButtons(again.view).map((b) => b.text)).toEqual(r.actions.map((a) => `Decide: ${a}`));
      const confirm = await flow.choose('UADA', again, r.action);
      const { outcome } = await flow.submit('UADA', confirm, 'for real');
      expect((await outcome()).text).toContain('Done: the Command Service took your decision');
      expect(flow.performed()).toBe(before + 1);
    });
});

describe('an answer that is not a refusal, after the service acted', () => {
  for (const [name, status, body] of [
    ['a 408', 408, ERROR_PAGE('Request Timeout')],
    ['a 409', 409, ERROR_PAGE('Conflict')],
    ['a 400', 400, ERROR_PAGE('Bad Request')],
  ] as const)
    it(`${name}: read again, and told what the service shows, never "nothing was decided"`, async () => {
      const before = flow.performed();
      const r = await decideThrough({ command: 'performWorkItem', passOn: true, status, body, contentType: 'text/html' });
      expect(flow.performed()).toBe(before + 1);
      expect(flow.decisionRow(r.id)).toMatchObject({ action: r.action, comment: 'as asked' });
      expect(r.text).not.toContain('Nothing was decided');
      expect(r.text).toContain(`it shows the approval completed as *${r.action}* now, the action you sent`);
      expect(r.text).not.toMatch(/Done:|by you/);
      expect(await latest()).toMatchObject({
        approvalId: r.id,
        outcome: 'unknown',
        unsettled: false,
        answer: { result: 'unknown', seen: { pending: false, state: r.action } },
      });
      // Completed: given back at once; a new decision is refused by its fresh check.
      expect(await hold(r.id)).toBeUndefined();
      const { outcome } = await flow.submit('UADA', r.confirm, 'again');
      expect((await outcome()).text).toContain('It is decided already');
      expect(flow.performed()).toBe(before + 1);
    });
});

describe('a 2xx for a call passed on as another action', () => {
  it('says what the service shows, and does not claim the approver’s', async () => {
    const { id, actions } = flow.decidable();
    const [sent, other] = actions as [string, string];
    const details = await flow.openDetails('UADA', id);
    const confirm = await flow.choose('UADA', details, sent);
    // The comment a rejection needs, whichever is sent.
    proxy.rule = { command: 'performWorkItem', passOn: true, rewrite: { action: other }, status: 200, body: '{}' };
    try {
      const { outcome } = await flow.submit('UADA', confirm, 'because');
      const text = (await outcome()).text;
      expect(text).toContain(`The Command Service answered (status 200), and shows the approval decided otherwise, not as your *${sent}*.`);
      expect(text).toContain(`It shows it completed as *${other}*`);
      expect(text).not.toMatch(/Done:|by you/);
    } finally {
      proxy.rule = undefined;
    }
    expect(await latest()).toMatchObject({ approvalId: id, outcome: 'unknown', answer: { status: 200, seen: { state: other } } });
    expect(await hold(id)).toBeUndefined();
  });
});

describe('a confirmation carrying another user’s decision', () => {
  it('is recorded as its submitter’s own, and the other’s trail stays theirs alone', async () => {
    const adas = flow.decidable('ada.lovelace');
    const adaDetails = await flow.openDetails('UADA', adas.id);
    const adaConfirm = await flow.choose('UADA', adaDetails, adas.actions[0] as string);
    const adaDecision = (JSON.parse(String(adaConfirm.private_metadata)) as { d: string }).d;
    const graces = flow.decidable('grace.hopper');
    const graceDetails = await flow.openDetails('UGRACE', graces.id);
    const graceConfirm = await flow.choose('UGRACE', graceDetails, graces.actions[0] as string);
    // Grace's own confirmation, its metadata naming Ada's decision.
    const metadata = JSON.parse(String(graceConfirm.private_metadata)) as { d: string };
    const forged: View = { ...graceConfirm, private_metadata: JSON.stringify({ ...metadata, d: adaDecision }) };
    const { outcome } = await flow.submit('UGRACE', forged, 'Grace’s own reason');
    expect((await outcome()).text).toContain('Done: the Command Service took your decision');
    const trail = async (id: string) => (await h.app.deps.store.decisionRecord(id))?.steps.map((s) => s.step);
    // Ada's is only hers: asked, and nothing Grace did.
    await expect.poll(() => trail(adaDecision)).toEqual(['asked']);
    const grace = (await h.app.deps.store.listDecisions({ userId: 'UGRACE', limit: 1 }))[0];
    expect(grace).toMatchObject({ approvalId: graces.id, comment: 'Grace’s own reason', outcome: 'done' });
    expect(grace?.id).not.toBe(adaDecision);
    // Ada's own submission joins her own trail.
    const ada = await flow.submit('UADA', adaConfirm, 'Ada’s');
    expect((await ada.outcome()).text).toContain('Done:');
    expect(await trail(adaDecision)).toEqual(['asked', 'confirmed', 'sent', 'answered']);
    expect((await h.app.deps.store.decisionRecord(adaDecision))?.comment).toBe('Ada’s');
  });
});

describe('the trusted mode: the call refused as expired, and the new sign-in gets no answer', () => {
  let t: Harness;
  let p: AnswerProxy;
  const trusted = deciding(() => t);
  beforeAll(async () => {
    p = await startAnswerProxy();
    t = await startHarness({
      serviceUrl: p.url,
      trusted: {},
      env: {
        DECISION_REQUEST: 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}',
        COMMANDS_PER_MINUTE: '0',
        SERVICE_TIMEOUT: '2s',
      },
      startScheduler: false,
    });
    p.target = t.service.url;
    await t.map('UADA', 'ada.lovelace');
  });
  afterAll(async () => {
    await t?.close();
    await p?.close();
  });

  it('decided nothing: told so, the approval given back, and the trail says the call was refused', async () => {
    const { id, actions } = trusted.decidable();
    const details = await trusted.openDetails('UADA', id);
    const confirm = await trusted.choose('UADA', details, actions[0] as string);
    // The call is refused as sent with an expired token (before the service ran it), and signing in again hangs.
    p.rules = [
      {
        command: 'performWorkItem',
        passOn: false,
        status: 401,
        contentType: 'text/html',
        body: ERROR_PAGE("The token is not valid for the command 'performWorkItem'. Token is invalid or expired"),
      },
      { command: 'loginTrustedApp', passOn: false, status: 200, body: '', hang: true },
    ];
    try {
      const { outcome } = await trusted.submit('UADA', confirm, 'while it signs in');
      const text = (await outcome()).text;
      expect(text).toContain('did not answer in time');
      expect(text).not.toMatch(/could not confirm|Done/);
    } finally {
      p.rules = [];
    }
    expect(trusted.performed()).toBe(0);
    expect(p.answered).toBe(2);
    expect(trusted.decisionRow(id)).toBeUndefined();
    expect((await t.app.deps.store.decisionHolds([id])).get(id)).toBeUndefined();
    expect((await t.app.deps.store.listDecisions({ limit: 1 }))[0]).toMatchObject({
      approvalId: id,
      outcome: 'not-done',
      unsettled: false,
      answer: { result: 'refused', error: 'service-unavailable' },
    });
  });
});

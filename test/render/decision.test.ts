/**
 * The decision's views and controls, pure: the buttons named as the service names the actions, the
 * confirmation with its comment field, every outcome in plain words that claim no more than
 * happened, the service's text inert, every view within Block Kit's limits.
 */
import { describe, expect, it } from 'vitest';
import type { DecideOutcome } from '../../src/approvals/decide.js';
import { type DecisionState, decodeDecisionChoice, decodeDecisionState } from '../../src/parse/decision.js';
import { renderApprovalsPage } from '../../src/render/approvals.js';
import {
  COMMENT_FIELD,
  DECISION_ACTIONS,
  decisionButtons,
  decisionButtonText,
  decisionCheckingView,
  decisionConfirmView,
  decisionNote,
  decisionOutcomeView,
  decisionProgressView,
  decisionRefusedAtClickView,
  encodeDecisionState,
} from '../../src/render/decision.js';
import { messageProblems, viewProblems } from '../../src/render/validate.js';
import {
  InvalidParameterError,
  InvalidTokenError,
  NotOfferedError,
  NotVisibleError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/errors.js';
import type { Approval } from '../../src/service/schemas.js';
import type { DecisionHold } from '../../src/store/types.js';
import { timeFrame } from '../../src/time/frame.js';
import { fakeDetails } from '../helpers/fakes.js';
import { mrkdwnTexts, shownExactly, visible } from '../helpers/visible.js';

const AT = new Date('2026-11-22T10:42:00Z');
/** The reader in UTC; the service's zone not configured, so its times are labelled as its own. */
const FRAME = timeFrame(AT, 'UTC', undefined);
const HOSTILE = '<!channel> *Ada* `rm` https://evil.example \u202Egpj.exe';
const links = (id: string) => `https://igl.example.com/aveksa/main?WorkItemId=${encodeURIComponent(id)}`;
const state = (over: Partial<DecisionState> = {}): DecisionState => ({
  decisionId: 'decision-0001',
  action: 'Rejected',
  parentViewId: 'V123',
  details: {
    approvalId: '10001:WPDS:1',
    origin: { kind: 'page', owner: 'U0ADA', query: { state: 'pending' } },
    page: 1,
    responseUrl: 'https://hooks.slack.com/actions/T1/1/x',
  },
  about: { requestName: 'Add Access for Wayne, Bruce', requestedBy: 'Wayne, Bruce', step: 'Manager Approval' },
  ...over,
});
const hold = (over: Partial<DecisionHold> = {}): DecisionHold => ({
  decisionId: 'd1',
  teamId: 'T1',
  userId: 'U0ADA',
  action: 'Rejected',
  state: 'done',
  at: AT,
  until: AT,
  settledAt: AT,
  ...over,
});

/** The reader, in a zone of their own: times are written in it, named. */
const ADA = { id: 'U0ADA', zone: 'Europe/Paris' };

describe('the Details modal’s decision controls', () => {
  it('is one button per action beside Open, each saying what it does with the service’s own name for it, carrying the action, the approval in words and when it was drawn', () => {
    const d = fakeDetails({ actions: ['Approved', 'Rejected', 'Needs Info'], requestName: HOSTILE });
    const open = {
      type: 'button' as const,
      action_id: 'approval:open',
      text: { type: 'plain_text' as const, text: 'Open in the service' },
      url: 'https://x',
    };
    const [block] = decisionButtons({ kind: 'actions', actions: d.actions }, d, open, AT);
    const elements = (block as { elements: Array<{ action_id: string; text: { text: string }; value?: string }> }).elements;
    // The service's names read as states ("Accepted"): the verb says the button decides.
    expect(elements.map((e) => e.text.text)).toEqual(['Decide: Approved', 'Decide: Rejected', 'Decide: Needs Info', 'Open in the service']);
    expect(elements.slice(0, 3).map((e) => e.action_id)).toEqual(DECISION_ACTIONS.choose.slice(0, 3));
    expect(decodeDecisionChoice(elements[2]?.value)).toEqual({
      action: 'Needs Info',
      requestName: HOSTILE,
      requestedBy: 'Wayne, Bruce',
      step: 'Manager Approval',
      shownAt: AT,
    });
    // Nothing to decide here: Open alone, as before decisions existed.
    expect(decisionButtons({ kind: 'off' }, d, open, AT)).toEqual([{ type: 'actions', block_id: 'details:open', elements: [open] }]);
    expect(decisionButtons({ kind: 'line-items' }, d, undefined, AT)).toEqual([]);
  });

  it('names any action a workflow lists as the service names it, never translated, within a button’s 75 characters', () => {
    const names = ['Completed', 'Canceled', 'Escalate to Security', 'Zurückweisen', '<!here> *x*', 'Invoice \u202Egpj', 'A'.repeat(200)];
    const d = fakeDetails({ actions: names });
    const [block] = decisionButtons({ kind: 'actions', actions: names }, d, undefined, AT);
    const texts = (block as { elements: Array<{ text: { text: string } }> }).elements.map((e) => e.text.text);
    expect(texts.slice(0, 6)).toEqual([
      'Decide: Completed',
      'Decide: Canceled',
      'Decide: Escalate to Security',
      'Decide: Zurückweisen',
      'Decide: <!here> *x*',
      'Decide: Invoice [U+202E]gpj',
    ]);
    expect(texts[6]).toBe(`Decide: ${'A'.repeat(66)}…`);
    expect(decisionButtonText('Needs Info')).toBe('Decide: Needs Info');
    expect(viewProblems({ type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [block] })).toEqual([]);
  });

  it('says what is so of deciding it: how, items one by one, decided (by whom, when), on its way', () => {
    expect(visible([decisionNote({ kind: 'actions', actions: ['Accepted'] }, ADA, true)])).toContain(
      'Each Decide button names the action as the Command Service does; it asks you to confirm, with a comment, before anything is sent.',
    );
    expect(visible([decisionNote({ kind: 'line-items' }, ADA, true)])).toContain(
      'Each item of this request is decided on its own, in the service',
    );
    expect(visible([decisionNote({ kind: 'decided', hold: hold() }, ADA, true)])).toBe(
      ':white_check_mark: *Rejected* by you from Slack, Sun 22 Nov 2026, 11:42 Paris time',
    );
    expect(visible([decisionNote({ kind: 'decided', hold: hold({ userId: 'U0EVE' }) }, ADA, true)])).toContain('*Rejected* by <@U0EVE>');
    expect(visible([decisionNote({ kind: 'held', hold: hold({ state: 'sending' }) }, ADA, true)])).toContain('is being sent right now');
    expect(visible([decisionNote(undefined, ADA, false)])).toBe('The decision is made in the Command Service itself.');
  });
});

describe('the confirmation', () => {
  it('names the approval, the request, who asked and the action, asks for a comment (needed or not), and fits Slack', () => {
    const s = state({ about: { requestName: HOSTILE, requestedBy: HOSTILE, step: 'Manager Approval' } });
    const view = decisionConfirmView(s, 'required');
    expect(viewProblems(view)).toEqual([]);
    const text = visible(view.blocks);
    expect(text).toContain('You are deciding this approval as *Rejected*:');
    expect(text).toContain('Approval id `10001:WPDS:1`');
    expect(text).toContain('Comment (needed for Rejected)');
    expect(shownExactly(view.blocks, '<!channel> *Ada* `rm` https://evil.example [U+202E]gpj.exe')).toBe(true);
    expect(mrkdwnTexts(view.blocks).join('\n')).not.toContain('evil');
    const input = view.blocks.find((b) => b.type === 'input') as {
      block_id: string;
      optional: boolean;
      element: { action_id: string; multiline: boolean; max_length: number; min_length?: number };
    };
    expect(input).toMatchObject({
      block_id: COMMENT_FIELD.block,
      optional: false,
      element: { action_id: COMMENT_FIELD.action, multiline: true, max_length: 2000, min_length: 1 },
    });
    const optional = decisionConfirmView(state({ action: 'Accepted' }), 'optional').blocks.find((b) => b.type === 'input');
    expect(optional).toMatchObject({ optional: true, label: { text: 'Comment' } });
    // Slack draws every submit alike: its words say what it sends.
    expect(view.submit).toEqual({ type: 'plain_text', text: 'Send: Rejected' });
    expect(text).toContain('Nothing is sent until you press Send: Rejected; Cancel sends nothing.');
    expect(view.close).toEqual({ type: 'plain_text', text: 'Cancel' });
    expect(viewProblems(decisionProgressView(s))).toEqual([]);
  });

  it('names any action on its submit within Slack’s 24 characters, the name cut with an ellipsis past them', () => {
    expect(decisionConfirmView(state({ action: 'Needs Info' }), 'optional').submit).toEqual({
      type: 'plain_text',
      text: 'Send: Needs Info',
    });
    const long = decisionConfirmView(state({ action: 'Escalate to the Security Office' }), 'optional');
    expect(long.submit?.text).toBe('Send: Escalate to the S…');
    expect(long.submit?.text).toHaveLength(24);
    expect(viewProblems(long)).toEqual([]);
    expect(visible(long.blocks)).toContain('You are deciding this approval as *Escalate to the Security Office*:');
  });

  it('asks for no comment when the decision call sends none, and says why', () => {
    const view = decisionConfirmView(state({ action: 'Accepted' }), 'none');
    expect(viewProblems(view)).toEqual([]);
    expect(view.blocks.some((b) => b.type === 'input')).toBe(false);
    expect(visible(view.blocks)).toContain('No comment is asked for: the decision call set up for this workspace does not send one.');
    expect(view.submit).toEqual({ type: 'plain_text', text: 'Send: Accepted' });
  });

  it('carries its state in private_metadata within 3,000 characters, read back as it was, giving up the page’s query first', () => {
    const s = state();
    expect(decodeDecisionState(encodeDecisionState(s))).toEqual(s);
    const long = state({
      details: {
        ...s.details,
        origin: {
          kind: 'page',
          owner: 'U0ADA',
          query: { 'entitlement-name': 'x'.repeat(256), 'business-source': 'y'.repeat(256), 'user-first-name': 'z'.repeat(256) },
        },
        responseUrl: `https://hooks.slack.com/${'r'.repeat(900)}`,
      },
    });
    const text = encodeDecisionState({
      ...long,
      about: { requestName: 'n'.repeat(400), requestedBy: 'b'.repeat(400), step: 's'.repeat(400) },
    });
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(decodeDecisionState(text)).toMatchObject({
      decisionId: 'decision-0001',
      action: 'Rejected',
      details: { approvalId: '10001:WPDS:1' },
    });
    for (const bad of [
      undefined,
      '',
      '{',
      '{"d":"x","x":"Rejected","s":{"a":"10001:WPDS:1","o":"t"}}',
      '{"d":"decision-0001","x":"","s":{"a":"10001:WPDS:1","o":"t"}}',
      '{"d":"decision-0001","x":"Rejected","s":{"a":"bad","o":"t"}}',
    ])
      expect(decodeDecisionState(bad)).toBeUndefined();
  });
});

describe('what came of it', () => {
  const details = fakeDetails({ completedDate: '2026-11-22 10:42:05.0', completedByName: HOSTILE, state: 'Rejected', actions: [] });
  const pending = fakeDetails({ completedDate: '', state: 'Available', actions: ['Accepted', 'Rejected'] });
  const doneHold = {
    decisionId: 'd1',
    teamId: 'T1',
    userId: 'U0ADA',
    action: 'Rejected',
    state: 'done' as const,
    at: AT,
    until: AT,
    settledAt: AT,
  };
  const outcomes: Array<[string, Exclude<DecideOutcome, { kind: 'failed' } | { kind: 'bad-comment' }>, string[]]> = [
    [
      'done',
      { kind: 'done', action: 'Rejected', at: AT, details, hold: doneHold, recorded: true },
      [
        'Done: the Command Service took your decision, *Rejected*, Sun 22 Nov 2026, 10:42 UTC.',
        'It shows it completed as *Rejected*, Sun 22 Nov 2026, 10:42 service time, by',
      ],
    ],
    [
      'done, and the audit trail would not take it',
      { kind: 'done', action: 'Rejected', at: AT, details, hold: doneHold, recorded: false },
      ['Done: the Command Service took your decision', 'countersign could not write this to its audit trail just now'],
    ],
    [
      'a 2xx, and the service still shows it waiting',
      { kind: 'unknown', answer: { status: 200 }, details: pending, retryAt: AT, sameAction: false },
      [
        'The Command Service answered (status 200), but still shows this approval waiting for a decision: your *Rejected* is not recorded as made.',
        'Check it in the service before deciding again. It can be decided here again after Sun 22 Nov 2026, 10:42 UTC.',
      ],
    ],
    [
      'a 2xx whose body says it failed, and the service cannot be read after',
      { kind: 'unknown', answer: { status: 200, saysError: 'no such <b>item</b>' }, retryAt: AT, sameAction: false },
      ['The Command Service answered (status 200) saying “no such <b>item</b>”, but the approval could not be read afterwards'],
    ],
    [
      'a 2xx, and the service shows it decided as another action',
      { kind: 'unknown', answer: { status: 204 }, details: { ...details, state: 'Accepted' }, retryAt: AT, sameAction: false },
      [
        'The Command Service answered (status 204), and shows the approval decided otherwise, not as your *Rejected*.',
        'It shows it completed as *Accepted*',
      ],
    ],
    [
      'not visible before sending',
      { kind: 'refused', refusal: { kind: 'not-visible' } },
      ['no longer shows this approval to you', 'Nothing was sent to the Command Service.'],
    ],
    [
      'not listed',
      { kind: 'refused', refusal: { kind: 'action-not-listed', listed: ['Accepted', HOSTILE] } },
      ['does not offer *Rejected* for this approval now', 'It offers *Accepted*, *'],
    ],
    [
      'decided already',
      { kind: 'refused', refusal: { kind: 'already-decided', userId: 'U0EVE', action: 'Accepted', at: AT } },
      ['*Accepted* by <@U0EVE> from Slack, Sun 22 Nov 2026, 10:42 UTC: it is not decided twice.'],
    ],
    [
      'held',
      { kind: 'refused', refusal: { kind: 'held', userId: 'U0ADA', action: 'Rejected', state: 'unsettled', until: AT } },
      ['is not shown taken by the service: check in the service. It can be decided here again after'],
    ],
    [
      'items one by one',
      { kind: 'refused', refusal: { kind: 'line-items' } },
      ['Each item of this request is decided on its own, in the service. Open in the service to decide it there.'],
    ],
    [
      'completed',
      { kind: 'refused', refusal: { kind: 'not-pending', state: 'Accepted', by: 'Hopper, Grace' } },
      ['It is decided already: the service shows it completed as *Accepted*, by Hopper, Grace.'],
    ],
    [
      'not offered',
      { kind: 'refused', refusal: { kind: 'not-offered', command: 'performWorkItem' } },
      ['does not offer decisions (its administrators have switched them off)'],
    ],
    ['twice', { kind: 'duplicate', hold: hold() }, ['submitted twice: it is sent once, and nothing more was sent.']],
    [
      'service: not visible',
      { kind: 'not-done', why: 'not-visible', error: new NotVisibleError({ command: 'performWorkItem', status: 412 }) },
      ['did not take it', 'Nothing was decided.'],
    ],
    [
      'service: rejected',
      {
        kind: 'not-done',
        why: 'rejected',
        error: new InvalidParameterError(undefined, { command: 'performWorkItem', status: 412, serviceMessage: HOSTILE }),
      },
      ['did not take *Rejected* for this approval. It said: “'],
    ],
    [
      'service: not permitted',
      {
        kind: 'not-done',
        why: 'not-permitted',
        error: new InvalidTokenError({
          command: 'performWorkItem',
          status: 401,
          serviceMessage: "The token is not valid for the command 'performWorkItem'.",
        }),
      },
      ['does not let your account decide through countersign: decide in the service instead'],
    ],
    [
      'service: switched off',
      { kind: 'not-done', why: 'not-offered', error: new NotOfferedError({ command: 'performWorkItem', status: 404 }) },
      ['(its administrators have switched them off), so countersign stops offering them'],
    ],
    [
      'unknown, completed as the very action sent: what the service shows, and not claimed as theirs',
      {
        kind: 'unknown',
        error: new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' }),
        details,
        retryAt: AT,
        sameAction: true,
      },
      [
        'The Command Service did not answer in time, but it shows the approval completed as *Rejected* now, the action you sent.',
        'countersign cannot tell from here whether yours did it or another approver’s: the service’s own history says.',
      ],
    ],
    [
      'unknown, completed as another action: nothing claimed',
      {
        kind: 'unknown',
        error: new ServiceUnavailableError('dropped', 'lost', { command: 'performWorkItem' }),
        details: { ...details, state: 'Accepted' },
        retryAt: AT,
        sameAction: false,
      },
      [
        'countersign could not confirm your decision: the connection to the Command Service closed before it answered, and it shows the approval decided otherwise now.',
        'Check in the service whether that was yours.',
      ],
    ],
    [
      'unknown, still waiting',
      {
        kind: 'unknown',
        error: new ServiceUnavailableError('timeout', 'slow', { command: 'performWorkItem' }),
        details: fakeDetails(),
        retryAt: AT,
        sameAction: false,
      },
      [
        'countersign could not confirm your decision: the Command Service did not answer in time, and it still shows this approval waiting. Your decision may still arrive.',
        'Check again in a minute, in the service, before deciding again. It can be decided here again after Sun 22 Nov 2026, 10:42 UTC.',
      ],
    ],
    [
      'unknown, an unreadable answer, no word since',
      {
        kind: 'unknown',
        error: new UnexpectedResponseError('not valid JSON', { command: 'performWorkItem', status: 200 }),
        retryAt: AT,
        sameAction: false,
      },
      ['could not confirm your decision: the Command Service answered, but its answer could not be read, and it could not be asked again.'],
    ],
    [
      'unknown, the service failed on its side',
      {
        kind: 'unknown',
        error: new ServiceUnavailableError('server-error', 'failed', { command: 'performWorkItem', status: 502 }),
        retryAt: AT,
        sameAction: false,
      },
      ['the Command Service failed on its side (status 502)'],
    ],
    ['not theirs', { kind: 'refused', refusal: { kind: 'not-theirs' } }, ['not on your own list of pending approvals', 'Nothing was sent']],
    ['not allowed', { kind: 'refused', refusal: { kind: 'not-allowed' } }, ['does not let you act on this approval', 'Nothing was sent']],
    ['hold lost', { kind: 'refused', refusal: { kind: 'hold-lost' } }, ['your decision was not sent', 'Nothing was sent']],
  ];
  for (const [name, outcome, says] of outcomes) {
    it(`${name}: says so, Open remains, and Slack would take it`, () => {
      const view = decisionOutcomeView({ state: state(), outcome, readerId: 'U0ADA', frame: FRAME, approvalLinks: links });
      expect(viewProblems(view)).toEqual([]);
      const text = visible(view.blocks);
      for (const s of says) expect(text).toContain(s);
      expect(text).toContain('[Open in the service]');
      // In the approver's words, as Details: no service command names.
      expect(text).not.toMatch(/performWorkItem|getApprovalDetails/);
      expect(mrkdwnTexts(view.blocks).join('\n')).not.toContain('evil');
      // Never "done" for what the service did not take.
      if (outcome.kind !== 'done') expect(text).not.toMatch(/Done:|went through/);
      // Nor "by you" for an outcome nobody answered.
      if (outcome.kind === 'unknown') expect(text).not.toContain('by you');
    });
  }

  it('says an approval refused as not visible to a reader it was never shown to (someone else’s list) is none they can see, not one gone', () => {
    const view = decisionOutcomeView({
      state: state(),
      outcome: { kind: 'refused', refusal: { kind: 'not-visible' } },
      readerId: 'U0GRACE',
      frame: FRAME,
      approvalLinks: links,
    });
    const text = visible(view.blocks);
    expect(text).toContain('The Command Service has no approval `10001:WPDS:1` that you can see: it is not on a list of yours');
    expect(text).not.toContain('no longer shows');
  });

  it('repeats the comment that was sent, exactly as written, line breaks kept, never read as markup', () => {
    const comment = 'Not needed:\n<!channel> *moved* to `Finance` & https://evil.example \u202Egpj';
    const done = decisionOutcomeView({
      state: state(),
      outcome: { kind: 'done', action: 'Rejected', at: AT, details, hold: doneHold, recorded: true },
      readerId: 'U0ADA',
      frame: FRAME,
      approvalLinks: links,
      comment,
    });
    expect(viewProblems(done)).toEqual([]);
    const text = visible(done.blocks);
    expect(text).toContain('*Your comment, as sent:*');
    // As it went to the service, in a quote of its own; the hidden character shown as a mark.
    expect(shownExactly(done.blocks, 'Not needed:\n<!channel> *moved* to `Finance` & https://evil.example [U+202E]gpj')).toBe(true);
    expect(JSON.stringify(done.blocks)).toContain('"rich_text_quote"');
    expect(mrkdwnTexts(done.blocks).join('\n')).not.toContain('evil');
    // Refused before anything was sent: the words are kept, said not sent.
    const refused = decisionOutcomeView({
      state: state(),
      outcome: { kind: 'refused', refusal: { kind: 'not-theirs' } },
      readerId: 'U0ADA',
      frame: FRAME,
      comment,
    });
    expect(visible(refused.blocks)).toContain('*Your comment, not sent:*');
    // No comment, no quote.
    const none = decisionOutcomeView({
      state: state(),
      outcome: { kind: 'done', action: 'Rejected', at: AT, details, hold: doneHold, recorded: true },
      readerId: 'U0ADA',
      frame: FRAME,
      comment: '',
    });
    expect(visible(none.blocks)).not.toContain('Your comment');
    // And while it is sent.
    expect(visible(decisionProgressView(state(), comment).blocks)).toContain('*Your comment, being sent:*');
  });

  it('at the click: says it checks first, or why there is nothing to confirm, and that nothing was sent', () => {
    const checking = decisionCheckingView(state());
    expect(viewProblems(checking)).toEqual([]);
    expect(checking.submit).toBeUndefined();
    expect(visible(checking.blocks)).toContain('Checking with the Command Service that this approval still waits for *Rejected*…');
    const refused = decisionRefusedAtClickView(state(), { kind: 'not-pending', state: 'Accepted', by: 'Hopper, Grace' }, ADA, links);
    expect(viewProblems(refused)).toEqual([]);
    expect(refused.submit).toBeUndefined();
    expect(refused.blocks.some((b) => b.type === 'input')).toBe(false);
    const text = visible(refused.blocks);
    expect(text).toContain('It is decided already: the service shows it completed as *Accepted*, by Hopper, Grace.');
    expect(text).toContain('Nothing was sent to the Command Service. Close this to see the approval as it stands now.');
    expect(text).toContain('[Open in the service]');
  });

  it('says the service’s time of it on the reader’s clock, named, when the service’s zone is known', () => {
    const berlin = timeFrame(AT, 'Europe/Berlin', 'America/New_York');
    const view = decisionOutcomeView({
      state: state(),
      outcome: { kind: 'done', action: 'Rejected', at: AT, details, hold: doneHold, recorded: true },
      readerId: 'U0ADA',
      frame: berlin,
      approvalLinks: links,
    });
    // 10:42 in New York is 16:42 in Berlin.
    expect(visible(view.blocks)).toContain('It shows it completed as *Rejected*, Sun 22 Nov 2026, 16:42 Berlin time, by');
  });
});

describe('a list with an approval decided from it', () => {
  const approval = (i: number): Approval => ({
    workItemId: `${1000 + i}:WPDS:1`,
    workItemName: 'Manager Approval',
    requestName: `Add Access for Turing ${i}`,
    dueDate: '2026-11-24 10:00:00.0',
    completedDate: '',
    fields: {},
  });
  it('shows it first, as decided by you, with no buttons, and the rest as before; the notification says so', () => {
    const m = renderApprovalsPage({
      query: { state: 'pending' },
      approvals: [approval(1), approval(2)],
      userId: 'U0ADA',
      frame: FRAME,
      details: true,
      decided: new Map([
        ['1009:WPDS:1', { action: 'Rejected', at: AT, userId: 'U0ADA' }],
        ['1002:WPDS:1', { action: 'Accepted', at: AT, userId: 'U0EVE' }],
      ]),
      justDecided: [approval(9)],
    });
    expect(messageProblems(m)).toEqual([]);
    const text = visible(m.blocks);
    expect(text.indexOf('Turing 9')).toBeLessThan(text.indexOf('Turing 1'));
    expect(text).toContain('*Rejected* by you from Slack, Sun 22 Nov 2026, 10:42 UTC');
    expect(text).toContain('*Accepted* by <@U0EVE>');
    const details = m.blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).filter((e) => e.action_id === 'approval:details');
    expect(details).toHaveLength(1);
    expect(m.text).toMatch(/^Rejected by you: Add Access for Turing 9\. Pending approvals: 2 shown\./);
  });

  it('says in the notification, too, when another approver decided the one just shown first', () => {
    const m = renderApprovalsPage({
      query: { state: 'pending' },
      approvals: [approval(1)],
      userId: 'U0ADA',
      frame: FRAME,
      decided: new Map([['1009:WPDS:1', { action: 'Rejected', at: AT, userId: 'U0EVE' }]]),
      justDecided: [approval(9)],
    });
    expect(visible(m.blocks)).toContain('*Rejected* by <@U0EVE>');
    expect(m.text).toMatch(/^Rejected by another approver \(from Slack\): Add Access for Turing 9\. /);
    expect(m.text).not.toContain('by you');
  });
});

/**
 * Deciding as an approver sees it, end to end: the real app over signed HTTP against the reference
 * service's performWorkItem, Slack's side played on loopback. What the review of deciding found on
 * the approver's side: a required comment satisfied by characters that do not show, and tag
 * characters carrying hidden words into the service's record and the audit trail; buttons that
 * read as states ("Accepted"), a submit that said "Confirm" whatever it sent, and a stale button
 * that let the approver write a comment before saying the approval was decided already.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_REQUEST_NAMES } from '../../src/reference-service/demo.js';
import { type ApprovalRowForRequest, sketchRequest } from '../../src/reference-service/requests.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { visible } from '../helpers/visible.js';

type View = Record<string, unknown> & { blocks: unknown[]; private_metadata?: string; submit?: { text: string } };

const until = eventually;

/** Text written in tag characters (U+E0000 + each letter): how hidden words ride along. */
const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) as number))).join('');

let h: Harness;
/** The app's clock runs this far ahead of the machine's: a test moves it to make Details drawn "minutes ago". */
let ahead = 0;
beforeAll(async () => {
  h = await startHarness({
    now: () => new Date(Date.now() + ahead),
    env: {
      DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}',
      APPROVAL_URL_TEMPLATE: 'https://igl.example.com/aveksa/main?WorkItemId={WorkItemId}',
      COMMANDS_PER_MINUTE: '0',
    },
  });
  await h.link('UADA', 'approver');
});
afterAll(async () => {
  await h?.close();
});

const used = new Set<string>();
/** A pending approval of Ada's that can be decided whole, with this action among its actions, not used before. */
function decidable(action?: string): { id: string; actions: string[] } {
  const rows = h.service.db
    .prepare<[], ApprovalRowForRequest & { work_item_id: string }>(
      "SELECT * FROM approvals WHERE approver_id = 'ada.lovelace' AND state = 'pending' ORDER BY due_at",
    )
    .all();
  for (const row of rows) {
    const sketch = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name));
    if (used.has(row.work_item_id) || sketch.lineItemApprovalEnabled || sketch.actions.length < 2) continue;
    if (action !== undefined && !sketch.actions.includes(action)) continue;
    used.add(row.work_item_id);
    return { id: row.work_item_id, actions: sketch.actions };
  }
  throw new Error('no decidable approval left');
}

const counts = () => ({
  open: viewsSent(h.slack, 'views.open').length,
  update: viewsSent(h.slack, 'views.update').length,
  push: viewsSent(h.slack, 'views.push').length,
});
const openedViewId = (n: number) => {
  const call = h.slack.apiCalls.filter((c) => c.method === 'views.open')[n];
  return `V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`;
};
const updateOf = (viewId: string, after: number, says?: string) =>
  until(`views.update of ${viewId}${says ? ` saying ${says}` : ''}`, () =>
    viewsSent(h.slack, 'views.update')
      .slice(after)
      .filter((u) => u.viewId === viewId)
      .map((u) => ({ view: u.view as View, text: visible((u.view as View).blocks) }))
      .find((u) => says === undefined || u.text.includes(says)),
  );
const performed = () => h.service.calls.get('performWorkItem') ?? 0;
const decisionRow = (id: string) =>
  h.service.db
    .prepare<[string], { action: string; comment: string }>('SELECT action, comment FROM decisions WHERE work_item_id = ?')
    .get(id);

async function openDetails(id: string) {
  const responseUrl = h.slack.responseUrl();
  await h.command('UADA', '/approvals', `state:all approval-id:${id}`, { responseUrl });
  const [page] = await h.slack.waitForResponses(responseUrl.id, 1);
  const value = buttonsOf(page).find((b) => b.action_id === DETAILS_ACTIONS.open)?.value;
  const before = counts();
  await h.click('UADA', DETAILS_ACTIONS.open, value, { responseUrl });
  await until('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
  const viewId = openedViewId(before.open);
  return { viewId, ...(await updateOf(viewId, before.update)) };
}

/** The Details modal's decision buttons: their text, and the action each carries (its value says). */
const actionButtons = (view: View) =>
  (view.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value?: string; text?: { text: string } }> }>)
    .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
    .filter((e) => DECISION_ACTIONS.choose.includes(e.action_id))
    .map((e) => ({
      text: e.text?.text ?? '',
      action: (JSON.parse(e.value ?? '{}') as { x?: string }).x,
      value: e.value,
      actionId: e.action_id,
    }));

/**
 * Clicks the button of this action in the Details modal: what the click ends with, the view Slack
 * was asked to push, or, when that was "Checking…", what it was then updated to.
 */
async function click(details: { viewId: string; view: View }, action: string): Promise<View> {
  const button = actionButtons(details.view).find((b) => b.action === action);
  if (button === undefined) throw new Error(`no ${action} button in ${visible(details.view.blocks)}`);
  const pushes = counts().push;
  expect((await h.clickInView('UADA', details.view, details.viewId, button.actionId, button.value)).status).toBe(200);
  const pushed = await until('views.push', () => h.slack.apiCalls.filter((c) => c.method === 'views.push')[pushes]);
  const view = JSON.parse(new URLSearchParams(pushed.body).get('view') ?? '{}') as View;
  if (!visible(view.blocks).includes('Checking with the Command Service')) return view;
  const pushedId = `V${h.slack.apiCalls.indexOf(pushed) + 1}`;
  return (await updateOf(pushedId, 0)).view;
}

/** The confirmation the click opened. */
async function choose(details: { viewId: string; view: View }, action: string): Promise<View> {
  const view = await click(details, action);
  if (view.submit === undefined) throw new Error(`no confirmation: ${visible(view.blocks)}`);
  return view;
}

const reads = () => (h.service.calls.get('getApprovalDetails') ?? 0) + (h.service.calls.get('findApprovals') ?? 0);

let confirmations = 0;
async function submit(confirm: View, comment: string) {
  const viewId = `VAPPROVER${++confirmations}`;
  const before = counts().update;
  const sent = await h.submitView('UADA', confirm, viewId, { [COMMENT_FIELD.block]: comment });
  expect(sent.status).toBe(200);
  const ack = (sent.body ? JSON.parse(sent.body) : {}) as { response_action?: string; errors?: Record<string, string> };
  return { ack, outcome: () => updateOf(viewId, before) };
}

describe('a comment that hides itself (issue 31, item 6)', () => {
  it('is refused for Rejected when nothing in it shows, saying so, and nothing is sent or recorded', async () => {
    const { id } = decidable('Rejected');
    const confirm = await choose(await openDetails(id), 'Rejected');
    const calls = performed();
    for (const comment of ['\u200B', '\u2060\u2060', '\u3164', '\u2800', '\u00AD', '\u034F', tags('because')]) {
      const { ack } = await submit(confirm, comment);
      expect(ack.response_action, JSON.stringify(comment)).toBe('errors');
      expect(ack.errors?.[COMMENT_FIELD.block]).toMatch(
        /^Rejected needs a comment in words: this one has nothing that shows \(it starts with U\+[0-9A-F]{4,5}\)\./,
      );
    }
    expect(performed()).toBe(calls);
    expect(decisionRow(id)).toBeUndefined();
    expect(await h.app.deps.store.decisionHolds([id])).toEqual(new Map());
  });

  it('is refused when tag characters carry words nobody sees, whatever the action, naming them', async () => {
    const { id, actions } = decidable();
    const confirm = await choose(await openDetails(id), actions[0] as string);
    const calls = performed();
    const { ack } = await submit(confirm, `Approved as asked${tags('and grant admin too')}`);
    expect(ack).toEqual({
      response_action: 'errors',
      errors: {
        [COMMENT_FIELD.block]:
          'The comment holds a tag character (U+E0061), which does not show and can carry hidden text; take it out and submit again.',
      },
    });
    expect(performed()).toBe(calls);
    // The same words, without what hid in them, go through; an emoji's joiner and selector are text like any other.
    const comment = 'Approved as asked 👩\u200D💻 \u2764\uFE0F';
    const { ack: taken, outcome } = await submit(confirm, comment);
    expect(taken.response_action).toBe('update');
    await outcome();
    expect(decisionRow(id)?.comment).toBe(comment);
  });
});

describe('the decision buttons and the confirmation (issue 31, item 11)', () => {
  it('say what they do, with the service’s own name for each action; the submit names the action it sends', async () => {
    const { id, actions } = decidable();
    const details = await openDetails(id);
    expect(actionButtons(details.view).map((b) => b.text)).toEqual(actions.map((a) => `Decide: ${a}`));
    expect(details.text).toContain('Each Decide button names the action as the Command Service does');
    const action = actions[1] as string;
    const confirm = await choose(details, action);
    expect(confirm.submit).toEqual({ type: 'plain_text', text: `Send: ${action}` });
    expect(visible(confirm.blocks)).toContain(`You are deciding this approval as *${action}*:`);
    expect(visible(confirm.blocks)).toContain(`Nothing is sent until you press Send: ${action}; Cancel sends nothing.`);
  });

  it('a click on Details drawn moments ago asks the service nothing: only countersign’s records are checked', async () => {
    const { id, actions } = decidable();
    const details = await openDetails(id);
    // Details' own reads (the details, the items, the pending list) are done once its work has ended.
    await settled(h);
    const before = reads();
    await choose(details, actions[0] as string);
    // Once the choice is a step of the audit trail, the click's work is done.
    await eventually('the choice recorded', async () =>
      (await h.app.deps.store.listDecisions({ limit: 20 })).some((r) => r.approvalId === id && r.steps.some((st) => st.step === 'asked')),
    );
    await settled(h);
    expect(reads()).toBe(before);
  });

  it('a button gone stale by a decision from another Details is refused at the click, before any comment, and nothing more is sent', async () => {
    const { id, actions } = decidable();
    const first = await openDetails(id);
    const second = await openDetails(id);
    const { outcome } = await submit(await choose(second, actions[0] as string), 'from the second window');
    await outcome();
    const sent = performed();
    const pushes = counts().push;
    const refused = await click(first, actions[1] as string);
    expect(refused.submit).toBeUndefined();
    expect(refused.blocks.some((b) => (b as { type: string }).type === 'input')).toBe(false);
    const text = visible(refused.blocks);
    expect(text).toContain(`*${actions[0]}* by you`);
    expect(text).toContain('it is not decided twice.');
    expect(text).toContain('Nothing was sent to the Command Service.');
    expect(counts().push).toBe(pushes + 1);
    expect(performed()).toBe(sent);
    // The Details underneath, which offered it, are drawn again as it stands: decided, no buttons.
    const redrawn = await updateOf(first.viewId, 0, 'by you');
    expect(actionButtons(redrawn.view)).toEqual([]);
  });

  it('a button on Details drawn minutes ago is checked with the service at the click: decided there since, it is refused, saying what the service shows', async () => {
    const { id, actions } = decidable();
    const details = await openDetails(id);
    h.service.db.prepare("UPDATE approvals SET state = 'completed', completed_at = '2026-11-20 10:00:00.0' WHERE work_item_id = ?").run(id);
    ahead += 5 * 60_000;
    const sent = performed();
    const refused = await click(details, actions[0] as string);
    expect(refused.submit).toBeUndefined();
    const text = visible(refused.blocks);
    expect(text).toContain('It is decided already: the service shows it completed');
    expect(text).toContain('Nothing was sent to the Command Service.');
    expect(performed()).toBe(sent);
    const redrawn = await updateOf(details.viewId, 0, 'nothing is left to decide');
    expect(actionButtons(redrawn.view)).toEqual([]);
  });

  it('a button on Details drawn minutes ago, still waiting, costs one read of the approval, then opens the confirmation', async () => {
    const { id, actions } = decidable();
    const details = await openDetails(id);
    await settled(h);
    ahead += 5 * 60_000;
    const before = h.service.calls.get('getApprovalDetails') ?? 0;
    const confirm = await choose(details, actions[0] as string);
    expect(confirm.submit).toEqual({ type: 'plain_text', text: `Send: ${actions[0]}` });
    expect(h.service.calls.get('getApprovalDetails') ?? 0).toBe(before + 1);
  });
});

/**
 * Deciding as an approver sees it, end to end: the real app over signed HTTP against the reference
 * service's performWorkItem, Slack's side played on loopback. What the review of deciding found on
 * the approver's side: a required comment satisfied by characters that do not show, and tag
 * characters carrying hidden words into the service's record and the audit trail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_REQUEST_NAMES } from '../../src/reference-service/demo.js';
import { type ApprovalRowForRequest, sketchRequest } from '../../src/reference-service/requests.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { buttonsOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

type View = Record<string, unknown> & { blocks: unknown[]; private_metadata?: string; submit?: { text: string } };

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Text written in tag characters (U+E0000 + each letter): how hidden words ride along. */
const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) as number))).join('');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
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

/** Clicks the button of this action in the Details modal: the confirmation Slack was asked to push. */
async function choose(details: { viewId: string; view: View }, action: string): Promise<View> {
  const button = actionButtons(details.view).find((b) => b.action === action);
  if (button === undefined) throw new Error(`no ${action} button in ${visible(details.view.blocks)}`);
  const pushes = counts().push;
  expect((await h.clickInView('UADA', details.view, details.viewId, button.actionId, button.value)).status).toBe(200);
  return (await until('views.push', () => viewsSent(h.slack, 'views.push')[pushes])).view as View;
}

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

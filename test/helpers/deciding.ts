/**
 * Deciding from Slack as an approver does it, against a harness: a page listing the approval, its
 * Details, an action's confirmation, the submission and what the modal then says. Shared by the
 * end-to-end tests of deciding, so that each says only what it checks.
 */

import { expect } from 'vitest';
import { HOSTILE_REQUEST_NAMES } from '../../src/reference-service/demo.js';
import { type ApprovalRowForRequest, sketchRequest } from '../../src/reference-service/requests.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { eventually } from './eventually.js';
import { buttonsOf, viewsSent } from './fake-slack.js';
import type { Harness } from './harness.js';
import { visible } from './visible.js';

export type View = Record<string, unknown> & { blocks: unknown[]; private_metadata?: string; submit?: unknown };

/** The one wait of the tests, by the name the decision tests know it. */
export { eventually as until };

export function actionButtons(view: View) {
  return (view.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value?: string; text?: { text: string } }> }>)
    .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
    .filter((e) => DECISION_ACTIONS.choose.includes(e.action_id))
    .map((e) => ({ text: e.text?.text ?? '', value: e.value, actionId: e.action_id }));
}

/** The flow over one harness (a getter, for a harness started in beforeAll). */
export function deciding(harness: () => Harness) {
  const used = new Set<string>();
  let confirmations = 0;

  /** A pending approval of this approver that the service lets be decided whole, with two actions or more, not used before. */
  function decidable(approver = 'ada.lovelace'): { id: string; actions: string[] } {
    const rows = harness()
      .service.db.prepare<[string], ApprovalRowForRequest & { work_item_id: string }>(
        "SELECT * FROM approvals WHERE approver_id = ? AND state = 'pending' ORDER BY due_at",
      )
      .all(approver);
    for (const row of rows) {
      const sketch = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name));
      if (used.has(row.work_item_id) || sketch.lineItemApprovalEnabled || sketch.actions.length < 2) continue;
      used.add(row.work_item_id);
      return { id: row.work_item_id, actions: sketch.actions };
    }
    throw new Error('no decidable approval left');
  }

  const counts = () => {
    const h = harness();
    return {
      open: viewsSent(h.slack, 'views.open').length,
      update: viewsSent(h.slack, 'views.update').length,
      push: viewsSent(h.slack, 'views.push').length,
    };
  };
  const openedViewId = (n: number) => {
    const h = harness();
    const call = h.slack.apiCalls.filter((c) => c.method === 'views.open')[n];
    return `V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`;
  };
  /** The next views.update of this view after `after` updates in all, once its text says `says`. */
  const updateOf = (viewId: string, after: number, says?: string) =>
    eventually(`views.update of ${viewId}${says ? ` saying ${says}` : ''}`, () =>
      viewsSent(harness().slack, 'views.update')
        .slice(after)
        .filter((u) => u.viewId === viewId)
        .map((u) => ({ view: u.view as View, text: visible((u.view as View).blocks) }))
        .find((u) => says === undefined || u.text.includes(says)),
    );
  const performed = () => harness().service.calls.get('performWorkItem') ?? 0;
  const decisionRow = (id: string) =>
    harness()
      .service.db.prepare<[string], { action: string; comment: string; decided_by: string }>(
        'SELECT action, comment, decided_by FROM decisions WHERE work_item_id = ?',
      )
      .get(id);

  /**
   * A page listing just this approval, and its Details opened from it: the modal, and the response_url
   * the page is redrawn through. `ownClickUrl`: the click gets a response_url of its own, as Slack
   * gives each interaction (the page's stays the command's); by default the click reuses the command's.
   */
  async function openDetails(userId: string, id: string, { ownClickUrl = false } = {}) {
    const h = harness();
    const pageUrl = h.slack.responseUrl();
    await h.command(userId, '/approvals', `state:all approval-id:${id}`, { responseUrl: pageUrl });
    const [page] = await h.slack.waitForResponses(pageUrl.id, 1);
    const value = buttonsOf(page).find((b) => b.action_id === DETAILS_ACTIONS.open)?.value;
    const before = counts();
    const responseUrl = ownClickUrl ? h.slack.responseUrl() : pageUrl;
    await h.click(userId, DETAILS_ACTIONS.open, value, { responseUrl });
    await eventually('views.open', () => viewsSent(h.slack, 'views.open')[before.open]);
    const viewId = openedViewId(before.open);
    const shown = await updateOf(viewId, before.update);
    return { viewId, ...shown, responseUrl, pageValue: value };
  }

  /**
   * Chooses an action in the Details modal: the confirmation Slack was asked to push over it (or, when
   * the check at the click was slow and "Checking…" was pushed, what that was updated to).
   */
  async function choose(userId: string, details: { viewId: string; view: View }, action: string): Promise<View> {
    const h = harness();
    const button = actionButtons(details.view).find((b) => b.text === `Decide: ${action}`);
    if (button === undefined) throw new Error(`no ${action} button in ${visible(details.view.blocks)}`);
    const pushes = counts().push;
    const sent = await h.clickInView(userId, details.view, details.viewId, button.actionId, button.value);
    expect(sent.status).toBe(200);
    const pushed = await eventually('views.push', () => viewsSent(h.slack, 'views.push')[pushes]);
    expect(pushed.triggerId).toMatch(/^1234\./);
    if (!visible((pushed.view as View).blocks).includes('Checking with the Command Service')) return pushed.view as View;
    const call = h.slack.apiCalls.filter((c) => c.method === 'views.push')[pushes];
    return (await updateOf(`V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`, 0)).view;
  }

  /**
   * Submits the confirmation with this comment: Slack's answer to the submission, and the outcome the
   * modal then shows. `to`: another instance's base URL, on the same store, service and Slack.
   */
  async function submit(userId: string, confirm: View, comment: string, viewId = `VCONFIRM${++confirmations}`, to?: string) {
    const h = harness();
    const before = counts().update;
    const sent = await h.submitView(userId, confirm, viewId, { [COMMENT_FIELD.block]: comment }, to === undefined ? {} : { to });
    expect(sent.status).toBe(200);
    const ack = (sent.body ? JSON.parse(sent.body) : {}) as { response_action?: string; errors?: Record<string, string>; view?: View };
    return { ack, viewId, outcome: () => updateOf(viewId, before) };
  }

  return { decidable, counts, openedViewId, updateOf, performed, decisionRow, openDetails, choose, submit };
}

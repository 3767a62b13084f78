/**
 * Two instances on one PostgreSQL decide as one app: the same confirmation delivered to both (a
 * retry from Slack landing on the other instance), and two confirmations of one approval submitted
 * on both at once, send the service one call.
 */

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../../src/main.js';
import { HOSTILE_REQUEST_NAMES } from '../../src/reference-service/demo.js';
import { type ApprovalRowForRequest, sketchRequest } from '../../src/reference-service/requests.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { until } from '../helpers/deciding.js';
import { viewsSent } from '../helpers/fake-slack.js';
import { type Harness, SIGNING_SECRET, sign, startHarness, TEAM } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { visible } from '../helpers/visible.js';

const available = await postgresAvailable('decisions on two instances');
const DECISION_REQUEST = 'GET performWorkItem?workitem-id={id}&action={action}&comment={comment}';
type View = Record<string, unknown> & { blocks: unknown[]; private_metadata?: string };

let h: Harness;
let other: Running;
let schema: Awaited<ReturnType<typeof freshSchema>>;

beforeAll(async () => {
  if (!available) return;
  schema = await freshSchema();
  const env = { DATABASE_URL: schema.url, DECISION_REQUEST, COMMANDS_PER_MINUTE: '0' };
  h = await startHarness({ env });
  await h.link('UADA', 'approver');
  // The second instance: the same configuration as the harness's, on the same database, service and Slack.
  other = await h.startInstance({ startScheduler: false });
});
afterAll(async () => {
  await other?.shutdown();
  await h?.close();
  await schema?.drop();
});

let sequence = 0;
/** A confirmation's submission, as Slack sends it, to one instance. */
async function submitTo(port: number, view: View, viewId: string, comment: string): Promise<number> {
  const payload = {
    type: 'view_submission',
    team: { id: TEAM, domain: 'example' },
    user: { id: 'UADA', username: 'uada', team_id: TEAM },
    api_app_id: 'A0COUNTERSIGN',
    token: 'legacy-verification-token',
    trigger_id: `5678.${Date.now()}.${++sequence}`,
    view: {
      ...view,
      id: viewId,
      team_id: TEAM,
      state: { values: { [COMMENT_FIELD.block]: { value: { type: 'plain_text_input', value: comment } } } },
    },
  };
  const form = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const res = await request(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(form, SIGNING_SECRET, Math.floor(Date.now() / 1000)) },
    body: form,
  });
  await res.body.dump();
  return res.statusCode;
}

/** The confirmation of the first action of a decidable approval of Ada's, opened on the harness's instance. */
async function confirmation(): Promise<{ id: string; view: View }> {
  const rows = h.service.db
    .prepare<[], ApprovalRowForRequest & { work_item_id: string }>(
      "SELECT * FROM approvals WHERE approver_id = 'ada.lovelace' AND state = 'pending' ORDER BY due_at DESC",
    )
    .all();
  const row = rows.find((r) => {
    const s = sketchRequest(r, HOSTILE_REQUEST_NAMES.includes(r.request_name));
    return (
      !s.lineItemApprovalEnabled &&
      s.actions.length >= 2 &&
      h.service.db.prepare('SELECT 1 FROM decisions WHERE work_item_id = ?').get(r.work_item_id) === undefined
    );
  });
  if (row === undefined) throw new Error('nothing to decide');
  const opens = viewsSent(h.slack, 'views.open').length;
  const updates = viewsSent(h.slack, 'views.update').length;
  await h.command('UADA', '/approvals', `show ${row.work_item_id}`);
  await until('views.open', () => viewsSent(h.slack, 'views.open')[opens]);
  const call = h.slack.apiCalls.filter((c) => c.method === 'views.open')[opens];
  const viewId = `V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`;
  const details = await until('the details', () =>
    viewsSent(h.slack, 'views.update')
      .slice(updates)
      .find((u) => u.viewId === viewId && visible((u.view as View).blocks).includes('What the request asks for')),
  );
  const button = ((details.view as View).blocks as Array<{ elements?: Array<{ action_id: string; value?: string }> }>)
    .flatMap((b) => b.elements ?? [])
    .find((e) => DECISION_ACTIONS.choose.includes(e.action_id));
  const pushes = viewsSent(h.slack, 'views.push').length;
  await h.clickInView('UADA', details.view, viewId, button?.action_id ?? '', button?.value);
  const pushed = await until('views.push', () => viewsSent(h.slack, 'views.push')[pushes]);
  if (!visible((pushed.view as View).blocks).includes('Checking with the Command Service'))
    return { id: row.work_item_id, view: pushed.view as View };
  // A check at the click slower than the trigger allows pushes "Checking…" first, then updates it to the confirmation.
  const push = h.slack.apiCalls.filter((c) => c.method === 'views.push')[pushes];
  const pushedId = `V${h.slack.apiCalls.indexOf(push as (typeof h.slack.apiCalls)[number]) + 1}`;
  const confirm = await until('the confirmation', () => viewsSent(h.slack, 'views.update').find((u) => u.viewId === pushedId));
  return { id: row.work_item_id, view: confirm.view as View };
}

const outcomeOf = (viewId: string) =>
  until(`the outcome in ${viewId}`, () => {
    const u = viewsSent(h.slack, 'views.update').find((v) => v.viewId === viewId);
    return u === undefined ? undefined : visible((u.view as View).blocks);
  });

describe.skipIf(!available)('decisions on two instances sharing PostgreSQL', () => {
  it('sends one call for the same confirmation delivered to both instances at once', async () => {
    const { id, view } = await confirmation();
    const before = h.service.calls.get('performWorkItem') ?? 0;
    const port = h.app.port as number;
    expect(await Promise.all([submitTo(port, view, 'VBOTH1', 'one'), submitTo(other.port as number, view, 'VBOTH2', 'one')])).toEqual([
      200, 200,
    ]);
    const texts = await Promise.all([outcomeOf('VBOTH1'), outcomeOf('VBOTH2')]);
    expect(texts.filter((t) => t.includes('Done: the Command Service took your decision'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('it is sent once, and nothing more was sent'))).toHaveLength(1);
    expect(h.service.calls.get('performWorkItem')).toBe(before + 1);
    expect(h.service.db.prepare('SELECT COUNT(*) AS n FROM decisions WHERE work_item_id = ?').get(id)).toEqual({ n: 1 });
  });

  it('sends one call for two confirmations of one approval submitted on both instances at once', async () => {
    const first = await confirmation();
    // A second confirmation of the same approval (another modal, so another decision).
    const second = {
      ...first.view,
      private_metadata: String(first.view.private_metadata).replace(/"d":"[^"]+"/, '"d":"another-decision-0001"'),
    };
    const before = h.service.calls.get('performWorkItem') ?? 0;
    await Promise.all([submitTo(h.app.port as number, first.view, 'VPAIR1', 'a'), submitTo(other.port as number, second, 'VPAIR2', 'b')]);
    const texts = await Promise.all([outcomeOf('VPAIR1'), outcomeOf('VPAIR2')]);
    expect(h.service.calls.get('performWorkItem')).toBe(before + 1);
    expect(texts.filter((t) => t.includes('Done:'))).toHaveLength(1);
    expect(texts.filter((t) => /being sent right now|not decided twice/.test(t))).toHaveLength(1);
    const decisions = await other.deps.store.listDecisions({ limit: 2 });
    expect(decisions.map((d) => d.outcome).sort()).toEqual(['done', 'refused']);
  });
});

/**
 * A decision button in an arrival message, clicked: with no modal underneath, the confirmation is
 * opened (not pushed) with the click's trigger, after one reading of the approval (a message may be
 * clicked long after it was drawn), and carries what the one decision path needs. And a decision from
 * Slack, done, redraws the arrival messages that list it.
 */

import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { decodeDecisionState } from '../../../src/parse/decision.js';
import { renderArrivals } from '../../../src/render/arrivals.js';
import { DECISION_ACTIONS } from '../../../src/render/decision.js';
import { decisionChooseAction } from '../../../src/slack/handlers/actions/decision.js';
import { showDecided } from '../../../src/slack/surfaces/decision.js';
import { timeFrame } from '../../../src/time/frame.js';
import { fakeDeps, fakeDetails, fakeService } from '../../helpers/fakes.js';
import { visible } from '../../helpers/visible.js';

const ID = '10001:WPDS:1';
const DECISIONS = { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' };

/** The value of the message's first decision button, as render/arrivals.ts draws it. */
function acceptValue(): string {
  const m = renderArrivals(
    {
      userId: 'UADA',
      entries: [
        {
          approval: { approvalId: ID, workItemName: 'Manager Approval', requestName: 'Domain Admins', requestedBy: 'Wayne', dueDate: '' },
          state: { kind: 'waiting', actions: ['Accepted', 'Rejected'] },
        },
      ],
      more: 0,
      afterQuiet: false,
    },
    { frame: timeFrame(new Date('2026-11-22T06:30:00Z'), 'UTC', undefined), details: true, decisions: true },
  );
  const actions = m.blocks.find((b) => b.type === 'actions') as { elements: Array<{ action_id: string; value: string }> };
  const button = actions.elements.find((e) => e.action_id === DECISION_ACTIONS.choose[0]);
  return button?.value ?? '';
}

function click(details = fakeDetails({ workItemId: ID })) {
  const t = fakeDeps({ service: fakeService({ details: async () => details }), decisions: DECISIONS });
  const opened: View[] = [];
  const pushed: View[] = [];
  const client = {
    views: {
      open: async ({ view }: { view: View }) => {
        opened.push(view);
        return { ok: true, view: { id: 'VCONFIRM' } };
      },
      push: async ({ view }: { view: View }) => {
        pushed.push(view);
        return { ok: true, view: { id: 'VPUSHED' } };
      },
      update: async ({ view }: { view: View }) => {
        opened.push(view);
        return { ok: true };
      },
    },
  };
  const run = async () => {
    await decisionChooseAction(t.deps)({
      ack: async () => {},
      body: {
        type: 'block_actions',
        user: { id: 'UADA', team_id: 'T1' },
        team: { id: 'T1' },
        trigger_id: 'trigger-1',
        response_url: 'https://hooks.slack.invalid/arrival',
        container: { type: 'message' },
      },
      action: { action_id: DECISION_ACTIONS.choose[0], value: acceptValue() },
      client,
    } as never);
    await t.deps.background.drain();
  };
  return { ...t, opened, pushed, run };
}

describe('a decision button in an arrival message', () => {
  it('opens the confirmation for that approval and action, checked with the service first', async () => {
    const t = click();
    await t.link('UADA');
    await t.run();
    expect(t.pushed).toEqual([]);
    const last = t.opened.at(-1);
    expect(visible((last as { blocks: unknown[] }).blocks)).toContain('You are deciding this approval as *Accepted*');
    const state = decodeDecisionState((last as { private_metadata: string }).private_metadata);
    expect(state).toMatchObject({ action: 'Accepted', parentViewId: undefined, details: { approvalId: ID, origin: { kind: 'digest' } } });
    expect(state?.about).toEqual({ requestName: 'Domain Admins', requestedBy: 'Wayne', step: 'Manager Approval' });
    // The message says nothing of when it was drawn: the click reads the approval as it stands.
    expect(t.fake.calls.map((c) => c.command)).toContain('getApprovalDetails');
  });

  it('says why not, in the window it opens, when the approval no longer waits', async () => {
    const t = click(fakeDetails({ workItemId: ID, state: 'Completed', completedDate: '2026-11-22 06:00:00.0', actions: [] }));
    await t.link('UADA');
    await t.run();
    const text = visible((t.opened.at(-1) as { blocks: unknown[] }).blocks);
    expect(text).not.toContain('You are deciding this approval');
    expect(t.pushed).toEqual([]);
  });
});

describe('a decision from Slack, done', () => {
  it('redraws every arrival message that lists the approval, by the channel and ts Slack gave, with who decided what', async () => {
    const NOW = new Date('2026-11-22T06:30:00Z');
    const t = fakeDeps({ decisions: DECISIONS, notifyIntervalMs: 300_000 });
    await t.link('UADA');
    const store = t.deps.store;
    // The approver's watch, made by linking, checked once: the approval announced in a DM Slack took.
    await store.claimDueArrivalWatches(
      new Date(NOW.getTime() + 3_600_000),
      'me',
      new Date(NOW.getTime() + 60_000),
      new Date(NOW.getTime() + 300_000),
      10,
    );
    const summary = { approvalId: ID, workItemName: 'Manager Approval', requestName: 'Domain Admins', requestedBy: 'Wayne', dueDate: '' };
    const saved = await store.saveArrivalCheck('UADA', 'me', NOW, {
      primed: true,
      add: [],
      back: [],
      gone: [],
      announce: { messageId: 'm-1', teamId: 'T1', approvals: [{ summary, actions: ['Accepted'] }], listed: 1, afterQuiet: false },
    });
    expect(saved?.announced).toEqual([ID]);
    await store.setArrivalMessage('m-1', 'DADA', '1700000000.000001');
    // The decision: held, then done.
    await store.claimDecision({
      approvalId: ID,
      decisionId: 'decision-ada',
      teamId: 'T1',
      userId: 'UADA',
      action: 'Accepted',
      at: NOW,
      until: new Date(NOW.getTime() + 90_000),
    });
    await store.settleDecision(ID, 'decision-ada', 'done', NOW, NOW);
    const hold = (await store.decisionHolds([ID])).get(ID);
    if (hold === undefined) throw new Error('no hold');
    const state = {
      decisionId: 'decision-ada',
      action: 'Accepted',
      parentViewId: undefined,
      details: { approvalId: ID, origin: { kind: 'digest' as const }, page: 1 },
      about: { requestName: 'Domain Admins', requestedBy: 'Wayne', step: 'Manager Approval' },
    };
    const client = { views: { update: async () => ({ ok: true }) } };
    const details = fakeDetails({ workItemId: ID, state: 'Completed', completedDate: '2026-11-22 06:30:00.0', actions: [] });
    await showDecided(
      t.deps,
      client as never,
      'VCONFIRM',
      { teamId: 'T1', userId: 'UADA' },
      state,
      { kind: 'done', action: 'Accepted', at: NOW, details, hold, recorded: true },
      '',
    );
    await t.deps.background.drain();
    const redraws = t.arrivalCalls.filter((c) => c.kind === 'redraw');
    expect(redraws).toHaveLength(1);
    expect(redraws[0]).toMatchObject({ channel: 'DADA', ts: '1700000000.000001' });
    expect(redraws[0]?.kind === 'redraw' && redraws[0].message.entries[0]?.state).toEqual({
      kind: 'decided',
      action: 'Accepted',
      by: 'UADA',
      at: NOW,
    });
  });
});

/**
 * A decision button in an arrival message, clicked: with no modal underneath, the confirmation is
 * opened (not pushed) with the click's trigger, after one reading of the approval (a message may be
 * clicked long after it was drawn), and carries what the one decision path needs.
 */

import type { View } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { decodeDecisionState } from '../../../src/parse/decision.js';
import { renderArrivals } from '../../../src/render/arrivals.js';
import { DECISION_ACTIONS } from '../../../src/render/decision.js';
import { decisionChooseAction } from '../../../src/slack/handlers/actions/decision.js';
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

/**
 * The tour's first Details, end to end, with deciding in chat on as local mode has it: the approval
 * a newcomer opens first (the first on an approver's first page, or on Home) shows the product: a
 * request decided as a whole, with a button for each action, and its state in an approver's words
 * with the service's own word beside them.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}' } });
  await h.link('UADA', 'approver');
  await h.link('UGRACE', 'approver+ops');
});
afterAll(() => h.close());

async function firstDetails(userId: string): Promise<{ text: string; buttons: string[] }> {
  const sent = await h.command(userId, '/approvals', '');
  const [page] = await h.slack.waitForResponses(sent.responseId, 1);
  const details = buttonsOf(page).filter((b) => b.action_id === DETAILS_ACTIONS.open);
  const opened = viewsSent(h.slack, 'views.open').length;
  const updated = viewsSent(h.slack, 'views.update').length;
  await h.click(userId, DETAILS_ACTIONS.open, details[0]?.value);
  await eventually(
    'the Details opened and drawn',
    () => viewsSent(h.slack, 'views.open').length > opened && viewsSent(h.slack, 'views.update').length > updated,
  );
  const view = viewsSent(h.slack, 'views.update').at(-1)?.view as { blocks: never[] };
  const buttons = (view.blocks as Array<{ type: string; elements?: Array<{ text: { text: string } }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements ?? []).map((e) => e.text.text));
  return { text: visible(view.blocks), buttons };
}

describe('the first Details a newcomer opens', () => {
  it.each([
    ['Ada', 'UADA'],
    ['Grace', 'UGRACE'],
  ])('shows %s an approval she decides as a whole, with its actions as buttons, waiting for her decision', async (_name, userId) => {
    const { text, buttons } = await firstDetails(userId);
    expect(text).toMatch(/· _waiting for your decision_ \(the service says “Available”\)/);
    expect(text).not.toContain('decided on its own');
    expect(text).toContain('it asks you to confirm, with a comment, before anything is sent');
    expect(buttons.length).toBeGreaterThanOrEqual(2);
    expect(text).not.toMatch(/<!here>|evil\.example/);
  });
});

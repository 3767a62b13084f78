/**
 * Forgetting a user leaves nothing that would act for them: an admin's link made for any
 * workspace (`countersign tokens set` without --team) goes at logout and at Unlink on Home, and
 * no call is made for the user until they link again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_ACTIONS } from '../../src/render/home.js';
import { Secret } from '../../src/runtime/secret.js';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ startScheduler: false });
});
afterAll(() => h.close());

/** As `countersign tokens set --user U --command all` (no --team) stores it: a link for any workspace. */
const linkForAnyWorkspace = (userId: string) =>
  h.app.deps.store.setToken(
    { teamId: '', userId },
    ['findApprovals', 'collectEntitlements'],
    new Secret(h.demoToken('approver')),
    'admin',
    new Date(),
  );

async function answer(userId: string, text: string): Promise<string> {
  const sent = await h.command(userId, '/approvals', text);
  expect(sent.status).toBe(200);
  return textOf((await h.slack.waitForResponses(sent.responseId, 1))[0]);
}

const findApprovalsCalls = () => h.service.calls.get('findApprovals') ?? 0;

describe('forgetting an admin-linked user', () => {
  it('logout forgets a link made for any workspace, and nothing is sent for the user afterwards', async () => {
    await linkForAnyWorkspace('UANYWHERE');
    expect(await answer('UANYWHERE', 'page-size:1')).toContain('Pending approvals');
    expect(await answer('UANYWHERE', 'logout')).toContain('forgot your 2 tokens');
    expect(await h.app.deps.store.listLinks({ teamId: TEAM, userId: 'UANYWHERE' })).toEqual([]);
    const calls = findApprovalsCalls();
    expect(await answer('UANYWHERE', 'page-size:1')).toContain('not linked');
    expect(findApprovalsCalls()).toBe(calls);
  });

  it('Unlink on Home forgets it too', async () => {
    await linkForAnyWorkspace('UHOMEANY');
    const published = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    const before = published();
    const sent = await h.click('UHOMEANY', HOME_ACTIONS.unlink, undefined);
    expect(sent.status).toBe(200);
    await eventually('views.publish', () => published() !== before, 5000);
    const view = new URLSearchParams(h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1)?.body ?? '').get('view') ?? '';
    expect(view).toContain('Welcome to countersign');
    expect(await h.app.deps.store.getToken({ teamId: TEAM, userId: 'UHOMEANY' }, 'findApprovals')).toBeUndefined();
    const calls = findApprovalsCalls();
    expect(await answer('UHOMEANY', 'page-size:1')).toContain('not linked');
    expect(findApprovalsCalls()).toBe(calls);
  });
});

/**
 * searchApprovals with a scripted service and a real in-memory store: whose token is used, what is
 * remembered on the link, and that nothing is sent when there is nothing to send it with.
 */

import { describe, expect, it } from 'vitest';
import { searchApprovals } from '../../src/approvals/search.js';
import { Secret } from '../../src/runtime/secret.js';
import { InvalidTokenError, ServiceUnavailableError } from '../../src/service/errors.js';
import type { Approval } from '../../src/service/index.js';
import { failing, fakeDeps, fakeService } from '../helpers/fakes.js';

const ADA = { teamId: 'T1', userId: 'UADA' };
const NOW = '2026-11-22T06:30:00.000Z';

const approval = (i: number): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'Manager Approval',
  requestName: `Request ${i}`,
  dueDate: '2026-11-30 10:00:00.0',
  completedDate: '',
  fields: {},
});

const findApprovalsLink = async (t: ReturnType<typeof fakeDeps>) =>
  (await t.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals' && l.teamId === 'T1');

describe('searchApprovals', () => {
  it('answers the page with the asker’s own token and records the link as working', async () => {
    const t = fakeDeps({ service: fakeService({ findApprovals: async () => ({ approvals: [approval(1), approval(2)], count: 2 }) }) });
    await t.link('UADA');
    await t.link('UEVE');
    const outcome = await searchApprovals(t.deps, ADA, { state: 'completed', 'start-page': 2 });
    expect(outcome).toEqual({
      kind: 'page',
      query: { state: 'completed', 'start-page': 2 },
      approvals: [approval(1), approval(2)],
      decided: new Map(),
    });
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: { state: 'completed', 'start-page': 2 }, token: 'token-of-UADA' }]);
    expect(await findApprovalsLink(t)).toMatchObject({ lastOutcome: 'ok', lastUsedAt: new Date(NOW) });
  });

  it('prefers the link made for this workspace over one made for any workspace', async () => {
    const t = fakeDeps();
    await t.deps.store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals'], new Secret('any-workspace'), 'admin', t.deps.now());
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('this-workspace'), 'login', t.deps.now());
    await searchApprovals(t.deps, ADA, {});
    // In another workspace only the any-workspace link applies.
    await searchApprovals(t.deps, { teamId: 'T2', userId: 'UADA' }, {});
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['this-workspace', 'any-workspace']);
  });

  it('never uses another user’s token: not linked, and no call', async () => {
    const t = fakeDeps();
    await t.link('UEVE');
    expect(await searchApprovals(t.deps, ADA, {})).toEqual({ kind: 'not-linked' });
    expect(t.fake.calls).toEqual([]);
  });

  it('fails on a 401 and records the link as rejected', async () => {
    const refused = new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = fakeDeps({
      service: fakeService(failing('findApprovals', refused)),
    });
    await t.link();
    expect(await searchApprovals(t.deps, ADA, { state: 'pending' })).toEqual({ kind: 'failed', error: refused });
    expect(t.fake.calls).toHaveLength(1);
    expect(await findApprovalsLink(t)).toMatchObject({ lastOutcome: 'rejected', lastUsedAt: new Date(NOW) });
  });

  it('fails on an unreachable service without blaming the token', async () => {
    const down = new ServiceUnavailableError('network', 'The Command Service could not be reached', { command: 'findApprovals' });
    const t = fakeDeps({
      service: fakeService(failing('findApprovals', down)),
    });
    await t.link();
    expect(await searchApprovals(t.deps, ADA, {})).toEqual({ kind: 'failed', error: down });
    expect(await findApprovalsLink(t)).toMatchObject({ lastOutcome: undefined, lastUsedAt: undefined });
  });

  it('fails without a call when the store cannot give the token', async () => {
    const t = fakeDeps();
    await t.link();
    const broken = new Error('connection terminated unexpectedly');
    t.deps.store.getToken = async () => {
      throw broken;
    };
    expect(await searchApprovals(t.deps, ADA, {})).toEqual({ kind: 'failed', error: broken });
    expect(t.fake.calls).toEqual([]);
  });
});

describe('searchApprovals when only the note of success fails', () => {
  it('still gives the page it fetched', async () => {
    const t = fakeDeps({
      service: fakeService({ findApprovals: async () => ({ approvals: [], count: 0 }) }),
    });
    await t.link();
    t.deps.store.recordOutcome = async () => {
      throw new Error('database is locked');
    };
    expect(await searchApprovals(t.deps, { teamId: 'T1', userId: 'UADA' }, { 'page-size': 5 })).toMatchObject({ kind: 'page' });
    expect(t.logs.some((l) => l.includes('could not note a successful call'))).toBe(true);
  });
});

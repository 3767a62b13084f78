/**
 * loadHome with a scripted service and a real in-memory store: one call for the pending list
 * (with the user's own token), the page kept within the list, a refused token remembered, and
 * whether the reminder is paused.
 */

import { describe, expect, it } from 'vitest';
import { HOME_COUNT_WINDOW, loadHome } from '../../src/home/home.js';
import { Secret } from '../../src/runtime/secret.js';
import { InvalidTokenError, ServiceUnavailableError } from '../../src/service/errors.js';
import type { Approval } from '../../src/service/index.js';
import { fakeDeps, fakeService } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
const ADA = { teamId: 'T1', userId: 'UADA' };
const PENDING = { state: 'pending', sort: 'asc', 'page-size': 100 };

const approvals = (n: number): Approval[] =>
  Array.from({ length: n }, (_, i) => ({
    workItemId: `${i}:W:1`,
    workItemName: 'Manager Approval',
    requestName: `Request ${i}`,
    dueDate: '2026-11-30 10:00:00.0',
    completedDate: '',
    fields: {},
  }));

const answering = (n: number) => fakeService({ findApprovals: async () => ({ approvals: approvals(n), count: n }) });
const minutes = (m: number) => new Date(NOW.getTime() + m * 60_000);

describe('loadHome', () => {
  it('makes no call for someone with nothing linked', async () => {
    const t = fakeDeps({ service: answering(3) });
    await t.link('UEVE');
    expect(await loadHome(t.deps, ADA, 1)).toEqual({ mode: 'user-tokens', links: [] });
    expect(t.fake.calls).toEqual([]);
  });

  it('asks once for the pending approvals, soonest due first, with the user’s own token', async () => {
    const t = fakeDeps({ service: answering(12) });
    await t.link('UADA');
    await t.link('UEVE');
    const home = await loadHome(t.deps, ADA, 2);
    expect(HOME_COUNT_WINDOW).toBe(100);
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: PENDING, token: 'token-of-UADA' }]);
    expect(home.approvals).toEqual({ pending: approvals(12), page: 2 });
    expect(home.failure).toBeUndefined();
    expect(home.reminder).toBeUndefined();
    expect(home.links.map((l) => [l.userId, l.command, l.lastOutcome])).toEqual([
      ['UADA', 'collectEntitlements', undefined],
      ['UADA', 'findApprovals', 'ok'],
    ]);
  });

  it('keeps the page within the list', async () => {
    const cases: Array<[number, number, number]> = [
      // [approvals, page asked, page given]
      [25, 7, 3],
      [25, 3, 3],
      [20, 3, 2],
      [25, 0, 1],
      [25, -4, 1],
      [0, 5, 1],
    ];
    for (const [n, asked, given] of cases) {
      const t = fakeDeps({ service: answering(n) });
      await t.link();
      expect({ n, asked, page: (await loadHome(t.deps, ADA, asked)).approvals?.page }).toEqual({ n, asked, page: given });
    }
  });

  it('says why on a 401, without approvals, and records the link as rejected', async () => {
    const refused = new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = fakeDeps({
      service: fakeService({
        findApprovals: async () => {
          throw refused;
        },
      }),
    });
    await t.link();
    const home = await loadHome(t.deps, ADA, 1);
    expect(home.failure).toBe(refused);
    expect(home.approvals).toBeUndefined();
    expect(home.links.find((l) => l.command === 'findApprovals')).toMatchObject({ lastOutcome: 'rejected', lastUsedAt: NOW });
  });

  it('says why when the service is down, without blaming the token', async () => {
    const down = new ServiceUnavailableError('network', 'The Command Service could not be reached', { command: 'findApprovals' });
    const t = fakeDeps({
      service: fakeService({
        findApprovals: async () => {
          throw down;
        },
      }),
    });
    await t.link();
    const home = await loadHome(t.deps, ADA, 1);
    expect(home.failure).toBe(down);
    expect(home.links.find((l) => l.command === 'findApprovals')?.lastOutcome).toBeUndefined();
  });

  it('shows the reminder, paused when the pause came after the link and not once the user linked again', async () => {
    const t = fakeDeps();
    const reminder = {
      ...ADA,
      days: 'weekdays' as const,
      minuteOfDay: 540,
      timeZone: 'Europe/London',
      nextAt: minutes(60),
      dueAt: minutes(60),
    };
    await t.deps.store.setReminder(reminder);
    await t.link('UADA', 'T1', minutes(-60));

    expect((await loadHome(t.deps, ADA, 1)).reminder).toEqual({
      reminder: { ...reminder, pausedAt: undefined, sentFor: undefined },
      paused: false,
    });

    await t.deps.store.pauseReminder(ADA, minutes(-30));
    expect((await loadHome(t.deps, ADA, 1)).reminder).toMatchObject({ reminder: { pausedAt: minutes(-30) }, paused: true });

    // Linked again after the pause: the reminder runs again.
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('new-token'), 'login', minutes(-10));
    expect((await loadHome(t.deps, ADA, 1)).reminder?.paused).toBe(false);
  });

  it('shows a reminder as paused when nothing is linked, with no call', async () => {
    const t = fakeDeps();
    await t.deps.store.setReminder({ ...ADA, days: 'daily', minuteOfDay: 540, timeZone: 'UTC', nextAt: minutes(60), dueAt: minutes(60) });
    await t.deps.store.pauseReminder(ADA, NOW);
    const home = await loadHome(t.deps, ADA, 1);
    expect(home).toMatchObject({ links: [], reminder: { paused: true } });
    expect(t.fake.calls).toEqual([]);
  });
});

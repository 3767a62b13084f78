/**
 * loadHome with a scripted service and a real in-memory store: one call for the pending list
 * (with the user's own token), a second from today when the first is all overdue, the groups, a
 * refused token remembered, and whether the reminder is paused.
 */

import { describe, expect, it } from 'vitest';
import { DUE_FETCH } from '../../src/approvals/due.js';
import { loadHome } from '../../src/home/home.js';
import { Secret } from '../../src/runtime/secret.js';
import { InvalidTokenError, ServiceUnavailableError } from '../../src/service/errors.js';
import type { Approval } from '../../src/service/index.js';
import { timeFrame } from '../../src/time/frame.js';
import { failing, fakeDeps, fakeService } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
/** Ada in London; the service writes London time too. */
const FRAME = timeFrame(NOW, 'Europe/London', 'Europe/London');
const ADA = { teamId: 'T1', userId: 'UADA' };
const PENDING = { state: 'pending', sort: 'asc', 'page-size': 100 };

const approvals = (n: number, dueDate = '2026-11-30 10:00:00.0', from = 0): Approval[] =>
  Array.from({ length: n }, (_, i) => ({
    workItemId: `${from + i}:W:1`,
    workItemName: 'Manager Approval',
    requestName: `Request ${from + i}`,
    dueDate,
    completedDate: '',
    fields: {},
  }));

const answering = (n: number) => fakeService({ findApprovals: async () => ({ approvals: approvals(n), count: n }) });
const minutes = (m: number) => new Date(NOW.getTime() + m * 60_000);

describe('loadHome', () => {
  it('makes no call for someone with nothing linked', async () => {
    const t = fakeDeps({ service: answering(3) });
    await t.link('UEVE');
    expect(await loadHome(t.deps, ADA, FRAME, 3)).toEqual({ mode: 'user-tokens', links: [] });
    expect(t.fake.calls).toEqual([]);
  });

  it('asks once for the pending approvals, soonest due first, with the user’s own token, and groups them', async () => {
    const t = fakeDeps({ service: answering(12) });
    await t.link('UADA');
    await t.link('UEVE');
    const home = await loadHome(t.deps, ADA, FRAME, 3);
    expect(DUE_FETCH).toBe(100);
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: PENDING, token: 'token-of-UADA' }]);
    expect(home.approvals).toEqual({
      overdue: { approvals: [], more: false },
      today: { approvals: [], more: false },
      soon: { approvals: [], more: false },
      later: { approvals: approvals(12), more: false },
    });
    expect(home.failure).toBeUndefined();
    expect(home.reminder).toBeUndefined();
    expect(home.links.map((l) => [l.userId, l.command, l.lastOutcome])).toEqual([
      ['UADA', 'collectEntitlements', undefined],
      ['UADA', 'findApprovals', 'ok'],
    ]);
  });

  it('asks again from today when the first hundred are all overdue, so that today’s and later ones are still counted', async () => {
    const queries: unknown[] = [];
    const t = fakeDeps({
      service: fakeService({
        findApprovals: async (query) => {
          queries.push(query);
          // A hundred overdue, then (from today on) one more overdue from earlier today, two due today and one next week.
          const page =
            query['due-after'] === undefined
              ? approvals(100, '2026-11-01 10:00:00.0')
              : [
                  ...approvals(1, '2026-11-22 05:00:00.0', 100),
                  ...approvals(2, '2026-11-22 15:00:00.0', 101),
                  ...approvals(1, '2026-11-30 15:00:00.0', 103),
                ];
          return { approvals: page, count: page.length };
        },
      }),
    });
    await t.link('UADA');
    const home = await loadHome(t.deps, ADA, FRAME, 3);
    expect(queries).toEqual([PENDING, { ...PENDING, 'due-after': '22-nov-2026' }]);
    expect(home.approvals?.overdue.approvals).toHaveLength(101);
    expect(home.approvals?.overdue.more).toBe(true);
    expect(home.approvals?.today).toEqual({ approvals: approvals(2, '2026-11-22 15:00:00.0', 101), more: false });
    expect(home.approvals?.later).toEqual({ approvals: approvals(1, '2026-11-30 15:00:00.0', 103), more: false });
  });

  it('marks as open-ended the groups a full page may go on into', async () => {
    const t = fakeDeps({
      service: fakeService({
        findApprovals: async () => {
          const page = [...approvals(40, '2026-11-01 10:00:00.0'), ...approvals(60, '2026-11-23 10:00:00.0', 40)];
          return { approvals: page, count: page.length };
        },
      }),
    });
    await t.link('UADA');
    const home = await loadHome(t.deps, ADA, FRAME, 3);
    expect(t.fake.calls).toHaveLength(1);
    expect(home.approvals?.overdue).toMatchObject({ more: false });
    expect(home.approvals?.soon).toMatchObject({ more: true });
    expect(home.approvals?.soon.approvals).toHaveLength(60);
    expect(home.approvals?.later).toEqual({ approvals: [], more: true });
  });

  it('says why on a 401, without approvals, and records the link as rejected', async () => {
    const refused = new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = fakeDeps({
      service: fakeService(failing('findApprovals', refused)),
    });
    await t.link();
    const home = await loadHome(t.deps, ADA, FRAME, 3);
    expect(home.failure).toBe(refused);
    expect(home.approvals).toBeUndefined();
    expect(home.links.find((l) => l.command === 'findApprovals')).toMatchObject({ lastOutcome: 'rejected', lastUsedAt: NOW });
  });

  it('says why when the service is down, without blaming the token', async () => {
    const down = new ServiceUnavailableError('network', 'The Command Service could not be reached', { command: 'findApprovals' });
    const t = fakeDeps({
      service: fakeService(failing('findApprovals', down)),
    });
    await t.link();
    const home = await loadHome(t.deps, ADA, FRAME, 3);
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

    expect((await loadHome(t.deps, ADA, FRAME, 3)).reminder).toEqual({
      reminder: { ...reminder, pausedAt: undefined, sentFor: undefined },
      paused: false,
    });

    await t.deps.store.pauseReminder(ADA, minutes(-30));
    expect((await loadHome(t.deps, ADA, FRAME, 3)).reminder).toMatchObject({ reminder: { pausedAt: minutes(-30) }, paused: true });

    // Linked again after the pause: the reminder runs again.
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('new-token'), 'login', minutes(-10));
    expect((await loadHome(t.deps, ADA, FRAME, 3)).reminder?.paused).toBe(false);
  });

  it('shows a reminder as paused when nothing is linked, with no call', async () => {
    const t = fakeDeps();
    await t.deps.store.setReminder({ ...ADA, days: 'daily', minuteOfDay: 540, timeZone: 'UTC', nextAt: minutes(60), dueAt: minutes(60) });
    await t.deps.store.pauseReminder(ADA, NOW);
    const home = await loadHome(t.deps, ADA, FRAME, 3);
    expect(home).toMatchObject({ links: [], reminder: { paused: true } });
    expect(t.fake.calls).toEqual([]);
  });
});

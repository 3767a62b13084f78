/**
 * Arrivals in the trusted mode: the app signs in as itself and checks each mapped user's pending
 * list with auth-user-id naming them; an arrival is messaged to them once, decided from the message
 * once (for them, as them), and its message kept true when it is decided in the service.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERFORM_WORK_ITEM_REQUEST } from '../../src/reference-service/server.js';
import { checksOf, decideFromDm, decisionButtonsIn, dmsWith, readOf } from '../helpers/arrivals.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';

const clock = new TestClock('2026-11-23T12:00:00Z');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, demoTokenLifetimeMs: 30 * 86_400_000 },
    trusted: {},
    env: { NOTIFY_INTERVAL: '1m', DECISION_REQUEST: PERFORM_WORK_ITEM_REQUEST, COMMANDS_PER_MINUTE: '0' },
    startScheduler: false,
  });
  h.slack.timeZones.set('UKAT', 'America/New_York');
});
afterAll(async () => {
  await h?.close();
});

async function nextCheck() {
  clock.advance(60_000);
  const report = await checksOf(h.app).tick();
  await settled(h);
  return report;
}

describe('the trusted mode', () => {
  it('messages a mapped user what arrives for them, decided from the message once, as them', async () => {
    await h.map('UKAT', 'katherine.johnson');
    expect(await checksOf(h.app).tick()).toMatchObject({ primed: 1 });
    await settled(h);
    expect(readOf(dmsWith(h, 'UKAT')[0])).toContain('approvals already wait for you');
    const checks = h.service.actedFor.filter((c) => c.command === 'findApprovals');
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.every((c) => c.authUserId === 'katherine.johnson')).toBe(true);

    const first = h.service.arrive('katherine.johnson', { workItemName: 'Security Review' });
    const second = h.service.arrive('katherine.johnson');
    expect(await nextCheck()).toMatchObject({ announced: 2, messages: 1 });
    const message = dmsWith(h, 'UKAT')[1];
    if (message === undefined) throw new Error('no arrival message');
    expect(readOf(message)).toContain(first.requestName);
    expect(readOf(message)).toContain(second.requestName);

    const before = h.service.calls.get('performWorkItem') ?? 0;
    const { statuses } = await decideFromDm(h, clock.now, 'UKAT', message, 'Needs Info', 'which project?');
    expect(statuses).toEqual([200]);
    await eventually('the message redrawn as decided', () => (dmsWith(h, 'UKAT')[1]?.updated ?? 0) > 0);
    await settled(h);
    expect(h.service.calls.get('performWorkItem')).toBe(before + 1);
    expect(h.service.actedFor.filter((c) => c.command === 'performWorkItem')).toEqual([
      { command: 'performWorkItem', authUserId: 'katherine.johnson' },
    ]);
    const decided = dmsWith(h, 'UKAT')[1];
    expect(readOf(decided)).toMatch(/\*Needs Info\* by you/);
    // The other still waits, its buttons only.
    expect(decisionButtonsIn(decided).every((b) => (b.value ?? '').includes(second.workItemId))).toBe(true);

    h.service.decideInService(second.workItemId);
    expect(await nextCheck()).toMatchObject({ redrawn: 1, messages: 0 });
    const now = dmsWith(h, 'UKAT')[1];
    expect(readOf(now)).toContain('No longer waiting for you');
    expect(readOf(now)).toMatch(/\*Needs Info\* by you/);
    expect(decisionButtonsIn(now)).toEqual([]);
    expect(dmsWith(h, 'UKAT')).toHaveLength(2);
  });
});

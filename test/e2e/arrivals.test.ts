/**
 * Arrivals end to end, with users' own tokens: approvals made to arrive in the reference service
 * (a request made now, a reassignment), noticed by the real scheduler on a clock the test moves,
 * messaged to the approver in their DM (found by the D… channel Slack's answer gave, as Slack
 * wants it), kept true when decided from the message or in the service, held in quiet hours,
 * stopped by `notify off` and by a token the service refuses.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { PERFORM_WORK_ITEM_REQUEST } from '../../src/reference-service/server.js';
import { Secret } from '../../src/runtime/secret.js';
import { checksOf, clickInDm, decideFromDm, decisionButtonsIn, dmsWith, readOf } from '../helpers/arrivals.js';
import { TestClock } from '../helpers/clock.js';
import { deciding } from '../helpers/deciding.js';
import { eventually } from '../helpers/eventually.js';
import { dmChannel, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { visible } from '../helpers/visible.js';

const INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;

// Each test starts its own app on its own clock: what one leaves behind (a watch, a pause) cannot reach the next.
let clock: TestClock;
let h: Harness;

async function start(at = '2026-11-23T12:00:00Z'): Promise<void> {
  clock = new TestClock(at);
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, demoTokenLifetimeMs: 30 * DAY_MS },
    // The reference service writes UTC: told so, the app writes its times in each reader's zone.
    env: { NOTIFY_INTERVAL: '1m', DECISION_REQUEST: PERFORM_WORK_ITEM_REQUEST, COMMANDS_PER_MINUTE: '0', COMMAND_SERVICE_TIME_ZONE: 'UTC' },
    startScheduler: false,
  });
  h.slack.timeZones.set('UADA', 'Europe/London');
  h.slack.timeZones.set('UGRACE', 'America/Los_Angeles');
}
afterEach(async () => {
  await h?.close();
});

const pendingOf = (approver: string) =>
  h.service.db
    .prepare<[string], { n: number }>("SELECT count(*) AS n FROM approvals WHERE approver_id = ? AND state = 'pending'")
    .get(approver)?.n ?? 0;

/** The next check of everyone due, one interval on. */
async function nextCheck() {
  clock.advance(INTERVAL_MS);
  const report = await checksOf(h.app).tick();
  await settled(h);
  return report;
}

/** Ada linked and checked once: what waited then is counted in one line, never announced. */
async function adaLinkedAndPrimed(): Promise<void> {
  await h.link('UADA', 'approver', ['findApprovals']);
  expect(await checksOf(h.app).tick()).toMatchObject({ primed: 1, announced: 0 });
  await settled(h);
  expect(dmsWith(h, 'UADA').map(readOf)).toEqual([expect.stringContaining(`${pendingOf('ada.lovelace')} approvals already wait for you`)]);
}

async function answer(userId: string, text: string): Promise<string> {
  const sent = await h.command(userId, '/approvals', text);
  expect(sent.status).toBe(200);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  return textOf(body);
}

describe('an approval that arrives', () => {
  it('says nothing of what waited before, then messages each new one once, with what it asks, who asked and when it is due', async () => {
    await start();
    await adaLinkedAndPrimed();
    // A check with nothing new sends nothing at all.
    expect(await nextCheck()).toMatchObject({ checked: 1, unchanged: 1, announced: 0, messages: 0 });
    expect(dmsWith(h, 'UADA')).toHaveLength(1);

    const arrived = h.service.arrive('ada.lovelace', { dueAt: new Date('2026-11-26T17:00:00Z') });
    expect(await nextCheck()).toMatchObject({ announced: 1, messages: 1 });
    const dms = dmsWith(h, 'UADA');
    expect(dms).toHaveLength(2);
    const said = readOf(dms[1]);
    expect(said).toContain(arrived.requestName);
    expect(said).toContain(arrived.workItemName);
    expect(said).toContain(arrived.requestedBy);
    // Due in her zone, named, as everywhere: 17:00 UTC is 17:00 in London in November.
    expect(said).toMatch(/Thu 26 Nov 2026, 17:00 London time/);
    expect(decisionButtonsIn(dms[1]).map((b) => b.text)).toEqual(arrived.actions.map((a) => `Decide: ${a}`));
    // Posted to her id; Slack put it in the DM channel, where it stays.
    expect(dms[1]?.channel).toBe(dmChannel('UADA'));

    expect(await nextCheck()).toMatchObject({ announced: 0, messages: 0 });
    expect(dmsWith(h, 'UADA')).toHaveLength(2);
  });

  it('comes as one message when several arrive together, listing five and saying how many more', async () => {
    await start();
    await adaLinkedAndPrimed();
    const three = [h.service.arrive('ada.lovelace'), h.service.arrive('ada.lovelace'), h.service.arrive('ada.lovelace')];
    expect(await nextCheck()).toMatchObject({ announced: 3, messages: 1 });
    const together = readOf(dmsWith(h, 'UADA')[1]);
    expect(together).toContain('3 new approvals for you');
    for (const a of three) expect(together).toContain(a.requestName);

    const seven = Array.from({ length: 7 }, () => h.service.arrive('ada.lovelace'));
    expect(await nextCheck()).toMatchObject({ announced: 7, messages: 1 });
    const many = readOf(dmsWith(h, 'UADA')[2]);
    expect(many).toContain('7 new approvals for you');
    expect(seven.filter((a) => many.includes(a.workItemId) || many.includes(a.requestName)).length).toBeGreaterThanOrEqual(5);
    expect(many).toContain('2 more');
    expect(many).toContain('/approvals');
    expect(dmsWith(h, 'UADA')).toHaveLength(3);
  });

  it('is new to an approver it is reassigned to, whatever its request’s date; it leaves the other’s message at the next check', async () => {
    await start();
    await adaLinkedAndPrimed();
    await h.link('UGRACE', 'approver+ops', ['findApprovals']);
    await checksOf(h.app).tick();
    await settled(h);
    const old = h.service.arrive('ada.lovelace', { requestedAt: new Date('2026-10-20T09:00:00Z') });
    await nextCheck();
    const [, adas] = dmsWith(h, 'UADA');
    expect(readOf(adas)).toContain(old.requestName);

    expect(h.service.reassign(old.workItemId, 'grace.hopper')).toBe('changed');
    expect(await nextCheck()).toMatchObject({ announced: 1, redrawn: 1 });
    // Grace is told of it: new to her, though asked for last month.
    const graces = dmsWith(h, 'UGRACE');
    expect(graces).toHaveLength(2);
    expect(readOf(graces[1])).toContain(old.requestName);
    // Ada's message says it left her list, in place, and offers nothing to click on it.
    const redrawn = dmsWith(h, 'UADA')[1];
    expect(redrawn?.ts).toBe(adas?.ts);
    expect(redrawn?.updated).toBe(1);
    expect(readOf(redrawn)).toContain('No longer waiting for you');
    expect(decisionButtonsIn(redrawn)).toEqual([]);
  });
});

describe('deciding', () => {
  it('from the message itself: one confirmation, one call to the service, the message replaced in place by who decided what', async () => {
    await start();
    await adaLinkedAndPrimed();
    const arrived = h.service.arrive('ada.lovelace', { workItemName: 'Manager Approval' });
    await nextCheck();
    const message = dmsWith(h, 'UADA')[1];
    if (message === undefined) throw new Error('no arrival message');
    const before = h.service.calls.get('performWorkItem') ?? 0;
    // Submitted twice at once (a double click on Send, or Slack's retry): one decision.
    const { view, statuses } = await decideFromDm(h, clock.now, 'UADA', message, 'Accepted', 'fine by me', 2);
    expect(JSON.stringify(view)).toContain(arrived.requestName);
    expect(statuses).toEqual([200, 200]);
    const done = await eventually('the message redrawn as decided', () => {
      const now = dmsWith(h, 'UADA')[1];
      return now !== undefined && now.updated > 0 && readOf(now).includes('by you') && now;
    });
    await settled(h);
    expect(h.service.calls.get('performWorkItem')).toBe(before + 1);
    expect(h.service.db.prepare('SELECT action FROM decisions WHERE work_item_id = ?').get(arrived.workItemId)).toEqual({
      action: 'Accepted',
    });
    expect(done.ts).toBe(message.ts);
    expect(decisionButtonsIn(done)).toEqual([]);
    expect(readOf(done)).toMatch(/\*Accepted\* by you from Slack, Mon 23 Nov 2026, \d\d:\d\d London time/);

    // The next check sees it gone from her list and leaves the message as afterDecision drew it: decided, by her.
    const updates = dmsWith(h, 'UADA')[1]?.updated;
    expect(await nextCheck()).toMatchObject({ announced: 0, messages: 0, redrawn: 0 });
    expect(dmsWith(h, 'UADA')[1]?.updated).toBe(updates);
    const after = dmsWith(h, 'UADA')[1];
    expect(readOf(after)).toMatch(/\*Accepted\* by you from Slack, Mon 23 Nov 2026, \d\d:\d\d London time/);
    expect(readOf(after)).not.toContain('No longer waiting for you');
    expect(decisionButtonsIn(after)).toEqual([]);
    expect(dmsWith(h, 'UADA')).toHaveLength(2);
  });

  it('from a list’s Details: the message is replaced in place at once, not left to the next check', async () => {
    await start();
    await adaLinkedAndPrimed();
    const arrived = h.service.arrive('ada.lovelace', { workItemName: 'Security Review' });
    await nextCheck();
    const message = dmsWith(h, 'UADA')[1];
    const flow = deciding(() => h);
    const details = await flow.openDetails('UADA', arrived.workItemId);
    const confirm = await flow.choose('UADA', details, 'Approved');
    await flow.submit('UADA', confirm, 'looked at it');
    const redrawn = await eventually('the message redrawn as decided', () => {
      const now = dmsWith(h, 'UADA')[1];
      return now !== undefined && now.updated > 0 && now;
    });
    await settled(h);
    expect(redrawn.ts).toBe(message?.ts);
    expect(readOf(redrawn)).toMatch(/\*Approved\* by you from Slack, Mon 23 Nov 2026, \d\d:\d\d London time/);
    expect(decisionButtonsIn(redrawn)).toEqual([]);
    expect(h.service.calls.get('performWorkItem')).toBe(1);
  });

  it('refuses a button of a message whose approval was decided in the service before the next check: nothing is sent', async () => {
    await start();
    await adaLinkedAndPrimed();
    const arrived = h.service.arrive('ada.lovelace', { workItemName: 'Manager Approval' });
    await nextCheck();
    const stale = dmsWith(h, 'UADA')[1];
    if (stale === undefined) throw new Error('no arrival message');
    h.service.decideInService(arrived.workItemId, { action: 'Rejected' });
    const accept = decisionButtonsIn(stale).find((b) => b.text === 'Decide: Accepted');
    if (accept === undefined) throw new Error(`no Accepted button in ${readOf(stale)}`);
    const opens = viewsSent(h.slack, 'views.open').length;
    const before = h.service.calls.get('performWorkItem') ?? 0;
    expect((await clickInDm(h, clock.now, 'UADA', stale, accept)).status).toBe(200);
    const refused = await eventually('the refusal', () =>
      [...viewsSent(h.slack, 'views.open').slice(opens), ...viewsSent(h.slack, 'views.update')]
        .map((v) => visible(v.view.blocks as never))
        .find((text) => text.includes('Nothing was sent to the Command Service')),
    );
    expect(refused).not.toContain('Send:');
    await settled(h);
    expect(h.service.calls.get('performWorkItem') ?? 0).toBe(before);
    // The next check takes its buttons away.
    expect(await nextCheck()).toMatchObject({ redrawn: 1 });
    expect(readOf(dmsWith(h, 'UADA')[1])).toContain('No longer waiting for you');
    expect(decisionButtonsIn(dmsWith(h, 'UADA')[1])).toEqual([]);
  });

  it('in the service’s own pages: the message changes at the next check, and its buttons go', async () => {
    await start();
    await adaLinkedAndPrimed();
    const arrived = h.service.arrive('ada.lovelace');
    const other = h.service.arrive('ada.lovelace');
    await nextCheck();
    const message = dmsWith(h, 'UADA')[1];
    expect(decisionButtonsIn(message)).not.toEqual([]);

    expect(h.service.decideInService(arrived.workItemId)).toBe('changed');
    expect(dmsWith(h, 'UADA')[1]?.updated).toBe(0);
    expect(await nextCheck()).toMatchObject({ redrawn: 1, announced: 0, messages: 0 });
    const redrawn = dmsWith(h, 'UADA')[1];
    expect(redrawn?.ts).toBe(message?.ts);
    expect(redrawn?.updated).toBe(1);
    expect(readOf(redrawn)).toContain('No longer waiting for you');
    // The other one still waits, with its own buttons; none of the gone one's is left.
    const values = decisionButtonsIn(redrawn).map((b) => b.value ?? '');
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((v) => v.includes(other.workItemId) && !v.includes(arrived.workItemId))).toBe(true);

    expect(await nextCheck()).toMatchObject({ redrawn: 0 });
    expect(dmsWith(h, 'UADA')[1]?.updated).toBe(1);
  });
});

describe('the approver’s choice', () => {
  it('sends nothing during quiet hours, and what still waits as one message when they end', async () => {
    // 18:30 in London.
    await start('2026-11-23T18:30:00Z');
    await adaLinkedAndPrimed();
    const quiet = await answer('UADA', 'notify quiet 19:00-08:00');
    expect(quiet).toContain('19:00');
    expect(quiet).toContain('08:00');
    clock.advance(45 * 60_000);
    const first = h.service.arrive('ada.lovelace');
    const second = h.service.arrive('ada.lovelace');
    expect(await nextCheck()).toMatchObject({ held: 2, messages: 0 });
    const third = h.service.arrive('ada.lovelace');
    expect(await nextCheck()).toMatchObject({ held: 1, messages: 0 });
    // Decided in the service during the night: not told of in the morning.
    h.service.decideInService(second.workItemId);
    clock.advance(6 * 3_600_000);
    expect(await nextCheck()).toMatchObject({ messages: 0 });
    expect(dmsWith(h, 'UADA')).toHaveLength(1);

    // 08:00 in London: one message, of those still waiting.
    clock.advance(new Date('2026-11-24T08:00:30Z').getTime() - clock.now().getTime() - INTERVAL_MS);
    expect(await nextCheck()).toMatchObject({ messages: 1 });
    const dms = dmsWith(h, 'UADA');
    expect(dms).toHaveLength(2);
    const morning = readOf(dms[1]);
    expect(morning).toContain('quiet hours');
    expect(morning).toContain(first.requestName);
    expect(morning).toContain(third.requestName);
    expect(morning).not.toContain(second.requestName);
    expect(await nextCheck()).toMatchObject({ messages: 0 });
    expect(dmsWith(h, 'UADA')).toHaveLength(2);
  });

  it('stops with notify off; on again, it says nothing of what came meanwhile but the one line', async () => {
    await start();
    await adaLinkedAndPrimed();
    expect(await answer('UADA', 'notify off')).toMatch(/off/i);
    h.service.arrive('ada.lovelace');
    await nextCheck();
    await nextCheck();
    expect(dmsWith(h, 'UADA')).toHaveLength(1);
    expect(await answer('UADA', 'notify')).toMatch(/off/i);

    expect(await answer('UADA', 'notify on')).toMatch(/on/i);
    expect(await nextCheck()).toMatchObject({ primed: 1, announced: 0 });
    const dms = dmsWith(h, 'UADA');
    expect(dms).toHaveLength(2);
    expect(readOf(dms[1])).toContain(`${pendingOf('ada.lovelace')} approvals already wait for you`);
    const later = h.service.arrive('ada.lovelace');
    expect(await nextCheck()).toMatchObject({ announced: 1, messages: 1 });
    expect(readOf(dmsWith(h, 'UADA')[2])).toContain(later.requestName);
  });
});

describe('a token the service refuses', () => {
  it('stops the checks with one message, the digest’s, not repeated by the digest, until the user links again', async () => {
    await start();
    await adaLinkedAndPrimed();
    expect(await answer('UADA', 'remind daily 15:00')).toContain('15:00');
    // The service ends her session (expired, revoked: the same refusal).
    h.service.tokens.revoke(h.demoToken('approver'));
    h.service.arrive('ada.lovelace');
    expect(await nextCheck()).toMatchObject({ relinkAsked: 1, announced: 0 });
    const dms = dmsWith(h, 'UADA');
    expect(dms).toHaveLength(2);
    expect(readOf(dms[1])).toContain('no longer accepts your token');
    expect(JSON.stringify(dms[1]?.blocks)).toContain('account:relink');

    // No more checks; and the digest at 15:00 London does not ask a second time.
    const calls = h.service.calls.get('findApprovals') ?? 0;
    expect(await nextCheck()).toMatchObject({ checked: 0 });
    expect(h.service.calls.get('findApprovals')).toBe(calls);
    clock.advance(new Date('2026-11-23T15:00:30Z').getTime() - clock.now().getTime());
    await h.app.reminders.tick();
    await settled(h);
    expect(dmsWith(h, 'UADA')).toHaveLength(2);

    // Linked again: the checks resume, first with the one line, then with what arrives.
    clock.advance(60_000);
    await h.app.deps.store.setToken(
      { teamId: TEAM, userId: 'UADA' },
      ['findApprovals'],
      new Secret(h.service.tokens.issue('ada.lovelace', ['findApprovals'], { lifespanMs: null, inactivityMs: null })),
      'login',
      clock.now(),
    );
    await nextCheck();
    expect(readOf(dmsWith(h, 'UADA')[2])).toContain('approvals already wait for you');
    const after = h.service.arrive('ada.lovelace');
    expect(await nextCheck()).toMatchObject({ announced: 1 });
    expect(readOf(dmsWith(h, 'UADA')[3])).toContain(after.requestName);
  });
});

describe('after a restart', () => {
  it('messages what arrived once: nothing again for what was messaged before, and what arrived meanwhile once', async () => {
    await start();
    await adaLinkedAndPrimed();
    const before = h.service.arrive('ada.lovelace');
    await nextCheck();
    expect(readOf(dmsWith(h, 'UADA')[1])).toContain(before.requestName);
    const meanwhile = h.service.arrive('ada.lovelace');
    await h.restart();
    expect(await nextCheck()).toMatchObject({ announced: 1, messages: 1, primed: 0 });
    const dms = dmsWith(h, 'UADA');
    expect(dms).toHaveLength(3);
    expect(readOf(dms[2])).toContain(meanwhile.requestName);
    expect(readOf(dms[2])).not.toContain(before.requestName);
    // And the message sent before the restart is still kept true by the one after it.
    h.service.decideInService(before.workItemId);
    expect(await nextCheck()).toMatchObject({ redrawn: 1, messages: 0 });
    expect(readOf(dmsWith(h, 'UADA')[1])).toContain('No longer waiting for you');
  });
});

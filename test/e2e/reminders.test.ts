/**
 * Reminders end to end: set over signed HTTP, fired by the real scheduler on a clock the test
 * moves, fetched from the reference service with the user's token, delivered as DMs to the Slack
 * stand-in (which can answer 429 with Retry-After, as Slack does).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { OPEN_ACTION } from '../../src/render/approvals.js';
import { DIGEST_ACTIONS } from '../../src/render/reminders.js';
import { Secret } from '../../src/runtime/secret.js';
import { TestClock } from '../helpers/clock.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

// Each test starts its own app on its own clock, with its own users: what one test leaves behind (a
// reminder, a paused user, a moved clock) cannot reach the next, and one failure cannot cascade.
let clock: TestClock;
let h: Harness;

async function start(at: string, zones: Record<string, string>): Promise<void> {
  clock = new TestClock(at);
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, demoTokenLifetimeMs: 30 * 86_400_000 },
    env: { APPROVAL_URL_TEMPLATE: 'https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}', REMIND_WINDOW: '3d' },
    reminders: { spreadMs: 0 },
    startScheduler: false,
  });
  for (const [user, zone] of Object.entries(zones)) h.slack.timeZones.set(user, zone);
}
afterEach(async () => {
  await h?.close();
});

async function answer(userId: string, text: string): Promise<string> {
  const sent = await h.command(userId, '/approvals', text);
  expect(sent.status).toBe(200);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  return textOf(body);
}

const dmsTo = (userId: string) => h.slack.posted().filter((p) => p.channel === userId);
const setClock = (iso: string) => clock.advance(new Date(iso).getTime() - clock.now().getTime());

/** Sunday 22 November 2026, 12:00 UTC: Ada (London) has set a weekday digest at 09:00, sent on Monday. */
async function adaHasHerMondayDigest(): Promise<void> {
  await start('2026-11-22T12:00:00Z', { UADA: 'Europe/London' });
  await h.link('UADA', 'approver', ['findApprovals']);
  await answer('UADA', 'remind weekdays 09:00');
  setClock('2026-11-23T09:00:30Z');
  expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1 });
}

describe('reminders', () => {
  it('answers remind, remind show and bad forms in the user’s own zone', async () => {
    await start('2026-11-22T12:00:00Z', { UADA: 'Europe/London' });
    await h.link('UADA', 'approver', ['findApprovals']);
    const set = await answer('UADA', 'remind weekdays 09:00');
    expect(set).toContain('every weekday at 09:00 London time');
    expect(set).toContain('Next: *Mon 23 Nov 2026, 09:00 London time*');
    expect(await answer('UADA', 'remind show')).toContain('Your digest comes every weekday at 09:00 London time');
    const bad = await answer('UADA', 'remind weekdays 9:99');
    expect(bad).toContain('“9:99” is not a time of day');
    expect(bad).toContain('Nothing was sent to the Command Service');
    // The bad form changed nothing.
    expect((await h.app.deps.store.getReminder({ teamId: TEAM, userId: 'UADA' }))?.minuteOfDay).toBe(540);
  });

  it('sends nothing before the time, one digest at the time in each user’s zone, and never twice', async () => {
    await start('2026-11-22T12:00:00Z', { UADA: 'Europe/London', UNYC: 'America/New_York' });
    await h.link('UADA', 'approver', ['findApprovals']);
    await answer('UADA', 'remind weekdays 09:00');
    await h.link('UNYC', 'approver+ops', ['findApprovals']);
    // 06:00 in New York is 11:00 UTC: Sunday's has passed, so Monday's is next.
    expect(await answer('UNYC', 'remind daily 6am')).toContain('every day at 06:00 New York time');
    expect((await h.app.reminders.tick()).taken).toBe(0);

    setClock('2026-11-23T08:59:00Z');
    expect((await h.app.reminders.tick()).taken).toBe(0);
    setClock('2026-11-23T09:00:30Z');
    const london = await h.app.reminders.tick();
    expect(london).toMatchObject({ taken: 1, sent: 1 });
    expect(dmsTo('UADA')).toHaveLength(1);
    expect(dmsTo('UNYC')).toHaveLength(0);
    expect((await h.app.reminders.tick()).taken).toBe(0);

    setClock('2026-11-23T11:00:10Z');
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1 });
    expect(dmsTo('UNYC')).toHaveLength(1);
    expect(dmsTo('UADA')).toHaveLength(1);
  });

  it('groups the digest: overdue, due today, due soon, each with an Open button and a full-list button', async () => {
    await adaHasHerMondayDigest();
    const digest = dmsTo('UADA')[0];
    const text = JSON.stringify(digest?.blocks);
    // Monday the 23rd: a window of 3 days is today and the two days after it.
    expect(digest?.text).toMatch(/^\d+\+? approvals need you: \d+\+? overdue, \d+\+? due today, \d+\+? due by Wed 25 Nov$/);
    expect(text).toContain(':red_circle: *Overdue*');
    // The service's zone is not configured here: its times are shown as written, and said to be its own.
    expect(visible(digest?.blocks as never)).toMatch(/Due \w{3} \d{1,2} Nov 2026, \d{2}:\d{2} service time/);
    expect(text).toContain('every weekday at 09:00 London time');
    expect(text).not.toMatch(/due in ([3-9]|\d\d) days/);
    const open = digest?.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as Array<{ action_id: string; url?: string }>)
      .find((e) => e.action_id === OPEN_ACTION);
    expect(open?.url).toMatch(/^https:\/\/igl\.example\.com\/aveksa\/main\?PageID=WorkItem&WorkItemId=\d+%3A[A-Z]+%3A\d+$/);
    expect(digest?.blocks.length).toBeLessThanOrEqual(50);

    const full = digest?.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as Array<{ action_id: string; value: string }>)
      .find((e) => e.action_id === DIGEST_ACTIONS.fullList);
    const sent = await h.click('UADA', DIGEST_ACTIONS.fullList, full?.value);
    const [list] = await h.slack.waitForResponses(sent.responseId, 1);
    expect(list?.replace_original).toBe(false);
    expect(textOf(list)).toContain('Pending approvals');
    expect(textOf(list)).toContain('due on or before Wed 25 Nov 2026 by the service’s calendar');
    // Someone else cannot use Ada's button to see her list.
    const stolen = await h.click('UEVE', DIGEST_ACTIONS.fullList, full?.value);
    expect(textOf((await h.slack.waitForResponses(stolen.responseId, 1))[0])).toContain('Only <@UADA> can open this list');
    // The Open button's click is acked and nothing else.
    expect((await h.click('UADA', OPEN_ACTION, undefined)).status).toBe(200);
  });

  it('on an expired token sends one “link again” DM, then stays quiet until the user links again', async () => {
    await start('2026-11-23T12:00:00Z', { UOLD: 'Europe/London' });
    await h.link('UOLD', 'expired', ['findApprovals']);
    await answer('UOLD', 'remind daily 10:00');
    setClock('2026-11-24T10:00:05Z');
    expect((await h.app.reminders.tick()).relinkAsked).toBe(1);
    expect(dmsTo('UOLD')).toHaveLength(1);
    expect(dmsTo('UOLD')[0]?.text).toContain('no longer accepts your token');
    expect(JSON.stringify(dmsTo('UOLD')[0]?.blocks)).toContain('account:relink');
    expect(await answer('UOLD', 'remind show')).toContain('Paused until you link your account again');

    setClock('2026-11-25T10:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UOLD')).toHaveLength(1);

    clock.advance(60_000);
    await h.app.deps.store.setToken(
      { teamId: TEAM, userId: 'UOLD' },
      ['findApprovals'],
      new Secret(h.demoToken('approver')),
      'login',
      clock.now(),
    );
    setClock('2026-11-26T10:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UOLD')).toHaveLength(2);
    expect(dmsTo('UOLD')[1]?.text).toMatch(/approvals? needs? you/);
    expect((await h.app.deps.store.getReminder({ teamId: TEAM, userId: 'UOLD' }))?.pausedAt).toBeUndefined();
  });

  it('tells a user with nothing linked once, and after logout says nothing at all', async () => {
    await start('2026-11-25T12:00:00Z', { UNONE: 'Europe/London', UNYC: 'America/New_York' });
    await h.link('UNYC', 'approver+ops', ['findApprovals']);
    await answer('UNYC', 'remind daily 6am');
    const reply = await answer('UNONE', 'remind daily 11:00');
    expect(reply).toContain('Your account is not linked yet');
    setClock('2026-11-26T11:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UNONE').map((d) => d.text)).toEqual([expect.stringContaining('your account is not linked')]);
    setClock('2026-11-27T11:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UNONE')).toHaveLength(1);

    const before = dmsTo('UNYC').length;
    expect(before).toBeGreaterThan(0);
    await answer('UNYC', 'logout');
    setClock('2026-11-28T11:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UNYC')).toHaveLength(before);
    expect(await answer('UNYC', 'remind show')).toContain('Paused until you link your account again');
  });

  it('waits out Slack’s 429 Retry-After and delivers the digest once', async () => {
    await start('2026-11-28T12:00:00Z', { URATE: 'UTC' });
    await h.link('URATE', 'approver', ['findApprovals']);
    await answer('URATE', 'remind daily 15:00');
    h.slack.rateLimit('chat.postMessage', 1);
    setClock('2026-11-28T15:00:05Z');
    const started = Date.now();
    expect((await h.app.reminders.tick()).sent).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const attempts = h.slack.apiCalls.filter(
      (c) => c.method === 'chat.postMessage' && new URLSearchParams(c.body).get('channel') === 'URATE',
    );
    expect(attempts).toHaveLength(2);
    expect(dmsTo('URATE')).toHaveLength(1);
  });

  it('takes over a digest whose taker died before sending it, once its lease runs out', async () => {
    await start('2026-11-28T12:00:00Z', { UCRASH: 'UTC' });
    await h.link('UCRASH', 'approver', ['findApprovals']);
    await answer('UCRASH', 'remind daily 16:00');
    setClock('2026-11-28T16:00:05Z');
    // Another instance took it and died: its lease holds for five minutes.
    const taken = await h.app.deps.store.claimDueReminders(clock.now(), 'dead-instance', new Date(clock.now().getTime() + 300_000), 10);
    expect(taken.map((r) => r.userId)).toEqual(['UCRASH']);
    expect((await h.app.reminders.tick()).taken).toBe(0);
    clock.advance(300_000);
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1 });
    expect(dmsTo('UCRASH')).toHaveLength(1);
  });

  it('stops with remind off', async () => {
    await adaHasHerMondayDigest();
    const before = dmsTo('UADA').length;
    expect(await answer('UADA', 'remind off')).toContain('no more reminders');
    expect(await answer('UADA', 'remind off')).toContain('You had no reminder to stop');
    expect(await answer('UADA', 'remind')).toContain('You have no reminder');
    setClock('2026-11-30T09:00:05Z');
    await h.app.reminders.tick();
    expect(dmsTo('UADA')).toHaveLength(before);
  });
});

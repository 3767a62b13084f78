/**
 * Two app instances on one PostgreSQL behave as one app: a confirmation clicked on both starts
 * one collection, a page asked of one can be turned on the other, and a signed request run by one
 * is refused as a replay by both.
 */

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlackConfig } from '../../src/config.js';
import { type Running, startCountersign } from '../../src/main.js';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { CONFIRM_ACTIONS } from '../../src/render/collect.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { TestClock } from '../helpers/clock.js';
import { buttonsOf, type FakeSlack, startFakeSlack, textOf } from '../helpers/fake-slack.js';
import { SIGNING_SECRET, sign, TEAM } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { settled } from '../helpers/settled.js';

const available = await postgresAvailable('two-instance tests');
// The apps' clock, for reminders; the reference service keeps real time (its tokens last a day).
const clock = new TestClock(new Date());
let slack: FakeSlack;
let service: ReferenceService;
let schema: Awaited<ReturnType<typeof freshSchema>>;
const apps: Running[] = [];

beforeAll(async () => {
  if (!available) return;
  slack = await startFakeSlack();
  service = await startReferenceService();
  schema = await freshSchema();
  const config = loadSlackConfig({
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-twoinstances',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    COMMAND_SERVICE_URL: service.url,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 8).toString('base64'),
    DATABASE_URL: schema.url,
    PORT: '0',
    REMINDER_CONCURRENCY: '2',
  });
  for (let i = 0; i < 2; i++)
    apps.push(
      await startCountersign(config, {
        logger: createLogger({ level: 'error', write: () => {} }),
        host: '127.0.0.1',
        now: clock.now,
        reminders: { spreadMs: 60_000 },
        startScheduler: false,
      }),
    );
  const approver = service.demoTokens.find((t) => t.label === 'approver+ops')?.token ?? '';
  await apps[0]?.deps.store.setToken(
    { teamId: TEAM, userId: 'UGRACE' },
    ['findApprovals', 'collectEntitlements'],
    new Secret(approver),
    'admin',
    new Date(),
  );
});
afterAll(async () => {
  for (const app of apps) await app.shutdown();
  await service?.close();
  await slack?.close();
  await schema?.drop();
});

async function post(app: Running, form: string) {
  const res = await request(`http://127.0.0.1:${app.port}/slack/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...sign(form, SIGNING_SECRET, Math.floor(clock.now().getTime() / 1000)),
    },
    body: form,
  });
  await res.body.dump();
  return res.statusCode;
}
const command = (app: Running, text: string, response: { url: string }) =>
  post(
    app,
    new URLSearchParams({
      team_id: TEAM,
      channel_id: 'C0OPS',
      user_id: 'UGRACE',
      command: text.split(' ')[0] ?? '',
      text: text.split(' ').slice(1).join(' '),
      response_url: response.url,
      trigger_id: 't',
    }).toString(),
  );
const click = (app: Running, actionId: string, value: string | undefined, response: { url: string }) =>
  post(
    app,
    new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: 'UGRACE', team_id: TEAM },
        team: { id: TEAM },
        trigger_id: 't',
        response_url: response.url,
        actions: [{ action_id: actionId, block_id: 'b', type: 'button', value }],
      }),
    }).toString(),
  );

describe.skipIf(!available)('two instances on one PostgreSQL', () => {
  it('start one collection for a confirmation clicked on both', async () => {
    const asked = slack.responseUrl();
    expect(await command(apps[0] as Running, '/collect', asked)).toBe(200);
    const [confirmation] = await slack.waitForResponses(asked.id, 1);
    const run = buttonsOf(confirmation).find((b) => b.action_id === CONFIRM_ACTIONS.run);
    const before = service.calls.get('collectEntitlements') ?? 0;
    const postsBefore = slack.posted().length;
    const clicks = Array.from({ length: 6 }, () => slack.responseUrl());
    await Promise.all(clicks.map((r, i) => click(apps[i % 2] as Running, CONFIRM_ACTIONS.run, run?.value, r)));
    await Promise.all(clicks.map((r) => slack.waitForResponses(r.id, 1)));
    await slack.waitForPosts(postsBefore + 1);
    await settled({ apps, slack });
    expect(
      slack
        .posted()
        .slice(postsBefore)
        .map((p) => p.channel),
    ).toEqual(['C0OPS']);
    expect(service.calls.get('collectEntitlements') ?? 0).toBe(before + 1);
  });

  it('send each reminder digest once a day, with both schedulers ticking at once', async () => {
    const [a, b] = apps as [Running, Running];
    const users = Array.from({ length: 24 }, (_, i) => `UREM${String(i).padStart(2, '0')}`);
    const token = new Secret(service.demoTokens.find((t) => t.label === 'approver')?.token ?? '');
    for (const [i, userId] of users.entries()) {
      const who = { teamId: TEAM, userId };
      await a.deps.store.setToken(who, ['findApprovals'], token, 'admin', clock.now());
      // Half set on each instance; all at the same minute, as a team would.
      const app = i % 2 === 0 ? a : b;
      const schedule = { days: 'daily' as const, minuteOfDay: 9 * 60, timeZone: 'UTC' };
      await app.deps.store.setReminder({ ...who, ...schedule, ...app.deps.reminders.plan(who, schedule, clock.now()) });
    }
    const digests = () => slack.posted().filter((p) => p.channel.startsWith('UREM'));
    for (let day = 1; day <= 2; day++) {
      // Past 09:00 and the minute of spread: every digest is due.
      const nine = new Date(clock.now());
      nine.setUTCHours(9, 1, 30, 0);
      if (nine <= clock.now()) nine.setUTCDate(nine.getUTCDate() + 1);
      clock.advance(nine.getTime() - clock.now().getTime());
      const reports = await Promise.all([a.reminders.tick(), b.reminders.tick(), a.reminders.tick(), b.reminders.tick()]);
      expect(reports.reduce((n, r) => n + r.taken, 0)).toBe(users.length);
      expect(digests()).toHaveLength(users.length * day);
      expect(new Set(digests().map((d) => `${d.channel}/${day}`)).size).toBe(users.length);
    }
    // Per user: exactly two, one each day.
    for (const userId of users) expect(digests().filter((d) => d.channel === userId)).toHaveLength(2);
  });

  it('keep the digests’ calls to the service within REMINDER_CONCURRENCY on both together, each digest sent once', async () => {
    const [a, b] = apps as [Running, Running];
    const users = Array.from({ length: 16 }, (_, i) => `UCON${String(i).padStart(2, '0')}`);
    const token = new Secret(service.demoTokens.find((t) => t.label === 'approver')?.token ?? '');
    for (const userId of users) {
      const who = { teamId: TEAM, userId };
      await a.deps.store.setToken(who, ['findApprovals'], token, 'admin', clock.now());
      const schedule = { days: 'daily' as const, minuteOfDay: 17 * 60, timeZone: 'UTC' };
      await b.deps.store.setReminder({ ...who, ...schedule, ...b.deps.reminders.plan(who, schedule, clock.now()) });
    }
    const five = new Date(clock.now());
    five.setUTCHours(17, 1, 30, 0);
    if (five <= clock.now()) five.setUTCDate(five.getUTCDate() + 1);
    clock.advance(five.getTime() - clock.now().getTime());
    // A slow service: each call is in flight long enough for every worker of both to ask at once.
    service.setDelay(40);
    service.resetLoad();
    const callsBefore = service.calls.get('findApprovals') ?? 0;
    try {
      const reports = await Promise.all([a.reminders.tick(), b.reminders.tick()]);
      expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(users.length);
    } finally {
      service.setDelay(0);
    }
    expect((service.calls.get('findApprovals') ?? 0) - callsBefore).toBe(users.length);
    // Measured at the service: two at once, on the two instances together.
    expect(service.load.maxInFlight).toBe(2);
    for (const userId of users) expect(slack.posted().filter((p) => p.channel === userId)).toHaveLength(1);
  });

  it('refuse a signed request replayed to the other instance, as to the first', async () => {
    const asked = slack.responseUrl();
    const form = new URLSearchParams({
      team_id: TEAM,
      channel_id: 'C0OPS',
      user_id: 'UGRACE',
      command: '/approvals',
      text: 'page-size:1',
      response_url: asked.url,
      trigger_id: 'replayed',
    }).toString();
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      ...sign(form, SIGNING_SECRET, Math.floor(clock.now().getTime() / 1000)),
    };
    const send = async (app: Running) => {
      const res = await request(`http://127.0.0.1:${app.port}/slack/events`, { method: 'POST', headers, body: form });
      await res.body.dump();
      return res.statusCode;
    };
    const before = service.calls.get('findApprovals') ?? 0;
    expect(await send(apps[0] as Running)).toBe(200);
    expect(await send(apps[1] as Running)).toBe(401);
    expect(await send(apps[0] as Running)).toBe(401);
    await slack.waitForResponses(asked.id, 1);
    await settled({ apps, slack });
    expect(slack.responses(asked.id)).toHaveLength(1);
    expect(service.calls.get('findApprovals') ?? 0).toBe(before + 1);
  });

  it('turn a page asked of one instance on the other', async () => {
    const asked = slack.responseUrl();
    await command(apps[0] as Running, '/approvals page-size:3', asked);
    const [page1] = await slack.waitForResponses(asked.id, 1);
    const next = buttonsOf(page1).find((b) => b.action_id === PAGE_ACTIONS.next);
    const turned = slack.responseUrl();
    await click(apps[1] as Running, PAGE_ACTIONS.next, next?.value, turned);
    const [page2] = await slack.waitForResponses(turned.id, 1);
    expect(textOf(page2)).toContain('Pending approvals · page 2');
  });
});

/**
 * Arrivals on two app instances over one PostgreSQL, the same service and the same Slack: each
 * approver checked by one of them at a time, each arrival messaged once, each message kept true
 * once, whichever instance checks.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../../src/main.js';
import { PERFORM_WORK_ITEM_REQUEST } from '../../src/reference-service/server.js';
import { checksOf, dmsWith, readOf } from '../helpers/arrivals.js';
import { TestClock } from '../helpers/clock.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { settled } from '../helpers/settled.js';

const available = await postgresAvailable('arrivals on two instances');
const clock = new TestClock('2026-11-23T12:00:00Z');
const env = { NOTIFY_INTERVAL: '1m', DECISION_REQUEST: PERFORM_WORK_ITEM_REQUEST, COMMANDS_PER_MINUTE: '0' };

let h: Harness;
let other: Running;
let schema: Awaited<ReturnType<typeof freshSchema>>;

beforeAll(async () => {
  if (!available) return;
  schema = await freshSchema();
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, demoTokenLifetimeMs: 30 * 86_400_000 },
    env: { ...env, DATABASE_URL: schema.url },
    startScheduler: false,
  });
  // The second instance: the harness's configuration, on the same database, service and Slack.
  other = await h.startInstance({ now: clock.now, startScheduler: false });
  h.slack.timeZones.set('UADA', 'Europe/London');
  h.slack.timeZones.set('UGRACE', 'America/Los_Angeles');
});
afterAll(async () => {
  await other?.shutdown();
  await h?.close();
  await schema?.drop();
});

const apps = () => [h.app, other];

/** Both instances check at once, one interval on: what each did, added up. */
async function bothCheck() {
  clock.advance(60_000);
  const [a, b] = await Promise.all(apps().map((app) => checksOf(app).tick()));
  await settled({ slack: h.slack, apps: apps() });
  const sum = (k: 'checked' | 'primed' | 'announced' | 'messages' | 'redrawn') => (a?.[k] ?? 0) + (b?.[k] ?? 0);
  return {
    checked: sum('checked'),
    primed: sum('primed'),
    announced: sum('announced'),
    messages: sum('messages'),
    redrawn: sum('redrawn'),
  };
}

describe.skipIf(!available)('two instances on one PostgreSQL', () => {
  it('check each approver once, message each arrival once and keep each message true once', async () => {
    await h.link('UADA', 'approver', ['findApprovals']);
    await h.link('UGRACE', 'approver+ops', ['findApprovals']);
    expect(await bothCheck()).toMatchObject({ checked: 2, primed: 2 });
    expect(dmsWith(h, 'UADA')).toHaveLength(1);
    expect(dmsWith(h, 'UGRACE')).toHaveLength(1);

    const forAda = h.service.arrive('ada.lovelace');
    const forGrace = [h.service.arrive('grace.hopper'), h.service.arrive('grace.hopper')];
    expect(await bothCheck()).toMatchObject({ checked: 2, announced: 3, messages: 2 });
    expect(dmsWith(h, 'UADA')).toHaveLength(2);
    expect(readOf(dmsWith(h, 'UADA')[1])).toContain(forAda.requestName);
    expect(dmsWith(h, 'UGRACE')).toHaveLength(2);
    for (const a of forGrace) expect(readOf(dmsWith(h, 'UGRACE')[1])).toContain(a.requestName);

    // Again, and again: nothing new, nothing sent, whichever instance checks.
    for (let i = 0; i < 3; i++) expect(await bothCheck()).toMatchObject({ checked: 2, announced: 0, messages: 0, redrawn: 0 });

    h.service.decideInService(forAda.workItemId);
    expect(await bothCheck()).toMatchObject({ redrawn: 1, messages: 0 });
    expect(dmsWith(h, 'UADA')[1]?.updated).toBe(1);
    expect(await bothCheck()).toMatchObject({ redrawn: 0 });
    expect(dmsWith(h, 'UADA')[1]?.updated).toBe(1);
  });
});

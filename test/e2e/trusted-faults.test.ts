/**
 * The trusted mode when the service refuses countersign's own token ("Token is invalid or expired")
 * for reasons that are no user's: a restart right after a call worked, a token revoked, two service
 * nodes that do not share sessions, a service whose every new token is refused. Each time: one new
 * loginTrustedApp (however many calls wait for it), the call made once more, and, when new tokens
 * keep being refused, a back-off and words for users that name the service's refusal of countersign,
 * never their link; whoami, Home, the audit and reminders say and do the same. Then a command the
 * service does not let a user run: said as it is, not as a link to renew.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReferenceDb } from '../../src/reference-service/db.js';
import { loadDemoData } from '../../src/reference-service/demo.js';
import { newTrustedApp, type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { type Balancer, startBalancer } from '../helpers/balancer.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { visible } from '../helpers/visible.js';

const MINUTE = 60_000;
const START = '2026-11-22T12:00:00Z';
const APP_TOKENS = { lifespanMs: 30 * MINUTE, inactivityMs: 10 * MINUTE };
/** What a user is told when the service refuses countersign's sign-in, whatever the cause. */
const REFUSING = 'The Command Service is refusing countersign’s own sign-in';

const pgAvailable = await postgresAvailable('the trusted mode’s faults on PostgreSQL');

let clock: TestClock;
let h: Harness;
/** The second node over the same data; the harness's own service is the first. */
let nodeB: ReferenceService;
let lb: Balancer;

for (const store of ['SQLite', 'PostgreSQL'] as const) {
  describe.skipIf(store === 'PostgreSQL' && !pgAvailable)(`the app token refused, on ${store}`, () => {
    let schema: Awaited<ReturnType<typeof freshSchema>> | undefined;
    const db = openReferenceDb(':memory:');
    beforeAll(async () => {
      clock = new TestClock(START);
      loadDemoData(db, clock.now());
      schema = store === 'PostgreSQL' ? await freshSchema() : undefined;
      const trustedApp = newTrustedApp();
      // Two nodes over one data set, each keeping its sessions in its own memory, behind one balancer.
      const node = { db, now: clock.now, sessions: 'instance' as const, trustedApp, appTokenPolicy: APP_TOKENS };
      nodeB = await startReferenceService(node);
      lb = await startBalancer();
      h = await startHarness({
        trusted: {},
        serviceUrl: lb.url,
        now: clock.now,
        reference: node,
        env: { COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '1h', ...(schema ? { DATABASE_URL: schema.url } : {}) },
        reminders: { spreadMs: 0 },
        startScheduler: false,
      });
      lb.nodes = [h.service.url, nodeB.url];
      lb.only(0);
      h.slack.timeZones.set('UADA', 'UTC');
      await h.map('UADA', 'ada.lovelace');
    });
    afterAll(async () => {
      await h.close();
      await nodeB.close();
      await lb.close();
      db.close();
      await schema?.drop();
    });
    behaviour();
  });
}

const signIns = () => (h.service.calls.get('loginTrustedApp') ?? 0) + (nodeB.calls.get('loginTrustedApp') ?? 0);
const finds = () => (h.service.calls.get('findApprovals') ?? 0) + (nodeB.calls.get('findApprovals') ?? 0);

async function answer(userId: string, text: string, slash: '/approvals' | '/collect' = '/approvals') {
  const sent = await h.command(userId, slash, text);
  expect(sent.status).toBe(200);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  return body;
}

async function until(done: () => boolean, what: string): Promise<void> {
  await eventually(what, done);
}

/** Opens Home as Slack does: what it says, and its buttons. */
async function home(userId: string): Promise<{ text: string; buttons: string[] }> {
  const publishes = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish');
  const before = publishes().length;
  await h.event(userId, { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
  await until(() => publishes().length > before, 'views.publish');
  const view = JSON.parse(new URLSearchParams(publishes().at(-1)?.body ?? '').get('view') ?? '{}') as { blocks: unknown[] };
  const buttons = (view.blocks as Array<{ type: string; elements?: Array<{ text?: { text?: string } }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements ?? []).map((e) => e.text?.text ?? ''));
  return { text: visible(view.blocks), buttons };
}

const identity = (userId: string) => h.app.deps.store.getIdentity({ teamId: TEAM, userId });

function behaviour() {
  describe('right after a call worked', () => {
    it('a restart of the service: one new sign-in, the call made once more, and the user notices nothing', async () => {
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      const before = signIns();
      // The service restarts: it forgets every session, the app's token with them. Not a second passes.
      h.service.forgetSessions();
      const text = textOf(await answer('UADA', 'page-size:3'));
      expect(text).toContain('Pending approvals');
      expect(signIns()).toBe(before + 1);
      expect((await identity('UADA'))?.lastOutcome).toBe('ok');
      const whoami = textOf(await answer('UADA', 'whoami'));
      expect(whoami).toMatch(/last call succeeded/);
      expect(whoami).not.toMatch(/link again|refused/i);
    });

    it('a revoked token: the same', async () => {
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      const before = signIns();
      h.service.revokeAppSessions();
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      expect(signIns()).toBe(before + 1);
      expect((await identity('UADA'))?.lastOutcome).toBe('ok');
    });

    it('a digest due then is sent, and reminders are not paused', async () => {
      expect(textOf(await answer('UADA', 'remind daily 09:00'))).toContain('every day at 09:00');
      const next = new Date(clock.now());
      next.setUTCDate(next.getUTCDate() + 1);
      next.setUTCHours(9, 0, 30, 0);
      clock.advance(next.getTime() - clock.now().getTime());
      // A call at 09:00 gets a new token and works with it; then the service restarts.
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      h.service.forgetSessions();
      const before = signIns();
      expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1, relinkAsked: 0 });
      const dm = h.slack.posted().filter((p) => p.channel === 'UADA');
      expect(dm.at(-1)?.text).toMatch(/approvals? needs? you/);
      expect(dm.map((m) => m.text).join('\n')).not.toContain('I will not send more');
      expect((await h.app.deps.store.getReminder({ teamId: TEAM, userId: 'UADA' }))?.pausedAt).toBeUndefined();
      expect(signIns()).toBe(before + 1);
    });

    it('50 calls that meet the refusal together wait for one sign-in, and each is made once more', async () => {
      const users = Array.from({ length: 50 }, (_, i) => `UMANY${String(i).padStart(2, '0')}`);
      for (const [i, u] of users.entries()) await h.map(u, i % 2 === 0 ? 'ada.lovelace' : 'grace.hopper');
      expect(textOf(await answer('UADA', 'page-size:1'))).toContain('Pending approvals');
      h.service.forgetSessions();
      const before = signIns();
      const found = finds();
      // A slow service, so that the 50 are waiting when the first refusal comes back.
      h.service.setDelay(500);
      try {
        const sent = await Promise.all(users.map((u) => h.command(u, '/approvals', 'page-size:2')));
        const answers = await Promise.all(sent.map((s) => h.slack.waitForResponses(s.responseId, 1)));
        for (const [a] of answers) expect(textOf(a)).toContain('Pending approvals');
      } finally {
        h.service.setDelay(0);
      }
      expect(signIns()).toBe(before + 1);
      // Each was answered once; those that met the refusal (sent before the new token came) twice: one sign-in served them all.
      const refused = finds() - found - users.length;
      expect(refused).toBeGreaterThanOrEqual(10);
      expect(refused).toBeLessThanOrEqual(users.length);
      for (const u of users.slice(0, 5)) expect((await identity(u))?.lastOutcome).toBe('ok');
    });
  });

  describe('two service nodes that do not share sessions', () => {
    it('a failover back and forth: one sign-in each time the node changes, and no one is blamed', async () => {
      await h.map('UNODE', 'ada.lovelace');
      for (const to of [1, 0, 1, 0]) {
        lb.only(to);
        const before = signIns();
        expect(textOf(await answer('UNODE', 'page-size:3'))).toContain('Pending approvals');
        expect(textOf(await answer('UNODE', 'page-size:3'))).toContain('Pending approvals');
        expect(signIns()).toBe(before + 1);
      }
      expect((await identity('UNODE'))?.lastOutcome).toBe('ok');
    });

    it('round robin, request by request: a call that lands on the other node costs one sign-in, and is refused as countersign’s, never the user’s', async () => {
      lb.roundRobin();
      const before = signIns();
      const texts: string[] = [];
      try {
        for (let i = 0; i < 8; i++) texts.push(textOf(await answer('UNODE', 'page-size:3')));
      } finally {
        lb.only(0);
      }
      const refused = texts.filter((t) => t.includes(REFUSING));
      expect(refused.length).toBeGreaterThan(0);
      expect(texts.filter((t) => t.includes('Pending approvals')).length).toBe(texts.length - refused.length);
      for (const t of refused) expect(t).not.toMatch(/link/i);
      expect(signIns() - before).toBeLessThanOrEqual(refused.length);
      expect((await identity('UNODE'))?.lastOutcome).not.toBe('rejected');
      // Back on one node: the next call works, with one sign-in at most.
      expect(textOf(await answer('UNODE', 'page-size:3'))).toContain('Pending approvals');
    });
  });

  describe('a service that refuses every token it issues', () => {
    it('tells the user an administrator is needed, in words that do not mention their link; whoami and Home say the same', async () => {
      await h.map('UREF', 'ada.lovelace');
      expect(textOf(await answer('UREF', 'page-size:3'))).toContain('Pending approvals');
      // An administrator sets the application's token lifetime to nothing, and ends its sessions.
      h.service.setAppTokenPolicy({ lifespanMs: 0, inactivityMs: null });
      h.service.revokeAppSessions();
      const logged = h.logs.length;
      const before = signIns();
      const text = textOf(await answer('UREF', 'page-size:3'));
      expect(text).toContain(REFUSING);
      expect(text).toContain('administrator');
      expect(text).not.toMatch(/link/i);
      expect(signIns()).toBe(before + 1);
      expect((await identity('UREF'))?.lastOutcome).toBe('ok');

      const whoami = textOf(await answer('UREF', 'whoami'));
      expect(whoami).toContain(REFUSING);
      expect(whoami).not.toMatch(/link again/i);

      const { text: shown, buttons } = await home('UREF');
      expect(shown).toContain(REFUSING);
      expect(shown).not.toContain('refused to act for you');
      expect(buttons).not.toContain('Link again');
      expect(h.logs.slice(logged).filter((l) => l.includes('"level":"error"'))).toHaveLength(1);
    });

    it('asks for a new token at most once a back-off, however many calls meet the refusal', async () => {
      const before = signIns();
      for (let i = 0; i < 5; i++) expect(textOf(await answer('UREF', 'page-size:3'))).toContain(REFUSING);
      clock.advance(30_000);
      expect(textOf(await answer('UREF', 'page-size:3'))).toContain(REFUSING);
      expect(signIns()).toBe(before);
      clock.advance(31_000);
      expect(textOf(await answer('UREF', 'page-size:3'))).toContain(REFUSING);
      expect(signIns()).toBe(before + 1);
      // Refused again: the next wait is two minutes.
      clock.advance(61_000);
      await answer('UREF', 'page-size:3');
      expect(signIns()).toBe(before + 1);
      clock.advance(60_000);
      await answer('UREF', 'page-size:3');
      expect(signIns()).toBe(before + 2);
    });

    it('holds a digest for later without pausing reminders or asking the user to link', async () => {
      const reminder = await h.app.deps.store.getReminder({ teamId: TEAM, userId: 'UADA' });
      clock.advance((reminder?.dueAt.getTime() ?? 0) - clock.now().getTime() + 1_000);
      const dms = h.slack.posted().filter((p) => p.channel === 'UADA').length;
      expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, retried: 1, relinkAsked: 0 });
      expect(h.slack.posted().filter((p) => p.channel === 'UADA')).toHaveLength(dms);
      expect((await h.app.deps.store.getReminder({ teamId: TEAM, userId: 'UADA' }))?.pausedAt).toBeUndefined();
    });

    it('records a collection it kept from starting as countersign’s sign-in refused, in the audit', async () => {
      await h.map('UGRACE', 'grace.hopper');
      const text = textOf(await answer('UGRACE', 'Workday Workers', '/collect'));
      expect(text).toContain(REFUSING);
      expect(text).not.toMatch(/link/i);
      const [attempt] = await h.app.deps.store.listCollectAttempts({ teamId: TEAM, limit: 1 });
      expect(attempt).toMatchObject({ outcome: 'failed', userId: 'UGRACE' });
      const history = textOf(await answer('UGRACE', 'history 1', '/collect'));
      expect(history).toContain('the Command Service refused countersign’s own sign-in');
      expect(history).not.toContain('their token');
    });

    it('works again once the administrator has fixed it, and says so in the log', async () => {
      h.service.setAppTokenPolicy(APP_TOKENS);
      clock.advance(30 * MINUTE);
      expect(textOf(await answer('UREF', 'page-size:3'))).toContain('Pending approvals');
      expect(h.logs.some((l) => l.includes('takes countersign’s application token again'))).toBe(true);
      expect(textOf(await answer('UREF', 'whoami'))).not.toContain(REFUSING);
      expect((await home('UREF')).text).not.toContain(REFUSING);
    });
  });

  describe('a command the service does not let the user run', () => {
    it('is said as it is: whoami and the audit say the service does not let them, and that its administrator grants it', async () => {
      await h.map('UADA2', 'ada.lovelace');
      clock.advance(15 * MINUTE);
      const refused = await answer('UADA2', 'Workday Workers', '/collect');
      expect(textOf(refused)).toContain('does not let your account `ada.lovelace` start collections.');
      expect(buttonsOf(refused).map((b) => b.text)).toContain('Link again');

      const whoami = textOf(await answer('UADA2', 'whoami'));
      expect(whoami).toContain('the service does not let you start collections');
      expect(whoami).toContain('an administrator of the service grants it');
      expect(whoami).not.toMatch(/link again|refused to act/i);
      expect((await home('UADA2')).buttons).not.toContain('Link again');

      const history = textOf(await answer('UADA2', 'history 1', '/collect'));
      expect(history).toContain('the service does not let them run collectEntitlements; an administrator of the service grants it');
      expect(history).not.toContain('their token');
    });
  });
}

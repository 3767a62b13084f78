/**
 * The trusted-application mode end to end: a user links once (their identity, never a token), then
 * the app's own token expires again and again on a clock the test moves, and /approvals, paging,
 * Details, Home, the digest and /collect with its run-status watcher go on without the user doing anything.
 * Whom each call is for is read from the reference service's record of auth-user-id.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { LINK_FIELDS, RELINK_ACTION } from '../../src/render/link.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { visible } from '../helpers/visible.js';

const MINUTE = 60_000;
// Sunday 22 November 2026, 12:00 UTC; the service ends the app's tokens after 30 minutes, or 10 idle.
const START = '2026-11-22T12:00:00Z';
let clock: TestClock;
let h: Harness;

const pgAvailable = await postgresAvailable('the trusted mode on PostgreSQL');

for (const store of ['SQLite', 'PostgreSQL'] as const) {
  describe.skipIf(store === 'PostgreSQL' && !pgAvailable)(`the trusted mode on ${store}`, () => {
    let schema: Awaited<ReturnType<typeof freshSchema>> | undefined;
    beforeAll(async () => {
      clock = new TestClock(START);
      schema = store === 'PostgreSQL' ? await freshSchema() : undefined;
      h = await startHarness({
        trusted: {},
        now: clock.now,
        reference: {
          now: clock.now,
          appTokenPolicy: { lifespanMs: 30 * MINUTE, inactivityMs: 10 * MINUTE },
          demoTokenLifetimeMs: 30 * 86_400_000,
          runTimings: { queuedMs: MINUTE, runningMs: 5 * MINUTE },
        },
        env: { COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '1h', ...(schema ? { DATABASE_URL: schema.url } : {}) },
        reminders: { spreadMs: 0 },
        runWatch: { firstPollMs: 5_000, maxIntervalMs: MINUTE },
        startScheduler: false,
      });
      h.slack.timeZones.set('UADA', 'UTC');
    });
    afterAll(async () => {
      await h.close();
      await schema?.drop();
    });
    behaviour();
  });
}

const signIns = () => h.service.calls.get('loginTrustedApp') ?? 0;
/** Whom the service acted for, for calls from this index on. */
const actedFor = (from = 0) => h.service.actedFor.slice(from);

async function answer(userId: string, text: string, slash: '/approvals' | '/collect' = '/approvals') {
  const sent = await h.command(userId, slash, text);
  expect(sent.status).toBe(200);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  return body;
}

async function until(done: () => boolean, what: string): Promise<void> {
  await eventually(what, done);
}

/** Opens Home as Slack does and returns what the app published. */
async function home(userId: string): Promise<string> {
  const publishes = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish');
  const before = publishes().length;
  await h.event(userId, { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
  await until(() => publishes().length > before, 'views.publish');
  const view = JSON.parse(new URLSearchParams(publishes().at(-1)?.body ?? '').get('view') ?? '{}') as { blocks: unknown[] };
  return visible(view.blocks);
}

/** The same behaviour, whichever store keeps who the users are. */
function behaviour() {
  describe('linking once', () => {
    it('offers only signing in, keeps who the user is (never a token), and ends the login session at once', async () => {
      const opens = viewsSent(h.slack, 'views.open').length;
      await h.command('UADA', '/approvals', 'login');
      await until(() => viewsSent(h.slack, 'views.open').length > opens, 'views.open');
      const modal = viewsSent(h.slack, 'views.open').at(-1)?.view ?? {};
      const blockIds = (modal.blocks as Array<{ block_id?: string }>).map((b) => b.block_id);
      expect(blockIds).toContain(LINK_FIELDS.username.block);
      expect(blockIds).not.toContain(LINK_FIELDS.token.block);
      expect(JSON.stringify(modal)).toContain('Sign in once');

      const updates = viewsSent(h.slack, 'views.update').length;
      const logouts = h.service.calls.get('logoutUser') ?? 0;
      await h.submitView('UADA', modal, 'VADA', { [LINK_FIELDS.username.block]: 'ada.lovelace', [LINK_FIELDS.password.block]: 'demo' });
      await until(() => viewsSent(h.slack, 'views.update').length > updates, 'views.update');
      const done = visible(viewsSent(h.slack, 'views.update').at(-1)?.view.blocks as unknown[]);
      expect(done).toContain('Linked as `ada.lovelace`');
      expect(done).toContain('does not expire');

      expect(await h.app.deps.store.getIdentity({ teamId: TEAM, userId: 'UADA' })).toMatchObject({
        serviceUser: 'ada.lovelace',
        source: 'login',
      });
      expect(await h.app.deps.store.listLinks({ teamId: TEAM, userId: 'UADA' })).toEqual([]);
      // The token loginUser gave was ended at the service straight away.
      expect(h.service.calls.get('logoutUser') ?? 0).toBe(logouts + 1);
      // Linking needs no app token: the app signs in when a call first needs it.
      expect(signIns()).toBe(0);
    });

    it('then asks for the user with the app’s token and auth-user-id, signing in once', async () => {
      const from = h.service.actedFor.length;
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      expect(signIns()).toBe(1);
      expect(actedFor(from)).toEqual([{ command: 'findApprovals', authUserId: 'ada.lovelace' }]);
      const whoami = textOf(await answer('UADA', 'whoami'));
      expect(whoami).toContain('as an application the service trusts');
      expect(whoami).toMatch(/Linked as `ada\.lovelace` by signing in .*; last call succeeded/);
    });
  });

  describe('the app token expires; the user notices nothing', () => {
    it('renews it when the service refuses it as expired, each time, and retries the call once', async () => {
      for (let round = 1; round <= 3; round++) {
        const before = signIns();
        // Past the service's 30 minutes, within the app's own 1 h: the service says 401 first.
        clock.advance(35 * MINUTE);
        expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
        expect(signIns()).toBe(before + 1);
      }
      expect(h.logs.filter((l) => l.includes('signed in as a trusted application') && l.includes('refused as expired'))).toHaveLength(3);
    });

    it('renews it before use once it reaches its age limit, without meeting a 401', async () => {
      const before = signIns();
      const refused = h.logs.filter((l) => l.includes('"status":401')).length;
      clock.advance(61 * MINUTE);
      expect(textOf(await answer('UADA', 'page-size:3'))).toContain('Pending approvals');
      expect(signIns()).toBe(before + 1);
      expect(h.logs.filter((l) => l.includes('"status":401')).length).toBe(refused);
      expect(h.logs.some((l) => l.includes('signed in as a trusted application') && l.includes('age limit'))).toBe(true);
    });

    it('pages, across an expiry', async () => {
      const first = await answer('UADA', 'page-size:3');
      const next = buttonsOf(first).find((b) => b.action_id === PAGE_ACTIONS.next);
      clock.advance(11 * MINUTE);
      const before = signIns();
      const sent = await h.click('UADA', PAGE_ACTIONS.next, next?.value);
      const [page2] = await h.slack.waitForResponses(sent.responseId, 1);
      expect(page2?.replace_original).toBe(true);
      expect(textOf(page2)).toContain('Pending approvals');
      expect(textOf(page2)).toContain('page 2');
      expect(signIns()).toBe(before + 1);
    });

    it('opens an approval’s Details, across an expiry, asking both of its calls for the linked user', async () => {
      const page = await answer('UADA', 'page-size:3');
      const details = buttonsOf(page).find((b) => b.action_id === DETAILS_ACTIONS.open);
      clock.advance(35 * MINUTE);
      const before = signIns();
      const from = h.service.actedFor.length;
      const opens = viewsSent(h.slack, 'views.open').length;
      const updates = viewsSent(h.slack, 'views.update').length;
      expect((await h.click('UADA', DETAILS_ACTIONS.open, details?.value)).status).toBe(200);
      await until(
        () =>
          viewsSent(h.slack, 'views.update')
            .slice(updates)
            .some((u) => visible(u.view.blocks as unknown[]).includes('Approval id')),
        'the details',
      );
      expect(viewsSent(h.slack, 'views.open').length).toBe(opens + 1);
      const shown = visible(viewsSent(h.slack, 'views.update').at(-1)?.view.blocks as unknown[]);
      expect(shown).toContain('What the request asks for');
      // Both calls met the expired token together: one sign-in served them.
      expect(signIns()).toBe(before + 1);
      expect(new Set(actedFor(from).map((a) => `${a.command}:${a.authUserId}`))).toEqual(
        new Set(['getApprovalDetails:ada.lovelace', 'getRequestItems:ada.lovelace']),
      );
    });

    it('shows Home, across an expiry, saying how countersign acts for the user', async () => {
      clock.advance(11 * MINUTE);
      const before = signIns();
      const text = await home('UADA');
      expect(text).toMatch(/\*\d+\+? pending\*/);
      expect(text).toContain('Linked as `ada.lovelace`');
      expect(text).toContain('as an application the Command Service trusts');
      expect(signIns()).toBe(before + 1);
    });

    it('sends the next morning’s digest with no one there to sign in', async () => {
      expect(textOf(await answer('UADA', 'remind daily 09:00'))).toContain('every day at 09:00');
      const before = signIns();
      const from = h.service.actedFor.length;
      // Overnight: the app's token is long dead.
      const next = new Date(clock.now());
      next.setUTCDate(next.getUTCDate() + 1);
      next.setUTCHours(9, 0, 30, 0);
      clock.advance(next.getTime() - clock.now().getTime());
      expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1, relinkAsked: 0 });
      const dm = h.slack.posted().filter((p) => p.channel === 'UADA');
      expect(dm.at(-1)?.text).toMatch(/approvals? needs? you/);
      expect(signIns()).toBe(before + 1);
      expect(actedFor(from)).toEqual([{ command: 'findApprovals', authUserId: 'ada.lovelace' }]);
    });

    it('starts a collection and follows its runs while the token expires under them, starting it once', async () => {
      await h.map('UGRACE', 'grace.hopper');
      clock.advance(35 * MINUTE);
      const runsBefore = (h.service.db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n;
      const collects = h.service.calls.get('collectEntitlements') ?? 0;
      const from = h.service.actedFor.length;
      const before = signIns();
      const posts = h.slack.posted().length;
      await h.command('UGRACE', '/collect', 'Workday Workers');
      const [post] = (await h.slack.waitForPosts(posts + 1)).slice(posts);
      expect(post?.text).toContain('Workday Workers');
      await until(() => h.app.deps.background.size === 0, 'the command to end');
      // The first try met a 401 (refused, so nothing started), the second started exactly one run.
      expect(h.service.calls.get('collectEntitlements') ?? 0).toBe(collects + 2);
      expect((h.service.db.prepare('SELECT count(*) AS n FROM runs').get() as { n: number }).n).toBe(runsBefore + 1);
      expect(signIns()).toBe(before + 1);

      // Idle past the service's 10 minutes: the watcher's next look meets a 401 and carries on.
      clock.advance(12 * MINUTE);
      await h.app.runWatcher.tick();
      const latest = h.slack.updates().at(-1);
      expect(textOf({ text: latest?.text ?? '', blocks: latest?.blocks ?? [] })).toMatch(/completed in/);
      expect(signIns()).toBe(before + 2);
      expect(new Set(actedFor(from).map((a) => `${a.command}:${a.authUserId}`))).toEqual(
        new Set(['collectEntitlements:grace.hopper', 'getRunStatus:grace.hopper']),
      );
    });
  });

  describe('one sign-in at a time', () => {
    it('makes concurrent calls that all meet the expired token share one loginTrustedApp', async () => {
      clock.advance(35 * MINUTE);
      const before = signIns();
      const sent = await Promise.all(Array.from({ length: 8 }, () => h.command('UADA', '/approvals', 'page-size:2')));
      const answers = await Promise.all(sent.map((s) => h.slack.waitForResponses(s.responseId, 1)));
      for (const [a] of answers) expect(textOf(a)).toContain('Pending approvals');
      expect(signIns()).toBe(before + 1);
    });

    it('makes concurrent calls past the age limit share one loginTrustedApp too', async () => {
      clock.advance(2 * 60 * MINUTE);
      const before = signIns();
      const sent = await Promise.all(Array.from({ length: 8 }, () => h.command('UADA', '/approvals', 'page-size:2')));
      const answers = await Promise.all(sent.map((s) => h.slack.waitForResponses(s.responseId, 1)));
      for (const [a] of answers) expect(textOf(a)).toContain('Pending approvals');
      expect(signIns()).toBe(before + 1);
    });
  });

  describe('whom a call is for', () => {
    it('is always the linked identity: a forged button cannot change it', async () => {
      const from = h.service.actedFor.length;
      const findCalls = () => h.service.calls.get('findApprovals') ?? 0;
      const page = await answer('UADA', 'page-size:3');
      const next = buttonsOf(page).find((b) => b.action_id === PAGE_ACTIONS.next);
      const state = JSON.parse(next?.value ?? '{}') as { u: string; q: Record<string, unknown> };

      // Grace's name in the query as auth-user-id: not a parameter a query may hold.
      const calls = findCalls();
      const forged = await h.click(
        'UADA',
        PAGE_ACTIONS.next,
        JSON.stringify({ ...state, q: { ...state.q, 'auth-user-id': 'grace.hopper' } }),
      );
      expect(textOf((await h.slack.waitForResponses(forged.responseId, 1))[0])).toContain('This button no longer works');
      expect(findCalls()).toBe(calls);

      // Ada's button clicked by Grace: refused, it is Ada's.
      const stolen = await h.click('UGRACE', PAGE_ACTIONS.next, next?.value);
      expect(textOf((await h.slack.waitForResponses(stolen.responseId, 1))[0])).toContain('Only <@UADA> can page through these approvals');

      // Grace's user id claimed in the button, clicked by Ada: refused too.
      const claimed = await h.click('UADA', PAGE_ACTIONS.next, JSON.stringify({ ...state, u: 'UGRACE' }));
      expect(textOf((await h.slack.waitForResponses(claimed.responseId, 1))[0])).toContain(
        'Only <@UGRACE> can page through these approvals',
      );

      // user-id is a filter of the spec (who placed the request): allowed, and the call is still Ada's.
      const filtered = await h.click('UADA', PAGE_ACTIONS.next, JSON.stringify({ ...state, q: { ...state.q, 'user-id': 'grace.hopper' } }));
      await h.slack.waitForResponses(filtered.responseId, 1);

      // A "Link again" button carrying a query with auth-user-id replays nothing of it.
      await h.click('UADA', RELINK_ACTION, JSON.stringify({ kind: 'approvals', query: { 'auth-user-id': 'grace.hopper' } }));

      expect(actedFor(from).length).toBeGreaterThanOrEqual(2);
      expect(actedFor(from).every((a) => a.authUserId === 'ada.lovelace')).toBe(true);
    });

    it('is a user the service does not know: their answer quotes the service, and no sign-in is wasted on it', async () => {
      await h.map('UGHOST', 'no.such.user');
      const before = signIns();
      const body = await answer('UGHOST', 'page-size:3');
      expect(textOf(body)).toContain("The user 'no.such.user' given by auth-user-id could not be found.");
      expect(textOf(body)).toContain('Link again');
      expect(signIns()).toBe(before);
    });

    it('may only run what the service lets that user run', async () => {
      await h.map('UADA2', 'ada.lovelace');
      const body = await answer('UADA2', 'Workday Workers', '/collect');
      const text = textOf(body);
      expect(text).toContain('does not let your account `ada.lovelace` start collections.');
      expect(text).toContain("The token is not valid for the command 'collectEntitlements'.");
    });
  });

  describe('secrets', () => {
    it('never writes the client secret or an app token to a log or to Slack', async () => {
      const secret = h.service.trustedApp.clientSecret;
      const everything = [...h.logs, ...h.slack.apiCalls.map((c) => c.body)].join('\n');
      expect(everything).not.toContain(secret);
      expect(everything).not.toMatch(/ws[0-9a-f]{12}:-[0-9a-f]{8}:/);
      expect(h.logs.some((l) => l.includes('signed in as a trusted application'))).toBe(true);
    });

    it('logs out: forgets who the user is, and says so', async () => {
      await h.map('UBYE', 'grace.hopper');
      const text = textOf(await answer('UBYE', 'logout'));
      expect(text).toContain('forgot who you are in the Command Service');
      expect(await h.app.deps.store.getIdentity({ teamId: TEAM, userId: 'UBYE' })).toBeUndefined();
      expect(textOf(await answer('UBYE', 'page-size:3'))).toContain('not linked to the Command Service yet');
    });
  });
}

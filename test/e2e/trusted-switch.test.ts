/**
 * The trusted-application mode when things are not as they should be: an installation switched
 * from users' own tokens (those keep working until they expire, then one message asks to link the
 * new way, in a command's answer, the reminder's DM and on Home), and a wrong client secret (one
 * plain message, said once in the log as an error, and a bounded number of sign-in attempts).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINK_FIELDS, RELINK_ACTION } from '../../src/render/link.js';
import { Secret } from '../../src/runtime/secret.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness, TEAM } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

const MINUTE = 60_000;

async function until(done: () => boolean, what: string): Promise<void> {
  await eventually(what, done);
}

function helpers(get: () => Harness) {
  return {
    async answer(userId: string, text: string) {
      const sent = await get().command(userId, '/approvals', text);
      expect(sent.status).toBe(200);
      const [body] = await get().slack.waitForResponses(sent.responseId, 1);
      return body;
    },
    async home(userId: string): Promise<string> {
      const h = get();
      const publishes = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish');
      const before = publishes().length;
      await h.event(userId, { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
      await until(() => publishes().length > before, 'views.publish');
      const view = JSON.parse(new URLSearchParams(publishes().at(-1)?.body ?? '').get('view') ?? '{}') as { blocks: unknown[] };
      return visible(view.blocks);
    },
  };
}

describe('switching an installation from users’ own tokens to the trusted mode', () => {
  const clock = new TestClock('2026-11-22T12:00:00Z');
  let h: Harness;
  const { answer, home } = helpers(() => h);
  /** A token from before the switch, as loginUser gave it then: it ends an hour after it was issued. */
  const oldToken = (userId: string) =>
    h.app.deps.store.setToken(
      { teamId: TEAM, userId },
      ['findApprovals', 'collectEntitlements'],
      new Secret(h.service.tokens.issue('ada.lovelace', ['findApprovals', 'logoutUser'], { lifespanMs: 60 * MINUTE, inactivityMs: null })),
      'login',
      clock.now(),
    );

  beforeAll(async () => {
    h = await startHarness({
      trusted: {},
      now: clock.now,
      reference: { now: clock.now },
      reminders: { spreadMs: 0 },
      startScheduler: false,
    });
    h.slack.timeZones.set('UOLD', 'UTC');
    await oldToken('UOLD');
    await oldToken('UOLDHOME');
  });
  afterAll(() => h.close());

  it('keeps using a token linked before the switch while it lasts, and says so', async () => {
    const from = h.service.actedFor.length;
    expect(textOf(await answer('UOLD', 'page-size:3'))).toContain('Pending approvals');
    // The user's own token: no app sign-in, no auth-user-id.
    expect(h.service.calls.get('loginTrustedApp') ?? 0).toBe(0);
    expect(h.service.actedFor.length).toBe(from);
    expect(textOf(await answer('UOLD', 'whoami'))).toContain('still linked with a token from before, used until it expires');
    expect(textOf(await answer('UOLD', 'remind daily 09:00'))).toContain('every day at 09:00');
  });

  it('once it expires, asks in the answer to link once more the new way: one message, not an error', async () => {
    clock.advance(61 * MINUTE);
    const body = await answer('UOLD', 'completed page-size:3');
    const text = textOf(body);
    expect(text).toContain('countersign now acts for you in a way that lasts: sign in once more');
    expect(text).toContain('Your earlier link was a token, and it has expired.');
    expect(text).not.toContain('not valid or has expired');
    expect(text).not.toContain('Reference');
    expect(buttonsOf(body).find((b) => b.action_id === RELINK_ACTION)?.text).toBe('Link again');
  });

  it('says the same on Home', async () => {
    const text = await home('UOLDHOME');
    expect(text).toContain('countersign now acts for you in a way that lasts');
    expect(text).toContain('A token from before');
  });

  it('says it in the reminder’s one DM, then stays quiet', async () => {
    clock.advance(new Date('2026-11-23T09:00:30Z').getTime() - clock.now().getTime());
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, relinkAsked: 1 });
    const dms = h.slack.posted().filter((p) => p.channel === 'UOLD');
    expect(dms).toHaveLength(1);
    expect(dms[0]?.text).toContain('countersign now acts for you in a way that lasts');
    expect(JSON.stringify(dms[0]?.blocks)).toContain(RELINK_ACTION);
  });

  it('links the new way from Link again, replays the query, and the old token is gone', async () => {
    clock.advance(MINUTE);
    const body = await answer('UOLD', 'completed page-size:3');
    const button = buttonsOf(body).find((b) => b.action_id === RELINK_ACTION);
    const opens = viewsSent(h.slack, 'views.open').length;
    const responseUrl = h.slack.responseUrl();
    await h.click('UOLD', RELINK_ACTION, button?.value, { responseUrl });
    await until(() => viewsSent(h.slack, 'views.open').length > opens, 'views.open');
    const modal = viewsSent(h.slack, 'views.open').at(-1)?.view ?? {};
    expect((modal.blocks as Array<{ block_id?: string }>).map((b) => b.block_id)).not.toContain(LINK_FIELDS.token.block);
    await h.submitView('UOLD', modal, 'VOLD', { [LINK_FIELDS.username.block]: 'ada.lovelace', [LINK_FIELDS.password.block]: 'demo' });
    const [replayed] = await h.slack.waitForResponses(responseUrl.id, 1);
    expect(textOf(replayed)).toContain('Completed approvals');
    expect(await h.app.deps.store.listLinks({ teamId: TEAM, userId: 'UOLD' })).toEqual([]);
    expect((await h.app.deps.store.getIdentity({ teamId: TEAM, userId: 'UOLD' }))?.serviceUser).toBe('ada.lovelace');
    expect(visible(viewsSent(h.slack, 'views.update').at(-1)?.view.blocks as unknown[])).toContain(
      'Your earlier token link is no longer needed and has been forgotten.',
    );
    expect(h.service.actedFor.at(-1)).toEqual({ command: 'findApprovals', authUserId: 'ada.lovelace' });
  });

  it('and the next digest comes, the reminder resumed by the new link', async () => {
    clock.advance(new Date('2026-11-24T09:00:30Z').getTime() - clock.now().getTime());
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1 });
    expect(
      h.slack
        .posted()
        .filter((p) => p.channel === 'UOLD')
        .at(-1)?.text,
    ).toMatch(/approvals? needs? you/);
  });
});

describe('a wrong client secret', () => {
  const clock = new TestClock('2026-11-22T12:00:00Z');
  const WRONG = 'wrong-secret-0123456789';
  let h: Harness;
  const { answer, home } = helpers(() => h);
  const signIns = () => h.service.calls.get('loginTrustedApp') ?? 0;

  beforeAll(async () => {
    h = await startHarness({
      trusted: { clientSecret: WRONG },
      now: clock.now,
      reference: { now: clock.now },
      appSignInBackoff: { refusedMs: MINUTE, refusedMaxMs: 8 * MINUTE },
      reminders: { spreadMs: 0 },
      startScheduler: false,
    });
    await h.map('UADA', 'ada.lovelace');
    h.slack.timeZones.set('UADA', 'UTC');
  });
  afterAll(() => h.close());

  it('answers every command with one plain message, and tries to sign in once', async () => {
    const sent = await Promise.all(Array.from({ length: 6 }, () => h.command('UADA', '/approvals', 'page-size:3')));
    const answers = await Promise.all(sent.map((s) => h.slack.waitForResponses(s.responseId, 1)));
    for (const [a] of answers) {
      const text = textOf(a);
      expect(text).toContain('The Command Service is refusing countersign’s own sign-in');
      expect(text).toContain('This is not something you can fix: an administrator');
      expect(text).not.toMatch(/link/i);
    }
    for (let i = 0; i < 4; i++) await answer('UADA', 'page-size:3');
    expect(signIns()).toBe(1);
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(0);
  });

  it('says so in the log once, as an error naming what to check, and never the secret', async () => {
    const errors = h.logs.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('COMMAND_SERVICE_CLIENT_SECRET');
    expect(h.logs.join('\n')).not.toContain(WRONG);
    expect(h.slack.apiCalls.map((c) => c.body).join('\n')).not.toContain(WRONG);
  });

  it('tries again only after its back-off, waiting longer each time', async () => {
    clock.advance(MINUTE + 1_000);
    await answer('UADA', 'page-size:3');
    expect(signIns()).toBe(2);
    // The second wait is two minutes.
    clock.advance(MINUTE + 1_000);
    await answer('UADA', 'page-size:3');
    expect(signIns()).toBe(2);
    clock.advance(MINUTE);
    await answer('UADA', 'page-size:3');
    expect(signIns()).toBe(3);
    // An hour of commands every minute: the waits grow to 8 minutes, so a handful of attempts, not sixty.
    for (let i = 0; i < 60; i++) {
      clock.advance(MINUTE);
      await answer('UADA', 'page-size:1');
    }
    expect(signIns()).toBeLessThanOrEqual(3 + 60 / 4);
    expect(h.logs.filter((l) => l.includes('"level":"error"'))).toHaveLength(1);
  });

  it('shows it on Home, and a digest waits for it rather than asking the user to link', async () => {
    expect(await home('UADA')).toContain('The Command Service is refusing countersign’s own sign-in');
    expect(textOf(await answer('UADA', 'whoami'))).toContain('The Command Service is refusing countersign’s own sign-in');
    expect(textOf(await answer('UADA', 'remind daily 09:00'))).toContain('every day at 09:00');
    clock.advance(new Date('2026-11-23T09:00:30Z').getTime() - clock.now().getTime());
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, retried: 1, relinkAsked: 0 });
    expect(h.slack.posted().filter((p) => p.channel === 'UADA')).toHaveLength(0);
  });
});

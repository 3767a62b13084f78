/**
 * The application's session (loginTrustedApp) and the credentials of the trusted mode, with a
 * scripted service and a clock the test moves: one sign-in at a time, the age limit, renewal on a
 * 401 and the one retry, the back-off, and what reaches the log.
 */

import { describe, expect, it } from 'vitest';
import { storedTokens, trustedApplication } from '../../src/accounts/credentials.js';
import { AppSession } from '../../src/accounts/trusted-app.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import type { CallOptions } from '../../src/service/client.js';
import { AppTokenRefusedError, LinkOutdatedError, RefusedForUserError } from '../../src/service/credentials.js';
import { AppSignInError, InvalidTokenError, ServiceUnavailableError } from '../../src/service/errors.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { TestClock } from '../helpers/clock.js';

const SECRET = 'the-client-secret-42';
const ADA = { teamId: 'T1', userId: 'UADA' };

function session(options: { fail?: () => Error | undefined; delayMs?: number; maxAgeMs?: number } = {}) {
  const clock = new TestClock();
  const logs: string[] = [];
  let issued = 0;
  const service = {
    async loginTrustedApp(credentials: { clientId: string; clientSecret: Secret }) {
      if (credentials.clientSecret.reveal() !== SECRET) throw new Error('the test passed the wrong secret');
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const failure = options.fail?.();
      if (failure) throw failure;
      return new Secret(`app-token-${++issued}`);
    },
  };
  const app = new AppSession({
    service,
    credentials: { clientId: 'countersign', clientSecret: new Secret(SECRET) },
    maxAgeMs: options.maxAgeMs ?? 3_600_000,
    now: clock.now,
    logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }),
    backoff: { refusedMs: 60_000, refusedMaxMs: 240_000, unreachableMs: 5_000, unreachableMaxMs: 20_000 },
  });
  return { app, clock, logs, issued: () => issued };
}

const refused = () =>
  new AppSignInError({ command: 'loginTrustedApp', status: 401, serviceMessage: 'The trusted application could not be validated.' });
const expired = (command = 'findApprovals') =>
  new InvalidTokenError({
    command,
    status: 401,
    serviceMessage: `The token is not valid for the command '${command}'. Token is invalid or expired`,
  });
const notPermitted = (command = 'collectEntitlements') =>
  new InvalidTokenError({ command, status: 401, serviceMessage: `The token is not valid for the command '${command}'. ` });

describe('AppSession', () => {
  it('signs in when first needed, once however many wait, and keeps the token until its age limit', async () => {
    const s = session({ delayMs: 20, maxAgeMs: 60_000 });
    expect(s.issued()).toBe(0);
    const tokens = await Promise.all(Array.from({ length: 10 }, () => s.app.token()));
    expect(new Set(tokens.map((t) => t.reveal()))).toEqual(new Set(['app-token-1']));
    s.clock.advance(59_999);
    expect((await s.app.token()).reveal()).toBe('app-token-1');
    s.clock.advance(1);
    const renewed = await Promise.all(Array.from({ length: 5 }, () => s.app.token()));
    expect(new Set(renewed.map((t) => t.reveal()))).toEqual(new Set(['app-token-2']));
    expect(s.issued()).toBe(2);
  });

  it('renews a token the service refused once, for every caller that met the refusal', async () => {
    const s = session({ delayMs: 10 });
    const stale = await s.app.token();
    const renewed = await Promise.all(Array.from({ length: 6 }, () => s.app.renew(stale)));
    expect(new Set(renewed.map((t) => t?.reveal()))).toEqual(new Set(['app-token-2']));
    // A late caller that met the refusal with the old token gets the new one, without a sign-in.
    expect((await s.app.renew(stale))?.reveal()).toBe('app-token-2');
    expect(s.issued()).toBe(2);
  });

  it('renews a token it has only just got: a restarted service or another node refuses it as soon as that', async () => {
    const s = session();
    const fresh = await s.app.token();
    expect((await s.app.renew(fresh)).reveal()).toBe('app-token-2');
    expect(s.issued()).toBe(2);
  });

  it('backs off after a refusal, doubling up to its limit, and says so in the log once', async () => {
    let failing = true;
    const s = session({ fail: () => (failing ? refused() : undefined) });
    const attempts = () => s.logs.filter((l) => l.includes('sign-in')).length;
    await expect(s.app.token()).rejects.toBeInstanceOf(AppSignInError);
    // Within the minute, nothing is sent: the same error, at once.
    for (let i = 0; i < 20; i++) await expect(s.app.token()).rejects.toBeInstanceOf(AppSignInError);
    expect(attempts()).toBe(1);
    for (const wait of [60_000, 120_000, 240_000, 240_000]) {
      s.clock.advance(wait - 1);
      await expect(s.app.token()).rejects.toBeInstanceOf(AppSignInError);
      const before = attempts();
      s.clock.advance(1);
      await expect(s.app.token()).rejects.toBeInstanceOf(AppSignInError);
      expect(attempts()).toBe(before + 1);
    }
    const errors = s.logs.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('COMMAND_SERVICE_CLIENT_ID and COMMAND_SERVICE_CLIENT_SECRET');
    expect(s.logs.filter((l) => l.includes('failed again'))).toHaveLength(4);

    failing = false;
    s.clock.advance(240_000);
    expect((await s.app.token()).reveal()).toBe('app-token-1');
    expect(s.logs.at(-1)).toContain('signed in as a trusted application again');
    expect(s.logs.join('\n')).not.toContain(SECRET);
  });

  it('backs off for less when the service could not be reached, which may pass by itself', async () => {
    let failing = true;
    const s = session({
      fail: () =>
        failing
          ? new ServiceUnavailableError('network', 'The Command Service could not be reached (ECONNREFUSED).', {
              command: 'loginTrustedApp',
            })
          : undefined,
    });
    await expect(s.app.token()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(s.logs.filter((l) => l.includes('"level":"warn"'))).toHaveLength(1);
    s.clock.advance(4_999);
    await expect(s.app.token()).rejects.toBeInstanceOf(ServiceUnavailableError);
    failing = false;
    s.clock.advance(1);
    expect((await s.app.token()).reveal()).toBe('app-token-1');
    expect(s.app.signIns).toBe(2);
  });
});

describe('trusted-mode credentials', () => {
  function setup(options: Parameters<typeof session>[0] = {}) {
    const s = session(options);
    const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 5).toString('base64')));
    const source = trustedApplication({
      store,
      session: s.app,
      now: s.clock.now,
      logger: createLogger({ level: 'error', write: () => {} }),
    });
    const sent: Array<{ token: string; options: CallOptions }> = [];
    /** A call that answers from a script, one answer per try. */
    const scripted = (answers: Array<Error | string>) => async (token: Secret, options: CallOptions) => {
      sent.push({ token: token.reveal(), options });
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next ?? 'ok';
    };
    return { ...s, store, source, sent, scripted };
  }

  it('calls for a linked identity with the app token and auth-user-id, taken from the store', async () => {
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'findApprovals');
    expect(credentials).toMatchObject({ kind: 'trusted-app', serviceUser: 'ada.lovelace', source: 'login' });
    expect(await credentials?.call(t.scripted(['page']))).toBe('page');
    expect(t.sent).toEqual([{ token: 'app-token-1', options: { onBehalfOf: 'ada.lovelace' } }]);
    expect((await t.store.getIdentity(ADA))?.lastOutcome).toBe('ok');
  });

  it('renews the app token on a 401 "invalid or expired" and makes the call once more, and only once', async () => {
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'collectEntitlements');
    await credentials?.call(t.scripted(['warm-up']));
    t.clock.advance(15 * 60_000);
    expect(await credentials?.call(t.scripted([expired('collectEntitlements'), 'started']))).toBe('started');
    expect(t.sent.map((c) => c.token)).toEqual(['app-token-1', 'app-token-1', 'app-token-2']);

    // Refused again with the new token, which no call has yet worked with: no third try, and the
    // refusal is the application token's, not the user's.
    t.clock.advance(15 * 60_000);
    const failure = credentials?.call(t.scripted([expired(), expired()]));
    await expect(failure).rejects.toBeInstanceOf(AppSignInError);
    expect(t.sent).toHaveLength(5);
    expect((await t.store.getIdentity(ADA))?.lastOutcome).toBe('ok');
  });

  it('takes "invalid or expired" right after a call worked as the token’s, not the user’s: signs in again and makes the call once more', async () => {
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'findApprovals');
    await credentials?.call(t.scripted(['warm-up']));
    // Not a second later (a restarted service, another node, a revocation): refused.
    expect(await credentials?.call(t.scripted([expired(), 'page']))).toBe('page');
    expect(t.sent.map((c) => c.token)).toEqual(['app-token-1', 'app-token-1', 'app-token-2']);
    expect(t.sent.every((c) => c.options.onBehalfOf === 'ada.lovelace')).toBe(true);
    expect(t.app.signIns).toBe(2);
    expect((await t.store.getIdentity(ADA))?.lastOutcome).toBe('ok');
    expect(t.logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it('never takes "invalid or expired" as the user’s: a new token refused too is the service refusing countersign', async () => {
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'findApprovals');
    await credentials?.call(t.scripted(['warm-up']));
    const failure = credentials?.call(t.scripted([expired(), expired()]));
    await expect(failure).rejects.toBeInstanceOf(AppTokenRefusedError);
    await expect(failure).rejects.toMatchObject({ kind: 'app-sign-in', command: 'findApprovals' });
    expect((await t.store.getIdentity(ADA))?.lastOutcome).toBe('ok');
    expect(t.app.trouble()).toEqual({ kind: 'refused', since: t.clock.now() });
    expect(t.source.trouble?.()).toEqual({ kind: 'refused', since: t.clock.now() });
  });

  it('names the user only for a refusal about them: unknown to the service, or a command it does not let them run', async () => {
    // "Could not be found" names the user, whatever else it says: never the token's.
    const unknown = new InvalidTokenError({
      command: 'findApprovals',
      status: 401,
      serviceMessage: "The user 'ada.lovelace' given by auth-user-id could not be found. Token is invalid or expired",
    });
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    await expect((await t.source.credentialsFor(ADA, 'findApprovals'))?.call(t.scripted([unknown]))).rejects.toBeInstanceOf(
      RefusedForUserError,
    );
    expect((await t.store.getIdentity(ADA))?.lastOutcome).toBe('rejected');
    expect(t.app.signIns).toBe(1);

    // A command the service does not let them run: noted as that, naming the command, and the link left working.
    t.clock.advance(60_000);
    const barred = (await t.source.credentialsFor(ADA, 'collectEntitlements'))?.call(t.scripted([notPermitted()]));
    await expect(barred).rejects.toBeInstanceOf(RefusedForUserError);
    await expect(barred).rejects.toMatchObject({ commandOnly: true, serviceUser: 'ada.lovelace' });
    expect(await t.store.getIdentity(ADA)).toMatchObject({ lastOutcome: 'not-permitted', notPermitted: 'collectEntitlements' });
    t.clock.advance(60_000);
    await (await t.source.credentialsFor(ADA, 'findApprovals'))?.call(t.scripted(['page']));
    const after = await t.store.getIdentity(ADA);
    expect([after?.lastOutcome, after?.notPermitted]).toEqual(['ok', undefined]);
    expect(t.app.signIns).toBe(1);
    expect(t.app.trouble()).toBeUndefined();
  });

  it('makes every call that meets the refusal wait for one sign-in, and sends each once more', async () => {
    const t = setup({ delayMs: 20 });
    const users = Array.from({ length: 50 }, (_, i) => ({ teamId: 'T1', userId: `U${i}` }));
    for (const who of users) await t.store.setIdentity(who, { serviceUser: who.userId, authsource: undefined }, 'login', t.clock.now());
    await (await t.source.credentialsFor(ADA, 'findApprovals'))?.call(t.scripted(['warm-up']));
    t.sent.length = 0;
    // The service forgot token 1: every call with it is refused, every call with token 2 answered.
    const byToken = async (token: Secret) => {
      t.sent.push({ token: token.reveal(), options: {} });
      await new Promise((r) => setTimeout(r, 5));
      if (token.reveal() === 'app-token-1') throw expired();
      return 'page';
    };
    const answers = await Promise.all(users.map(async (who) => (await t.source.credentialsFor(who, 'findApprovals'))?.call(byToken)));
    expect(answers).toEqual(users.map(() => 'page'));
    expect(t.app.signIns).toBe(2);
    expect(t.sent.filter((c) => c.token === 'app-token-1')).toHaveLength(50);
    expect(t.sent.filter((c) => c.token === 'app-token-2')).toHaveLength(50);
  });

  it('counts new tokens refused too against its own session: no user marked refused, one error logged, sign-ins backed off', async () => {
    const t = setup();
    const users = ['UADA', 'UEVE', 'UBOB'].map((userId) => ({ teamId: 'T1', userId }));
    for (const who of users)
      await t.store.setIdentity(who, { serviceUser: who.userId.toLowerCase(), authsource: undefined }, 'login', t.clock.now());
    const everyone = async () => {
      const failures: unknown[] = [];
      for (const who of users) {
        const credentials = await t.source.credentialsFor(who, 'findApprovals');
        failures.push(await credentials?.call(t.scripted([expired(), expired()])).catch((e: unknown) => e));
      }
      return failures;
    };
    // A service whose every token fails at once: the first token, and the one signed in for after it.
    const first = await everyone();
    expect(first.every((e) => e instanceof AppTokenRefusedError)).toBe(true);
    for (const who of users) expect((await t.store.getIdentity(who))?.lastOutcome).toBeUndefined();
    expect(t.app.signIns).toBe(2);
    // None more within the minute's back-off, however many calls meet the refusal.
    t.clock.advance(30_000);
    expect((await everyone()).every((e) => e instanceof AppTokenRefusedError)).toBe(true);
    expect(t.app.signIns).toBe(2);
    // Past it, one new token; refused again, the next wait is twice as long.
    t.clock.advance(30_000);
    await everyone();
    expect(t.app.signIns).toBe(3);
    t.clock.advance(60_000);
    await everyone();
    expect(t.app.signIns).toBe(3);
    t.clock.advance(60_000);
    await everyone();
    expect(t.app.signIns).toBe(4);
    for (const who of users) expect((await t.store.getIdentity(who))?.lastOutcome).toBeUndefined();
    const errors = t.logs.filter((l) => l.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('refused countersign’s application token again right after a new sign-in');
    expect(t.app.trouble()?.kind).toBe('refused');
    // Once a call works again, so does everything, and the log says so.
    t.clock.advance(20_000);
    expect(await (await t.source.credentialsFor(ADA, 'findApprovals'))?.call(t.scripted(['page']))).toBe('page');
    expect(t.logs.at(-1)).toContain('takes countersign’s application token again');
    expect(t.app.trouble()).toBeUndefined();
  });

  it('does not sign in again for a command the user may not run, nor pass other failures as refusals', async () => {
    const t = setup();
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'collectEntitlements');
    t.clock.advance(60_000);
    await expect(credentials?.call(t.scripted([notPermitted()]))).rejects.toMatchObject({ expired: false, serviceUser: 'ada.lovelace' });
    const down = new ServiceUnavailableError('timeout', 'The Command Service did not answer in time.', { command: 'findApprovals' });
    await expect(credentials?.call(t.scripted([down]))).rejects.toBe(down);
    expect(t.app.signIns).toBe(1);
    expect(t.sent).toHaveLength(2);
  });

  it('sends nothing for the user while the app cannot sign in', async () => {
    const t = setup({ fail: refused });
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'findApprovals');
    await expect(credentials?.call(t.scripted(['page']))).rejects.toBeInstanceOf(AppSignInError);
    expect(t.sent).toEqual([]);
  });

  it('keeps a token linked before the switch until it expires, then asks to link the new way', async () => {
    const t = setup();
    await t.store.setToken(ADA, ['findApprovals'], new Secret('old-user-token'), 'login', t.clock.now());
    const credentials = await t.source.credentialsFor(ADA, 'findApprovals');
    expect(credentials?.kind).toBe('user-token');
    expect(await credentials?.call(t.scripted(['page']))).toBe('page');
    expect(t.sent).toEqual([{ token: 'old-user-token', options: {} }]);
    await expect(credentials?.call(t.scripted([expired()]))).rejects.toBeInstanceOf(LinkOutdatedError);
    // Not permitted is not expiry: said as the service said it.
    const refusal = notPermitted('findApprovals');
    await expect(credentials?.call(t.scripted([refusal]))).rejects.toBe(refusal);
    expect(t.app.signIns).toBe(0);
  });

  it('prefers the identity to a token, and the workspace’s identity to an any-workspace one', async () => {
    const t = setup();
    await t.store.setToken(ADA, ['findApprovals'], new Secret('old-user-token'), 'login', t.clock.now());
    await t.store.setIdentity(
      { teamId: '', userId: 'UADA' },
      { serviceUser: 'ada.anywhere', authsource: undefined },
      'admin',
      t.clock.now(),
    );
    expect((await t.source.credentialsFor(ADA, 'findApprovals'))?.serviceUser).toBe('ada.anywhere');
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: 'corp-ldap' }, 'login', t.clock.now());
    expect((await t.source.credentialsFor(ADA, 'findApprovals'))?.serviceUser).toBe('ada.lovelace');
    expect(await t.source.credentialsFor({ teamId: 'T1', userId: 'UEVE' }, 'findApprovals')).toBeUndefined();
  });

  it('in the default mode, ignores identities and calls with the user’s own token alone', async () => {
    const t = setup();
    const source = storedTokens(t.store);
    expect(source.mode).toBe('user-tokens');
    await t.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'admin', t.clock.now());
    expect(await source.credentialsFor(ADA, 'findApprovals')).toBeUndefined();
    await t.store.setToken(ADA, ['findApprovals'], new Secret('user-token'), 'admin', t.clock.now());
    await (await source.credentialsFor(ADA, 'findApprovals'))?.call(t.scripted(['page']));
    expect(t.sent).toEqual([{ token: 'user-token', options: {} }]);
  });
});

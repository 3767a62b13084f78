/**
 * Linking and forgetting a Slack user's Command Service account, with a scripted service and a
 * real in-memory store: which calls are made with what, what is stored, and what never is.
 */

import { describe, expect, it } from 'vitest';
import { forgetAccount, whoami } from '../../src/accounts/forget.js';
import { linkAccount } from '../../src/accounts/link.js';
import type { LinkRequest } from '../../src/parse/link-form.js';
import { Secret } from '../../src/runtime/secret.js';
import { InvalidTokenError, LoginFailedError } from '../../src/service/errors.js';
import { failing, fakeDeps, fakeService } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
const ADA = { teamId: 'T1', userId: 'UADA' };
const PASSWORD = 'correct horse battery staple';

const login = (authsource?: string): LinkRequest =>
  authsource === undefined
    ? { kind: 'login', username: 'ada', password: new Secret(PASSWORD) }
    : { kind: 'login', username: 'ada', password: new Secret(PASSWORD), authsource };
const pasted = (token: string): LinkRequest => ({ kind: 'token', token: new Secret(token) });

/** The user's links, as whoami shows them: no tokens. */
const links = async (t: ReturnType<typeof fakeDeps>) =>
  (await whoami(t.deps, ADA)).tokens.map((l) => ({ command: l.command, source: l.source, linkedAt: l.linkedAt }));
const tokenOf = async (t: ReturnType<typeof fakeDeps>, command: 'findApprovals' | 'collectEntitlements') =>
  (await t.deps.store.getToken(ADA, command))?.token.reveal();

describe('linkAccount', () => {
  it('signs in with the username, password and auth source, and links both commands to the session', async () => {
    const logins: Array<[string, string, string | undefined]> = [];
    const service = fakeService({
      login: async (username, password, authsource) => {
        logins.push([username, password, authsource]);
        return new Secret('session-token-1');
      },
    });
    const t = fakeDeps({ service });
    expect(await linkAccount(t.deps, ADA, login('corp-ldap'), 'findApprovals')).toEqual({
      kind: 'linked',
      commands: ['findApprovals', 'collectEntitlements'],
      checked: true,
    });
    expect(t.fake.calls).toEqual([{ command: 'loginUser', username: 'ada', authsource: 'corp-ldap' }]);
    expect(logins).toEqual([['ada', PASSWORD, 'corp-ldap']]);
    expect(await links(t)).toEqual([
      { command: 'collectEntitlements', source: 'login', linkedAt: NOW },
      { command: 'findApprovals', source: 'login', linkedAt: NOW },
    ]);
    expect(await tokenOf(t, 'findApprovals')).toBe('session-token-1');
    expect(await tokenOf(t, 'collectEntitlements')).toBe('session-token-1');
    expect(t.logs.some((l) => l.includes('account linked'))).toBe(true);
    for (const line of t.logs) {
      expect(line).not.toContain(PASSWORD);
      expect(line).not.toContain('session-token-1');
    }
  });

  it('leaves the auth source to the service when none was given', async () => {
    const t = fakeDeps({ service: fakeService({ login: async () => new Secret('session-token-2') }) });
    await linkAccount(t.deps, ADA, login(), 'collectEntitlements');
    expect(t.fake.calls).toEqual([{ command: 'loginUser', username: 'ada' }]);
    expect(t.fake.calls[0]).not.toHaveProperty('authsource');
  });

  it('stores nothing when the login is refused, and says why', async () => {
    const refused = new LoginFailedError({ command: 'loginUser', status: 401, serviceMessage: 'User could not be validated.' });
    const service = fakeService(failing('loginUser', refused));
    const t = fakeDeps({ service });
    expect(await linkAccount(t.deps, ADA, login('corp-ldap'), 'findApprovals')).toEqual({
      kind: 'refused',
      error: refused,
      command: 'findApprovals',
    });
    expect(await links(t)).toEqual([]);
    expect(t.logs.some((l) => l.includes('account not linked') && l.includes('login-failed'))).toBe(true);
    for (const line of t.logs) expect(line).not.toContain(PASSWORD);
  });

  it('checks a token pasted for findApprovals with a one-item findApprovals, and links that command only', async () => {
    const t = fakeDeps();
    expect(await linkAccount(t.deps, ADA, pasted('pasted-token-1'), 'findApprovals')).toEqual({
      kind: 'linked',
      commands: ['findApprovals'],
      checked: true,
    });
    expect(t.fake.calls).toEqual([{ command: 'findApprovals', query: { 'page-size': 1 }, token: 'pasted-token-1' }]);
    expect(await links(t)).toEqual([{ command: 'findApprovals', source: 'pasted', linkedAt: NOW }]);
    expect(await tokenOf(t, 'findApprovals')).toBe('pasted-token-1');
    for (const line of t.logs) expect(line).not.toContain('pasted-token-1');
  });

  it('stores a token pasted for collectEntitlements unchecked: trying it would start work', async () => {
    const t = fakeDeps();
    expect(await linkAccount(t.deps, ADA, pasted('pasted-token-2'), 'collectEntitlements')).toEqual({
      kind: 'linked',
      commands: ['collectEntitlements'],
      checked: false,
    });
    expect(t.fake.calls).toEqual([]);
    expect(await links(t)).toEqual([{ command: 'collectEntitlements', source: 'pasted', linkedAt: NOW }]);
    expect(await tokenOf(t, 'collectEntitlements')).toBe('pasted-token-2');
  });

  it('stores nothing when the pasted token is refused, and keeps the link it had', async () => {
    const refused = new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = fakeDeps({
      service: fakeService(failing('findApprovals', refused)),
    });
    expect(await linkAccount(t.deps, ADA, pasted('bad-token'), 'findApprovals')).toEqual({
      kind: 'refused',
      error: refused,
      command: 'findApprovals',
    });
    expect(await links(t)).toEqual([]);

    await t.link('UADA', 'T1', new Date('2026-11-01T00:00:00Z'));
    await linkAccount(t.deps, ADA, pasted('bad-token'), 'findApprovals');
    expect(await tokenOf(t, 'findApprovals')).toBe('token-of-UADA');
  });
});

describe('forgetAccount', () => {
  it('ends a login session at the service once, removes the tokens and pauses the reminder', async () => {
    const t = fakeDeps({ service: fakeService({ login: async () => new Secret('session-token-1') }) });
    await linkAccount(t.deps, ADA, login(), 'findApprovals');
    await t.deps.store.setReminder({ ...ADA, days: 'daily', minuteOfDay: 540, timeZone: 'UTC', nextAt: NOW, dueAt: NOW });
    t.fake.calls.length = 0;

    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 2, endedAtService: 1, identities: 0 });
    expect(t.fake.calls).toEqual([{ command: 'logoutUser', token: 'session-token-1' }]);
    expect(await links(t)).toEqual([]);
    expect(await t.deps.store.getToken(ADA, 'findApprovals')).toBeUndefined();
    expect((await t.deps.store.getReminder(ADA))?.pausedAt).toEqual(NOW);
  });

  it('ends each distinct login session, one call per session', async () => {
    const t = fakeDeps();
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('session-a'), 'login', NOW);
    await t.deps.store.setToken(ADA, ['collectEntitlements'], new Secret('session-b'), 'login', NOW);
    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 2, endedAtService: 2, identities: 0 });
    expect(t.fake.calls).toEqual([
      { command: 'logoutUser', token: 'session-a' },
      { command: 'logoutUser', token: 'session-b' },
    ]);
  });

  it('does not end admin or pasted tokens at the service, but forgets them', async () => {
    const t = fakeDeps();
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('admin-token'), 'admin', NOW);
    await t.deps.store.setToken(ADA, ['collectEntitlements'], new Secret('pasted-token'), 'pasted', NOW);
    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 2, endedAtService: 0, identities: 0 });
    expect(t.fake.calls).toEqual([]);
    expect(await links(t)).toEqual([]);
  });

  it('forgets the tokens even when the service will not end the session', async () => {
    const t = fakeDeps();
    await t.deps.store.setToken(ADA, ['findApprovals', 'collectEntitlements'], new Secret('session-token-1'), 'login', NOW);
    t.deps.service.logoutUser = async () => {
      throw new InvalidTokenError({ command: 'logoutUser', status: 401, serviceMessage: 'Token is invalid or expired' });
    };
    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 2, endedAtService: 1, identities: 0 });
    expect(await links(t)).toEqual([]);
    for (const line of t.logs) expect(line).not.toContain('session-token-1');
  });

  it('forgets an admin’s link for any workspace too: nothing is left that would act for the user', async () => {
    const t = fakeDeps();
    await t.deps.store.setToken(
      { teamId: '', userId: 'UADA' },
      ['findApprovals', 'collectEntitlements'],
      new Secret('admin'),
      'admin',
      NOW,
    );
    await t.deps.store.setToken(ADA, ['findApprovals'], new Secret('pasted-token'), 'pasted', NOW);
    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 3, endedAtService: 0, identities: 0 });
    expect(await t.deps.store.getToken(ADA, 'findApprovals')).toBeUndefined();
    expect(await t.deps.store.getToken(ADA, 'collectEntitlements')).toBeUndefined();
    expect((await whoami(t.deps, ADA)).tokens).toEqual([]);
    expect(t.fake.calls).toEqual([]);
  });

  it('leaves other users alone, and whoami lists only the asker’s links', async () => {
    const t = fakeDeps();
    await t.link('UADA');
    await t.link('UEVE');
    expect((await whoami(t.deps, ADA)).tokens.map((l) => [l.userId, l.command, l.source])).toEqual([
      ['UADA', 'collectEntitlements', 'admin'],
      ['UADA', 'findApprovals', 'admin'],
    ]);
    await forgetAccount(t.deps, ADA);
    expect((await whoami(t.deps, ADA)).tokens).toEqual([]);
    expect((await whoami(t.deps, { teamId: 'T1', userId: 'UEVE' })).tokens.map((l) => l.command)).toEqual([
      'collectEntitlements',
      'findApprovals',
    ]);
  });
});

describe('linking in the trusted mode', () => {
  const trusted = (login?: (u: string, p: string, a: string | undefined) => Promise<Secret>) =>
    fakeDeps({
      trusted: true,
      service: fakeService({
        login: login ?? (async () => new Secret('proof-token-1')),
        loginApp: async () => new Secret('app-token-1'),
      }),
    });

  it('proves who the user is with loginUser, ends that session at once, and keeps the name, not a token', async () => {
    const t = trusted();
    expect(await linkAccount(t.deps, ADA, login('corp-ldap'), 'findApprovals')).toEqual({
      kind: 'identified',
      serviceUser: 'ada',
      authsource: 'corp-ldap',
      replaced: 0,
    });
    expect(t.fake.calls).toEqual([
      { command: 'loginUser', username: 'ada', authsource: 'corp-ldap' },
      { command: 'logoutUser', token: 'proof-token-1' },
    ]);
    expect(await t.deps.store.getIdentity(ADA)).toMatchObject({
      serviceUser: 'ada',
      authsource: 'corp-ldap',
      source: 'login',
      linkedAt: NOW,
    });
    expect(await links(t)).toEqual([]);
    for (const line of t.logs) {
      expect(line).not.toContain(PASSWORD);
      expect(line).not.toContain('proof-token-1');
    }
  });

  it('forgets the tokens from before the switch that the identity replaces, ending their session', async () => {
    const t = trusted();
    await t.deps.store.setToken(ADA, ['findApprovals', 'collectEntitlements'], new Secret('old-session'), 'login', NOW);
    expect(await linkAccount(t.deps, ADA, login(), 'findApprovals')).toMatchObject({ kind: 'identified', replaced: 2 });
    expect(t.fake.calls.filter((c) => c.command === 'logoutUser')).toEqual([
      { command: 'logoutUser', token: 'proof-token-1' },
      { command: 'logoutUser', token: 'old-session' },
    ]);
    expect(await links(t)).toEqual([]);
  });

  it('takes no pasted token: a token does not say whose it is', async () => {
    const t = trusted();
    expect(await linkAccount(t.deps, ADA, pasted('someone-elses-token'), 'findApprovals')).toEqual({ kind: 'token-not-accepted' });
    expect(t.fake.calls).toEqual([]);
    expect(await t.deps.store.getIdentity(ADA)).toBeUndefined();
  });

  it('links nothing when the service does not accept the username and password', async () => {
    const t = trusted(async () => {
      throw new LoginFailedError({ command: 'loginUser', status: 401, serviceMessage: 'User could not be validated.' });
    });
    expect(await linkAccount(t.deps, ADA, login(), 'findApprovals')).toMatchObject({ kind: 'refused' });
    expect(await t.deps.store.getIdentity(ADA)).toBeUndefined();
  });

  it('says which mode in whoami, and logout forgets the identity and pauses the reminder', async () => {
    const t = trusted();
    await linkAccount(t.deps, ADA, login(), 'findApprovals');
    expect(await whoami(t.deps, ADA)).toMatchObject({ mode: 'trusted-app', identity: { serviceUser: 'ada' }, tokens: [] });
    expect(await forgetAccount(t.deps, ADA)).toEqual({ removed: 0, endedAtService: 0, identities: 1 });
    expect(await whoami(t.deps, ADA)).toMatchObject({ mode: 'trusted-app', identity: undefined, tokens: [] });
  });
});

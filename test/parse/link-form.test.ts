import { describe, expect, it } from 'vitest';
import { checkLinkForm, type LinkFields } from '../../src/parse/link-form.js';

const form = (fields: Partial<LinkFields>): LinkFields => ({ username: '', password: '', authsource: '', token: '', ...fields });

describe('checkLinkForm', () => {
  it('takes a username and password, or a token', () => {
    const login = checkLinkForm(form({ username: ' ada ', password: ' pw ', authsource: 'corp-ldap' }));
    expect(
      login.ok && login.request.kind === 'login' && [login.request.username, login.request.password.reveal(), login.request.authsource],
    ).toEqual(['ada', ' pw ', 'corp-ldap']);
    const token = checkLinkForm(form({ token: 'ws1:-2:3' }));
    expect(token.ok && token.request.kind === 'token' && token.request.token.reveal()).toBe('ws1:-2:3');
  });

  it('refuses control and bidirectional formatting characters, naming them under their field', () => {
    for (const [fields, field, problem] of [
      [{ username: 'ada\u202e', password: 'pw' }, 'username', /bidirectional formatting character \(U\+202E\)/],
      [{ username: 'ada', password: 'pw', authsource: 'corp\u0085ldap' }, 'authsource', /control character \(U\+0085\)/],
      [{ username: 'ada\u2067', password: 'pw' }, 'username', /U\+2067/],
      [{ token: 'ws1\u009b2J' }, 'token', /control character \(U\+009B\)/],
      [{ token: 'ws1\u200e' }, 'token', /U\+200E/],
    ] as const) {
      const r = checkLinkForm(form(fields));
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(Object.keys(r.errors)).toEqual([field]);
      expect(r.errors[field]).toMatch(problem);
    }
  });

  it('never quotes the token it refuses', () => {
    const r = checkLinkForm(form({ token: 'secret-ws-token\u202e' }));
    expect(JSON.stringify(r)).not.toContain('secret-ws-token');
  });
});

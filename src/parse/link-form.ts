/**
 * The sign-in modal's fields, checked before anything is sent: either a username and password
 * (with an optional authentication source), or a pasted token, never both. Each problem is
 * named against the field it belongs to, so Slack can show it under that field.
 */

import { Secret } from '../runtime/secret.js';

export interface LinkFields {
  username: string;
  password: string;
  authsource: string;
  token: string;
}

export type LinkRequest =
  | { kind: 'login'; username: string; password: Secret; authsource?: string | undefined }
  | { kind: 'token'; token: Secret };

export type LinkFormResult = { ok: true; request: LinkRequest } | { ok: false; errors: Partial<Record<keyof LinkFields, string>> };

export function checkLinkForm(raw: LinkFields): LinkFormResult {
  const username = raw.username.trim();
  // A password may begin or end with a space: it is taken as typed.
  const password = raw.password;
  const authsource = raw.authsource.trim();
  const token = raw.token.trim();
  if (token !== '' && (username !== '' || password !== ''))
    return { ok: false, errors: { token: 'Give either a username and password, or a token, not both.' } };
  if (token === '' && username === '' && password === '')
    return { ok: false, errors: { username: 'Give your username and password, or paste a token below.' } };
  if (token === '' && username === '') return { ok: false, errors: { username: 'Give the username that goes with the password.' } };
  if (token === '' && password === '') return { ok: false, errors: { password: 'Give the password too.' } };
  if (token !== '') {
    if (/\s/.test(token) || token.length > 4096) return { ok: false, errors: { token: 'A token is one word, without spaces.' } };
    return { ok: true, request: { kind: 'token', token: new Secret(token) } };
  }
  return {
    ok: true,
    request: { kind: 'login', username, password: new Secret(password), authsource: authsource || undefined },
  };
}

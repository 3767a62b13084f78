/**
 * The sign-in modal's fields, checked before anything is sent: either a username and password
 * (with an optional authentication source), or a pasted token, never both. Each problem is
 * named against the field it belongs to, so Slack can show it under that field.
 */

import { Secret } from '../runtime/secret.js';
import { unsafeCharacter } from '../service/query.js';

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

/** `way`: which form was sent (each asks for one way of linking), so that an empty one is told what it needs. */
export function checkLinkForm(raw: LinkFields, way?: 'sign-in' | 'token'): LinkFormResult {
  const username = raw.username.trim();
  // A password may begin or end with a space: it is taken as typed.
  const password = raw.password;
  const authsource = raw.authsource.trim();
  const token = raw.token.trim();
  if (token !== '' && (username !== '' || password !== ''))
    return { ok: false, errors: { token: 'Give either a username and password, or a token, not both.' } };
  if (token === '' && username === '' && password === '')
    return way === 'token'
      ? { ok: false, errors: { token: 'Paste the token the Command Service gave you.' } }
      : { ok: false, errors: { username: 'Give your username and password.' } };
  if (token === '' && username === '') return { ok: false, errors: { username: 'Give the username that goes with the password.' } };
  if (token === '' && password === '') return { ok: false, errors: { password: 'Give the password too.' } };
  if (token !== '') {
    if (/\s/.test(token) || token.length > 4096) return { ok: false, errors: { token: 'A token is one word, without spaces.' } };
    // Named, never quoted: the field holds a secret.
    const unsafe = unsafeCharacter(token);
    if (unsafe !== undefined) return { ok: false, errors: { token: `A token has no such characters; this one contains ${unsafe}.` } };
    return { ok: true, request: { kind: 'token', token: new Secret(token) } };
  }
  // The service may quote the username and authentication source back (its Query String= line, its
  // messages), so nothing in them may disguise them. The password is taken as typed: it is never shown.
  for (const [field, value] of [
    ['username', username],
    ['authsource', authsource],
  ] as const) {
    const unsafe = unsafeCharacter(value);
    if (unsafe !== undefined) return { ok: false, errors: { [field]: `This contains ${unsafe}; type it without.` } };
  }
  return {
    ok: true,
    request: { kind: 'login', username, password: new Secret(password), authsource: authsource || undefined },
  };
}

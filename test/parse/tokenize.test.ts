import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/parse/tokenize.js';

const words = (text: string) => {
  const r = tokenize(text);
  if (!r.ok) throw new Error(r.problem);
  return r.words.map((w) => (w.key === undefined ? w.text : `${w.key}=${w.value}`));
};

describe('tokenize', () => {
  it('splits on any whitespace, including non-breaking spaces', () => {
    expect(words('  pending \t sort:desc\u00a0page-size=5 ')).toEqual(['pending', 'sort=desc', 'page-size=5']);
  });
  it('takes key:value and key=value, lower-casing the key only', () => {
    expect(words('Entitlement-Name:VPN state=Completed')).toEqual(['entitlement-name=VPN', 'state=Completed']);
  });
  it('keeps quoted values whole, in straight and curly quotes', () => {
    expect(words('entitlement-name:"Domain Admins" user-last-name:“van Rossum” x:‘a b’ "AD Accounts"')).toEqual([
      'entitlement-name=Domain Admins',
      'user-last-name=van Rossum',
      'x=a b',
      'AD Accounts',
    ]);
  });
  it('splits at the first separator only, and not inside quotes', () => {
    expect(words('approval-id:20512:WPDS:1 name:"a:b=c"')).toEqual(['approval-id=20512:WPDS:1', 'name=a:b=c']);
  });
  it('leaves an apostrophe inside a word alone', () => {
    expect(words("user-last-name:O'Brien")).toEqual(["user-last-name=O'Brien"]);
  });
  it('does not take a quoted word as a key', () => {
    const r = tokenize('"state:all"');
    expect(r.ok && r.words[0]).toEqual({ text: 'state:all', value: 'state:all', quoted: true, start: 0 });
  });
  it('reports an unclosed quote', () => {
    expect(tokenize('entitlement-name:"Domain Admins')).toEqual({
      ok: false,
      problem: 'the quote in “entitlement-name:"Domain…” is never closed',
    });
  });
  it('gives nothing for empty text', () => {
    expect(words('   ')).toEqual([]);
  });
});

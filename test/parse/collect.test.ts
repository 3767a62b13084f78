import { describe, expect, it } from 'vitest';
import { collectCommandText, parseCollectCommand } from '../../src/parse/collect.js';

describe('/collect', () => {
  it('asks before starting every collector', () => {
    expect(parseCollectCommand('')).toEqual({ kind: 'run', query: {}, confirm: ['all-collectors'] });
  });

  it('takes bare words as the collector name, and runs it without asking', () => {
    expect(parseCollectCommand('AD Accounts')).toEqual({ kind: 'run', query: { name: 'AD Accounts' }, confirm: [] });
    expect(parseCollectCommand('"AD Accounts"')).toEqual({ kind: 'run', query: { name: 'AD Accounts' }, confirm: [] });
    expect(parseCollectCommand('name:“AD Accounts”')).toEqual({ kind: 'run', query: { name: 'AD Accounts' }, confirm: [] });
  });

  it('takes an application, and both together', () => {
    expect(parseCollectCommand('application:"Active Directory"')).toEqual({
      kind: 'run',
      query: { application: 'Active Directory' },
      confirm: [],
    });
    expect(parseCollectCommand('AD Groups application=AWS')).toEqual({
      kind: 'run',
      query: { name: 'AD Groups', application: 'AWS' },
      confirm: [],
    });
  });

  it('shows history, 10 by default, and names a bad count', () => {
    expect(parseCollectCommand('history')).toEqual({ kind: 'history', limit: 10 });
    expect(parseCollectCommand('HISTORY 25')).toEqual({ kind: 'history', limit: 25 });
    for (const text of ['history 0', 'history 51', 'history all', 'history 5 more']) {
      const r = parseCollectCommand(text);
      expect(r.kind === 'invalid' && r.problem).toContain('history takes how many to show, from 1 to 50');
    }
    // A collector called history, quoted, is a collector.
    expect(parseCollectCommand('"history"')).toEqual({ kind: 'run', query: { name: 'history' }, confirm: [] });
  });

  it('asks before forcing, and says why', () => {
    expect(parseCollectCommand('AWS IAM force')).toEqual({ kind: 'run', query: { name: 'AWS IAM', force: true }, confirm: ['force'] });
    expect(parseCollectCommand('FORCE')).toEqual({ kind: 'run', query: { force: true }, confirm: ['all-collectors', 'force'] });
    expect(parseCollectCommand('application:AWS force:no')).toEqual({
      kind: 'run',
      query: { application: 'AWS', force: false },
      confirm: [],
    });
    expect(parseCollectCommand('"force"')).toEqual({ kind: 'run', query: { name: 'force' }, confirm: [] });
  });

  it('knows help, login and logout', () => {
    expect(parseCollectCommand('help')).toEqual({ kind: 'help' });
    expect(parseCollectCommand('login')).toEqual({ kind: 'login' });
    expect(parseCollectCommand('logout')).toEqual({ kind: 'logout' });
    expect(parseCollectCommand('whoami')).toEqual({ kind: 'whoami' });
  });

  it('answers a subcommand with words after it, naming the extra words, and sends nothing', () => {
    const cases: Array<[string, string, string]> = [
      ['login now', 'login takes nothing after it; “now” is one word too many.', '/collect login'],
      ['whoami extra', 'whoami takes nothing after it; “extra” is one word too many.', '/collect whoami'],
      ['logout please', 'logout takes nothing after it; “please” is one word too many.', '/collect logout'],
      ['LOGIN right now', 'login takes nothing after it; “right now” is 2 words too many.', '/collect login'],
      ['Logout name:x', 'logout takes nothing after it; “name:x” is one word too many.', '/collect logout'],
    ];
    for (const [text, problem, example] of cases) {
      const r = parseCollectCommand(text);
      expect(r).toMatchObject({ kind: 'invalid', example });
      if (r.kind !== 'invalid') continue;
      expect(r.problem.startsWith(problem)).toBe(true);
      // A collector whose name begins with the word: quoting it is how (said only where the words could be a name).
      if (!text.includes(':')) expect(r.problem).toContain(`A collector called “${text}”? Quote its name: /collect "${text}".`);
      else expect(r.problem).not.toContain('Quote');
    }
  });

  it('decides by the exact first word, any case: a longer word, or a quoted name, is a collector', () => {
    expect(parseCollectCommand('Logins Audit')).toEqual({ kind: 'run', query: { name: 'Logins Audit' }, confirm: [] });
    expect(parseCollectCommand('"login now"')).toEqual({ kind: 'run', query: { name: 'login now' }, confirm: [] });
    expect(parseCollectCommand('name:"login now"')).toEqual({ kind: 'run', query: { name: 'login now' }, confirm: [] });
    expect(parseCollectCommand('"History Sync"')).toEqual({ kind: 'run', query: { name: 'History Sync' }, confirm: [] });
    expect(parseCollectCommand('AD Accounts login')).toEqual({ kind: 'run', query: { name: 'AD Accounts login' }, confirm: [] });
    const history = parseCollectCommand('History Sync');
    expect(history).toMatchObject({ kind: 'invalid', example: '/collect history 20' });
    expect(history.kind === 'invalid' && history.problem).toContain(
      'A collector called “History Sync”? Quote its name: /collect "History Sync".',
    );
  });

  it('shows help whatever follows help (nothing is sent either way)', () => {
    expect(parseCollectCommand('help me')).toEqual({ kind: 'help' });
    expect(parseCollectCommand('? force')).toEqual({ kind: 'help' });
  });

  it('keeps a name holding & and = as one value', () => {
    expect(parseCollectCommand('name:"x&force=true"')).toEqual({ kind: 'run', query: { name: 'x&force=true' }, confirm: [] });
  });

  const wrong: Array<[string, RegExp, string | undefined]> = [
    ['aplication:AWS', /“aplication” is not an option of \/collect/, 'application'],
    ['nam:x', /not an option/, 'name'],
    ['AD Accounts name:"AD Groups"', /Give the collector's name once/, undefined],
    ['name:a name:b', /name is given twice/, undefined],
    ['force:maybe', /force can be true or false/, undefined],
    ['application:', /application has no value/, undefined],
    ['name:"AD', /never closed/, undefined],
    [`"${'x'.repeat(300)}"`, /longer than 256/, undefined],
    ['x'.repeat(4001), /^That is 4,001 characters, and a slash command holds at most 4,000\.$/, undefined],
    [`${'n'.repeat(3000)}:x`, /not an option/, undefined],
    ['AD\u202eAccounts', /The name contains a bidirectional formatting character \(U\+202E\)/, undefined],
    ['application:"Active\u0085Directory"', /The application contains a control character \(U\+0085\)/, undefined],
  ];
  for (const [text, problem, suggestion] of wrong) {
    it(`refuses “${text.slice(0, 30)}”`, () => {
      const r = parseCollectCommand(text);
      expect(r.kind).toBe('invalid');
      if (r.kind !== 'invalid') return;
      expect(r.problem).toMatch(problem);
      expect(r.example).toMatch(/^\/collect /);
      expect(r.suggestion).toBe(suggestion);
    });
  }
});

describe('collectCommandText', () => {
  it('writes a query as it would be typed, in a form that reads back the same', () => {
    expect(collectCommandText({ name: 'AD Accounts', force: true })).toBe('/collect AD Accounts force');
    expect(collectCommandText({ name: 'AD Accounts', application: 'Active Directory', force: true })).toBe(
      '/collect AD Accounts application:"Active Directory" force',
    );
    expect(collectCommandText({ application: 'AWS' })).toBe('/collect application:"AWS"');
    // Names a bare form would misread are given as name:"…".
    expect(collectCommandText({ name: 'History Sync', force: true })).toBe('/collect name:"History Sync" force');
    expect(collectCommandText({ name: 'force' })).toBe('/collect name:"force"');
    expect(collectCommandText({ name: 'app:x' })).toBe('/collect name:"app:x"');
    // No form reads back a name holding a quote: no suggestion rather than a wrong one.
    expect(collectCommandText({ name: 'The "Main" Directory' })).toBeUndefined();
  });
});

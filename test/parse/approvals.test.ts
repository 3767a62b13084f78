import { describe, expect, it } from 'vitest';
import {
  APPROVAL_KEYS,
  parseApprovalsCommand,
  readApprovalsCommand,
  resolveApprovalsCommand,
  revalidateApprovalQuery,
} from '../../src/parse/approvals.js';
import { APPROVAL_PARAMETERS } from '../../src/service/query.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const parse = (text: string) => parseApprovalsCommand(text, TODAY);
const query = (text: string) => {
  const r = parse(text);
  if (r.kind !== 'query') throw new Error(`${text}: ${JSON.stringify(r)}`);
  return r.query;
};

describe('/approvals', () => {
  it('asks for the first page of pending approvals by default, 10 to a page', () => {
    expect(query('')).toEqual({ 'page-size': 10 });
  });

  it('takes a state word, in any case and anywhere', () => {
    expect(query('completed')).toEqual({ state: 'completed', 'page-size': 10 });
    expect(query('sort:desc ALL')).toEqual({ sort: 'desc', state: 'all', 'page-size': 10 });
    expect(query('pending state:pending')).toMatchObject({ state: 'pending' });
  });

  it('reads a decision typed as a command as wanting to decide: the word and the id, when it is one', () => {
    expect(parse('approve 10114:WPDS:2')).toEqual({ kind: 'decide', verb: 'approve', approvalId: '10114:WPDS:2' });
    expect(parse('Rejected approval-id:10114:WPDS:2 not needed')).toEqual({ kind: 'decide', verb: 'rejected', approvalId: '10114:WPDS:2' });
    expect(parse('decide `10114:WPDS:2`')).toEqual({ kind: 'decide', verb: 'decide', approvalId: '10114:WPDS:2' });
    expect(parse('deny')).toEqual({ kind: 'decide', verb: 'deny', approvalId: undefined });
    expect(parse('accept entitlement-name:VPN')).toEqual({ kind: 'decide', verb: 'accept', approvalId: undefined });
    // A quoted word is a value, not a command; a decision word after filters is still a stray word.
    expect(parse('"approve"').kind).toBe('invalid');
    expect(parse('completed').kind).toBe('query');
  });

  it('knows help, login and logout', () => {
    expect(parse('help')).toEqual({ kind: 'help' });
    expect(parse(' HELP me')).toEqual({ kind: 'help' });
    expect(parse('login')).toEqual({ kind: 'login' });
    expect(parse('logout')).toEqual({ kind: 'logout' });
    expect(parse('WhoAmI')).toEqual({ kind: 'whoami' });
  });

  it('shows the right form of a command given words it does not take', () => {
    expect(parse('whoami extra')).toMatchObject({ example: '/approvals whoami' });
    expect(parse('due-before:7d show 10198:WPDS:1')).toMatchObject({ example: '/approvals show 10198:WPDS:1' });
    expect(parse('pending remind 9am')).toMatchObject({ example: '/approvals remind weekdays 09:00' });
    // Quoted, it is a value, not a command.
    expect(parse('entitlement-name:"show"')).toMatchObject({ kind: 'query' });
  });

  it('accepts every parameter of the spec', () => {
    expect(Object.keys(APPROVAL_KEYS).sort()).toEqual([...APPROVAL_PARAMETERS].sort());
    const q = query(
      [
        'approval-id:20512:WPDS:1',
        'business-source:"Active Directory"',
        'completed-after:-30d',
        'completed-before:today',
        'due-after=2026-01-31',
        'due-before:31-DEC-2026',
        'entitlement-name:“Domain Admins”',
        'entitlement-type:group',
        'page-size:25',
        'requested-after:yesterday',
        'requested-before:tomorrow',
        'sort:DESC',
        'start-page:3',
        'state:All',
        'user-first-name:Jane',
        'user-id:jdoe',
        "user-last-name:O'Brien",
      ].join(' '),
    );
    expect(q).toEqual({
      'approval-id': '20512:WPDS:1',
      'business-source': 'Active Directory',
      // The last 30 days, today included.
      'completed-after': '24-oct-2026',
      'completed-before': '22-nov-2026',
      'due-after': '31-jan-2026',
      'due-before': '31-dec-2026',
      'entitlement-name': 'Domain Admins',
      'entitlement-type': 'group',
      'page-size': 25,
      'requested-after': '21-nov-2026',
      'requested-before': '23-nov-2026',
      sort: 'desc',
      'start-page': 3,
      state: 'all',
      'user-first-name': 'Jane',
      'user-id': 'jdoe',
      'user-last-name': "O'Brien",
    });
  });

  it('reads a number of days as that many days, today included, at either end of a range', () => {
    expect(query('due-before:7d')).toMatchObject({ 'due-before': '28-nov-2026' });
    expect(query('due-after:7d')).toMatchObject({ 'due-after': '29-nov-2026' });
    expect(query('completed-after:-7d')).toMatchObject({ 'completed-after': '16-nov-2026' });
    expect(query('requested-before:-7d')).toMatchObject({ 'requested-before': '15-nov-2026' });
    expect(query('due-after:today due-before:1d')).toMatchObject({ 'due-after': '22-nov-2026', 'due-before': '22-nov-2026' });
  });

  it('sends the user’s days as the service’s nearest days when both zones are known', () => {
    const inZones = (text: string, user: string, service: string) => {
      const r = parseApprovalsCommand(text, TODAY, { user, service });
      if (r.kind !== 'query') throw new Error(`${text}: ${JSON.stringify(r)}`);
      return r.query;
    };
    // Berlin and New York are 6 hours apart: the same days.
    expect(inZones('due-after:today due-before:7d', 'Europe/Berlin', 'America/New_York')).toMatchObject({
      'due-after': '22-nov-2026',
      'due-before': '28-nov-2026',
    });
    // Tokyo's 22nd is mostly New York's 21st.
    expect(inZones('due-after:today due-before:2026-11-30', 'Asia/Tokyo', 'America/New_York')).toMatchObject({
      'due-after': '21-nov-2026',
      'due-before': '29-nov-2026',
    });
  });

  it('keeps a value that looks like another parameter as one value', () => {
    expect(query('entitlement-name:"x&force=true"')).toMatchObject({ 'entitlement-name': 'x&force=true' });
  });

  const wrong: Array<[string, RegExp, string | undefined]> = [
    ['entitlment-name:VPN', /^“entitlment-name” is not a filter I know\.$/, 'entitlement-name'],
    ['duebefore:7d', /not a filter I know/, 'due-before'],
    ['page:2', /not a filter I know/, 'page-size'],
    ['pendng', /I don't understand “pendng”/, 'pending'],
    ['Domain Admins', /I don't understand “Domain”/, undefined],
    ['pending completed', /Choose one state: pending or completed/, undefined],
    ['sort:up', /sort can be asc, desc, not “up”/, undefined],
    ['state:done', /state can be pending, completed, all/, undefined],
    ['page-size:0', /page-size:0 is not a whole number from 1 to 100/, undefined],
    ['page-size:101', /from 1 to 100/, undefined],
    ['page-size:ten', /not a whole number/, undefined],
    ['start-page:-1', /start-page:-1 is not a whole number/, undefined],
    ['due-before:next-week', /due-before: next-week is not a date\. Dates can be 2026-01-31, 31-jan-2026, today/, undefined],
    ['due-after:2026-02-30', /not a day of the calendar/, undefined],
    [
      'due-after:7d due-before:today',
      /^due-after:7d \(Sun 29 Nov 2026\) is later than due-before:today \(Sun 22 Nov 2026\), so nothing could match\.$/,
      undefined,
    ],
    ['sort:asc sort:desc', /sort is given twice/, undefined],
    ['user-id:', /user-id has no value/, undefined],
    ['entitlement-name:"Domain Admins', /never closed/, undefined],
    [`user-id:${'x'.repeat(300)}`, /longer than 256 characters/, undefined],
    // Slack sends at most 4,000 characters: more is refused before any word is looked at.
    ['x'.repeat(200_000), /^That is 200,000 characters, and a slash command holds at most 4,000\.$/, undefined],
    // No suggestion is sought for a word of thousands of letters (this one used to match entitlement-name).
    [`entitlement${'-'.repeat(3000)}name:x`, /is not a filter I know/, undefined],
    ['x'.repeat(3999), /I don't understand/, undefined],
    // Characters that would disguise a value where it is shown again.
    ['entitlement-name:"Domain\u202eAdmins"', /entitlement-name contains a bidirectional formatting character \(U\+202E\)/, undefined],
    ['user-id:jdoe\u0085', /user-id contains a control character \(U\+0085\)/, undefined],
    ['business-source:a\u009b2J', /business-source contains a control character \(U\+009B\)/, undefined],
    ['user-last-name:\u2066x\u2069', /bidirectional formatting character \(U\+2066\)/, undefined],
    ['user-first-name:a\u200fb', /U\+200F/, undefined],
    ['entitlement-type:\u061cgroup', /U\+061C/, undefined],
    // Words after a command that takes none; a command after filters (never "Did you mean whoami?" for whoami).
    ['whoami extra', /^whoami takes nothing after it; “extra” is one word too many\.$/, undefined],
    ['login now', /^login takes nothing after it; “now” is one word too many\.$/, undefined],
    ['LOGOUT please', /^logout takes nothing after it; “please” is one word too many\.$/, undefined],
    ['due-before:7d show 10198:WPDS:1', /^“show” is a command of its own: it comes first, without filters\.$/, undefined],
    ['pending whoami', /^“whoami” is a command of its own/, undefined],
  ];
  for (const [text, problem, suggestion] of wrong) {
    it(`refuses “${text.slice(0, 40)}”, naming the problem and showing the right form`, () => {
      const r = parse(text);
      expect(r.kind).toBe('invalid');
      if (r.kind !== 'invalid') return;
      expect(r.problem).toMatch(problem);
      expect(r.example).toMatch(/^\/approvals /);
      expect(r.suggestion).toBe(suggestion);
    });
  }
});

describe('revalidateApprovalQuery', () => {
  it('accepts what the parser produces and refuses anything else', () => {
    expect(revalidateApprovalQuery(query('completed sort:desc start-page:2'))).toEqual({
      state: 'completed',
      sort: 'desc',
      'start-page': 2,
      'page-size': 10,
    });
    expect(revalidateApprovalQuery({ 'page-size': 5000 })).toBeUndefined();
    expect(revalidateApprovalQuery({ 'auth-user-id': 'someone-else' })).toBeUndefined();
    expect(revalidateApprovalQuery({ 'due-after': '2026-01-01' })).toBeUndefined();
    expect(revalidateApprovalQuery('state=all')).toBeUndefined();
  });
});

describe('a value with a space, not quoted', () => {
  it('says to quote it, and shows the whole value quoted', () => {
    const r = parseApprovalsCommand('entitlement-name=VPN Users', TODAY);
    expect(r).toEqual({
      kind: 'invalid',
      problem: "“Users” looks like the rest of entitlement-name's value. A value with spaces goes in quotes.",
      example: '/approvals entitlement-name:"VPN Users"',
    });
    const three = parseApprovalsCommand('user-last-name:van der Berg state:all', TODAY);
    expect(three).toMatchObject({ kind: 'invalid', example: '/approvals user-last-name:"van der Berg"' });
  });

  it('still treats a stray word after a date or a number as a stray word', () => {
    expect(parseApprovalsCommand('due-before:7d soon', TODAY)).toMatchObject({
      kind: 'invalid',
      problem: expect.stringContaining('I don'),
    });
  });
});

describe('/approvals read once, its dates counted later', () => {
  it('knows what a command is, and says what is wrong with it, without anyone’s today', () => {
    expect(readApprovalsCommand('show 10198:WPDS:1')).toEqual({ kind: 'show', approvalId: '10198:WPDS:1' });
    expect(readApprovalsCommand('due-before:7d')).toMatchObject({ kind: 'query' });
    expect(readApprovalsCommand('due-before:someday')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringMatching(/^due-before: someday is not a date/),
    });
    expect(readApprovalsCommand('page-size:0 due-before:7d')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringMatching(/^page-size:0/),
    });
  });

  it('counts the same form from each day it is resolved on, as parsing the text on that day would', () => {
    const form = readApprovalsCommand('completed due-after:-1d due-before:tomorrow');
    for (const today of [TODAY, { year: 2027, month: 1, day: 1 }]) {
      expect(resolveApprovalsCommand(form, today)).toEqual(parseApprovalsCommand('completed due-after:-1d due-before:tomorrow', today));
    }
    expect(resolveApprovalsCommand(form, { year: 2027, month: 1, day: 1 })).toMatchObject({
      query: { state: 'completed', 'due-after': '01-jan-2027', 'due-before': '02-jan-2027' },
    });
  });

  it('says a range turned round once the days are counted, on the day it is', () => {
    const form = readApprovalsCommand('due-after:2026-11-25 due-before:today');
    expect(resolveApprovalsCommand(form, TODAY)).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('is later than') });
    expect(resolveApprovalsCommand(form, { year: 2026, month: 11, day: 30 })).toMatchObject({ kind: 'query' });
  });
});

import { describe, expect, it } from 'vitest';
import { approvalPages } from '../../src/config.js';
import { decodePageState } from '../../src/parse/buttons.js';
import { encodePageState, OPEN_ACTION, PAGE_ACTIONS, renderApprovalsPage } from '../../src/render/approvals.js';
import { escapeMrkdwn, inert, LIMITS, truncate } from '../../src/render/blocks.js';
import { renderCollectConfirmation, renderCollectStatus, renderHistory, renderNoCollectorMatched } from '../../src/render/collect.js';
import { renderInvalid, translateFailure } from '../../src/render/errors.js';
import { renderApprovalsHelp, renderCollectHelp } from '../../src/render/help.js';
import { oneLine } from '../../src/render/rich.js';
import { messageProblems } from '../../src/render/validate.js';
import {
  type Approval,
  ConflictError,
  InvalidTokenError,
  MissingParameterError,
  NoEligibleCollectorsError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { timeFrame } from '../../src/time/frame.js';
import { attemptOf } from '../helpers/attempts.js';
import { mrkdwnTexts, shownExactly, visible } from '../helpers/visible.js';

/** Noon UTC on Sunday 22 November 2026, read in UTC; the service's zone not given, so its times are shown as written. */
const FRAME = timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined);
const approval = (i: number, over: Partial<Approval> = {}): Approval => ({
  workItemId: `${1000 + i}:WPDS:1`,
  workItemName: 'Manager Approval',
  requestName: `Add Access for Turing, Alan #${i}`,
  dueDate: '2026-11-24 10:00:00.0',
  completedDate: '',
  fields: { RequestedByName: 'Turing, Alan' },
  ...over,
});
const json = (v: unknown) => JSON.stringify(v);

describe('blocks', () => {
  it('escapes the three characters Slack parses, and truncates by character', () => {
    expect(escapeMrkdwn('<!channel> & <@U1> <https://x|y>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt; &lt;https://x|y&gt;');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcd', 4)).toBe('abcd');
  });

  it('puts text on one line, reading no further into a huge one than a few times its limit', () => {
    expect(oneLine('a\r\nb\tc', 10)).toBe('a b c');
    expect(oneLine('abcdefghij', 10)).toBe('abcdefghij');
    // What was not read is still said to be there.
    expect(oneLine(`${'\n'.repeat(1_000_000)}abc`, 10)).toBe(' …');
    expect(oneLine(`${'x'.repeat(100)}${'😀'.repeat(1_000_000)}`, 120)).toBe(`${'x'.repeat(100)}${'😀'.repeat(9)}…`);
    expect(inert(`<!here>${'y'.repeat(1_000_000)}`, 12)).toBe(`&lt;!here&gt;${'y'.repeat(4)}…`);
  });

  it('truncates to Slack’s count (UTF-16 units, as its limits and our validator count), never inside a character', () => {
    // An emoji outside the Basic Multilingual Plane is two units: 🙂🙂 and the ellipsis are five.
    expect(truncate('🙂🙂🙂', 5)).toBe('🙂🙂…');
    expect(truncate('🙂🙂🙂', 4)).toBe('🙂…');
    expect(truncate('🙂🙂🙂', 2)).toBe('…');
    // Nor inside what draws as one: a family joined by zero-width joiners, a flag, a skin tone, an accent.
    const family = '👩‍👩‍👧';
    expect(truncate(`ab${family}${family}`, 2 + family.length + 3)).toBe(`ab${family}…`);
    expect(truncate(`ab${family}`, 2 + family.length - 1)).toBe('ab…');
    expect(truncate('🇫🇷🇩🇪', 6)).toBe('🇫🇷…');
    expect(truncate('x👍🏽y', 4)).toBe('x…');
    expect(truncate('cafe\u0301s', 5)).toBe('caf…');
    // However long the text before the cut, it is cut where the whole text's graphemes end.
    const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const expected = (text: string, max: number) => {
      if (text.length <= max) return text;
      let kept = '';
      for (const { segment } of segmenter.segment(text)) {
        if (kept.length + segment.length > max - 1) break;
        kept += segment;
      }
      return `${kept}…`;
    };
    for (const lead of ['', 'x', '🇫', 'é'])
      for (const body of ['🇫🇷'.repeat(400), family.repeat(200), '😀👍🏽'.repeat(200), '中文'.repeat(500)])
        for (const max of [601, 602, 603, 1201, 1203]) expect(truncate(`${lead}${body}`, max)).toBe(expected(`${lead}${body}`, max));
    for (const text of ['📦'.repeat(200), `a${'😀'.repeat(100)}`, family.repeat(40)])
      for (const max of [1, 2, 3, 50, 149, 150]) {
        const cut = truncate(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }
  });
});

describe('renderApprovalsPage', () => {
  it('shows each approval with its request, step, requester, readable due date and standing, and id', () => {
    const m = renderApprovalsPage({
      query: { 'page-size': 10 },
      approvals: [approval(1), approval(2, { dueDate: '2026-11-20 09:00:00.0' })],
      userId: 'U1',
      frame: FRAME,
    });
    const text = visible(m.blocks);
    expect(text).toContain('*Add Access for Turing, Alan #1*\nManager Approval · requested by Turing, Alan');
    expect(text).toContain(':large_blue_circle: Due Tue 24 Nov 2026, 10:00 service time (due in 2 days)\n`1001:WPDS:1`');
    expect(text).toContain(':red_circle: Due Fri 20 Nov 2026, 09:00 service time (*overdue by 2 days*)');
    // The notification says what the page shows: how many, and that the page is all there is.
    expect(m.text).toBe('Pending approvals: 2 shown. Add Access for Turing, Alan #1; Add Access for Turing, Alan #2');
  });

  it('shows the completed date for completed approvals', () => {
    const m = renderApprovalsPage({
      query: { state: 'completed' },
      approvals: [approval(1, { completedDate: '2026-11-21 08:30:00.0' })],
      userId: 'U1',
      frame: FRAME,
    });
    expect(visible(m.blocks)).toContain(
      ':checkered_flag: Completed Sat 21 Nov 2026, 08:30 service time · was due Tue 24 Nov 2026, 10:00 service time',
    );
    expect(visible(m.blocks)).toContain('Completed approvals');
  });

  it('shows the service’s times in the reader’s zone, named, when the service’s zone is known', () => {
    // 09:00 in Berlin on Sunday 22 November; the service in New York.
    const berlin = timeFrame(new Date('2026-11-22T08:00:00Z'), 'Europe/Berlin', 'America/New_York');
    const m = renderApprovalsPage({
      query: { state: 'all' },
      approvals: [
        approval(1, { dueDate: '2026-11-24 17:00:00.0' }),
        approval(2, { dueDate: '2026-11-21 20:00:00.0', completedDate: '2026-11-21 19:30:00.0' }),
      ],
      userId: 'U1',
      frame: berlin,
    });
    const text = visible(m.blocks);
    expect(text).toContain(':large_blue_circle: Due Tue 24 Nov 2026, 23:00 Berlin time (due in 2 days)');
    expect(text).toContain(':checkered_flag: Completed Sun 22 Nov 2026, 01:30 Berlin time · was due Sun 22 Nov 2026, 02:00 Berlin time');
    expect(text).not.toContain('service time');
  });

  it('never calls a time that has passed “due today”: it is overdue, by the hours it is', () => {
    // 14:00 in Berlin; one due at 09:00 Berlin time (03:00 in New York), one at 20:00.
    const berlin = timeFrame(new Date('2026-11-22T13:00:00Z'), 'Europe/Berlin', 'America/New_York');
    const m = renderApprovalsPage({
      query: {},
      approvals: [
        approval(1, { dueDate: '2026-11-22 03:00:00.0' }),
        approval(2, { dueDate: '2026-11-22 14:00:00.0' }),
        approval(3, { dueDate: '2026-11-22 07:59:30.0' }),
        approval(4, { dueDate: '2026-11-19 07:00:00.0' }),
      ],
      userId: 'U1',
      frame: berlin,
    });
    const text = visible(m.blocks);
    expect(text).toContain(':red_circle: Due Sun 22 Nov 2026, 09:00 Berlin time (*overdue by 5 hours*)');
    expect(text).toContain(':large_orange_circle: Due Sun 22 Nov 2026, 20:00 Berlin time (due today)');
    expect(text).toContain(':red_circle: Due Sun 22 Nov 2026, 13:59 Berlin time (*overdue by 1 minute*)');
    expect(text).toContain(':red_circle: Due Thu 19 Nov 2026, 13:00 Berlin time (*overdue by 3 days*)');
  });

  it('says what a date filter did in the reader’s words, on their clock where the service’s days begin at another hour', () => {
    const describe = (query: Record<string, string>, frame: ReturnType<typeof timeFrame>) =>
      visible(renderApprovalsPage({ query, approvals: [], userId: 'U1', frame }).blocks.slice(0, 2));
    // The same days in Berlin and New York up to 06:00: the days are said, and where they start and end.
    const berlin = timeFrame(new Date('2026-11-22T08:00:00Z'), 'Europe/Berlin', 'America/New_York');
    expect(describe({ 'due-after': '22-nov-2026', 'due-before': '28-nov-2026' }, berlin)).toContain(
      'due from Sun 22 Nov 2026, 06:00 Berlin time · due before Sun 29 Nov 2026, 06:00 Berlin time',
    );
    // Where the zones agree, whole days.
    const utc = timeFrame(new Date('2026-11-22T08:00:00Z'), 'Etc/UTC', 'UTC');
    expect(describe({ 'completed-after': '16-nov-2026', 'completed-before': '22-nov-2026' }, utc)).toContain(
      'completed on or after Mon 16 Nov 2026 · completed on or before Sun 22 Nov 2026',
    );
    // The service's zone unknown: its calendar, said to be.
    expect(describe({ 'requested-before': '28-nov-2026' }, FRAME)).toContain(
      'requested on or before Sat 28 Nov 2026 by the service’s calendar',
    );
    expect(describe({ 'due-before': '28-nov-2026' }, FRAME)).not.toContain('28-nov-2026');
  });

  it('offers Next on a full page and Previous after page 1, carrying the asker and the query', () => {
    const m = renderApprovalsPage({
      query: { 'page-size': 2, 'start-page': 2, sort: 'desc' },
      approvals: [approval(1), approval(2)],
      userId: 'U012ABCDEF',
      frame: FRAME,
    });
    const actions = m.blocks.find((b) => b.type === 'actions') as { elements: Array<{ action_id: string; value: string }> };
    expect(actions.elements.map((e) => e.action_id)).toEqual([PAGE_ACTIONS.previous, PAGE_ACTIONS.next]);
    expect(decodePageState(actions.elements[1]?.value)).toEqual({
      user: 'U012ABCDEF',
      query: { 'page-size': 2, 'start-page': 3, sort: 'desc' },
    });
    expect(decodePageState(actions.elements[0]?.value)?.query).toMatchObject({ 'start-page': 1 });
    // The service gives no total: which of the list this is, and that more may follow, never a count it does not have.
    expect(visible(m.blocks)).toContain('no filters · by due date, latest first · 3–4, 2 per page, more may follow');
    expect(m.text).toContain('2 shown, more may follow.');
  });

  it('says how many in all where a short page ends the list, and what the order is by for completed approvals', () => {
    const short = (state: 'pending' | 'completed', page: number, n: number) =>
      visible(
        renderApprovalsPage({
          query: { state, 'page-size': 10, 'start-page': page, sort: 'desc' },
          approvals: Array.from({ length: n }, (_, i) => approval(i)),
          userId: 'U1',
          frame: FRAME,
        }).blocks,
      ).split('\n')[1];
    expect(short('pending', 1, 7)).toBe('no filters · by due date, latest first · 7 in all');
    expect(short('pending', 3, 4)).toBe('no filters · by due date, latest first · 21–24 of 24');
    // Completed approvals come by due date too, not by when they were completed: said so.
    expect(short('completed', 1, 10)).toBe(
      'no filters · by due date, latest first (the service sorts by nothing else) · 1–10, 10 per page, more may follow',
    );
  });

  it('has no Next on a short page, and says plainly when there is nothing', () => {
    const short = renderApprovalsPage({ query: { 'page-size': 10 }, approvals: [approval(1)], userId: 'U1', frame: FRAME });
    expect(short.blocks.some((b) => b.type === 'actions')).toBe(false);
    const none = renderApprovalsPage({ query: {}, approvals: [], userId: 'U1', frame: FRAME });
    expect(visible(none.blocks)).toContain('No pending approvals. :tada:');
    expect(none.text).toBe('Pending approvals: No pending approvals.');
    const filtered = renderApprovalsPage({ query: { 'user-id': 'x' }, approvals: [], userId: 'U1', frame: FRAME });
    expect(visible(filtered.blocks)).toContain('No approvals match these filters.');
    expect(filtered.text).toBe('Pending approvals, requester “x”: No approvals match these filters.');
    // Past the end (Next from a last page that was full): the page before, and the first where that may be past the end too.
    const past = renderApprovalsPage({ query: { state: 'all', 'start-page': 4 }, approvals: [], userId: 'U1ABC', frame: FRAME });
    expect(visible(past.blocks)).toContain('Nothing on page 4: the list ends before it.\n[First page] [Previous page]');
    const pages = (m: typeof past) =>
      (m.blocks.at(-1) as { elements: Array<{ value: string }> }).elements.map((e) => decodePageState(e.value)?.query['start-page']);
    expect(pages(past)).toEqual([1, 3]);
    expect(past.text).toBe('All approvals · page 4: Nothing on page 4: the list ends before it.');
    const second = renderApprovalsPage({ query: { 'start-page': 2 }, approvals: [], userId: 'U1ABC', frame: FRAME });
    expect(visible(second.blocks)).toContain('Nothing on page 2: the list ends before it.\n[Previous page]');
    expect(pages(second)).toEqual([1]);
  });

  it('stays within Slack’s limits for any page size and any length of names', () => {
    const long = 'x'.repeat(5000);
    for (const size of [1, 10, 46, 47, 100]) {
      const approvals = Array.from({ length: size }, (_, i) =>
        approval(i, { requestName: `${long}<!channel>`, workItemName: long, workItemId: `${i}:${'Y'.repeat(300)}:1` }),
      );
      const m = renderApprovalsPage({
        query: { 'page-size': size, 'entitlement-name': 'n'.repeat(256) },
        approvals,
        userId: 'U1',
        frame: FRAME,
      });
      expect(messageProblems(m)).toEqual([]);
      expect(mrkdwnTexts(m.blocks).join('\n')).not.toContain('<!channel>');
      expect(m.text).not.toContain('<!channel>');
      expect(m.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
    }
  });

  it('packs a large page into fewer blocks, and shows every entry even when each is as long as it can be', () => {
    const approvals = Array.from({ length: 100 }, (_, i) => approval(i));
    const packed = renderApprovalsPage({ query: { 'page-size': 100 }, approvals, userId: 'U1', frame: FRAME });
    expect(packed.blocks.length).toBeLessThanOrEqual(50);
    expect(visible(packed.blocks)).toContain('`1099:WPDS:1`');
    const huge = Array.from({ length: 100 }, (_, i) =>
      approval(i, {
        requestName: '&'.repeat(500),
        workItemName: '<'.repeat(500),
        workItemId: `${i}:${'I'.repeat(500)}:1`,
        fields: { RequestedByName: 'r'.repeat(500) },
      }),
    );
    const capped = renderApprovalsPage({ query: { 'page-size': 100 }, approvals: huge, userId: 'U1', frame: FRAME });
    expect(messageProblems(capped)).toEqual([]);
    expect(visible(capped.blocks).match(/`\d+:I+…`/g)).toHaveLength(100);
  });

  it('drops the paging buttons, with a note, when the query is too long for a button', () => {
    const query = Object.fromEntries(
      [
        'approval-id',
        'business-source',
        'entitlement-name',
        'entitlement-type',
        'user-first-name',
        'user-id',
        'user-last-name',
        'user-id',
      ].map((k) => [k, '"'.repeat(256)]),
    );
    const m = renderApprovalsPage({ query: { ...query, 'page-size': 1 }, approvals: [approval(1)], userId: 'U1', frame: FRAME });
    expect(m.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(visible(m.blocks)).toContain('too long to carry in a button');
  });
});

describe('Open buttons', () => {
  const template = 'https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}';
  it('URL-encodes the id into every placeholder, and gives up on a URL too long for a button', () => {
    const pages = approvalPages(template);
    expect(pages?.('20512:WPDS:1')).toBe('https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId=20512%3AWPDS%3A1');
    expect(approvalPages('https://x.example/{WorkItemId}/{WorkItemId}')?.('a b&c')).toBe('https://x.example/a%20b%26c/a%20b%26c');
    expect(approvalPages(undefined)).toBeUndefined();
    const page = (workItemId: string) =>
      json(
        renderApprovalsPage({ query: {}, approvals: [{ ...approval(1), workItemId }], userId: 'U1', frame: FRAME, approvalLinks: pages }),
      );
    expect(page('20512:WPDS:1')).toContain(OPEN_ACTION);
    expect(page('')).not.toContain(OPEN_ACTION);
    expect(page('x'.repeat(LIMITS.buttonUrl))).not.toContain(OPEN_ACTION);
  });

  it('offers no Open for an id that cannot be put in a URL (half a surrogate pair), and still shows the page', () => {
    const pages = approvalPages(template);
    expect(pages?.('10\ud800:WPDS:1')).toBeUndefined();
    const shown = renderApprovalsPage({
      query: {},
      approvals: [{ ...approval(1), workItemId: '10\ud800:WPDS:1' }, approval(2)],
      userId: 'U1',
      frame: FRAME,
      approvalLinks: pages,
    });
    expect(messageProblems(shown)).toEqual([]);
    const opens = shown.blocks.flatMap((b) =>
      b.type === 'actions' ? (b.elements as Array<{ action_id: string }>).filter((e) => e.action_id === OPEN_ACTION) : [],
    );
    expect(opens).toHaveLength(1);
  });

  it('puts one on each approval of a page, or links inline when entries are packed', () => {
    const query = { state: 'pending' as const, 'page-size': 10 };
    const page = renderApprovalsPage({
      query,
      approvals: [approval(1), approval(2)],
      userId: 'U1',
      frame: FRAME,
      approvalLinks: approvalPages(template),
    });
    const opens = page.blocks.flatMap((b) =>
      b.type === 'actions' ? (b.elements as Array<{ action_id: string; url?: string }>).filter((e) => e.action_id === OPEN_ACTION) : [],
    );
    expect(opens).toHaveLength(2);
    expect(opens.every((a) => a.url?.startsWith('https://igl.example.com/'))).toBe(true);
    const packed = renderApprovalsPage({
      query: { ...query, 'page-size': 100 },
      approvals: Array.from({ length: 100 }, (_, i) => approval(i)),
      userId: 'U1',
      frame: FRAME,
      approvalLinks: approvalPages(template),
    });
    expect(packed.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(visible(packed.blocks)).toContain(
      '`1042:WPDS:1` · <https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId=1042%3AWPDS%3A1|Open>',
    );
    expect(visible(renderApprovalsPage({ query, approvals: [approval(1)], userId: 'U1', frame: FRAME }).blocks)).not.toContain('[Open]');
  });
});

describe('page state', () => {
  it('round-trips, and refuses anything malformed', () => {
    expect(decodePageState(encodePageState({ user: 'U1ABC', query: { state: 'all' } }))).toEqual({
      user: 'U1ABC',
      query: { state: 'all' },
    });
    const bad = [
      undefined,
      '',
      'x',
      '[]',
      'null',
      '{"u":1}',
      '{"u":"alice","q":{}}',
      '{"u":"U1ABC","q":{"page-size":1000}}',
      'x'.repeat(3000),
    ];
    for (const value of bad) expect(decodePageState(value)).toBeUndefined();
  });
});

describe('collect messages', () => {
  it('lists each run with its collector, escaping names, and who started it', () => {
    const m = renderCollectStatus({
      userId: 'U1',
      query: { application: 'AD' },
      runs: [
        { runId: '7', collector: '<!here> AD', state: undefined },
        { runId: '8', collector: undefined, state: undefined },
      ],
      startedAt: new Date('2026-11-22T10:00:00Z'),
      now: new Date('2026-11-22T10:00:00Z'),
      live: undefined,
    });
    expect(visible(m.blocks)).toContain(
      '<@U1> started 2 collections at 2026-11-22 10:00 UTC:\n• *<!here> AD*: run `7`\n• _unnamed collector_: run `8`',
    );
    // The collector's name is shown exactly, never as a ping; the notification escapes it.
    expect(shownExactly(m.blocks, '<!here> AD')).toBe(true);
    expect(mrkdwnTexts(m.blocks).join('')).not.toContain('<!here>');
    expect(m.text).toBe(
      '<@U1> started 2 collections at <!date^1795341600^{time}|2026-11-22 10:00 UTC>: &lt;!here&gt; AD (run 7), unnamed collector (run 8).',
    );
  });
  it('words a run’s state in the notification as the message does: the service’s New is queued', () => {
    const at = new Date('2026-11-22T10:00:00Z');
    const m = renderCollectStatus({
      userId: 'U1',
      query: {},
      runs: [
        { runId: '7', collector: 'AD Accounts', state: 'New' },
        { runId: '8', collector: 'AD Groups', state: 'Running' },
      ],
      startedAt: at,
      now: at,
      live: undefined,
    });
    expect(visible(m.blocks)).toContain('run `7` · queued');
    expect(m.text).toContain('AD Accounts (run 7, queued), AD Groups (run 8, running).');
    expect(m.text).not.toContain(', new)');
  });
  it('summarises beyond 40 runs', () => {
    const runs = Array.from({ length: 300 }, (_, i) => ({ runId: String(i), collector: `Collector ${i}`, state: undefined }));
    const at = new Date('2026-11-22T10:00:00Z');
    const m = renderCollectStatus({ userId: 'U1', query: {}, runs, startedAt: at, now: at, live: undefined });
    expect(visible(m.blocks)).toContain('…and 260 more.');
    expect(messageProblems(m)).toEqual([]);
  });
  it('asks with Run and Cancel, danger when forced', () => {
    const m = renderCollectConfirmation({ force: true }, ['all-collectors', 'force'], 'abc123abc123');
    const actions = m.blocks.find((b) => b.type === 'actions') as {
      elements: Array<{ style?: string; value: string; text: { text: string } }>;
    };
    expect(actions.elements.map((e) => [e.text.text, e.style, e.value])).toEqual([
      ['Run, forced', 'danger', 'abc123abc123'],
      ['Cancel', undefined, 'abc123abc123'],
    ]);
    // The note names the button as it reads.
    expect(visible(m.blocks)).toContain('Nothing starts until you click *Run, forced*.');
    expect(visible(renderCollectConfirmation({}, ['all-collectors'], 'abc123abc123').blocks)).toContain(
      'Nothing starts until you click *Run*.',
    );
  });
});

describe('errors', () => {
  const ctx = { slash: '/approvals' as const, command: 'findApprovals' as const, userId: 'U1', reference: 'ref1' };
  it('renders invalid input with the problem, the suggestion and the right form, escaped', () => {
    const m = renderInvalid(
      { kind: 'invalid', problem: 'I don’t understand “<!channel>”.', example: '/approvals pending', suggestion: 'pending' },
      '/approvals',
    );
    expect(visible(m.blocks)).toContain(
      ':raised_hand: I don’t understand “<!channel>”.\nDid you mean `pending`?\nTry: `/approvals pending`',
    );
    expect(mrkdwnTexts(m.blocks).join('')).not.toContain('<!channel>');
    // No emoji code, markup or double escaping in the notification.
    expect(m.text).toBe('I don’t understand “&lt;!channel&gt;”. Did you mean pending? Try: /approvals pending');
  });
  const cases: Array<[unknown, RegExp, string]> = [
    [
      new InvalidTokenError({
        command: 'findApprovals',
        status: 401,
        serviceMessage: "The token is not valid for the command 'findApprovals'. Token is invalid or expired",
      }),
      /not valid or has expired/,
      'info',
    ],
    [
      new InvalidTokenError({
        command: 'findApprovals',
        status: 401,
        serviceMessage: "The token is not valid for the command 'findApprovals'. ",
      }),
      /does not let you list your approvals/,
      'info',
    ],
    [
      new MissingParameterError('auth-user-id', {
        command: 'findApprovals',
        status: 412,
        serviceMessage: 'The parameter auth-user-id is required.',
      }),
      /auth-user-id is required.*belongs to an application/s,
      'warn',
    ],
    [
      new NoEligibleCollectorsError('X', {
        command: 'collectEntitlements',
        status: 404,
        serviceMessage: 'No eligible collectors found for the application X',
      }),
      /No eligible collectors found for the application X/,
      'info',
    ],
    [
      new ConflictError({ command: 'collectEntitlements', status: 409, serviceMessage: 'already in the queue' }),
      /already in the queue/,
      'info',
    ],
    [new ServiceUnavailableError('timeout', 't', { command: 'findApprovals' }), /did not answer in time\. Nothing was changed/, 'warn'],
    [new ServiceUnavailableError('network', 'n', { command: 'findApprovals' }), /cannot be reached right now/, 'warn'],
    [new ServiceUnavailableError('server-error', 's', { command: 'findApprovals', status: 503 }), /status 503/, 'warn'],
    [new UnexpectedResponseError('body starts: {', { command: 'findApprovals', status: 200 }), /could not read/, 'error'],
    [
      new UnexpectedResponseError('body larger than 1048576 bytes', { command: 'getApprovalDetails', status: 200 }, 1024 * 1024),
      /answer was too large for countersign to read \(over 1 MiB\), so it cannot be shown here/,
      'error',
    ],
    [new Error('bug'), /Something went wrong inside countersign/, 'error'],
  ];
  for (const [error, message, level] of cases) {
    it(`translates ${(error as Error).name} (${(error as Error).message.slice(0, 30)})`, () => {
      const t = translateFailure(error, ctx);
      expect(visible(t.message.blocks)).toMatch(message);
      expect(t.message.text).toMatch(message);
      expect(t.message.text).not.toMatch(/:[a-z_]+:/);
      expect(t.log.level).toBe(level);
    });
  }
  it('escapes what the service says', () => {
    const t = translateFailure(
      new NoEligibleCollectorsError('<!channel>', {
        command: 'collectEntitlements',
        status: 404,
        serviceMessage: 'No eligible collectors found for the application <!channel>',
      }),
      ctx,
    );
    expect(shownExactly(t.message.blocks, 'No eligible collectors found for the application <!channel>')).toBe(true);
    expect(mrkdwnTexts(t.message.blocks).join('')).not.toContain('<!channel>');
    expect(t.message.text).not.toContain('<!channel>');
  });
});

describe('help', () => {
  it('lists every filter and the forms of each command', () => {
    expect(json(renderApprovalsHelp())).toContain('`user-last-name`');
    expect(json(renderCollectHelp())).toContain('application:\\"Active Directory\\"');
  });
});

describe('history', () => {
  it('says who, when and why as a person would: a mention, a time in the reader’s zone, the reason in words', () => {
    const base = { query: { name: 'AD Accounts' } };
    const m = renderHistory(
      [
        attemptOf({
          ...base,
          id: 'a1',
          at: new Date('2026-11-22T09:00:00Z'),
          outcome: 'refused',
          reason: { kind: 'cooldown', userId: 'U0OSCAR', at: new Date('2026-11-22T08:41:45.849Z'), offered: false },
        }),
        attemptOf({
          ...base,
          id: 'a2',
          at: new Date('2026-11-22T09:01:00Z'),
          outcome: 'failed',
          reason: { kind: 'service', error: 'conflict', message: 'Cannot schedule the collector AD Accounts' },
        }),
      ],
      10,
    );
    const text = visible(m.blocks);
    expect(text).toContain('<@U0ADA> asked for collector *AD Accounts* · *refused*: <@U0OSCAR> had started it 2026-11-22 08:41 UTC');
    expect(text).toContain('*failed*: already queued at the service');
    expect(text).not.toContain('2026-11-22T08:41:45.849Z');
    expect(JSON.stringify(m.blocks)).toContain(`"type":"date","timestamp":${Math.floor(Date.parse('2026-11-22T08:41:45.849Z') / 1000)}`);
  });
});

describe('history with long names', () => {
  it('never sends an empty section (a first entry longer than a section once left one behind)', () => {
    const attempt = attemptOf({
      id: 'a1',
      at: new Date('2026-11-22T10:00:00Z'),
      query: { name: '&'.repeat(256), application: '&'.repeat(256) },
      outcome: 'failed' as const,
      reason: { kind: 'other', text: '&'.repeat(500) },
    });
    const m = renderHistory([attempt, attempt, attempt], 10);
    expect(messageProblems(m)).toEqual([]);
    expect(visible(m.blocks).match(/\*failed\*/g)).toHaveLength(3);
  });
});

describe('a collector that matches nothing', () => {
  it('says so plainly (not "matched collector …"), and offers what ran here before', () => {
    const m = renderNoCollectorMatched({ query: { name: 'Nonexistent Collector' }, known: ['AD Accounts', 'AD Groups'], meant: undefined });
    expect(visible(m.blocks)).toBe(
      'No collector is called *Nonexistent Collector*, so nothing was started.\nCollectors started here before: `AD Accounts`, `AD Groups`.',
    );
    const typo = renderNoCollectorMatched({ query: { name: 'AD Acounts' }, known: ['AD Accounts'], meant: 'AD Accounts' });
    expect(visible(typo.blocks)).toContain('Did you mean *AD Accounts*?');
    expect(typo.text).toContain('Did you mean AD Accounts?');
  });
});

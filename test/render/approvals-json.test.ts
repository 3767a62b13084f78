/**
 * The /approvals page written straight as JSON (approvalsPageJson, what is posted) against the
 * page as Block Kit objects (renderApprovalsPage, the spec): the same JSON for any page (byte for
 * byte once read and written again: our own words' characters past U+00FF go as escapes, so that a
 * page of Latin-1 text is a one-byte string, cheaper to encode), hostile service text included (pings, markup, entities, bidirectional and control
 * characters, lone surrogates, emoji, text far past every limit, fields missing), so what Slack
 * shows, what the fallback says and the limits it keeps are the spec's.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { approvalPages } from '../../src/config.js';
import {
  type ApprovalsPageInput,
  approvalParagraphs,
  approvalsPageJson,
  renderApprovalsPage,
  writePlainEntry,
} from '../../src/render/approvals.js';
import type { Message } from '../../src/render/blocks.js';
import type { DecidedMark } from '../../src/render/decision.js';
import { richText, richTextJson } from '../../src/render/rich.js';
import { messageProblems } from '../../src/render/validate.js';
import type { Approval } from '../../src/service/schemas.js';
import { openingOf } from '../../src/slack/surfaces/messages.js';
import { ShownMemory } from '../../src/slack/surfaces/shown.js';
import { timeFrame } from '../../src/time/frame.js';
import { visible } from '../helpers/visible.js';

const NOW = new Date('2026-11-22T12:00:00Z');
const FRAMES = [
  timeFrame(NOW, 'UTC', undefined),
  timeFrame(NOW, 'Europe/Berlin', 'America/New_York'),
  timeFrame(NOW, 'America/St_Johns', 'Asia/Kolkata'),
];

const text = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '<!channel>',
      '<@U123>',
      '<#C0123|general>',
      '*bold* _italic_ ~strike~ `code`',
      '&amp; &lt; &gt; & < >',
      ':smile: :tada:',
      'line\nbreak\r\ttab',
      '\u0085\u009b\u202e\u2066 gpj.exe',
      '\u2028\u2029 separators',
      'lone \ud800 high, \udfff low',
      '\ud83d',
      '👍🏽 🇩🇪 👨‍👩‍👧',
      'zero\u200Bwidth \u2060 \u00AD \u3164 \uFEFF \uFE0F\uFE00 end\u200D',
      'tags \u{E0068}\u{E0069} and a flag \u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
      '"quoted" \\ back\\slash',
      'Add Access for O’Brien, Tim: SAP_FI_APPROVER',
    ),
    weight: 4,
  },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  // Past every cut: a name, a step and an id all of hidden characters pass the block's budget once revealed.
  { arbitrary: fc.string({ unit: fc.constantFrom('\u202e', '\u0001', 'x', '😀'), minLength: 100, maxLength: 700 }), weight: 1 },
  { arbitrary: fc.string({ minLength: 3000, maxLength: 5000 }), weight: 1 },
);

const timestamp = fc.oneof(
  fc.constantFrom(
    '2026-11-20 09:00:00.0',
    '2026-11-22 13:30:00.0',
    '2026-11-22 10:00:00.0',
    '2026-12-24 17:30:00.0',
    '2027-03-28 02:30:00.0',
    '',
  ),
  text,
);

const carriableId = fc
  .tuple(fc.nat({ max: 99999 }), fc.constantFrom('WPDS', 'WPDA', 'x y', 'é|"', 'back\\slash'), fc.nat({ max: 9 }))
  .map(([a, b, c]) => `${a}:${b}:${c}`);

const approval = fc.record<Approval>({
  // Any text, half a surrogate pair included: such an id goes without its Open button.
  workItemId: fc.oneof(carriableId, carriableId, text),
  workItemName: text,
  requestName: text,
  dueDate: timestamp,
  completedDate: fc.oneof(fc.constant(''), fc.constant(''), timestamp),
  // RequestedByName missing, empty, not a string, or hostile.
  fields: fc.oneof(fc.constant({}), fc.record({ RequestedByName: text }), fc.constant({ RequestedByName: 42 })),
});

const query = fc.record(
  {
    'page-size': fc.integer({ min: 1, max: 100 }),
    'start-page': fc.integer({ min: 1, max: 5 }),
    state: fc.constantFrom('pending' as const, 'completed' as const, 'all' as const),
    sort: fc.constantFrom('asc' as const, 'desc' as const),
    'entitlement-name': text.map((t) => t.slice(0, 256)),
    'due-before': fc.constantFrom('28-nov-2026', 'not a date'),
  },
  { requiredKeys: [] },
);

const links = approvalPages('https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}');

const input = fc
  .record({
    approvals: fc.oneof(fc.array(approval, { maxLength: 12 }), fc.array(approval, { maxLength: 40 })),
    query,
    frame: fc.constantFrom(...FRAMES),
    withLinks: fc.boolean(),
    details: fc.constantFrom(true, false, undefined),
    decidedEvery: fc.constantFrom(0, 2, 3),
    justDecided: fc.option(approval, { nil: undefined }),
    action: text,
    byOther: fc.boolean(),
  })
  .map((g): ApprovalsPageInput => {
    const decided = new Map<string, DecidedMark>();
    const mark = { action: g.action, at: new Date('2026-11-22T10:42:00Z'), userId: g.byOther ? 'U0BOB' : 'U0ADA' };
    if (g.decidedEvery > 0) for (const [i, a] of g.approvals.entries()) if (i % g.decidedEvery === 0) decided.set(a.workItemId, mark);
    if (g.justDecided !== undefined) decided.set(g.justDecided.workItemId, mark);
    return {
      query: g.query,
      approvals: g.approvals,
      userId: 'U0ADA',
      frame: g.frame,
      approvalLinks: g.withLinks ? links : undefined,
      details: g.details,
      decided,
      justDecided: g.justDecided === undefined ? undefined : [g.justDecided],
    };
  });

describe('the /approvals page written as JSON', () => {
  it('is the JSON of the page as objects, for any page and any service text', () => {
    fc.assert(
      fc.property(input, (page) => {
        const spec = renderApprovalsPage(page);
        const json = approvalsPageJson(page);
        expect(JSON.stringify(JSON.parse(json))).toBe(JSON.stringify(spec));
        // In a post's envelope: its fields first, then the page's, the same bytes.
        expect(approvalsPageJson(page, openingOf('replace'))).toBe(`{"replace_original":true,${json.slice(1)}`);
        const parsed = JSON.parse(json) as Message;
        expect(parsed).toEqual(JSON.parse(JSON.stringify(spec)));
        // Within Slack's limits (50 blocks, every text's length), and the fallback is the spec's, which says what the blocks say.
        expect(messageProblems(parsed)).toEqual([]);
        expect(parsed.text).toBe(spec.text);
      }),
      { numRuns: 200, seed: 20261126 },
    );
  });

  it('is Latin-1 text when the service’s and the asker’s are: our own wider characters ("1–10", a filter’s quotes) go as escapes', () => {
    const latin1 = fc.string({ unit: fc.constantFrom(...'abc XYZ 09:-.é·"\\'), maxLength: 40 });
    const plainApproval = fc.record<Approval>({
      workItemId: carriableId,
      workItemName: latin1,
      requestName: latin1,
      dueDate: fc.constantFrom('2026-11-20 09:00:00.0', '2026-12-24 17:30:00.0', ''),
      completedDate: fc.constantFrom('', '2026-11-21 10:00:00.0'),
      fields: fc.record({ RequestedByName: latin1 }),
    });
    const plainQuery = fc.record(
      {
        'start-page': fc.integer({ min: 1, max: 5 }),
        'due-before': fc.constantFrom('28-nov-2026', 'not a date'),
        'entitlement-name': latin1,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(plainApproval, { maxLength: 20 }),
        plainQuery,
        fc.constantFrom(...FRAMES),
        fc.boolean(),
        (approvals, q, frame, details) => {
          const json = approvalsPageJson({ query: q, approvals, userId: 'U0ADA', frame, approvalLinks: links, details });
          expect(json).not.toMatch(/[^\u0000-\u00ff]/);
        },
      ),
      { numRuns: 200, seed: 20261128 },
    );
  });

  it('is the same page drawn again from what an instance keeps of it, the fields the list does not draw left out', () => {
    const extra = fc.dictionary(
      fc.constantFrom('WorkItemState', 'RequestId', 'EntitlementName', 'BusinessSource'),
      fc.oneof(text, fc.integer()),
    );
    fc.assert(
      fc.property(input, fc.array(extra, { minLength: 40, maxLength: 40 }), (page, extras) => {
        const approvals = page.approvals.map((a, i) => ({ ...a, fields: { ...extras[i], ...a.fields } }));
        const shown = new ShownMemory(() => NOW);
        shown.drewPage('U0ADA', { query: page.query, approvals });
        const kept = shown.page('U0ADA', page.query);
        expect(kept?.query).toEqual(page.query);
        expect(approvalsPageJson({ ...page, approvals: kept?.approvals ?? [] })).toBe(approvalsPageJson({ ...page, approvals }));
      }),
      { numRuns: 100, seed: 20261128 },
    );
  });

  it('writes a rich text block as richText builds it, cut at the same place', () => {
    const run = fc.oneof(
      text,
      text.map((t) => ({ text: t, style: { bold: true as const } })),
      text.map((t) => ({ text: t, style: { code: true as const } })),
      text.map((t) => ({ text: t, style: { italic: true as const, strike: true as const } })),
      fc.constantFrom({ emoji: 'red_circle' }, { user: 'U0ADA' }, { channel: 'C0GEN' }, { usergroup: 'S0OPS' }),
      text.map((t) => ({ link: 'https://example.com/?a=1&b=<2>', text: t })),
      fc.constant({ date: new Date('2026-11-22T10:42:00Z'), format: '{date_short_pretty} at {time}', fallback: '2026-11-22 10:42 UTC' }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(run, { maxLength: 8 }), { maxLength: 8 }), (paragraphs) => {
        expect(richTextJson(paragraphs)).toBe(JSON.stringify(richText(paragraphs)));
      }),
      { numRuns: 600, seed: 20261126 },
    );
  });

  it('is posted in the envelope a message object would have: ephemeral, or in place of the page', () => {
    const page: ApprovalsPageInput = {
      query: { 'page-size': 1 },
      approvals: [
        {
          workItemId: '10198:WPDS:1',
          workItemName: 'Manager Approval',
          requestName: '<!channel> *Domain Admins*',
          dueDate: '2026-11-20 09:00:00.0',
          completedDate: '',
          fields: { RequestedByName: 'Wayne, Bruce' },
        },
      ],
      userId: 'U0ADA',
      frame: FRAMES[0] as ApprovalsPageInput['frame'],
      details: true,
    };
    const spec = renderApprovalsPage(page);
    expect(JSON.parse(approvalsPageJson(page, openingOf('ephemeral')))).toEqual({
      response_type: 'ephemeral',
      replace_original: false,
      ...JSON.parse(JSON.stringify(spec)),
    });
    expect(JSON.parse(approvalsPageJson(page, openingOf('replace')))).toEqual({
      replace_original: true,
      ...JSON.parse(JSON.stringify(spec)),
    });
    // Shown exactly: the ping and the stars are words, in rich text; the notification escapes the ping.
    expect(visible(spec.blocks)).toContain('<!channel> *Domain Admins*');
    expect(spec.text).toContain('&lt;!channel&gt; *Domain Admins*');
  });
});

describe('an approval written straight into the page', () => {
  const frame = FRAMES[1] as ApprovalsPageInput['frame'];
  const plain = (over: Partial<Approval> = {}): Approval => ({
    workItemId: '10114:WPDS:2',
    workItemName: 'Entitlement Owner Approval',
    requestName: 'Add Access for O\'Brien, Tim: "SAP_FI" \\ APPROVER',
    dueDate: '2026-11-20 09:00:00.0',
    completedDate: '',
    fields: { RequestedByName: "O'Brien, Tim" },
    ...over,
  });
  const written = (a: Approval) => {
    const out = { json: '' };
    return writePlainEntry(out, a, frame) ? out.json : undefined;
  };

  it('is how an ordinary approval is written, and is the general way’s bytes', () => {
    for (const a of [
      plain(),
      plain({ completedDate: '2026-11-21 10:00:00.0' }),
      plain({ dueDate: '' }),
      plain({ dueDate: 'next week' }),
      // A date the service wrote as words, with a quote and a backslash: the status line escapes them.
      plain({ dueDate: 'by "Q4" \\ end' }),
      plain({ completedDate: 'done "early"' }),
      plain({ workItemId: '10114:WP"DS:2', fields: { RequestedByName: 'Tim \\ "T"' } }),
      plain({ dueDate: '2026-12-24 09:00:00.0' }),
      plain({ fields: {} }),
      plain({ fields: { RequestedByName: 42 } }),
      plain({ requestName: '', workItemName: '' }),
    ])
      expect(written(a)).toBe(richTextJson(approvalParagraphs(a, frame)));
  });

  it('takes text up to each cut as it is, and leaves one character more to the general way', () => {
    const at = (n: number) => 'x'.repeat(n);
    const cases: Array<[keyof Approval | 'requester', number]> = [
      ['requestName', 150],
      ['workItemName', 80],
      ['workItemId', 80],
      ['dueDate', 40],
      ['completedDate', 40],
      ['requester', 80],
    ];
    for (const [field, cut] of cases) {
      const make = (n: number) =>
        field === 'requester' ? plain({ fields: { RequestedByName: at(n) } }) : plain({ [field]: at(n) } as Partial<Approval>);
      expect(written(make(cut)), `${field} at ${cut}`).toBe(richTextJson(approvalParagraphs(make(cut), frame)));
      expect(written(make(cut + 1)), `${field} past ${cut}`).toBeUndefined();
    }
  });

  it('leaves text with a line break, a hidden mark or half a surrogate pair to the general way', () => {
    for (const text of ['two\nlines', 'tab\there', 'Invoice \u202e gpj.exe', 'half \ud800'])
      expect(written(plain({ requestName: text }))).toBeUndefined();
  });
});

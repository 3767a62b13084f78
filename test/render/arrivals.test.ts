import { describe, expect, it } from 'vitest';
import type { ArrivalEntry, ArrivalMessage } from '../../src/arrivals/ports.js';
import { decodeDecisionChoice } from '../../src/parse/decision.js';
import { decodeDetailsButton } from '../../src/parse/details.js';
import { renderAlreadyWaiting, renderArrivals, renderNotify } from '../../src/render/arrivals.js';
import { DECISION_ACTIONS } from '../../src/render/decision.js';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { messageProblems } from '../../src/render/validate.js';
import { timeFrame } from '../../src/time/frame.js';
import { visible } from '../helpers/visible.js';

/** Monday 23 November 2026, 08:30 in New York; the service writes its times in London's. */
const FRAME = timeFrame(new Date('2026-11-23T13:30:00Z'), 'America/New_York', 'Europe/London');
const OPTIONS = { frame: FRAME, details: true, decisions: true };

const entry = (
  over: Partial<ArrivalEntry['approval']> = {},
  state: ArrivalEntry['state'] = { kind: 'waiting', actions: ['Accepted', 'Rejected'] },
): ArrivalEntry => ({
  approval: {
    approvalId: '10198:WPDS:1',
    workItemName: 'Manager approval',
    requestName: 'Domain Admins for jdoe',
    requestedBy: 'Jane Doe',
    dueDate: '2026-11-24 17:00:00.0',
    ...over,
  },
  state,
});
const message = (entries: ArrivalEntry[], more = 0, afterQuiet = false): ArrivalMessage => ({
  userId: 'UAPPROVER',
  entries,
  more,
  afterQuiet,
});

type Button = { type: string; action_id: string; value?: string; text: { text: string } };
const buttons = (m: { blocks: unknown[] }) =>
  m.blocks.flatMap((b) => ((b as { type: string }).type === 'actions' ? (b as { elements: Button[] }).elements : []));

describe('renderArrivals', () => {
  it('says what arrived: the request, the step, who asked, when it is due in the reader’s zone, with Details and the decision buttons', () => {
    const m = renderArrivals(message([entry()]), OPTIONS);
    expect(messageProblems(m)).toEqual([]);
    const text = visible(m.blocks);
    expect(text).toContain('A new approval for you');
    expect(text).toContain('*Domain Admins for jdoe*');
    expect(text).toContain('Manager approval · requested by Jane Doe');
    // 17:00 in London is 12:00 in New York, tomorrow for this reader.
    expect(text).toContain('Due Tue 24 Nov 2026, 12:00 New York time (due tomorrow)');
    expect(buttons(m).map((b) => [b.action_id, b.text.text])).toEqual([
      [DECISION_ACTIONS.choose[0], 'Decide: Accepted'],
      [DECISION_ACTIONS.choose[1], 'Decide: Rejected'],
      [DETAILS_ACTIONS.open, 'Details'],
    ]);
    expect(text).toContain('`/approvals notify off` stops these messages');
    // The fallback (a notification) says what the blocks say.
    expect(m.text).toContain('A new approval for you');
    expect(m.text).toContain('Domain Admins for jdoe');
    expect(m.text).toContain('Manager approval · requested by Jane Doe');
    expect(m.text).toContain('Due Tue 24 Nov 2026, 12:00 New York time (due tomorrow)');
  });

  it('gives each decision button the approval it decides, and Details the approval, as their handlers read them', () => {
    const [accept, , details] = buttons(renderArrivals(message([entry()]), OPTIONS));
    const choice = decodeDecisionChoice(accept?.value);
    expect(choice).toMatchObject({
      action: 'Accepted',
      requestName: 'Domain Admins for jdoe',
      requestedBy: 'Jane Doe',
      step: 'Manager approval',
      shownAt: undefined,
      approvalId: '10198:WPDS:1',
    });
    expect(decodeDetailsButton(details?.value)).toEqual({ approvalId: '10198:WPDS:1', origin: { kind: 'digest' } });
  });

  it('offers Details only where there are no actions, or deciding in chat is off', () => {
    expect(buttons(renderArrivals(message([entry({}, { kind: 'waiting', actions: [] })]), OPTIONS)).map((b) => b.text.text)).toEqual([
      'Details',
    ]);
    expect(buttons(renderArrivals(message([entry()]), { ...OPTIONS, decisions: false })).map((b) => b.text.text)).toEqual(['Details']);
    expect(buttons(renderArrivals(message([entry()]), { ...OPTIONS, decisions: false, details: false }))).toEqual([]);
  });

  it('shows the service’s words exactly and harmlessly: no ping, link, mention or formatting', () => {
    const hostile = entry({
      requestName: '<!channel> *urgent* <https://evil.example|click> _now_',
      workItemName: '<@U0ADMIN> `x` ~y~',
      requestedBy: 'https://evil.example/?a=1&b=<2>',
    });
    const m = renderArrivals(message([hostile]), OPTIONS);
    expect(messageProblems(m)).toEqual([]);
    const texts = JSON.stringify(m.blocks);
    // Rich text: each is one literal text element, never a broadcast, user or link element.
    expect(texts).not.toMatch(/"type":"(broadcast|user|link|channel)"/);
    expect(texts).toContain(JSON.stringify('<!channel> *urgent* <https://evil.example|click> _now_'));
    expect(texts).toContain(JSON.stringify('<@U0ADMIN> `x` ~y~ · requested by https://evil.example/?a=1&b=<2>').slice(1, -1));
    // The fallback: escaped, so Slack reads no ping, mention or link in it.
    expect(m.text).not.toContain('<!channel>');
    expect(m.text).not.toContain('<@U0ADMIN>');
    expect(m.text).toContain('&lt;!channel&gt; *urgent* &lt;https://evil.example|click&gt; _now_');
    expect(m.text).toContain('&lt;@U0ADMIN&gt;');
    expect(m.text).toContain('https://evil.example/?a=1&amp;b=&lt;2&gt;');
  });

  it('says who decided what and when once decided from Slack, and offers nothing more', () => {
    const at = new Date('2026-11-23T14:02:00Z');
    const mine = renderArrivals(message([entry({}, { kind: 'decided', action: 'Rejected', by: 'UAPPROVER', at })]), OPTIONS);
    expect(messageProblems(mine)).toEqual([]);
    expect(buttons(mine)).toEqual([]);
    // In the reader's zone, named, as every time is written; in the notification too.
    expect(visible(mine.blocks)).toContain(':white_check_mark: *Rejected* by you, Mon 23 Nov 2026, 09:02 New York time (from Slack)');
    expect(mine.text).toContain('Rejected by you, Mon 23 Nov 2026, 09:02 New York time (from Slack)');
    expect(visible(mine.blocks)).not.toContain('Due ');
    const theirs = renderArrivals(message([entry({}, { kind: 'decided', action: 'Accepted', by: 'UOTHER', at })]), OPTIONS);
    expect(visible(theirs.blocks)).toContain('*Accepted* by <@UOTHER>');
    expect(theirs.text).toContain('Accepted by <@UOTHER>');
  });

  it('says an approval gone from their list no longer waits for them, and offers nothing for it', () => {
    const m = renderArrivals(
      message([entry({ approvalId: '1:A:1' }, { kind: 'gone', at: new Date('2026-11-23T14:00:00Z') }), entry({ approvalId: '2:B:2' })]),
      OPTIONS,
    );
    expect(messageProblems(m)).toEqual([]);
    expect(visible(m.blocks)).toContain('No longer waiting for you (seen Mon 23 Nov 2026, 09:00 New York time)');
    expect(visible(m.blocks)).toContain('decided in the service, reassigned or withdrawn');
    expect(m.text).toContain('No longer waiting for you');
    // Only the approval still waiting has buttons, and they are its own.
    const values = buttons(m).map((b) => b.value ?? '');
    expect(values).toHaveLength(3);
    for (const v of values) expect(v).toContain('2:B:2');
  });

  it('lists several together in one message, says how many more and the command that lists them, and when they were held', () => {
    const five = Array.from({ length: 5 }, (_, i) => entry({ approvalId: `${i}:W:1`, requestName: `Request ${i}` }));
    const m = renderArrivals(message(five, 7, true), OPTIONS);
    expect(messageProblems(m)).toEqual([]);
    const text = visible(m.blocks);
    expect(text).toContain('12 new approvals for you');
    expect(text).toContain('These arrived during your quiet hours.');
    expect(text).toContain('…and 7 more: `/approvals` lists them.');
    for (let i = 0; i < 5; i++) expect(text).toContain(`Request ${i}`);
    expect(m.text).toContain('12 new approvals for you');
    expect(m.text).toContain('These arrived during your quiet hours.');
    expect(m.text).toContain('…and 7 more: /approvals lists them.');
    expect(renderArrivals(message(five), OPTIONS).text).not.toContain('quiet hours');
  });

  it('writes a due date the service wrote unreadably as written, and none when it gave none', () => {
    expect(visible(renderArrivals(message([entry({ dueDate: 'soon-ish' })]), OPTIONS).blocks)).toContain('Due soon-ish');
    expect(visible(renderArrivals(message([entry({ dueDate: '', requestedBy: '' })]), OPTIONS).blocks)).toContain('Due date not given');
  });
});

describe('renderAlreadyWaiting', () => {
  it('counts what waited before, in one line, with the command that lists it', () => {
    const m = renderAlreadyWaiting(4);
    expect(messageProblems(m)).toEqual([]);
    expect(visible(m.blocks)).toContain('4 approvals already wait for you: `/approvals` lists them.');
    expect(m.text).toContain('4 approvals already wait for you: /approvals lists them.');
    expect(renderAlreadyWaiting(1).text).toContain('1 approval already waits for you');
  });
});

describe('renderNotify', () => {
  it('says what is set, the quiet hours in the reader’s zone, and how to change it', () => {
    const on = renderNotify({
      kind: 'shown',
      settings: { enabled: true, quiet: { startMinute: 1140, endMinute: 480 } },
      zone: 'Europe/London',
    });
    expect(visible(on.blocks)).toContain('I send you a direct message when an approval arrives');
    expect(visible(on.blocks)).toContain('Quiet hours *19:00–08:00 London time*');
    expect(on.text).toContain('Quiet hours 19:00–08:00 London time');
    const off = renderNotify({ kind: 'changed', settings: { enabled: false, quiet: undefined }, zone: undefined });
    expect(visible(off.blocks)).toContain('Done: No messages when approvals arrive. `/approvals notify on` starts them');
    const plain = renderNotify({ kind: 'changed', settings: { enabled: true, quiet: undefined }, zone: undefined });
    expect(visible(plain.blocks)).toContain('No quiet hours');
  });

  it('says when the installation has arrival messages off', () => {
    const m = renderNotify({ kind: 'off-here' });
    expect(visible(m.blocks)).toContain('turned off for everyone in this workspace');
    expect(m.text).toContain('turned off for everyone in this workspace');
  });
});

describe('renderArrivals, an id the buttons could not carry back', () => {
  it('offers no decision button for it (nor Details), rather than one that would only say it no longer works', () => {
    const m = renderArrivals(message([entry({ approvalId: 'not an id <!here>' })]), OPTIONS);
    expect(buttons(m)).toEqual([]);
    expect(JSON.stringify(m.blocks)).toContain('not an id <!here>');
  });
});

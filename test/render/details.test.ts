/**
 * The details modal and the Details controls, as a person reads them (visible()), and as Slack
 * checks them (validate.ts): every state of the modal, items as sentences, paging, the actions as
 * words and never as buttons.
 */

import { describe, expect, it } from 'vitest';
import type { DetailsOutcome } from '../../src/approvals/details.js';
import { approvalPages } from '../../src/config.js';
import {
  type DetailsState,
  decodeDetailsButton,
  decodeDetailsMetadata,
  decodeDetailsSelect,
  MAX_ITEMS_PAGE,
  parseDetailsPage,
} from '../../src/parse/details.js';
import { approvalBlocks, renderApprovalsPage } from '../../src/render/approvals.js';
import { describeItem, detailsFailureView, detailsLoadingView, refreshTarget, renderDetailsView } from '../../src/render/details.js';
import { DETAILS_ACTIONS, detailsButton, detailsSelect } from '../../src/render/details-controls.js';
import { translateFailure } from '../../src/render/errors.js';
import { messageProblems, viewProblems } from '../../src/render/validate.js';
import {
  type Approval,
  InvalidTokenError,
  type RequestItem,
  type RequestItemsPage,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { timeFrame } from '../../src/time/frame.js';
import { fakeDetails } from '../helpers/fakes.js';
import { mrkdwnTexts, shownExactly, visible } from '../helpers/visible.js';

/** Noon UTC on Sunday 22 November 2026, read in UTC; the service's zone not given, so its times are shown as written. */
const FRAME = timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined);
const links = approvalPages('https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}');
const STATE: DetailsState = {
  approvalId: '10001:WPDS:1',
  origin: { kind: 'page', owner: 'UADA', query: { 'page-size': 10 } },
  page: 1,
  responseUrl: 'https://hooks.slack.com/actions/T1/1/abc',
};

const item = (i: number, over: Partial<RequestItem> = {}): RequestItem => ({
  itemId: String(i),
  typeDescription: 'Add user to group',
  operation: 'Add',
  entitlementType: 'group',
  entitlementName: 'Domain Admins',
  businessSource: 'Active Directory',
  state: 'Pending Approval',
  description: '',
  derivedType: 'Direct',
  isChangeToApprove: true,
  userName: 'Wayne, Bruce',
  userId: 'bruce.wayne',
  accountName: 'bwayne',
  fields: {},
  ...over,
});

const page = (items: RequestItem[], over: Partial<RequestItemsPage> = {}): RequestItemsPage => ({
  items,
  received: items.length,
  count: items.length,
  total: undefined,
  workItemId: STATE.approvalId,
  requestId: '10001',
  requestStatus: 'Approvals Phase',
  ...over,
});

function shown(outcome: Exclude<DetailsOutcome, { kind: 'failed' }>, state = STATE, userId = 'UADA', withLinks = true) {
  const view = renderDetailsView({ outcome, state, userId, frame: FRAME, approvalLinks: withLinks ? links : undefined });
  expect(viewProblems(view)).toEqual([]);
  const buttons = (view.blocks as Array<{ type: string; elements?: unknown[] }>).flatMap((b) =>
    b.type === 'actions' ? (b.elements ?? []) : [],
  ) as Array<{
    action_id: string;
    text: { text: string };
    value?: string;
    url?: string;
  }>;
  return { view, text: visible(view.blocks), buttons };
}

const details = (
  over = {},
  items: RequestItem[] = [item(1)],
  itemsOver: Partial<RequestItemsPage> = {},
  p = 1,
): DetailsOutcome & { kind: 'details' } => ({
  kind: 'details',
  details: fakeDetails({ workItemId: STATE.approvalId, ...over }),
  items: { kind: 'page', page: p, pageSize: 10, items: page(items, itemsOver) },
});

describe('the details modal', () => {
  it('says a step waits for the reader’s decision where they may decide it, and a completed one by its outcome, as the service words it', () => {
    const open = {
      ...details({ state: 'Available', actions: ['Accepted', 'Rejected'] }),
      decision: { kind: 'actions' as const, actions: ['Accepted', 'Rejected'] },
    };
    expect(shown(open).text).toContain('*Manager Approval* · _waiting for your decision_ (the service says “Available”)');
    const lineItems = { ...details({ state: 'Available', lineItemApprovalEnabled: true }), decision: { kind: 'line-items' as const } };
    expect(shown(lineItems).text).toContain('· _waiting for your decision_ (the service says “Available”)');
    const done = details({ state: 'Rejected', completedDate: '2026-11-21 10:00:00.0', completedByName: 'Lovelace, Ada', actions: [] });
    expect(shown(done).text).toContain('*Manager Approval* · Rejected\n');
    expect(shown(done).text).not.toContain('waiting');
  });

  it('shows the step, request and id, who asked, description and notes, due and overdue, state, and the actions as words', () => {
    const { view, text, buttons } = shown(
      details({
        workItemName: 'Security Review',
        state: 'Available',
        description: 'Needs it for the audit.\nUntil the 30th.',
        notes: 'Ticket INC-1',
        dueDate: '2026-11-20 09:00:00.0',
        actions: ['Approved', 'Rejected', 'Needs Info'],
        lineItemApprovalEnabled: true,
        hasAttachments: true,
      }),
    );
    expect(view.title.text).toBe('Approval details');
    expect(text).toContain('Add Access for Wayne, Bruce: Domain Admins');
    // Words for an approver, the service's own word beside them.
    expect(text).toContain('*Security Review* · _waiting for a decision_ (the service says “Available”)');
    expect(text).toContain('Request `10001` · requested by Wayne, Bruce');
    expect(text).toContain(':red_circle: Due Fri 20 Nov 2026, 09:00 service time (*overdue by 2 days*)');
    expect(text).toContain('Approval id `10001:WPDS:1`');
    expect(text).toContain('*Description*\nNeeds it for the audit.\nUntil the 30th.');
    expect(text).toContain('*Notes*\nTicket INC-1');
    expect(text).toContain('Each item of this request is decided on its own.');
    expect(text).toContain('The request has attachments');
    expect(text).toContain('In the service this step can end as *Approved*, *Rejected* or *Needs Info*.');
    // The decision stays in the service: no button is named after an action.
    expect(buttons.map((b) => b.text.text)).toEqual(['Open in the service']);
    expect(buttons[0]?.url).toBe('https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId=10001%3AWPDS%3A1');
  });

  it('says how much of a long description is not shown, and keeps its paragraphs apart', () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const withLink = shown(details({ description: long })).text;
    expect(withLink).toContain('line 30\n');
    expect(withLink).not.toContain('line 31');
    expect(withLink).toContain('_… 10 more lines: Open in the service shows them._');
    const without = shown(details({ description: long }), STATE, 'UADA', false).text;
    expect(without).toContain('_… 10 more lines, not shown here._');
    // Paragraphs stay apart, by one blank line however many there were; lines keep their words exactly.
    const paragraphs = shown(details({ description: 'First.\n\n\n\nSecond, *as is*.\r\n\r\nThird.' })).text;
    expect(paragraphs).toContain('*Description*\nFirst.\n\nSecond, *as is*.\n\nThird.');
    // A description cut by characters says so too.
    const wide = shown(details({ description: 'w'.repeat(5000) })).text;
    expect(wide).toContain('_… the rest of it: Open in the service shows it._');
  });

  it('keeps text of emoji and other two-unit characters within Slack’s limits, as Slack counts them', () => {
    // shown() checks every view against the limits; these used to be twice over them.
    const { text } = shown(details({ requestName: '📦'.repeat(200), description: '📦'.repeat(2000), notes: '🧾'.repeat(1600) }));
    expect(text).toContain('📦'.repeat(74));
    shown(
      details({ workItemName: '😀'.repeat(200), requestedByName: '😀'.repeat(200), actions: ['😀'.repeat(100)] }, [
        item(1, { entitlementName: '😀'.repeat(3000) }),
      ]),
    );
  });

  it('comes back with a valid view from megabytes of text in every field, saying what is left out', () => {
    const MB = 1024 * 1024;
    const huge = (c: string) => c.repeat(MB);
    const outcome = details(
      {
        requestName: huge('n'),
        workItemName: huge('w'),
        requestedByName: huge('r'),
        state: huge('s'),
        requestId: huge('9'),
        workItemId: huge('1'),
        dueDate: `2026-11-20 09:00:00.${huge('0')}`,
        completedByName: huge('c'),
        description: huge('d\n'),
        notes: `${huge('o')}\n${huge('😀')}`,
        actions: [huge('a'), huge('b')],
      },
      Array.from({ length: 10 }, (_, i) => item(i, { entitlementName: huge('e'), description: huge('\t'), userName: huge('u') })),
    );
    // What can be seen: it comes back, within Slack's limits (shown() checks them), each field cut
    // with a word on where the rest is. How long it takes is `npm run bench -- parsers`.
    const { view, text } = shown(outcome);
    expect(text).toContain('… the rest of it: Open in the service shows it.');
    expect(text).toContain('n'.repeat(100));
    expect(JSON.stringify(view).length).toBeLessThan(100 * 1024);
  });

  it('says who completed a completed step and when, and offers no decision for it', () => {
    const { text, buttons } = shown(
      details({ completedDate: '2026-11-21 08:30:00.0', completedByName: 'Lovelace, Ada', state: 'Accepted', actions: [] }),
    );
    expect(text).toContain(
      ':checkered_flag: Lovelace, Ada completed this step on Sat 21 Nov 2026, 08:30 service time · it was due Fri 20 Nov 2026, 09:00 service time',
    );
    // Nothing is left to decide: no "lists no actions", no "the decision is made in the service".
    expect(text).not.toContain('lists no actions');
    expect(text).not.toContain('decision');
    expect(text).toContain('This step is done: nothing is left to decide.');
    expect(buttons.map((b) => b.text.text)).toEqual(['Open in the service']);
    const nameless = shown(details({ completedDate: '2026-11-21 08:30:00.0', completedByName: '', actions: [] })).text;
    expect(nameless).toContain(':checkered_flag: Completed on Sat 21 Nov 2026, 08:30 service time (the service does not say by whom)');
  });

  it('counts the items plainly: "1 item", "4 items", "items 11–20 of 26", never "items 1–1"', () => {
    expect(shown(details({}, [item(1)])).text).toContain('*What the request asks for* · 1 item\n');
    expect(shown(details({}, [item(1)])).text).not.toContain('1–1');
    const ten = Array.from({ length: 10 }, (_, i) => item(i + 1));
    expect(shown(details({}, ten, { count: 26, total: 26 }, 2)).text).toContain('· items 11–20 of 26');
    expect(shown(details({}, ten.slice(0, 1), {}, 3)).text).toContain('· item 21 of 21');
    // A full first page with no total: more may follow, so no total is claimed.
    expect(shown(details({}, ten)).text).toContain('· items 1–10, perhaps more · all _Pending Approval_\n');
  });

  it('lists each item as a sentence, with its state, and what is unusual about it', () => {
    const { text } = shown(
      details({}, [
        item(1),
        item(2, {
          operation: 'Remove',
          entitlementType: 'role',
          entitlementName: 'Sales Rep',
          businessSource: 'Salesforce',
          derivedType: 'Indirect',
          isChangeToApprove: false,
        }),
        item(3, { operation: 'Create', entitlementType: 'account', entitlementName: 'bwayne', description: 'New AD account' }),
        item(4, { operation: 'Modify', entitlementType: 'account', entitlementName: 'bwayne' }),
      ]),
    );
    // The state every item shares is said once.
    expect(text).toContain('*What the request asks for* · 4 items · all _Pending Approval_');
    expect(text).toContain('• Add Wayne, Bruce to group Domain Admins (Active Directory)\n• Remove');
    // In an approver's words, not the service's (DerivedType Indirect, IsChangeToApprove false).
    expect(text).toContain(
      '• Remove Wayne, Bruce from role Sales Rep (Salesforce)\n   comes with another item of this request, not asked for on its own · shown for your information: not yours to decide',
    );
    expect(text).not.toMatch(/Indirect|not a change to approve/);
    const words = (over: Partial<RequestItem>) => shown(details({}, [item(1, over)])).text;
    expect(words({ derivedType: 'Indirect' })).toContain('· comes with another item of this request, not asked for on its own');
    expect(words({ isChangeToApprove: false })).toContain('· shown for your information: not yours to decide');
    expect(words({ derivedType: 'Direct' })).not.toMatch(/comes with|not yours/);
    expect(text).toContain('• Create account bwayne for Wayne, Bruce (Active Directory)\n   New AD account');
    expect(text).toContain('• Modify account bwayne of Wayne, Bruce (Active Directory)');
    const mixed = shown(details({}, [item(1), item(2, { state: 'Approved' })])).text;
    expect(mixed).toContain(
      '• Add Wayne, Bruce to group Domain Admins (Active Directory)\n   _Pending Approval_\n• Add Wayne, Bruce to group Domain Admins (Active Directory)\n   _Approved_',
    );
  });

  it('words items the service describes sparsely or in words of its own', () => {
    const sentence = (over: Partial<RequestItem>) => describeItem(item(1, over)).join('');
    expect(sentence({ operation: 'Grant', userName: '', userId: 'bwayne' })).toBe('Grant bwayne to group Domain Admins (Active Directory)');
    expect(sentence({ operation: 'Transfer' })).toBe('Transfer group Domain Admins · Wayne, Bruce (Active Directory)');
    expect(
      sentence({ operation: '', entitlementType: '', entitlementName: '', businessSource: '', typeDescription: 'Reset password' }),
    ).toBe('Reset password');
    expect(
      sentence({ operation: '', entitlementType: '', entitlementName: '', businessSource: '', typeDescription: '', description: '' }),
    ).toBe('An item the service did not describe');
    expect(sentence({ userName: '', userId: '', accountName: '' })).toBe('Add group Domain Admins (Active Directory)');
  });

  it('pages the items: Next while a page is full or the total says more, Previous after the first', () => {
    const ten = Array.from({ length: 10 }, (_, i) => item(i + 1));
    const first = shown(details({}, ten));
    expect(first.buttons.map((b) => [b.action_id, b.value])).toEqual([
      [DETAILS_ACTIONS.next, '2'],
      ['approval:open', undefined],
    ]);
    const middle = shown(details({}, ten, { count: 500, total: 500 }, 3));
    expect(middle.text).toContain('items 21–30 of 500');
    expect(middle.buttons.map((b) => [b.action_id, b.value])).toEqual([
      [DETAILS_ACTIONS.previous, '2'],
      [DETAILS_ACTIONS.next, '4'],
      ['approval:open', undefined],
    ]);
    const last = shown(details({}, ten.slice(0, 3), {}, 4));
    // A short page is the last: the total is known.
    expect(last.text).toContain('items 31–33 of 33');
    expect(last.buttons.map((b) => b.action_id)).toEqual([DETAILS_ACTIONS.previous, 'approval:open']);
    const past = shown(details({}, [], {}, 7));
    expect(past.text).toContain('No items on page 7: the list ends before it.');
    expect(past.buttons.map((b) => [b.action_id, b.text.text, b.value])).toEqual([
      [DETAILS_ACTIONS.previous, 'Previous page', '6'],
      ['approval:open', 'Open in the service', undefined],
    ]);
  });

  it('offers Next only to a page a click can carry back: never past the last page the modal reads', () => {
    const ten = Array.from({ length: 10 }, (_, i) => item(i + 1));
    const before = shown(details({}, ten, {}, MAX_ITEMS_PAGE - 1), { ...STATE, page: MAX_ITEMS_PAGE - 1 });
    const next = before.buttons.find((b) => b.action_id === DETAILS_ACTIONS.next);
    expect(next?.value).toBe(String(MAX_ITEMS_PAGE));
    expect(parseDetailsPage(next?.value)).toBe(MAX_ITEMS_PAGE);
    const last = shown(details({}, ten, {}, MAX_ITEMS_PAGE), { ...STATE, page: MAX_ITEMS_PAGE });
    expect(last.buttons.map((b) => b.action_id)).toEqual([DETAILS_ACTIONS.previous, 'approval:open']);
    expect(parseDetailsPage(String(MAX_ITEMS_PAGE + 1))).toBeUndefined();
  });

  it('renders a request of 500 items answered all at once within the modal’s limits, saying how many are left out', () => {
    const all = Array.from({ length: 500 }, (_, i) => item(i + 1, { description: 'x'.repeat(300), entitlementName: 'y'.repeat(200) }));
    const { view, text } = shown(details({ description: 'd'.repeat(6000), notes: 'n\n'.repeat(5000) }, all));
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(text).toContain('items 1–500');
    const listed = text.match(/^• /gm)?.length ?? 0;
    expect(listed).toBeGreaterThan(10);
    expect(text).toContain(`${500 - listed} more items on this page are left out`);
  });

  it('never skips or misnumbers items when the service pages by its own size, not the page-size asked', () => {
    const TOTAL = 45;
    // A service that ignores page-size=10 and answers its own pages of 20, as start-page says.
    const servicePage = (p: number) => {
      const from = (p - 1) * 20;
      return Array.from({ length: Math.max(0, Math.min(20, TOTAL - from)) }, (_, i) =>
        item(from + i + 1, { entitlementName: `G-${from + i + 1}` }),
      );
    };
    const seen: number[] = [];
    let p: number | undefined = 1;
    let state: DetailsState = STATE;
    for (let guard = 0; p !== undefined && guard < 10; guard++) {
      // As the paging listener does: the modal's own state, with the page the button says.
      state = { ...state, page: p };
      const { view, text, buttons } = shown(details({}, servicePage(p), {}, p), state);
      state = decodeDetailsMetadata(view.private_metadata) ?? STATE;
      const numbers = [...text.matchAll(/G-(\d+)/g)].map((m) => Number(m[1]));
      seen.push(...numbers);
      // Whatever the heading numbers, it numbers what is shown.
      const label = /items (\d+)–(\d+)/.exec(text);
      if (label !== null) expect([numbers[0], numbers.at(-1)]).toEqual([Number(label[1]), Number(label[2])]);
      const next = buttons.find((b) => b.action_id === DETAILS_ACTIONS.next)?.value;
      p = next === undefined ? undefined : Number(next);
    }
    expect(seen).toEqual(Array.from({ length: TOTAL }, (_, i) => i + 1));
  });

  it('says when the items are not offered or could not be loaded, and still shows the details', () => {
    const off = shown({ kind: 'details', details: fakeDetails(), items: { kind: 'not-offered' } });
    expect(off.text).toContain('This Command Service does not offer the list of a request’s items, so they cannot be shown here.');
    const failed = shown(
      { kind: 'details', details: fakeDetails(), items: { kind: 'failed', error: new Error('x') } },
      { ...STATE, page: 2 },
    );
    expect(failed.text).toContain('could not be loaded just now');
    expect(failed.buttons.find((b) => b.action_id === DETAILS_ACTIONS.retry)?.value).toBe('2');
    // Too large to read: asking again brings the same answer, so no Try again either.
    const huge = new UnexpectedResponseError('body larger than 1048576 bytes', { command: 'getRequestItems', status: 200 }, 1024 * 1024);
    const large = shown({ kind: 'details', details: fakeDetails(), items: { kind: 'failed', error: huge } });
    expect(large.text).toContain('too large to show here');
    expect(large.buttons.map((b) => b.action_id)).not.toContain(DETAILS_ACTIONS.retry);
    // Barred from getRequestItems: asking again would not help, so no Try again.
    const barred = shown({ kind: 'details', details: fakeDetails(), items: { kind: 'not-permitted' } });
    expect(barred.text).toContain(
      'The Command Service does not let you list the request’s items: ask your identity team for that permission if you need it.',
    );
    // No service command names for an approver.
    for (const t of [off.text, barred.text]) expect(t).not.toMatch(/getRequestItems|getApprovalDetails/);
    expect(barred.buttons.map((b) => b.action_id)).not.toContain(DETAILS_ACTIONS.retry);
  });

  it('shows the service’s text exactly, never as markup, and the request name without emoji', () => {
    const hostile = '<!channel> *bold* :fire: <https://evil.example|x>';
    const { view } = shown(
      details({ requestName: hostile, description: hostile, notes: hostile, requestedByName: hostile, actions: [hostile] }, [
        item(1, { userName: hostile, description: hostile }),
      ]),
    );
    expect(mrkdwnTexts(view.blocks).join('\n')).not.toContain('<!channel>');
    expect(shownExactly(view.blocks, hostile)).toBe(true);
    expect(view.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: hostile, emoji: false } });
  });

  it('says an approval gone from view is no longer visible, and offers Refresh of the list it came from, to its asker only', () => {
    const gone = shown({ kind: 'not-visible' });
    expect(gone.text).toContain(
      'The approval `10001:WPDS:1` is no longer visible to you: it may have been completed, reassigned or withdrawn.',
    );
    expect(gone.buttons.map((b) => [b.action_id, b.text.text])).toEqual([
      [DETAILS_ACTIONS.refresh, 'Refresh the list'],
      ['approval:open', 'Open in the service'],
    ]);
    expect(shown({ kind: 'not-visible' }, { ...STATE, origin: { kind: 'home' } }).buttons[0]?.text.text).toBe('Refresh Home');
    expect(refreshTarget(STATE, 'UGRACE')).toBeUndefined();
    for (const [state, reader] of [
      [{ ...STATE, responseUrl: undefined }, 'UADA'],
      [{ ...STATE, origin: { kind: 'digest' as const } }, 'UADA'],
    ] as const) {
      expect(refreshTarget(state, reader)).toBeUndefined();
      const other = shown({ kind: 'not-visible' }, state, reader);
      expect(other.buttons.map((b) => b.action_id)).toEqual(['approval:open']);
      expect(other.text).toContain('Type `/approvals` to see what waits for you now.');
    }
  });

  it('does not call a typed id that the service does not know “no longer visible”: it may never have existed', () => {
    const typed = shown({ kind: 'not-visible' }, { ...STATE, origin: { kind: 'typed' } });
    expect(typed.text).not.toContain('no longer visible');
    expect(typed.text).toContain('The Command Service has no approval `10001:WPDS:1` that you can see.');
    expect(typed.text).toContain('Check the id: each approval on a page of `/approvals` shows its own.');
    expect(typed.text).toContain('An approval that was reassigned to someone else or withdrawn is not shown to you either.');
    // One shown to the reader before (a page, Home, a digest) existed: that one is gone from their view.
    for (const origin of [{ kind: 'home' as const }, { kind: 'digest' as const }, STATE.origin, { kind: 'page' as const }])
      expect(shown({ kind: 'not-visible' }, { ...STATE, origin }).text).toContain('is no longer visible to you');
    // Someone else's page: never the reader's to lose.
    const others = shown({ kind: 'not-visible' }, STATE, 'UGRACE');
    expect(others.text).not.toContain('no longer visible');
    expect(others.text).toContain('The Command Service has no approval `10001:WPDS:1` that you can see.\nIt is not on a list of yours');
  });

  it('says in one sentence that the service does not offer details, not as an error', () => {
    const { text, buttons } = shown({ kind: 'not-offered' });
    expect(text.split('. ').length).toBe(1);
    expect(text).toContain('This Command Service does not offer approval details');
    expect(text).toContain('countersign stops offering Details for now');
    expect(buttons.map((b) => b.text.text)).toEqual(['Open in the service']);
    expect(shown({ kind: 'not-offered' }, STATE, 'UADA', false).text).toContain('look the approval up in the service itself');
    // The service's command names are not an approver's words.
    expect(text).not.toContain('getApprovalDetails');
    expect(text).toContain('(its administrators have switched them off)');
  });

  it('offers to link an unlinked reader, and Link again on a refused token', () => {
    const { buttons } = shown({ kind: 'not-linked' });
    expect(buttons.map((b) => [b.action_id, b.text.text])).toEqual([[DETAILS_ACTIONS.relink, 'Link your account']]);
    const error = new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage: 'Token is invalid or expired' });
    const message = translateFailure(error, {
      userId: 'UADA',
      slash: '/approvals',
      command: 'findApprovals',
      reference: 'ref-1',
      relink: '{}',
    }).message;
    const view = detailsFailureView(STATE, message, { relink: true, retry: false });
    expect(viewProblems(view)).toEqual([]);
    expect(visible(view.blocks)).toContain('Your token is not valid or has expired');
    // No admin command with the reader's raw Slack id: an approver links themselves, or asks.
    expect(visible(view.blocks)).not.toMatch(/countersign tokens|UADA/);
    expect(visible(view.blocks)).toContain('Type `/approvals login` to link your account, or ask your Slack admins to link it for you.');
    // A token refused one command only: what it may not do, in words.
    const barred = translateFailure(
      new InvalidTokenError({
        command: 'getApprovalDetails',
        status: 401,
        serviceMessage: "The token is not valid for the command 'getApprovalDetails'. ",
      }),
      { userId: 'UADA', slash: '/approvals', command: 'findApprovals', reference: 'ref-2' },
    ).message;
    expect(visible(barred.blocks)).toContain(':no_entry: Your token does not let you see an approval’s details.');
    expect(visible(barred.blocks)).not.toMatch(/getApprovalDetails|countersign tokens|UADA/);
    const actions = (view.blocks as Array<{ type: string; elements?: unknown[] }>).flatMap((b) =>
      b.type === 'actions' ? (b.elements ?? []) : [],
    ) as Array<{ action_id: string }>;
    // The translator's "Link again" answers through a response_url, which a modal has not: ours replaces it.
    expect(actions.map((a) => a.action_id)).toEqual([DETAILS_ACTIONS.relink]);
  });

  it('opens on a loading view that names the approval and keeps the state', () => {
    const view = detailsLoadingView(STATE);
    expect(viewProblems(view)).toEqual([]);
    expect(visible(view.blocks)).toContain('Asking the Command Service about `10001:WPDS:1`…');
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({
      a: '10001:WPDS:1',
      o: 'p',
      u: 'UADA',
      q: { 'page-size': 10 },
      p: 1,
      r: STATE.responseUrl,
    });
  });
});

describe('Details controls', () => {
  const approval = (i: number): Approval => ({
    workItemId: `${1000 + i}:WPDS:1`,
    workItemName: 'Manager Approval',
    requestName: `Request #${i}`,
    dueDate: '2026-11-24 10:00:00.0',
    completedDate: '',
    fields: {},
  });

  it('puts Details beside Open on each approval of a page, carrying the asker and the query, and none when not offered', () => {
    const input = { query: { 'page-size': 10 }, approvals: [approval(1), approval(2)], userId: 'UADA', frame: FRAME, approvalLinks: links };
    const on = renderApprovalsPage({ ...input, details: true });
    expect(messageProblems(on)).toEqual([]);
    const rows = on.blocks.filter((b) => b.type === 'actions' && b.block_id === undefined) as Array<{
      elements: Array<{ action_id: string; value?: string }>;
    }>;
    expect(rows.map((r) => r.elements.map((e) => e.action_id))).toEqual([
      [DETAILS_ACTIONS.open, 'approval:open'],
      [DETAILS_ACTIONS.open, 'approval:open'],
    ]);
    // A page's Details carries [id, asker, query]: the same on every button, so without the object's keys.
    expect(JSON.parse(rows[0]?.elements[0]?.value ?? '')).toEqual(['1001:WPDS:1', 'UADA', { 'page-size': 10 }]);
    expect(decodeDetailsButton(rows[0]?.elements[0]?.value)).toEqual({
      approvalId: '1001:WPDS:1',
      origin: { kind: 'page', owner: 'UADA', query: { 'page-size': 10 } },
    });
    const off = renderApprovalsPage({ ...input, details: false });
    expect(JSON.stringify(off.blocks)).not.toContain(DETAILS_ACTIONS.open);
  });

  it('gives a page packed several to a block one "Details of…" select of its approvals', () => {
    const approvals = Array.from({ length: 60 }, (_, i) => approval(i));
    const m = renderApprovalsPage({
      query: { 'page-size': 60 },
      approvals,
      userId: 'UADA',
      frame: FRAME,
      approvalLinks: links,
      details: true,
    });
    expect(messageProblems(m)).toEqual([]);
    const select = m.blocks.find((b) => b.type === 'actions' && b.block_id?.startsWith('details')) as {
      elements: Array<{ type: string; options: unknown[] }>;
    };
    expect(select.elements[0]?.type).toBe('static_select');
    expect(select.elements[0]?.options).toHaveLength(60);
    expect(visible(m.blocks)).toContain('[Request #0 · 1000:WPDS:1 |');
  });

  it('puts Details on Home and digest entries too, saying where they are', () => {
    const home = approvalBlocks(approval(1), FRAME, undefined, { kind: 'home' });
    const value = (home[1] as { elements: Array<{ value: string }> }).elements[0]?.value ?? '';
    expect(JSON.parse(value)).toEqual({ a: '1001:WPDS:1', o: 'h' });
    expect(approvalBlocks(approval(1), FRAME, undefined)).toHaveLength(1);
  });

  it('offers Details only for an approval id a click on it can carry back: never a control that answers "no longer works"', () => {
    // A plain number, a text part over 64 characters, an id with a line break: not the <number>:<text>:<number> the decoder takes.
    const odd = ['12345', `1:${'x'.repeat(65)}:1`, '1:WP\nDS:1', ' 1:A:1'].map((id, i) => ({ ...approval(i), workItemId: id }));
    for (const a of odd) expect(detailsButton(a, { kind: 'home' })).toBeUndefined();
    expect(detailsSelect(odd, 'UADA', { 'page-size': 10 })).toBeUndefined();
    const mixed = [...odd, approval(7)];
    const select = detailsSelect(mixed, 'UADA', { 'page-size': 10 }) as {
      block_id: string;
      elements: Array<{ options: Array<{ value: string }> }>;
    };
    expect(select.elements[0]?.options.map((o) => o.value)).toEqual(['1007:WPDS:1']);
    for (const o of select.elements[0]?.options ?? []) expect(decodeDetailsSelect(select.block_id, o.value)).toBeDefined();
    const button = detailsButton(approval(7), { kind: 'home' });
    expect(decodeDetailsButton(button?.value)).toEqual({ approvalId: '1007:WPDS:1', origin: { kind: 'home' } });
  });
});

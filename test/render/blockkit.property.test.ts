/**
 * Every message, modal and Home view countersign can produce, over generated service and user
 * data (empty, enormous, markup, pings, links, control characters, any Unicode): each passes our
 * Block Kit validator (what Slack would refuse as invalid_blocks), no text from the service or a
 * user reaches a mrkdwn text (where Slack would format it, link it or ping), and the fallback
 * text pings no one either.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetailsOutcome } from '../../src/approvals/details.js';
import { groupByDue } from '../../src/approvals/due.js';
import type { ArrivalEntry } from '../../src/arrivals/ports.js';
import type { CollectStatus, LiveStatus } from '../../src/collections/runs.js';
import { approvalPages } from '../../src/config.js';
import type { HomeOutcome } from '../../src/home/home.js';
import type { DetailsOrigin, DetailsState } from '../../src/parse/details.js';
import { buildDigest } from '../../src/reminders/digest.js';
import { renderApprovalsPage } from '../../src/render/approvals.js';
import { renderArrivals } from '../../src/render/arrivals.js';
import type { Message } from '../../src/render/blocks.js';
import {
  renderCollectConfirmation,
  renderCollectFailedDm,
  renderCollectStatus,
  renderConfirmationClosed,
  renderCooldown,
  renderHistory,
  renderLeftOut,
  renderNoCollectorMatched,
  renderRanAgain,
} from '../../src/render/collect.js';
import { detailsFailureView, detailsLoadingView, renderDetailsView } from '../../src/render/details.js';
import { renderInvalid, translateFailure } from '../../src/render/errors.js';
import { renderHome } from '../../src/render/home.js';
import { linkModal, linkProblem } from '../../src/render/link.js';
import { renderDigest } from '../../src/render/reminders.js';
import { messageProblems, viewProblems } from '../../src/render/validate.js';
import {
  ConflictError,
  InvalidParameterError,
  LoginFailedError,
  MissingParameterError,
  NoEligibleCollectorsError,
  NotFoundError,
  NotOfferedError,
  NotVisibleError,
} from '../../src/service/errors.js';
import type { CollectQuery } from '../../src/service/query.js';
import type { Approval, ApprovalDetails, RequestItem } from '../../src/service/schemas.js';
import type { AttemptReason, CollectAttempt, WatchedRun } from '../../src/store/types.js';
import { timeFrame } from '../../src/time/frame.js';
import { mrkdwnTexts } from '../helpers/visible.js';

/** Marks every generated string, so that it can be recognised wherever it ends up. */
const MARK = 'Ⓢ';
/** Noon UTC on Sunday 22 November 2026, read in UTC; the service's zone not given, so its times are shown as written. */
const FRAME = timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined);
const AT = new Date('2026-11-22T10:00:00Z');
const RUNS = { numRuns: 150, seed: 20261122 };

const hostile = fc
  .oneof(
    {
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '<!channel>',
        '<!here|here>',
        '@here',
        '@channel',
        '#general',
        '<#C0123|general>',
        '<@U0123>',
        '*bold* _italic_ ~strike~ `code`',
        '```block```',
        '> quoted',
        'https://evil.example/login?next=1',
        '<https://evil.example|click me>',
        '&amp; &lt; &gt; & < >',
        ':smile: :tada:',
        'line\nbreak\r\ttab',
        '\u0085\u009b\u202e\u2066',
        'Add Access for Smith, John',
      ),
      weight: 4,
    },
    { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 4 },
    // Enormous values are rarer: each one is expensive to render, and a few show what they show.
    { arbitrary: fc.string({ minLength: 3000, maxLength: 6000 }), weight: 1 },
  )
  .map((s) => `${MARK}${s}`);

const timestamp = fc.oneof(fc.constantFrom('2026-11-20 09:00:00.0', '2026-11-22 10:00:00.0', '2026-12-24 17:30:00.0', ''), hostile);

const approval = fc.record<Approval>({
  workItemId: hostile,
  workItemName: hostile,
  requestName: hostile,
  dueDate: timestamp,
  completedDate: fc.oneof(fc.constant(''), timestamp),
  fields: fc.record({ RequestedByName: hostile }),
});

const flag = fc.constantFrom(true, false, undefined);

const details = fc.record<ApprovalDetails>({
  workItemId: hostile,
  workItemName: hostile,
  state: hostile,
  dueDate: timestamp,
  completedDate: fc.oneof(fc.constant(''), timestamp),
  completedByName: hostile,
  reassignDisabled: flag,
  requestId: hostile,
  requestName: hostile,
  requestedByName: hostile,
  description: hostile,
  notes: hostile,
  hasAttachments: flag,
  emailApprovalEnabled: flag,
  lineItemApprovalEnabled: flag,
  actions: fc.array(hostile, { maxLength: 25 }),
  fields: fc.constant({}),
});

const requestItem = fc.record<RequestItem>({
  itemId: hostile,
  typeDescription: hostile,
  operation: fc.oneof(fc.constantFrom('Add', 'Remove', 'Create', 'Modify', 'Grant', ''), hostile),
  entitlementType: hostile,
  entitlementName: hostile,
  businessSource: hostile,
  state: hostile,
  description: hostile,
  derivedType: hostile,
  isChangeToApprove: flag,
  userName: hostile,
  userId: hostile,
  accountName: hostile,
  fields: fc.constant({}),
});

/** A page of items as any service might answer it: the page asked for, an empty one, or everything at once (500 items). */
const itemsPage = fc.oneof({ arbitrary: fc.array(requestItem, { maxLength: 12 }), weight: 6 }, { arbitrary: fc.constant(null), weight: 1 });

const approvalQuery = fc.record(
  { 'page-size': fc.integer({ min: 1, max: 100 }), 'entitlement-name': hostile.map((s) => s.slice(0, 256)) },
  { requiredKeys: [] },
);

const origin = fc.oneof(
  fc.record<DetailsOrigin & { kind: 'page' }>(
    { kind: fc.constant('page'), owner: fc.constant('U0ADA'), query: approvalQuery },
    { requiredKeys: ['kind'] },
  ),
  fc.constantFrom<DetailsOrigin>({ kind: 'home' }, { kind: 'digest' }, { kind: 'typed' }),
);

const detailsState = fc.record<DetailsState>(
  {
    approvalId: fc.constantFrom('10001:WPDS:1', `99999999999999:${'W'.repeat(64)}:9999999999`),
    origin,
    page: fc.integer({ min: 1, max: 10_000 }),
    responseUrl: fc.constantFrom(undefined, 'https://hooks.slack.com/actions/T1/1/abc', `https://hooks.slack.com/${'r'.repeat(1000)}`),
  },
  { requiredKeys: ['approvalId', 'origin', 'page'] },
);

/** Every outcome the modal can show; the items as above, sometimes 500 of them in one answer. */
const detailsOutcome = fc.oneof(
  fc
    .tuple(details, itemsPage, fc.integer({ min: 1, max: 60 }), fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }))
    .map(([d, items, page, total]): DetailsOutcome => {
      const list =
        items ?? Array.from({ length: 500 }, (_, i): RequestItem => ({ ...fakeItem, itemId: String(i), description: 'x'.repeat(i % 300) }));
      const answer = {
        items: list,
        received: list.length,
        count: total ?? list.length,
        total,
        workItemId: '',
        requestId: '',
        requestStatus: '',
      };
      return { kind: 'details', details: d, items: { kind: 'page', page, pageSize: 10, items: answer } };
    }),
  details.map((d): DetailsOutcome => ({ kind: 'details', details: d, items: { kind: 'not-offered' } })),
  details.map((d): DetailsOutcome => ({ kind: 'details', details: d, items: { kind: 'not-permitted' } })),
  details.map((d): DetailsOutcome => ({ kind: 'details', details: d, items: { kind: 'failed', error: new Error('x') } })),
  fc.constantFrom<DetailsOutcome>({ kind: 'not-visible' }, { kind: 'not-offered' }, { kind: 'not-linked' }),
);

const fakeItem: RequestItem = {
  itemId: '1',
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
  userId: 'bwayne',
  accountName: 'bwayne',
  fields: {},
};

const query = fc.record<CollectQuery>({ name: hostile, application: hostile, force: fc.boolean() }, { requiredKeys: [] });

const run = fc.record<WatchedRun>({
  runId: hostile,
  collector: fc.option(hostile, { nil: undefined }),
  state: fc.constantFrom(undefined, 'New', 'Running', 'Completed', 'Aborted', 'Unknown'),
});

const live = fc.oneof(
  fc.constant<LiveStatus>({ kind: 'watching', checkedAt: AT }),
  fc.constant<LiveStatus>({ kind: 'finished' }),
  hostile.map((why): LiveStatus => ({ kind: 'unavailable', why })),
  fc.constant<LiveStatus>({ kind: 'timeout', limitMs: 6 * 3_600_000 }),
  fc.constantFrom<LiveStatus>({ kind: 'off', reason: 'unlinked' }, { kind: 'off', reason: 'not-in-channel' }),
);

const reason = fc.oneof(
  hostile.map((text): AttemptReason => ({ kind: 'other', text })),
  fc.record({ kind: fc.constant('service' as const), error: hostile, message: hostile }),
  fc.record({ kind: fc.constant('channel' as const), allowedChannels: fc.array(hostile, { maxLength: 3 }) }),
  fc.constant<AttemptReason>({ kind: 'cooldown', userId: 'U0OSCAR', at: AT, offered: true }),
);

const attempt = fc.record<CollectAttempt>({
  id: fc.constant('a1'),
  at: fc.constant(AT),
  lastAt: fc.constant(AT),
  teamId: fc.constant('T1'),
  channelId: fc.constant('C0OPS'),
  userId: fc.constant('U0ADA'),
  query,
  outcome: fc.constantFrom('started', 'nothing-matched', 'refused', 'failed', 'cancelled', 'unanswered', 'confirmed', 'sent'),
  reason: fc.option(reason, { nil: undefined }),
  leftOut: fc.array(hostile, { maxLength: 3 }),
  ranAgain: fc.array(hostile, { maxLength: 3 }),
  runs: fc.array(run, { maxLength: 8 }),
  steps: fc.constant([]),
});

/** Where Slack reads markup there is no generated text; the notification escapes it; Slack would take the payload. */
function expectSafeMessage(m: Message): void {
  expect(messageProblems(m)).toEqual([]);
  expect(mrkdwnTexts(m.blocks).join('\n')).not.toContain(MARK);
  // The only '<' left in a notification are our own mentions and dates.
  expect(m.text).not.toMatch(/<(?!@[UW][A-Z0-9]+>|#[CG][A-Z0-9]+>|!date\^\d+\^|!subteam\^S[A-Z0-9]+>)/);
}

function expectSafeView(view: unknown): void {
  expect(viewProblems(view)).toEqual([]);
  expect(mrkdwnTexts((view as { blocks: unknown[] }).blocks).join('\n')).not.toContain(MARK);
}

const links = approvalPages('https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}');

describe('every message, modal and Home view, over generated service data', () => {
  it('an /approvals page of any size, with and without Open buttons', () => {
    fc.assert(
      fc.property(
        fc.array(approval, { maxLength: 100 }),
        fc.boolean(),
        fc.boolean(),
        hostile,
        (approvals, withLinks, withDetails, filter) => {
          const m = renderApprovalsPage({
            query: { 'page-size': Math.max(1, approvals.length), 'entitlement-name': filter.slice(0, 256) },
            approvals,
            userId: 'U0ADA',
            frame: FRAME,
            approvalLinks: withLinks ? links : undefined,
            details: withDetails,
          });
          expectSafeMessage(m);
        },
      ),
      RUNS,
    );
  });

  it('an arrival message: any approvals, waiting with any actions, decided or gone, with more and after quiet hours', () => {
    const entry = fc.record<ArrivalEntry>({
      approval: fc.record({
        approvalId: fc.oneof(fc.constantFrom('10001:WPDS:1', `99999999999999:${'W'.repeat(64)}:9999999999`), hostile),
        workItemName: hostile,
        requestName: hostile,
        requestedBy: fc.oneof(fc.constant(''), hostile),
        dueDate: timestamp,
      }),
      state: fc.oneof(
        fc.record({ kind: fc.constant('waiting' as const), actions: fc.array(hostile, { maxLength: 25 }) }),
        fc.record({ kind: fc.constant('decided' as const), action: hostile, by: fc.constantFrom('U0ADA', 'U0EVE'), at: fc.constant(AT) }),
        fc.record({ kind: fc.constant('gone' as const), at: fc.constant(AT) }),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.boolean(),
        fc.boolean(),
        (entries, more, afterQuiet, withLinks) => {
          const m = renderArrivals(
            { userId: 'U0ADA', entries, more, afterQuiet },
            { frame: FRAME, details: true, decisions: true, approvalLinks: withLinks ? links : undefined },
          );
          expectSafeMessage(m);
        },
      ),
      RUNS,
    );
  });

  it('a digest and the Home tab', () => {
    fc.assert(
      fc.property(fc.array(approval, { maxLength: 100 }), fc.integer({ min: 1, max: 12 }), (approvals, page) => {
        const schedule = { days: 'weekdays' as const, minuteOfDay: 540, timeZone: 'Europe/London' };
        // Half of them with the service's zone known: times converted, and named.
        const frame = page % 2 === 0 ? FRAME : timeFrame(FRAME.now, 'Asia/Kolkata', 'America/New_York');
        const groups = groupByDue(approvals, frame, 3, approvals.length === 100 ? 'overdue' : undefined);
        const digest = buildDigest({
          groups,
          frame,
          windowDays: 3,
          schedule,
          fullList: { userId: 'U0ADA', query: {} },
        });
        if (digest) expectSafeMessage(renderDigest(digest, links, page % 2 === 0));
        const link = {
          teamId: 'T1',
          userId: 'U0ADA',
          linkedAt: AT,
          source: 'login' as const,
          lastUsedAt: undefined,
          lastOutcome: undefined,
        };
        const outcome: HomeOutcome = { links: [{ ...link, command: 'findApprovals' }], approvals: groups };
        expectSafeView(
          renderHome({
            outcome,
            frame,
            windowDays: 3,
            commands: ['findApprovals', 'collectEntitlements'],
            approvalLinks: links,
            details: page % 3 !== 0,
          }),
        );
      }),
      RUNS,
    );
  });

  it('the details modal in every state, any page of items (500 in one answer too), with and without Open', () => {
    fc.assert(
      fc.property(detailsOutcome, detailsState, fc.boolean(), fc.constantFrom('U0ADA', 'U0EVE'), (outcome, state, withLinks, reader) => {
        expectSafeView(detailsLoadingView(state));
        if (outcome.kind === 'failed') return;
        const view = renderDetailsView({ outcome, state, userId: reader, frame: FRAME, approvalLinks: withLinks ? links : undefined });
        expectSafeView(view);
        // A modal's metadata carries the state back, within Slack's limit whatever the query.
        expect((view.private_metadata ?? '').length).toBeLessThanOrEqual(3000);
      }),
      { ...RUNS, numRuns: 120 },
    );
  });

  it('the details modal when the service fails, in the translator’s words', () => {
    fc.assert(
      fc.property(hostile, detailsState, (said, state) => {
        const details = { command: 'getApprovalDetails', status: 412, serviceMessage: said, queryString: said };
        const ctx = { slash: '/approvals' as const, command: 'findApprovals' as const, userId: 'U0ADA', reference: 'ref-1', relink: '{}' };
        for (const error of [
          new NotVisibleError(details),
          new NotOfferedError(details),
          new InvalidParameterError('approval-id', details),
        ]) {
          const message = translateFailure(error, ctx).message;
          expectSafeMessage(message);
          expectSafeView(detailsFailureView(state, message, { relink: true, retry: true }));
        }
      }),
      RUNS,
    );
  });

  it('a collection: the confirmation, the channel message as it goes, the DM, the cooldown, history', () => {
    fc.assert(
      fc.property(
        query,
        fc.array(run, { minLength: 1, maxLength: 60 }),
        live,
        fc.array(attempt, { maxLength: 50 }),
        (q, runs, l, attempts) => {
          expectSafeMessage(renderCollectConfirmation(q, ['all-collectors', 'force'], 'confirmation-id-1'));
          const status: CollectStatus = { userId: 'U0ADA', query: q, runs, startedAt: AT, now: new Date(AT.getTime() + 90_000), live: l };
          expectSafeMessage(renderCollectStatus(status));
          expectSafeMessage(renderCollectFailedDm({ channelId: 'C0OPS', query: q, runs }));
          const holder = { userId: 'U0OSCAR', channelId: 'C0OPS', at: AT, attemptId: 'a0' };
          const held = [{ collector: runs[0]?.collector, holder }, ...runs.slice(1, 4).map((r) => ({ collector: r.runId, holder }))];
          expectSafeMessage(renderCooldown({ query: q, held: held.slice(0, 1), cooldownMs: 600_000, overrideId: 'override-id-1' }));
          expectSafeMessage(renderCooldown({ query: q, held, cooldownMs: 600_000, overrideId: undefined }));
          expectSafeMessage(renderLeftOut(held, 600_000));
          expectSafeMessage(renderRanAgain(held, q));
          expectSafeMessage(renderCooldown({ query: q, held, cooldownMs: 600_000, overrideId: undefined, unknownRest: true }));
          expectSafeMessage(renderNoCollectorMatched({ query: q, known: runs.map((r) => r.runId), meant: runs[0]?.collector }));
          expectSafeMessage(renderConfirmationClosed('starting', q));
          expectSafeMessage(renderHistory(attempts, 50));
        },
      ),
      RUNS,
    );
  });

  it('what the service said, and what the user typed, in errors and in the sign-in modal', () => {
    const ctx = { slash: '/collect' as const, command: 'collectEntitlements' as const, userId: 'U0ADA', reference: 'ref-1' };
    fc.assert(
      fc.property(hostile, hostile, (said, typed) => {
        const details = { command: 'collectEntitlements', status: 412, serviceMessage: said, queryString: said };
        for (const error of [
          new InvalidParameterError('x', details),
          new MissingParameterError('auth-user-id', details),
          new NoEligibleCollectorsError(said, details),
          new ConflictError(details),
          new NotFoundError(details),
        ])
          expectSafeMessage(translateFailure(error, ctx).message);
        expectSafeMessage(renderInvalid({ kind: 'invalid', problem: typed, example: typed, suggestion: typed }, '/approvals'));
        const problem = linkProblem(new LoginFailedError({ command: 'loginUser', status: 401, serviceMessage: said }));
        expectSafeView(linkModal({ command: 'findApprovals' }, problem));
      }),
      RUNS,
    );
  });
});

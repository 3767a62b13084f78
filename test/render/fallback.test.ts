/**
 * Every message's fallback text (what notifications, screen readers and the desktop badge show)
 * says what its blocks say, in plain words: no emoji codes, no markup, nothing escaped twice, and
 * no word the blocks do not also show (a count the page does not bear out, "No all approvals").
 */

import { describe, expect, it } from 'vitest';
import { groupByDue } from '../../src/approvals/due.js';
import { buildDigest } from '../../src/reminders/digest.js';
import { renderApprovalsPage } from '../../src/render/approvals.js';
import type { Message } from '../../src/render/blocks.js';
import {
  renderCollectConfirmation,
  renderCollectFailedDm,
  renderCollectRefused,
  renderCollectStatus,
  renderConfirmationClosed,
  renderCooldown,
  renderHistory,
  renderLeftOut,
  renderNoCollectorMatched,
  renderRanAgain,
} from '../../src/render/collect.js';
import { renderInvalid, renderNotLinked, renderNotYours, renderUnreadableButton, translateFailure } from '../../src/render/errors.js';
import { renderApprovalsHelp, renderCollectHelp } from '../../src/render/help.js';
import { renderLoggedOut, renderWhoami } from '../../src/render/link.js';
import {
  renderDigest,
  renderReminderOff,
  renderReminderRelink,
  renderReminderSet,
  renderReminderShow,
} from '../../src/render/reminders.js';
import { LinkOutdatedError, RefusedForUserError } from '../../src/service/credentials.js';
import {
  AppSignInError,
  ConflictError,
  InvalidTokenError,
  MissingParameterError,
  NoEligibleCollectorsError,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from '../../src/service/errors.js';
import type { Approval } from '../../src/service/schemas.js';
import { timeFrame } from '../../src/time/frame.js';
import { attemptOf } from '../helpers/attempts.js';
import { visible } from '../helpers/visible.js';

/** Noon UTC on Sunday 22 November 2026, read in UTC; the service's zone not given, so its times are shown as written. */
const FRAME = timeFrame(new Date('2026-11-22T12:00:00Z'), 'UTC', undefined);
const AT = new Date('2026-11-22T10:00:00Z');
const approval = (i: number, due = '2026-11-24 10:00:00.0'): Approval => ({
  workItemId: `${1000 + i}:WPDS:1`,
  workItemName: 'Manager Approval',
  requestName: `Add Access for Turing ${i}`,
  dueDate: due,
  completedDate: '',
  fields: {},
});
const holder = { userId: 'U0OSCAR', channelId: 'C0OPS', at: AT, attemptId: 'a0' };
const ctx = { slash: '/approvals' as const, command: 'findApprovals' as const, userId: 'U0ADA', reference: 'ref-1' };
const schedule = { days: 'weekdays' as const, minuteOfDay: 540, timeZone: 'Europe/London' };
const link = { teamId: 'T1', userId: 'U0ADA', linkedAt: AT, source: 'login' as const, lastUsedAt: AT, lastOutcome: 'ok' as const };

/** The words a person reads: mentions and dates as Slack shows them, entities decoded. */
function words(text: string): string[] {
  return text
    .replace(/<!date\^\d+\^[^|]*\|([^>]*)>/g, '$1')
    .replace(/<@([A-Z0-9]+)>/g, '$1')
    .replace(/<#([A-Z0-9]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3);
}

/** Words a notification may use to sum up what the blocks list (a count is only ever what the blocks show). */
const SUMMING_UP = new Set(['shown', 'more', 'next', 'page', 'need', 'needs', 'you', 'the', 'and', 'use', 'how', 'confirm', 'start']);

function expectSaysWhatBlocksSay(m: Message): void {
  expect(m.text.trim()).not.toBe('');
  expect(m.text).not.toMatch(/:[a-z0-9_+-]+:/);
  expect(m.text).not.toMatch(/[*`]|(^|\s)_\w/);
  expect(m.text).not.toMatch(/&amp;(lt|gt|amp);/);
  const shown = new Set(words(visible(m.blocks)));
  const extra = words(m.text).filter((w) => !shown.has(w) && !SUMMING_UP.has(w));
  expect(extra, `fallback says ${JSON.stringify(m.text)}`).toEqual([]);
}

const cases: Array<[string, Message]> = [
  [
    'a page of approvals',
    renderApprovalsPage({ query: { 'page-size': 2 }, approvals: [approval(1), approval(2)], userId: 'U0ADA', frame: FRAME }),
  ],
  ['an empty page', renderApprovalsPage({ query: {}, approvals: [], userId: 'U0ADA', frame: FRAME })],
  ['a page past the end', renderApprovalsPage({ query: { state: 'all', 'start-page': 4 }, approvals: [], userId: 'U0ADA', frame: FRAME })],
  ['a filtered page', renderApprovalsPage({ query: { 'entitlement-name': 'VPN Users' }, approvals: [], userId: 'U0ADA', frame: FRAME })],
  [
    'a digest',
    renderDigest(
      buildDigest({
        groups: groupByDue([approval(1, '2026-11-20 09:00:00.0'), approval(2, '2026-11-22 09:00:00.0')], FRAME, 3),
        frame: FRAME,
        windowDays: 3,
        schedule,
        fullList: { userId: 'U0ADA', query: {} },
      }) ?? (undefined as never),
      undefined,
    ),
  ],
  ['a confirmation', renderCollectConfirmation({ force: true }, ['all-collectors', 'force'], 'confirmation-1')],
  [
    'a collection',
    renderCollectStatus({
      userId: 'U0OSCAR',
      query: { name: 'AD Accounts' },
      runs: [{ runId: '7', collector: 'AD Accounts', state: 'Completed' }],
      startedAt: AT,
      now: AT,
      live: { kind: 'finished' },
    }),
  ],
  [
    'an aborted collection',
    renderCollectFailedDm({ channelId: 'C0OPS', query: {}, runs: [{ runId: '9', collector: 'AWS IAM', state: 'Aborted' }] }),
  ],
  ['a refusal by channel', renderCollectRefused({ kind: 'channel', allowedChannels: ['C0OPS'] })],
  ['a refusal by user', renderCollectRefused({ kind: 'user', allowedUsers: ['U0OSCAR'], allowedUserGroups: ['S0OPS'] })],
  ['a refusal to force', renderCollectRefused({ kind: 'force', forceAllowedUsers: ['U0OSCAR'] })],
  [
    'a cooldown',
    renderCooldown({ query: { name: 'AD Accounts' }, held: [{ collector: 'AD Accounts', holder }], cooldownMs: 600_000, overrideId: 'o1' }),
  ],
  ['collectors left out', renderLeftOut([{ collector: 'AD Accounts', holder }], 600_000)],
  ['collectors started again', renderRanAgain([{ collector: 'AD Accounts', holder }], { application: 'Active Directory' })],
  [
    'a cooldown on part of a target whose rest is not known',
    renderCooldown({
      query: { application: 'Active Directory' },
      held: [{ collector: 'AD Accounts', holder }],
      cooldownMs: 600_000,
      overrideId: 'o1',
      unknownRest: true,
    }),
  ],
  [
    'history',
    renderHistory(
      [
        {
          ...attemptOf({ id: 'a', at: AT }),
          outcome: 'cancelled',
          reason: { kind: 'cancelled' },
        },
      ],
      10,
    ),
  ],
  ['no collector', renderNoCollectorMatched({ query: { name: 'Nope' }, known: ['AD Accounts'], meant: undefined })],
  [
    'no collector, force misspelt',
    renderNoCollectorMatched({
      query: { name: 'AD Accounts forse' },
      known: ['AD Accounts'],
      meant: undefined,
      retry: '/collect AD Accounts force',
    }),
  ],
  ['starting', renderConfirmationClosed('starting', { name: 'AD Accounts' })],
  [
    'invalid input',
    renderInvalid(
      { kind: 'invalid', problem: 'I don’t understand “<!channel>”.', example: '/approvals pending', suggestion: 'pending' },
      '/approvals',
    ),
  ],
  ['not linked', renderNotLinked(ctx)],
  ['not yours', renderNotYours('U0ADA', 'page')],
  ['an old button', renderUnreadableButton('/approvals')],
  ['help for /approvals', renderApprovalsHelp()],
  ['help for /collect', renderCollectHelp()],
  [
    'whoami with tokens',
    renderWhoami('U0ADA', { mode: 'user-tokens', identity: undefined, tokens: [{ ...link, command: 'findApprovals' }] }, [
      'findApprovals',
      'collectEntitlements',
    ]),
  ],
  [
    'whoami as a trusted app',
    renderWhoami(
      'U0ADA',
      {
        mode: 'trusted-app',
        identity: { serviceUser: 'ada', authsource: 'Corp <AD>', source: 'login', linkedAt: AT, lastUsedAt: AT, lastOutcome: 'ok' },
        tokens: [],
      },
      ['findApprovals', 'collectEntitlements'],
    ),
  ],
  ['logout as a trusted app', renderLoggedOut({ removed: 0, endedAtService: 0, identities: 1 })],
  ['not linked as a trusted app', renderNotLinked({ ...ctx, linkMode: 'trusted-app' })],
  ['logout', renderLoggedOut({ removed: 2, endedAtService: 1 })],
  ['a reminder set', renderReminderSet({ kind: 'set', schedule, nextAt: AT, windowDays: 3, zoneGuessed: false, notLinked: false })],
  ['a reminder shown', renderReminderShow({ kind: 'shown', reminder: undefined, windowDays: 3 })],
  ['a reminder stopped', renderReminderOff(true)],
  ['a reminder that needs a link', renderReminderRelink('expired')],
  ...[
    new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' }),
    new MissingParameterError('auth-user-id', {
      command: 'findApprovals',
      status: 412,
      serviceMessage: 'The parameter auth-user-id is required.',
    }),
    new NoEligibleCollectorsError('X', {
      command: 'collectEntitlements',
      status: 404,
      serviceMessage: 'No eligible collectors found for the application X',
    }),
    new ConflictError({ command: 'collectEntitlements', status: 409, serviceMessage: 'already in the queue' }),
    new ServiceUnavailableError('timeout', 't', { command: 'findApprovals' }),
    new UnexpectedResponseError('x', { command: 'findApprovals', status: 200 }),
    new LinkOutdatedError(new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: 'Token is invalid or expired' })),
    new RefusedForUserError(
      new InvalidTokenError({ command: 'findApprovals', status: 401, serviceMessage: "The user 'ada' could not be found." }),
      'ada',
    ),
    new AppSignInError({ command: 'loginTrustedApp', status: 401, serviceMessage: 'Invalid client credentials' }),
    new Error('bug'),
  ].map((e): [string, Message] => [
    `a failure: ${e.name}`,
    translateFailure(e, {
      ...ctx,
      linkMode: e instanceof InvalidTokenError && e.name !== 'InvalidTokenError' ? 'trusted-app' : 'user-tokens',
    }).message,
  ]),
];

describe('fallback text', () => {
  for (const [name, message] of cases) it(`says what the blocks say: ${name}`, () => expectSaysWhatBlocksSay(message));
});

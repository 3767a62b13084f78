/**
 * The App Home tab: the user's pending approvals by how they stand (overdue, due today, due soon,
 * later: each group counted, with its first approvals and the command that lists the rest), what
 * they have linked, and a button to link. Within the 100 blocks a Home view may hold.
 */

import type { HomeView, KnownBlock } from '@slack/types';
import type { DueGroups } from '../approvals/due.js';
import type { HomeOutcome } from '../home/home.js';
import { isServiceError } from '../service/errors.js';
import type { Approval } from '../service/schemas.js';
import type { ServiceCommandName } from '../store/types.js';
import { DUE_GROUPS, type DueGroup, type TimeFrame } from '../time/frame.js';
import { readableInstant } from '../time/write.js';
import { type ApprovalLinks, approvalBlocks } from './approvals.js';
import { describeQuietHours } from './arrivals.js';
import { actions, button, context, header, type Message, section } from './blocks.js';
import { commandPurpose, permittedWords } from './commands.js';
import type { DecidedMark } from './decision.js';
import { countText, groupBlocks, groupsFor, groupWords } from './due.js';
import { accountRuns, RELINK_ACTION } from './link.js';
import { describeSchedule } from './reminders.js';
import { oneLine, type Paragraph, code as richCode, richText } from './rich.js';

/** When a link was made, as whoami writes it: the product's one form, in the reader's zone. */
const linkedOn = (at: Date, frame: TimeFrame) => `on ${readableInstant(at, frame.zone)}`;

/** next and previous are no longer offered; views published before still carry them, and they refresh. */
export const HOME_ACTIONS = {
  refresh: 'home:refresh',
  next: 'home:next',
  previous: 'home:previous',
  unlink: 'home:unlink',
  /** The arrival messages' switch: its value is what it switches them to, `on` or `off`. */
  notify: 'home:notify',
} as const;
/** Approvals Home shows, all groups together: 40 blocks at most, well within a view's 100 with the rest. */
export const HOME_MAX_ENTRIES = 20;
/** The value of Home's link buttons: the tab is published again once the user has linked. */
export const HOME_LINK_VALUE = '{"home":true}';

export interface HomeInput {
  outcome: HomeOutcome;
  /** The reader's zone and now, with the service's zone: times in theirs, and "overdue" by the clock. */
  frame: TimeFrame;
  /** Days that count as soon (REMIND_WINDOW, as the digest counts them). */
  windowDays: number;
  commands: readonly ServiceCommandName[];
  /** Why the approvals could not be shown: the error translator's message. */
  problem?: Message | undefined;
  approvalLinks?: ApprovalLinks | undefined;
  /** Details controls: while the service offers getApprovalDetails. */
  details?: boolean | undefined;
  /** Approvals decided from chat, by id, and the reader's Slack id: their rows say so, with no buttons. */
  decided?: { marks: ReadonlyMap<string, DecidedMark>; readerId: string } | undefined;
  /** Decided from Home a moment ago, and no longer waiting: shown first, as decided. */
  justDecided?: readonly Approval[] | undefined;
}

/** The groups without the approvals decided from chat: they no longer wait, whatever the service's list says yet. */
function undecided(groups: DueGroups, decided: HomeInput['decided']): DueGroups {
  if (decided === undefined || decided.marks.size === 0) return groups;
  const keep = (g: DueGroup) => ({ ...groups[g], approvals: groups[g].approvals.filter((a) => !decided.marks.has(a.workItemId)) });
  return { overdue: keep('overdue'), today: keep('today'), soon: keep('soon'), later: keep('later') };
}

function justDecidedBlocks(input: HomeInput): KnownBlock[] {
  const decided = input.decided;
  if (decided === undefined) return [];
  return (input.justDecided ?? []).flatMap((approval) => {
    const mark = decided.marks.get(approval.workItemId);
    return mark === undefined
      ? []
      : approvalBlocks(approval, input.frame, input.approvalLinks, undefined, { mark, readerId: decided.readerId });
  });
}

function approvalsBlocks(listed: DueGroups, input: HomeInput): KnownBlock[] {
  const groups = undecided(listed, input.decided);
  const total = DUE_GROUPS.reduce((n, g) => n + groups[g].approvals.length, 0);
  const more = DUE_GROUPS.some((g) => groups[g].more);
  const order = groupsFor(DUE_GROUPS, input.windowDays, input.frame);
  const counts = order.map((g) => {
    const n = countText(groups[g].approvals.length, groups[g].more);
    return g === 'overdue' ? `:red_circle: *${n} overdue*` : `${n} ${groupWords(g, input.frame, input.windowDays).phrase}`;
  });
  const blocks: KnownBlock[] = [
    section(total === 0 && !more ? '*Nothing waits for you.* :tada:' : [`*${countText(total, more)} pending*`, ...counts].join(' · ')),
    // Decided from Home a moment ago: first, as decided, with nothing offered on it again.
    ...justDecidedBlocks(input),
    ...groupBlocks({
      groups,
      order,
      room: HOME_MAX_ENTRIES,
      frame: input.frame,
      windowDays: input.windowDays,
      links: input.approvalLinks,
      details: input.details === true ? { kind: 'home' } : undefined,
    }),
    actions('home:approvals', [button({ actionId: HOME_ACTIONS.refresh, text: 'Refresh', value: '1' })]),
  ];
  if (total > 0) blocks.push(context('Type `/approvals` for filters and completed approvals.'));
  return blocks;
}

function describeReminder(reminder: NonNullable<HomeOutcome['reminder']>): string {
  const { reminder: r, paused } = reminder;
  return `${describeSchedule(r)} · ${paused ? 'paused until you link again' : `next ${readableInstant(r.nextAt, r.timeZone)}`} · \`/approvals remind off\` stops it`;
}

/** The account section's lines: how calls are made for the reader, and what is linked. Names shown exactly. */
function accountLines(outcome: HomeOutcome, commands: readonly ServiceCommandName[], frame: TimeFrame): Paragraph[] {
  const { links, identity } = outcome;
  const tokenLines = commands.map((c): Paragraph => {
    const link = links.find((l) => l.command === c);
    if (!link) return ['• ', commandPurpose(c), ': not linked'];
    const refused: Paragraph =
      link.lastOutcome === 'rejected' ? [' · ', { text: 'the service refused it last time: link again', style: { bold: true } }] : [];
    return ['• ', commandPurpose(c), ': linked', ...accountRuns(link.account), ' ', linkedOn(link.linkedAt, frame), ...refused];
  });
  if (outcome.mode !== 'trusted-app')
    return [...tokenLines, ['countersign calls the Command Service with your own token, which the service makes expire after a while.']];
  if (identity === undefined)
    return [
      ...tokenLines,
      [
        'A token from before: countersign uses it until it expires, then asks you to sign in once more, and not again (it now acts for you as an application the service trusts).',
      ],
    ];
  return [
    [
      '• Linked as ',
      richCode(oneLine(identity.serviceUser, 100)),
      ...(identity.authsource ? [` (${oneLine(identity.authsource, 100)})`] : []),
      ' since ',
      readableInstant(identity.linkedAt, frame.zone),
      ...(identity.lastOutcome === 'rejected'
        ? [' · ', { text: 'the service refused to act for you last time', style: { bold: true as const } }]
        : identity.lastOutcome === 'not-permitted'
          ? [` · the service does not let you ${permittedWords(identity.notPermitted)} (an administrator of the service grants it)`]
          : []),
    ],
    ['countersign acts for you as an application the Command Service trusts, naming you as this user: the link does not expire.'],
  ];
}

/** "a", "a and b", "a, b and c". */
function listed(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * What Unlink's dialog says goes, link by link as Home shows them: a sign-in (whose session at the
 * service ends), a pasted token, a token or an identity an admin linked (for every workspace too):
 * Unlink forgets every link that acts for the user here, and the dialog must not say less. Plain
 * text, as Slack's dialog shows it; names in quotes.
 */
export function unlinkText(outcome: Pick<HomeOutcome, 'links' | 'identity'>): string {
  const parts: string[] = [];
  const identity = outcome.identity;
  if (identity !== undefined)
    parts.push(
      `who you are in the Command Service (“${oneLine(identity.serviceUser, 60)}”${identity.source === 'admin' ? ', linked by an admin' : ''})`,
    );
  const bySource = (source: string) => outcome.links.filter((l) => l.source === source);
  const signIn = bySource('login');
  if (signIn.length > 0) {
    const account = signIn.find((l) => l.account !== undefined)?.account;
    parts.push(`your sign-in${account ? ` as “${oneLine(account.serviceUser, 60)}”` : ''} (its session at the service ends)`);
  }
  if (bySource('pasted').length > 0) parts.push('the token you pasted');
  const admin = bySource('admin');
  if (admin.length > 0) {
    const account = admin.find((l) => l.account !== undefined)?.account;
    const as = account ? ` as “${oneLine(account.serviceUser, 60)}”` : '';
    parts.push(`the token an admin linked for you${as}${admin.some((l) => l.teamId === '') ? ' in every workspace' : ''}`);
  }
  const what = parts.length > 0 ? listed(parts) : 'what it holds for you';
  return `countersign forgets ${what}, and acts for you no more until you link again. Your reminder pauses.`;
}

export function renderHome(input: HomeInput): HomeView {
  const { commands, outcome } = input;
  const { links, identity } = outcome;
  if (links.length === 0 && identity === undefined) return renderWelcome(outcome.mode === 'trusted-app');
  const approvals = outcome.approvals;
  const reminder = outcome.reminder ? describeReminder(outcome.reminder) : undefined;
  const linked = commands.filter((c) => links.some((l) => l.command === c));
  const needsLink =
    identity !== undefined
      ? // Only a refusal about the user: not the service refusing countersign's own sign-in, nor an outage.
        identity.lastOutcome === 'rejected' || (isServiceError(outcome.failure) && outcome.failure.kind === 'invalid-token')
      : linked.length < commands.length || links.some((l) => l.lastOutcome === 'rejected') || input.problem !== undefined;
  const trusted = outcome.mode === 'trusted-app';
  // A trusted-mode link that works does not expire: offering to link again would only puzzle.
  const offerLink = needsLink || !trusted || identity === undefined;
  const accountButtons = [
    ...(offerLink
      ? [
          button({
            actionId: RELINK_ACTION,
            text: 'Link again',
            value: HOME_LINK_VALUE,
            ...(needsLink ? { style: 'primary' as const } : {}),
          }),
        ]
      : []),
    button({
      actionId: HOME_ACTIONS.unlink,
      text: 'Unlink',
      value: 'unlink',
      style: 'danger',
      confirm: { title: 'Unlink your account?', text: unlinkText(outcome), confirm: 'Unlink', deny: 'Keep it' },
    }),
  ];
  return {
    type: 'home',
    blocks: [
      header('Your approvals'),
      ...(approvals ? approvalsBlocks(approvals, input) : []),
      ...(input.problem
        ? [...input.problem.blocks, actions('home:retry', [button({ actionId: HOME_ACTIONS.refresh, text: 'Refresh', value: '1' })])]
        : []),
      ...(!approvals && !input.problem ? [section('Link countersign for `findApprovals` to see your approvals here.')] : []),
      section(`*Reminders*\n${reminder ?? 'None. `/approvals remind daily 09:00` sends you a digest of what is overdue or due soon.'}`),
      ...(outcome.notify === undefined ? [] : notifyBlocks(outcome.notify, input.frame)),
      richText([[{ text: 'Your account', style: { bold: true } }], ...accountLines(outcome, commands, input.frame)]),
      actions('home:account', accountButtons),
      context(
        '`/approvals` lists, filters and pages your approvals (only you see them) · `/collect <collector>` starts account collectors in a channel · `/approvals help` and `/collect help` list every form.',
      ),
    ],
  };
}

/** The arrival messages' switch: what is set, the quiet hours in the reader's zone, and one button that turns it the other way. */
function notifyBlocks(notify: NonNullable<HomeOutcome['notify']>, frame: TimeFrame): KnownBlock[] {
  const quiet =
    notify.quiet === undefined
      ? 'No quiet hours (`/approvals notify quiet 19:00-08:00` sets them).'
      : `Quiet hours ${describeQuietHours(notify.quiet, frame.zone)}: what arrives then comes in one message when they end.`;
  const text = notify.enabled
    ? `*New approvals* :bell: On: a direct message when one arrives for you, with its buttons. ${quiet}`
    : '*New approvals* :no_bell: Off: no message when one arrives for you.';
  const toggle = notify.enabled
    ? button({ actionId: HOME_ACTIONS.notify, text: 'Turn off', value: 'off' })
    : button({ actionId: HOME_ACTIONS.notify, text: 'Turn on', value: 'on', style: 'primary' });
  return [section(text, toggle)];
}

/** Someone with nothing linked sees how to link, and nothing else. */
function renderWelcome(trusted: boolean): HomeView {
  return {
    type: 'home',
    blocks: [
      header('Welcome to countersign'),
      section(
        trusted
          ? 'countersign brings your identity-governance approvals into Slack: what waits for you, what is overdue, and a reminder when something is due. To start, sign in once with your usual Command Service username and password, so that it knows who you are; you will not be asked again.'
          : 'countersign brings your identity-governance approvals into Slack: what waits for you, what is overdue, and a reminder when something is due. To start, link your Slack account to the Command Service with your usual username and password (or a token).',
      ),
      actions('home:link', [button({ actionId: RELINK_ACTION, text: 'Link your account', value: HOME_LINK_VALUE, style: 'primary' })]),
      context(
        trusted
          ? 'You can also type `/approvals login` anywhere. Your password is used once to check who you are and is never stored.'
          : 'You can also type `/approvals login` anywhere. Your password is used once to get a token and is never stored.',
      ),
    ],
  };
}

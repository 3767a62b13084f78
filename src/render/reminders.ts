/**
 * Reminders for people: the answers to `/approvals remind …`, and the digest a reminder sends
 * (overdue, due today, due within the window: each group counted, with its first approvals),
 * within Slack's limits. Pure.
 */

import type { KnownBlock } from '@slack/types';
import { DIGEST_GROUPS, type Digest } from '../reminders/digest.js';
import type { RemindOutcome } from '../reminders/remind.js';
import type { ReminderSchedule } from '../reminders/schedule.js';
import type { RelinkReason } from '../reminders/scheduler.js';
import { formatMinuteOfDay, readableInstant } from '../time/write.js';
import { zoneLabel, zoneOrUtc } from '../time/zones.js';
import { type ApprovalLinks, encodePageState } from './approvals.js';
import { actions, button, code, context, fallback, header, type Message, section } from './blocks.js';
import { countText, groupBlocks, groupsFor, groupWords } from './due.js';
import { RELINK_ACTION } from './link.js';

export const DIGEST_ACTIONS = { fullList: 'digest:full-list' } as const;
/** Entries a digest shows, all groups together: enough to act on, short enough to read on a phone; 40 blocks at most with the rest. */
export const DIGEST_MAX_ENTRIES = 15;

/** "every weekday at 08:30 London time": the zone named as every time of the product names it. */
export function describeSchedule(s: Pick<ReminderSchedule, 'days' | 'minuteOfDay' | 'timeZone'>): string {
  return `${s.days === 'weekdays' ? 'every weekday' : 'every day'} at ${formatMinuteOfDay(s.minuteOfDay)} ${zoneLabel(zoneOrUtc(s.timeZone))}`;
}

/** The notification text: no emoji codes or markup, but underscores kept (America/New_York). */
function plain(mrkdwn: string): string {
  return fallback(mrkdwn.replace(/:[a-z0-9_+-]+:\s*/g, '').replace(/[*`]/g, ''));
}

function message(text: string, note?: string): Message {
  const blocks: KnownBlock[] = [section(text)];
  if (note) blocks.push(context(note));
  return { text: plain(text), blocks };
}

export function renderReminderSet(input: Extract<RemindOutcome, { kind: 'set' }>): Message {
  const lines = [
    `:alarm_clock: I'll send you a digest ${describeSchedule(input.schedule)} when approvals are overdue or due within ${input.windowDays} day${input.windowDays === 1 ? '' : 's'}. On days when nothing is due, I stay quiet.`,
    `Next: *${readableInstant(input.nextAt, input.schedule.timeZone)}*.`,
  ];
  if (input.zoneGuessed) lines.push(':warning: Slack did not tell me your time zone, so times are in UTC.');
  if (input.notLinked)
    lines.push(':link: Your account is not linked yet: type `/approvals login` so that the digest can see your approvals.');
  return message(lines.join('\n'), 'Change it with `/approvals remind weekdays 08:30`; stop with `/approvals remind off`.');
}

export function renderReminderShow({ reminder, windowDays }: Extract<RemindOutcome, { kind: 'shown' }>): Message {
  if (reminder === undefined) {
    return message(
      'You have no reminder. `/approvals remind daily 09:00` sends you a digest each morning of approvals that are overdue or due soon.',
    );
  }
  const lines = [
    `:alarm_clock: Your digest comes ${describeSchedule(reminder)}, listing approvals overdue or due within ${windowDays} day${windowDays === 1 ? '' : 's'}.`,
    reminder.paused
      ? ':pause_button: Paused until you link your account again (`/approvals login`).'
      : `Next: *${readableInstant(reminder.nextAt, reminder.timeZone)}*.`,
  ];
  return message(lines.join('\n'), 'Stop it with `/approvals remind off`.');
}

export function renderReminderOff(had: boolean): Message {
  return message(had ? 'Done: no more reminders. `/approvals remind daily 09:00` starts them again.' : 'You had no reminder to stop.');
}

/**
 * The digest a reminder sends: each group that has any (overdue, due today, due soon) with its
 * count and its first approvals, the DIGEST_MAX_ENTRIES shared out among them, and for the rest how
 * many and the command that lists them; within Slack's 50 blocks. `details` while the service offers them.
 */
export function renderDigest(input: Digest, links: ApprovalLinks | undefined, details = false): Message {
  const { groups, total } = input;
  const plus = input.more ? '+' : '';
  const order = groupsFor(DIGEST_GROUPS, input.windowDays, input.frame);
  const counts = order.map(
    (g) => `${countText(groups[g].approvals.length, groups[g].more)} ${groupWords(g, input.frame, input.windowDays).phrase}`,
  );
  const blocks: KnownBlock[] = [
    header(`${total}${plus} approval${total === 1 && !input.more ? '' : 's'} need${total === 1 && !input.more ? 's' : ''} you`),
    context(`${counts.join(' · ')} · your reminder ${describeSchedule(input.schedule)}`),
    ...groupBlocks({
      groups,
      order,
      room: DIGEST_MAX_ENTRIES,
      frame: input.frame,
      windowDays: input.windowDays,
      links,
      details: details ? { kind: 'digest' } : undefined,
    }),
  ];
  const fullList = encodePageState({ user: input.fullList.userId, query: input.fullList.query });
  if (fullList) {
    blocks.push(actions('digest:actions', [button({ actionId: DIGEST_ACTIONS.fullList, text: 'Open the full list', value: fullList })]));
  }
  blocks.push(context('`/approvals remind off` stops these; `/approvals remind weekdays 08:30` changes when they come.'));
  const summary = `${total}${plus} approval${total === 1 && !input.more ? '' : 's'} need${total === 1 && !input.more ? 's' : ''} you: ${counts.join(', ')}`;
  return { text: fallback(summary), blocks };
}

/** Sent once when a reminder finds the token refused or missing; then silence until the user links again. */
export function renderReminderRelink(reason: RelinkReason): Message {
  const text = {
    expired:
      ':hourglass: Your approvals reminder could not run: the Command Service no longer accepts your token (tokens expire after a while). Link again and reminders carry on; until then I will not send more.',
    'not-linked':
      ':link: Your approvals reminder could not run: your account is not linked to the Command Service. Link it and reminders carry on; until then I will not send more.',
    // The switch to the trusted mode: news, said once, with the one step it asks for.
    outdated:
      ':link: countersign now acts for you in a way that lasts: sign in once more with your Command Service username and password, and you will not be asked again. Your earlier link was a token, which has expired, so today’s reminder waits for you; until you link I will not send more.',
    refused:
      ':no_entry: Your approvals reminder could not run: the Command Service refused to act for your linked account. If you sign in to the service under another name now, link again; otherwise ask your identity team. Until then I will not send more.',
  }[reason];
  return {
    text: plain(text),
    blocks: [
      section(text),
      actions('reminder:relink', [button({ actionId: RELINK_ACTION, text: 'Link again', value: '{}', style: 'primary' })]),
      context(`Or stop reminders with ${code('/approvals remind off')}.`),
    ],
  };
}

/** The answer to `/approvals remind …`. */
export function renderRemind(outcome: RemindOutcome): Message {
  switch (outcome.kind) {
    case 'set':
      return renderReminderSet(outcome);
    case 'shown':
      return renderReminderShow(outcome);
    case 'stopped':
      return renderReminderOff(outcome.had);
  }
}

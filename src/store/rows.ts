/**
 * Rows as both backends return them, and their mappings into store types: one place for both.
 * SQLite gives integers as numbers, PostgreSQL gives BIGINT as strings; Number() reads either.
 */

import type { CollectQuery } from '../domain/index.js';
import type { Keyring } from './keyring.js';
import type { CooldownHolder, StoredConfirmation } from './rules.js';
import type {
  DecisionClaim,
  DecisionHold,
  IdentityLink,
  IdentityOutcome,
  IdentitySource,
  LinkedToken,
  LinkSummary,
  Principal,
  RemindDays,
  Reminder,
  RunWatch,
  ServiceCommandName,
  TokenSource,
  WatchedRun,
} from './types.js';

/** Milliseconds since the epoch, as a BIGINT column comes back. */
export type Millis = number | string;

export function dateOf(ms: Millis): Date {
  return new Date(Number(ms));
}

export function optionalDateOf(ms: Millis | null): Date | undefined {
  return ms === null ? undefined : dateOf(ms);
}

export interface TokenRow {
  team_id: string;
  user_id: string;
  command: ServiceCommandName;
  ciphertext: string;
  key_id: string;
  source: TokenSource;
  linked_at: Millis;
  last_used_at: Millis | null;
  last_outcome: 'ok' | 'rejected' | null;
  /** Absent in a row read before migration 10 ran. */
  service_user?: string | null;
  authsource?: string | null;
}

function ownerOf(r: TokenRow): Principal {
  return { teamId: r.team_id, userId: r.user_id };
}

/** Throws DecryptError when the keys cannot read it, or it was written for another row. */
export function linkedTokenOf(r: TokenRow, keys: Keyring): LinkedToken {
  return { token: keys.decrypt(r.ciphertext, ownerOf(r), r.command), linkedAt: dateOf(r.linked_at), source: r.source };
}

/** The row's token encrypted again with the current key (for rotation). */
export function reencrypted(r: TokenRow, keys: Keyring): string {
  return keys.encrypt(keys.decrypt(r.ciphertext, ownerOf(r), r.command), ownerOf(r), r.command);
}

export function linkOf(r: TokenRow): LinkSummary {
  return {
    teamId: r.team_id,
    userId: r.user_id,
    command: r.command,
    linkedAt: dateOf(r.linked_at),
    source: r.source,
    lastUsedAt: optionalDateOf(r.last_used_at),
    lastOutcome: r.last_outcome ?? undefined,
    ...(typeof r.service_user === 'string' ? { account: { serviceUser: r.service_user, authsource: r.authsource ?? undefined } } : {}),
  };
}

export interface IdentityRow {
  team_id: string;
  user_id: string;
  service_user: string;
  authsource: string | null;
  source: IdentitySource;
  linked_at: Millis;
  last_used_at: Millis | null;
  /** 'ok', 'rejected' or 'not-permitted:<command>' (identityOutcomeText). */
  last_outcome: string | null;
}

/** The column's text for an outcome: a refused command is kept after its outcome, in the one column. */
export function identityOutcomeText(outcome: IdentityOutcome): string {
  return typeof outcome === 'string' ? outcome : `not-permitted:${outcome.notPermitted}`;
}

function identityOutcomeOf(text: string | null): Pick<IdentityLink, 'lastOutcome' | 'notPermitted'> {
  if (text === 'ok' || text === 'rejected') return { lastOutcome: text };
  if (text?.startsWith('not-permitted:')) return { lastOutcome: 'not-permitted', notPermitted: text.slice('not-permitted:'.length) };
  // Nothing yet, or what a newer release wrote: said as nothing rather than guessed at.
  return { lastOutcome: undefined };
}

export function identityOf(r: IdentityRow): IdentityLink {
  return {
    teamId: r.team_id,
    userId: r.user_id,
    serviceUser: r.service_user,
    authsource: r.authsource ?? undefined,
    source: r.source,
    linkedAt: dateOf(r.linked_at),
    lastUsedAt: optionalDateOf(r.last_used_at),
    ...identityOutcomeOf(r.last_outcome),
  };
}

export interface ConfirmationRow {
  id: string;
  team_id: string;
  channel_id: string;
  user_id: string;
  payload: string;
  created_at: Millis;
  expires_at: Millis;
  used_at: Millis | null;
}

export function confirmationOf(r: ConfirmationRow): StoredConfirmation {
  return {
    confirmation: {
      id: r.id,
      teamId: r.team_id,
      channelId: r.channel_id,
      userId: r.user_id,
      payload: r.payload,
      createdAt: dateOf(r.created_at),
      expiresAt: dateOf(r.expires_at),
    },
    usedAt: optionalDateOf(r.used_at),
  };
}

export interface ReminderRow {
  team_id: string;
  user_id: string;
  days: RemindDays;
  minute_of_day: number;
  time_zone: string;
  next_at: Millis;
  due_at: Millis;
  paused_at: Millis | null;
  sent_for: Millis | null;
}

export function reminderOf(r: ReminderRow): Reminder {
  return {
    teamId: r.team_id,
    userId: r.user_id,
    days: r.days,
    minuteOfDay: Number(r.minute_of_day),
    timeZone: r.time_zone,
    nextAt: dateOf(r.next_at),
    dueAt: dateOf(r.due_at),
    pausedAt: optionalDateOf(r.paused_at),
    sentFor: optionalDateOf(r.sent_for),
  };
}

export interface WatchRow {
  attempt_id: string;
  team_id: string;
  user_id: string;
  channel_id: string;
  message_ts: string;
  query: string;
  runs: string;
  started_at: Millis;
  deadline: Millis;
  next_poll_at: Millis;
  interval_ms: number | string;
  done_at: Millis | null;
  note: string | null;
}

export function watchOf(r: WatchRow): RunWatch {
  return {
    attemptId: r.attempt_id,
    teamId: r.team_id,
    userId: r.user_id,
    channelId: r.channel_id,
    messageTs: r.message_ts,
    query: JSON.parse(r.query) as CollectQuery,
    runs: JSON.parse(r.runs) as WatchedRun[],
    startedAt: dateOf(r.started_at),
    deadline: dateOf(r.deadline),
    nextPollAt: dateOf(r.next_poll_at),
    intervalMs: Number(r.interval_ms),
    doneAt: optionalDateOf(r.done_at),
    note: r.note ?? undefined,
  };
}

export interface CooldownHolderRow {
  user_id: string;
  channel_id: string;
  at: Millis;
  attempt_id: string;
}

export function cooldownHolderOf(r: CooldownHolderRow): CooldownHolder {
  return { userId: r.user_id, channelId: r.channel_id, at: dateOf(r.at), attemptId: r.attempt_id };
}

export interface DecisionHoldRow {
  approval_id: string;
  decision_id: string;
  team_id: string;
  user_id: string;
  action: string;
  state: string;
  claimed_at: Millis;
  until: Millis;
  settled_at: Millis | null;
}

export function decisionHoldOf(r: DecisionHoldRow): DecisionHold {
  return {
    decisionId: r.decision_id,
    teamId: r.team_id,
    userId: r.user_id,
    action: r.action,
    state: r.state === 'done' || r.state === 'unsettled' ? r.state : 'sending',
    at: dateOf(r.claimed_at),
    until: dateOf(r.until),
    settledAt: optionalDateOf(r.settled_at),
  };
}

/** A claim that found the approval held, and the hold went in between (released): it may be taken on a second try. */
export function decisionClaimOutcome(won: boolean, holder: DecisionHold | undefined): DecisionClaim | 'again' {
  if (won) return { claimed: true };
  return holder === undefined ? 'again' : { claimed: false, holder };
}

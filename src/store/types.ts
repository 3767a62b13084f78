/** The store's interface, implemented alike by SQLite (one instance) and PostgreSQL (several). */

import type { RemindDays } from '../reminders/schedule.js';
import type { Secret } from '../secret.js';

export const SERVICE_COMMANDS = ['findApprovals', 'collectEntitlements'] as const;
export type ServiceCommandName = (typeof SERVICE_COMMANDS)[number];

/** Whose token: the Slack workspace (team) and user. An empty team id means any workspace. */
export interface Principal {
  teamId: string;
  userId: string;
}

export type TokenSource = 'admin' | 'login' | 'pasted';

export interface LinkedToken {
  token: Secret;
  linkedAt: Date;
  source: TokenSource;
}

export interface LinkSummary extends Principal {
  command: ServiceCommandName;
  linkedAt: Date;
  source: TokenSource;
  lastUsedAt: Date | undefined;
  lastOutcome: 'ok' | 'rejected' | undefined;
}

export interface PendingConfirmation {
  id: string;
  teamId: string;
  channelId: string;
  userId: string;
  /** JSON of what the confirmation will run, re-validated when claimed. */
  payload: string;
  createdAt: Date;
  expiresAt: Date;
}

export type ClaimResult =
  | { status: 'claimed'; confirmation: PendingConfirmation }
  | { status: 'not-found' }
  | { status: 'not-yours'; ownerId: string }
  | { status: 'already-used' }
  | { status: 'expired' };

/** A user's digest reminder, and where the scheduler stands with it. */
export interface Reminder extends Principal {
  days: RemindDays;
  /** Minutes after local midnight. */
  minuteOfDay: number;
  timeZone: string;
  /** The occurrence it waits for, as the user chose it (09:00 their time). */
  nextAt: Date;
  /** When a scheduler takes it up: nextAt plus the user's spread, or later after a failed try. */
  dueAt: Date;
  /** When the user was told their token no longer works: silence until they link again. */
  pausedAt: Date | undefined;
  /** The occurrence whose digest has been handed to Slack: a second taker must not send it again. */
  sentFor: Date | undefined;
}

export type NewReminder = Omit<Reminder, 'pausedAt' | 'sentFor'>;

export interface ReminderRelease {
  nextAt: Date;
  dueAt: Date;
  timeZone: string;
  /** A Date pauses, null resumes, undefined leaves it as it is. */
  pausedAt?: Date | null;
}

export interface Store {
  getToken(who: Principal, command: ServiceCommandName): Promise<LinkedToken | undefined>;
  setToken(who: Principal, commands: readonly ServiceCommandName[], token: Secret, source: TokenSource, at: Date): Promise<void>;
  deleteTokens(who: Principal): Promise<number>;
  /** Every link, or one user's (their workspace's and any-workspace links): never the tokens. */
  listLinks(who?: Principal): Promise<LinkSummary[]>;
  recordOutcome(who: Principal, command: ServiceCommandName, outcome: 'ok' | 'rejected', at: Date): Promise<void>;

  createConfirmation(confirmation: PendingConfirmation): Promise<void>;
  /**
   * Marks the confirmation used, atomically: of any number of concurrent claims (double clicks,
   * two instances), exactly one gets 'claimed'. The owner check comes first, so another user's
   * click neither runs nor burns it.
   */
  claimConfirmation(id: string, userId: string, at: Date): Promise<ClaimResult>;

  /** Creates or replaces the user's reminder; a pause for an expired token stays until they link again. */
  setReminder(reminder: NewReminder): Promise<void>;
  getReminder(who: Principal): Promise<Reminder | undefined>;
  deleteReminder(who: Principal): Promise<boolean>;
  /** Pauses the user's reminder (they unlinked): no digest, and no "link again" message, until they link. */
  pauseReminder(who: Principal, at: Date): Promise<void>;
  /**
   * Leases up to `limit` reminders whose dueAt has come to `owner` until `leaseUntil`. A reminder
   * leased by a live taker is skipped, so on any number of instances each is taken once; one whose
   * lease ran out (its taker died) is taken again.
   */
  claimDueReminders(now: Date, owner: string, leaseUntil: Date, limit: number): Promise<Reminder[]>;
  /**
   * Records that the digest for `nextAt` is being sent. False when `owner` no longer holds the
   * lease, the reminder was changed, or that digest was sent already: then it must not be sent.
   */
  markReminderSending(who: Principal, owner: string, nextAt: Date): Promise<boolean>;
  /** Moves the reminder on and lets go of the lease. False when it was changed or deleted meanwhile (nothing is written). */
  releaseReminder(who: Principal, owner: string, claimedNextAt: Date, next: ReminderRelease): Promise<boolean>;

  /** Re-encrypts every token written with an older key; returns how many were rewritten. */
  rotateKeys(): Promise<number>;

  close(): Promise<void>;
}

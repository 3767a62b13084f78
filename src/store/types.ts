/** The store's interface: one for SQLite now, the same for PostgreSQL to come. */

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

  /** Re-encrypts every token written with an older key; returns how many were rewritten. */
  rotateKeys(): Promise<number>;

  close(): Promise<void>;
}

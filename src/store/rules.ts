/**
 * What the two stores decide alike, as pure functions. The SQL that makes a claim atomic (a
 * conditional UPDATE, an INSERT … ON CONFLICT … WHERE) stays in each store, since that is what
 * keeps concurrent clicks and instances apart; these rules say what the answer means.
 */

import type { ClaimResult, CooldownClaim, PendingConfirmation } from './types.js';

/** Old confirmations are kept a day for support questions, then dropped. */
export const CONFIRMATION_KEPT_MS = 86_400_000;

/** Confirmations that expired before this (ms since the epoch) are dropped when one is created at `now`. */
export function confirmationPruneHorizon(now: Date): number {
  return now.getTime() - CONFIRMATION_KEPT_MS;
}

/** A confirmation as stored: what it runs, and whether a click has used it. */
export interface StoredConfirmation {
  confirmation: PendingConfirmation;
  usedAt: Date | undefined;
}

export type ClaimVerdict = Exclude<ClaimResult, { status: 'claimed' }> | { status: 'claimable'; confirmation: PendingConfirmation };

/**
 * Whether `userId` may claim the confirmation at `at`. Ownership is checked before use and expiry,
 * so another user's click neither runs it nor burns it. It is claimable up to its expiry, inclusive.
 */
export function judgeClaim(stored: StoredConfirmation | undefined, userId: string, at: Date): ClaimVerdict {
  if (stored === undefined) return { status: 'not-found' };
  const { confirmation, usedAt } = stored;
  if (confirmation.userId !== userId) return { status: 'not-yours', ownerId: confirmation.userId };
  if (usedAt !== undefined) return { status: 'already-used' };
  if (confirmation.expiresAt.getTime() < at.getTime()) return { status: 'expired' };
  return { status: 'claimable', confirmation };
}

/** A claimable confirmation whose conditional update changed nothing was used by another click in the meantime. */
export function claimOutcome(confirmation: PendingConfirmation, won: boolean): ClaimResult {
  return won ? { status: 'claimed', confirmation } : { status: 'already-used' };
}

export type CooldownHolder = Extract<CooldownClaim, { claimed: false }>['holder'];

/** A cooldown taken at or before this (ms since the epoch) no longer holds against a start at `at`. */
export function cooldownHorizon(at: Date, cooldownMs: number): number {
  return at.getTime() - cooldownMs;
}

/**
 * What a take of the cooldown means. Not taken and no holder found: the holder released it between
 * the take and the read; the start is let through, though no row records it as the holder.
 */
export function cooldownOutcome(taken: boolean, holder?: CooldownHolder): CooldownClaim {
  if (taken || holder === undefined) return { claimed: true };
  return { claimed: false, holder };
}

/** The holder of a cooldown, when it still holds against a start at `at`. */
export function heldBy(holder: CooldownHolder | undefined, at: Date, cooldownMs: number): CooldownHolder | undefined {
  return holder !== undefined && holder.at.getTime() > cooldownHorizon(at, cooldownMs) ? holder : undefined;
}

/** ReminderRelease.pausedAt for an UPDATE: a Date pauses, null resumes, undefined leaves paused_at as it is. */
export function pauseChange(pausedAt: Date | null | undefined): { write: boolean; value: number | null } {
  return { write: pausedAt !== undefined, value: pausedAt instanceof Date ? pausedAt.getTime() : null };
}

/**
 * Expired signatures are deleted at most once a minute per instance: often enough that the table
 * holds about the last five minutes of requests, rarely enough to cost nothing per request.
 */
export class SignaturePruning {
  #last = 0;

  due(now: Date): boolean {
    if (now.getTime() - this.#last < 60_000) return false;
    this.#last = now.getTime();
    return true;
  }
}

/** The rules both stores share, and the migration list, on their own: no database. */
import { describe, expect, it } from 'vitest';
import {
  CONFIRMATION_KEPT_MS,
  claimOutcome,
  confirmationPruneHorizon,
  cooldownHorizon,
  cooldownOutcome,
  judgeClaim,
  pauseChange,
} from '../../src/store/rules.js';
import { MIGRATIONS, type Migration, pendingMigrations } from '../../src/store/schema.js';
import type { PendingConfirmation } from '../../src/store/types.js';

const at = new Date('2026-11-22T10:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);

describe('judgeClaim', () => {
  const confirmation: PendingConfirmation = {
    id: 'confirm-1',
    teamId: 'T1',
    channelId: 'C1',
    userId: 'UOPS',
    payload: '{}',
    createdAt: at,
    expiresAt: later(60_000),
  };
  const unused = { confirmation, usedAt: undefined };

  it('lets the owner claim an unused confirmation up to its expiry, inclusive', () => {
    expect(judgeClaim(unused, 'UOPS', at)).toEqual({ status: 'claimable', confirmation });
    expect(judgeClaim(unused, 'UOPS', later(60_000))).toEqual({ status: 'claimable', confirmation });
    expect(judgeClaim(unused, 'UOPS', later(60_001))).toEqual({ status: 'expired' });
  });

  it('checks in order: not found, not yours, already used, expired', () => {
    expect(judgeClaim(undefined, 'UOPS', at)).toEqual({ status: 'not-found' });
    const usedAndExpired = { confirmation, usedAt: at };
    // Another user learns whose it is, never that it was used or has expired.
    expect(judgeClaim(usedAndExpired, 'UEVE', later(120_000))).toEqual({ status: 'not-yours', ownerId: 'UOPS' });
    expect(judgeClaim(usedAndExpired, 'UOPS', later(120_000))).toEqual({ status: 'already-used' });
    expect(judgeClaim(usedAndExpired, 'UOPS', at)).toEqual({ status: 'already-used' });
  });

  it('reads a lost race for the conditional update as already used', () => {
    expect(claimOutcome(confirmation, true)).toEqual({ status: 'claimed', confirmation });
    expect(claimOutcome(confirmation, false)).toEqual({ status: 'already-used' });
  });
});

describe('confirmation pruning', () => {
  it('keeps confirmations a day after they expire', () => {
    expect(CONFIRMATION_KEPT_MS).toBe(86_400_000);
    expect(confirmationPruneHorizon(at)).toBe(at.getTime() - 86_400_000);
  });
});

describe('cooldown', () => {
  const holder = { userId: 'UOPS', channelId: 'C1', at, attemptId: 'a1' };

  it('stops holding once cooldownMs have passed since it was taken, and at once with a cooldown of zero', () => {
    // The stores take it over from a holder taken at or before the horizon.
    expect(cooldownHorizon(later(600_000), 600_000)).toBe(at.getTime());
    expect(cooldownHorizon(later(599_999), 600_000)).toBeLessThan(at.getTime());
    expect(cooldownHorizon(at, 0)).toBe(at.getTime());
  });

  it('answers with the holder when not taken, and lets the start through when the holder let go meanwhile', () => {
    expect(cooldownOutcome(true)).toEqual({ claimed: true });
    expect(cooldownOutcome(false, holder)).toEqual({ claimed: false, holder });
    expect(cooldownOutcome(false, undefined)).toEqual({ claimed: true });
  });
});

describe('pauseChange', () => {
  it('pauses with a Date, resumes with null, leaves the pause alone with undefined', () => {
    expect(pauseChange(at)).toEqual({ write: true, value: at.getTime() });
    expect(pauseChange(null)).toEqual({ write: true, value: null });
    expect(pauseChange(undefined)).toEqual({ write: false, value: null });
  });
});

describe('migrations', () => {
  it('are numbered 1, 2, 3… in order, each with a name', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const m of MIGRATIONS) expect(m.name.trim()).not.toBe('');
  });

  it('pending: those not applied, oldest first; nothing once all are; unknown newer versions ignored', () => {
    const versions = (ms: Migration[]) => ms.map((m) => m.version);
    expect(versions(pendingMigrations([]))).toEqual(MIGRATIONS.map((m) => m.version));
    expect(pendingMigrations(MIGRATIONS.map((m) => m.version))).toEqual([]);
    expect(pendingMigrations([...MIGRATIONS.map((m) => m.version), 999])).toEqual([]);
    const list: Migration[] = [3, 1, 2, 4].map((version) => ({ version, name: `m${version}`, sql: '' }));
    expect(versions(pendingMigrations([3, 1], list))).toEqual([2, 4]);
    expect(versions(pendingMigrations([], list))).toEqual([1, 2, 3, 4]);
  });
});

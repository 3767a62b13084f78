/**
 * Migration 7's carrying over of the collection trail kept before it was structured: one row per
 * attempt (collect_attempts), rewritten in place as its question was answered, its reasons in
 * sentences. Each such row becomes the one step it last recorded, its sentence read once, here,
 * into fields. Frozen with the migration: the sentences are those earlier releases wrote.
 */

import { type AuditValues, collectValues } from './audit.js';
import { dateOf, type Millis } from './rows.js';
import type { AttemptReason, CollectStep, WatchedRun } from './types.js';

/** A row of collect_attempts as both databases return it. */
export interface LegacyAttemptRow {
  id: string;
  at: Millis;
  team_id: string;
  channel_id: string;
  user_id: string;
  query: string;
  outcome: string;
  detail: string | null;
  runs: string;
}

function json<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A refusal, cancellation or failure as the sentence earlier releases wrote it. */
export function legacyReason(outcome: string, detail: string): AttemptReason {
  const channel = /^not an allowed channel \(allowed: (.*)\)$/.exec(detail);
  if (channel) return { kind: 'channel', allowedChannels: (channel[1] ?? '').split(/,\s*/).filter((c) => c !== '') };
  if (detail === 'not an allowed user') return { kind: 'user' };
  if (detail === 'may not force') return { kind: 'force' };
  if (detail === 'not linked') return { kind: 'not-linked' };
  // The collector held was added to the sentence last, by the release just before the structured trail.
  const cooldown =
    /^cooldown: started by ([UW][A-Z0-9]+) at (\d{4}-\d{2}-\d{2}T[\d:.]+Z)(; offered start anyway)?(?:; collector ([\s\S]+))?$/.exec(
      detail,
    );
  if (cooldown)
    return {
      kind: 'cooldown',
      userId: cooldown[1] as string,
      at: new Date(cooldown[2] as string),
      offered: cooldown[3] !== undefined,
      ...(cooldown[4] === undefined ? {} : { collector: cooldown[4] }),
    };
  if (detail === 'internal error') return { kind: 'internal' };
  if (detail === 'cancelled at the confirmation') return { kind: 'cancelled' };
  if (detail === 'did not start it again within the cooldown') return { kind: 'not-again' };
  const service = /^([a-z]+(?:-[a-z]+)*): ([\s\S]*)$/.exec(detail);
  if (outcome === 'failed' && service) return { kind: 'service', error: service[1] as string, message: service[2] as string };
  return { kind: 'other', text: detail };
}

/** "left out: A, B; started again within the cooldown: C", as a start's detail said it. */
function legacyNotes(detail: string): { leftOut: string[]; ranAgain: string[] } {
  const list = (prefix: string) =>
    detail
      .split('; ')
      .find((part) => part.startsWith(prefix))
      ?.slice(prefix.length)
      .split(', ')
      .filter((n) => n !== '') ?? [];
  return { leftOut: list('left out: '), ranAgain: list('started again within the cooldown: ') };
}

function legacyStep(row: LegacyAttemptRow): CollectStep {
  const detail = row.detail ?? '';
  switch (row.outcome) {
    case 'started':
      return { step: 'answered', runs: json<WatchedRun[]>(row.runs, []), ...legacyNotes(detail) };
    case 'nothing-matched':
      return { step: 'answered', runs: [], leftOut: [], ranAgain: [] };
    case 'unanswered':
      return { step: 'asked' };
    case 'cancelled':
      return { step: 'cancelled', reason: legacyReason(row.outcome, detail) };
    case 'failed':
      // Whether it reached the service was not recorded: said as it may have, which is the careful reading.
      return { step: 'failed', reason: legacyReason(row.outcome, detail || 'internal error'), maybeStarted: true };
    default:
      return { step: 'refused', reason: legacyReason(row.outcome, detail || row.outcome) };
  }
}

/** The audit row a legacy attempt becomes: its last step, at the time it was last written. */
export function carryAttempt(row: LegacyAttemptRow): AuditValues {
  // An id that sorts before any this release writes at the same time, and says where it came from.
  return collectValues(`${String(Number(row.at)).padStart(15, '0')}-carried-${row.id}`, {
    ...legacyStep(row),
    attemptId: row.id,
    at: dateOf(row.at),
    teamId: row.team_id,
    channelId: row.channel_id,
    userId: row.user_id,
    query: json(row.query, {}),
  });
}

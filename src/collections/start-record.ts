/**
 * The audit trail of a collection attempt: each step appended as it happens (who, where, what, and
 * the step's own fields), and the reasons a refusal, a cooldown or a failure is kept under.
 */

import { isServiceError } from '../service/errors.js';
import type { CollectQuery } from '../service/index.js';
import type { AttemptReason, CollectStep, Principal } from '../store/index.js';
import type { CollectRefusal } from './policy.js';
import type { CollectDeps } from './ports.js';
import type { Held } from './start-plan.js';

/** Appends one step of this request's attempt to the audit trail: who, where, what, and the step's own fields. */
export function recordStep(
  deps: CollectDeps,
  req: { who: Principal; channelId: string; query: CollectQuery },
  attemptId: string,
  step: CollectStep,
  at = deps.now(),
): Promise<void> {
  return deps.store.recordCollectStep({
    ...step,
    attemptId,
    at,
    teamId: req.who.teamId,
    channelId: req.channelId,
    userId: req.who.userId,
    query: req.query,
  });
}

export function refusalReason(refusal: CollectRefusal): AttemptReason {
  switch (refusal.kind) {
    case 'channel':
      return { kind: 'channel', allowedChannels: [...refusal.allowedChannels] };
    case 'user':
      return { kind: 'user' };
    case 'force':
      return { kind: 'force' };
  }
}

/**
 * Why a start was turned away by the cooldown: who started what held it, when, and whether "Start
 * anyway" was offered; the collector too where it is part of a bigger target asked for.
 */
export function cooldownReason(query: CollectQuery, held: readonly Held[], offered: boolean): AttemptReason {
  const first = held.find((h) => h.collector === undefined) ?? (held[0] as Held);
  const collector = query.name === undefined ? first.collector : undefined;
  return {
    kind: 'cooldown',
    userId: first.holder.userId,
    at: first.holder.at,
    offered,
    ...(collector === undefined ? {} : { collector }),
  };
}

/** A failure as the trail keeps it: the service's own error by kind and words, or an internal one. */
export function failureReason(error: unknown): AttemptReason {
  return isServiceError(error)
    ? { kind: 'service', error: error.kind, message: (error.serviceMessage ?? error.message).slice(0, 500) }
    : { kind: 'internal' };
}

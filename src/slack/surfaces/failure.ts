/**
 * The one place a failure becomes what a user sees, on any surface (a message, Details, a decision's
 * window, Home): the one translator (render/errors.ts) words it and chooses the log line, the
 * request's outcome is counted by the failure's kind, and the line is written, so that what the user
 * reads, what the log says and what the metrics count cannot drift.
 */

import type { Message } from '../../render/blocks.js';
import { type FailureContext, translateFailure } from '../../render/errors.js';
import { isServiceError } from '../../service/errors.js';
import { type Principal, StoreUnavailableError } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';

export type FailureAsked = Omit<FailureContext, 'linkMode'> & Principal;

/** A failure of /approvals' kind (a list, Details, a decision, Home): what it was asking the service. */
export function approvalsAsked(deps: Pick<SlackDeps, 'newId'>, who: Principal, relink?: string): FailureAsked {
  return { ...who, slash: '/approvals', command: 'findApprovals', reference: deps.newId(), ...(relink === undefined ? {} : { relink }) };
}

/** The words for `error`, counted and logged once; `where` adds what the log should say of the surface (its name, the approval). */
export function failureMessage(deps: SlackDeps, error: unknown, asked: FailureAsked, where: Record<string, unknown> = {}): Message {
  const translated = translateFailure(error, { ...asked, linkMode: deps.credentials.mode });
  const kind = isServiceError(error) ? error.kind : undefined;
  deps.metrics.outcome(kind ?? (error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal'));
  deps.logger[translated.log.level](
    { ...translated.log.detail, reference: asked.reference, user: asked.userId, team: asked.teamId, slash: asked.slash, ...where },
    translated.log.event,
  );
  return translated.message;
}

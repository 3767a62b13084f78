/** Turns a failure into the user's message and the matching log line, in one call. */

import { type FailureContext, translateFailure } from '../render/errors.js';
import { isServiceError } from '../service/index.js';
import { type Principal, StoreUnavailableError } from '../store/index.js';
import type { Deps } from './deps.js';
import { ephemeral, replace } from './respond.js';
import { type Respond, ResponseUrlError } from './response-url.js';

export async function reportFailure(
  deps: Deps,
  error: unknown,
  ctx: FailureContext & Principal,
  respond: Respond,
  how: 'ephemeral' | 'replace' = 'ephemeral',
): Promise<void> {
  if (error instanceof ResponseUrlError) {
    // The way to the user is what failed: saying so through it again would fail too.
    deps.metrics.outcome('response_url_failed');
    deps.logger.warn({ status: error.status, reference: ctx.reference, user: ctx.userId }, 'could not answer: response_url refused');
    return;
  }
  const translated = translateFailure(error, ctx);
  const kind = isServiceError(error) ? error.kind : undefined;
  deps.metrics.outcome(kind ?? (error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal'));
  deps.logger[translated.log.level](
    { ...translated.log.detail, reference: ctx.reference, user: ctx.userId, team: ctx.teamId, slash: ctx.slash },
    translated.log.event,
  );
  if (kind === 'invalid-token') await deps.store.recordOutcome(ctx, ctx.command, 'rejected', deps.now()).catch(() => undefined);
  await respond(how === 'replace' ? replace(translated.message) : ephemeral(translated.message));
}

/** The fallback for a background task: whatever escaped it becomes the user's "something went wrong". */
export function answerWith(
  deps: Deps,
  who: Principal,
  slash: '/approvals' | '/collect',
  respond: Respond,
): (error: unknown) => Promise<void> {
  const command = slash === '/approvals' ? 'findApprovals' : 'collectEntitlements';
  return (error) => reportFailure(deps, error, { ...who, slash, command, reference: deps.newId() }, respond);
}

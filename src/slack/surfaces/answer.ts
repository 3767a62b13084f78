/**
 * Answering through a request's response_url when something failed: in the translator's words
 * (surfaces/failure.ts), or, when the response_url itself is what refused, only in the log.
 */

import { SLASH_COMMANDS, type Slash } from '../../parse/slash.js';
import type { Principal } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';
import { type Respond, ResponseUrlError } from '../web-api/responder.js';
import { type FailureAsked, failureMessage } from './failure.js';
import { ephemeral, replace } from './messages.js';

export async function answerFailure(
  deps: SlackDeps,
  error: unknown,
  asked: FailureAsked,
  respond: Respond,
  how: 'ephemeral' | 'replace' = 'ephemeral',
): Promise<void> {
  if (error instanceof ResponseUrlError) {
    // The way to the user is what failed: saying so through it again would fail too.
    deps.metrics.outcome('response_url_failed');
    deps.logger.warn({ status: error.status, reference: asked.reference, user: asked.userId }, 'could not answer: response_url refused');
    return;
  }
  const message = failureMessage(deps, error, asked);
  await respond(how === 'replace' ? replace(message) : ephemeral(message));
}

/** The fallback for work after the ack: whatever escaped it becomes the user's "something went wrong". */
export function answerEscaped(deps: SlackDeps, who: Principal, slash: Slash, respond: Respond): (error: unknown) => Promise<void> {
  return (error) => answerFailure(deps, error, { ...who, slash, command: SLASH_COMMANDS[slash], reference: deps.newId() }, respond);
}

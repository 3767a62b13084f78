/** How a call with a linked token went, remembered on the link so that whoami and Home can say "link again". */

import type { Deps } from '../deps.js';
import { isServiceError } from '../service/errors.js';
import type { Principal, ServiceCommandName } from '../store/index.js';

/** Never throws: the answer the user waits for matters more than the note of it. */
export async function noteSuccess(deps: Deps, who: Principal, command: ServiceCommandName): Promise<void> {
  await deps.store.recordOutcome(who, command, 'ok', deps.now()).catch((error: unknown) => {
    deps.logger.warn({ user: who.userId, command, error: (error as Error).message }, 'could not note a successful call');
  });
}

/** A refused token is noted; any other failure says nothing about the token. Never throws: it only notes. */
export async function noteFailure(deps: Deps, who: Principal, command: ServiceCommandName, error: unknown): Promise<void> {
  if (isServiceError(error) && error.kind === 'invalid-token')
    await deps.store.recordOutcome(who, command, 'rejected', deps.now()).catch(() => undefined);
}

/**
 * Linking a Slack user to the Command Service: with their username and password (loginUser; only
 * the token it returns is kept, encrypted), or with a pasted token (checked with a harmless
 * findApprovals when that is the command it is for; collectEntitlements cannot be tried without
 * starting work).
 */

import type { LinkRequest } from '../parse/link-form.js';
import type { Deps } from '../runtime/deps.js';
import { isServiceError } from '../service/errors.js';
import { type Principal, SERVICE_COMMANDS, type ServiceCommandName } from '../store/index.js';

export type LinkOutcome =
  | { kind: 'linked'; commands: readonly ServiceCommandName[]; checked: boolean }
  | { kind: 'refused'; error: unknown; command: ServiceCommandName };

/** `command`: what the modal was opened for; a pasted token is linked for that command only. */
export async function linkAccount(deps: Deps, who: Principal, request: LinkRequest, command: ServiceCommandName): Promise<LinkOutcome> {
  try {
    let commands: readonly ServiceCommandName[];
    let checked: boolean;
    if (request.kind === 'token') {
      checked = command === 'findApprovals';
      if (checked) await deps.service.findApprovals({ 'page-size': 1 }, request.token);
      commands = [command];
      await deps.store.setToken(who, commands, request.token, 'pasted', deps.now());
    } else {
      const token = await deps.service.loginUser(request);
      commands = SERVICE_COMMANDS;
      checked = true;
      await deps.store.setToken(who, commands, token, 'login', deps.now());
    }
    deps.logger.info(
      { user: who.userId, team: who.teamId, commands, source: request.kind === 'token' ? 'pasted' : 'login' },
      'account linked',
    );
    return { kind: 'linked', commands, checked };
  } catch (error) {
    deps.logger.info(
      { user: who.userId, kind: isServiceError(error) ? error.kind : 'internal', error: isServiceError(error) ? undefined : error },
      'account not linked',
    );
    return { kind: 'refused', error, command };
  }
}

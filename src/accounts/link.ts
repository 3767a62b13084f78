/**
 * Linking a Slack user to the Command Service. With users' own tokens (the default): by username
 * and password (loginUser; only the token it returns is kept, encrypted), or a pasted token
 * (checked with a harmless findApprovals when that is the command it is for; collectEntitlements
 * cannot be tried without starting work). In the trusted mode: by username and password only,
 * which proves who the user is once; what is kept is that name, and the token loginUser returned
 * is ended at once.
 */

import type { Deps } from '../deps.js';
import type { LinkRequest } from '../parse/link-form.js';
import { isServiceError } from '../service/errors.js';
import { type Principal, SERVICE_COMMANDS, type ServiceCommandName } from '../store/index.js';
import { forgetTokens } from './forget.js';

export type LinkOutcome =
  | { kind: 'linked'; commands: readonly ServiceCommandName[]; checked: boolean }
  /** Trusted mode: calls for the user now carry this identity; `replaced` earlier token links were forgotten. */
  | { kind: 'identified'; serviceUser: string; authsource: string | undefined; replaced: number }
  /** Trusted mode: a token does not say whose it is, so it cannot link anyone. */
  | { kind: 'token-not-accepted' }
  | { kind: 'refused'; error: unknown; command: ServiceCommandName };

/** `command`: what the modal was opened for; a pasted token is linked for that command only. */
export async function linkAccount(deps: Deps, who: Principal, request: LinkRequest, command: ServiceCommandName): Promise<LinkOutcome> {
  try {
    if (deps.credentials.mode === 'trusted-app') {
      if (request.kind !== 'login') return { kind: 'token-not-accepted' };
      return await linkIdentity(deps, who, request);
    }
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
      // The account signed in as goes beside the token, so that whoami can name it: never the password.
      await deps.store.setToken(who, commands, token, 'login', deps.now(), {
        serviceUser: request.username,
        authsource: request.authsource,
      });
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

async function linkIdentity(deps: Deps, who: Principal, request: Extract<LinkRequest, { kind: 'login' }>): Promise<LinkOutcome> {
  const token = await deps.service.loginUser(request);
  // The sign-in proved who they are, which is all it was for: the session ends here, and its token is kept nowhere.
  await deps.service.logoutUser(token).catch((error: unknown) => {
    deps.logger.info(
      { user: who.userId, error: (error as Error).message },
      'logoutUser after the identity check failed; the token is kept nowhere',
    );
  });
  const identity = { serviceUser: request.username, authsource: request.authsource };
  await deps.store.setIdentity(who, identity, 'login', deps.now());
  // Tokens from before the trusted mode would no longer be used for this user: they go.
  const { removed } = await forgetTokens(deps, who).catch((error: unknown) => {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'could not forget the tokens the identity replaces');
    return { removed: 0 };
  });
  deps.logger.info(
    { user: who.userId, team: who.teamId, serviceUser: identity.serviceUser, authsource: identity.authsource, replaced: removed },
    'identity linked',
  );
  return { kind: 'identified', ...identity, replaced: removed };
}

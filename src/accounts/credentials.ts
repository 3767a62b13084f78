/**
 * Where the credentials for a user's call come from: their own stored token (the default), or, in
 * the trusted mode, the application's token and the identity they linked once.
 */

import type { Logger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import {
  type CallHooks,
  type CredentialSource,
  type Credentials,
  LinkOutdatedError,
  type OutcomeNote,
  RefusedForUserError,
  type ServiceCall,
} from '../service/credentials.js';
import { InvalidTokenError } from '../service/errors.js';
import type { IdentityLink, IdentityOutcome, LinkedToken, Principal, Store } from '../store/index.js';
import type { AppSession } from './trusted-app.js';

function tokenCredentials(linked: LinkedToken, call: <T>(send: ServiceCall<T>) => Promise<T>): Credentials {
  return { kind: 'user-token', linkedAt: linked.linkedAt, source: linked.source, call, ready: async () => {} };
}

/** Each user's own stored token: the default way of calling the service for someone. */
export function storedTokens(store: Store): CredentialSource {
  return {
    mode: 'user-tokens',
    async credentialsFor(who, command) {
      const linked = await store.getToken(who, command);
      return linked === undefined ? undefined : tokenCredentials(linked, (send) => send(linked.token, {}));
    },
  };
}

export interface TrustedAppOptions {
  store: Store;
  session: AppSession;
  now: () => Date;
  logger: Logger;
}

/**
 * The trusted mode: a user who linked their identity is called for with the application's token
 * and auth-user-id; one still linked with a token from before the switch keeps it until it
 * expires, and is then asked, once, to link the new way.
 */
export function trustedApplication(options: TrustedAppOptions): CredentialSource {
  const { store } = options;
  return {
    mode: 'trusted-app',
    trouble: () => options.session.trouble(),
    async credentialsFor(who, command) {
      const identity = await store.getIdentity(who);
      if (identity !== undefined) {
        return {
          kind: 'trusted-app',
          serviceUser: identity.serviceUser,
          linkedAt: identity.linkedAt,
          source: identity.source,
          call: (send, note = 'all', hooks = {}) => callForIdentity(options, who, identity, send, note, hooks),
          ready: async () => {
            await options.session.token();
          },
        };
      }
      const linked = await store.getToken(who, command);
      if (linked === undefined) return undefined;
      return tokenCredentials(linked, async (send) => {
        try {
          return await send(linked.token, {});
        } catch (error) {
          if (error instanceof InvalidTokenError && error.expired) throw new LinkOutdatedError(error);
          throw error;
        }
      });
    },
  };
}

async function callForIdentity<T>(
  options: TrustedAppOptions,
  who: Principal,
  identity: IdentityLink,
  send: ServiceCall<T>,
  noting: OutcomeNote,
  hooks: CallHooks,
): Promise<T> {
  const { session } = options;
  // Only ever the stored identity: nothing a user typed or a button carried reaches auth-user-id.
  const callOptions = { onBehalfOf: identity.serviceUser };
  const note = async (outcome: IdentityOutcome) => {
    if (noting === 'none' || (noting === 'not-command-only' && typeof outcome !== 'string')) return;
    await options.store.recordIdentityOutcome(who, outcome, options.now()).catch((error: unknown) => {
      options.logger.warn({ user: who.userId, error: (error as Error).message }, 'could not note how a call went');
    });
  };
  const attempt = async (token: Secret): Promise<{ result: T } | { refusal: InvalidTokenError }> => {
    try {
      const result = await send(token, callOptions);
      session.served();
      await note('ok');
      return { result };
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      return { refusal: error };
    }
  };
  const token = await session.token();
  let tried = await attempt(token);
  if ('result' in tried) return tried.result;
  if (aboutTheToken(tried.refusal)) {
    // "Invalid or expired" is about countersign's token, whoever the call was for: the service
    // restarted, another of its nodes answered, the token was revoked or ran out. A 401 means the
    // service refused the call before running it, so sending it again with a new token cannot do
    // anything twice: not even collectEntitlements, which starts work and is otherwise never sent twice.
    if (session.backingOff()) throw session.refused(tried.refusal);
    const renewed = await session.renew(token);
    await hooks.beforeResend?.();
    tried = await attempt(renewed);
    if ('result' in tried) return tried.result;
    // A new token refused too: the service is refusing countersign, not this user.
    if (aboutTheToken(tried.refusal)) throw session.refused(tried.refusal);
  }
  const refusal = tried.refusal;
  await note(refusal.commandOnly ? { notPermitted: refusal.command } : 'rejected');
  throw new RefusedForUserError(refusal, identity.serviceUser);
}

/**
 * A 401 about the application's token ("invalid or expired") rather than the user it acts for: not
 * one that says the user could not be found, nor a command refused to them.
 */
function aboutTheToken(refusal: InvalidTokenError): boolean {
  return refusal.expired && !/could not be found/i.test(refusal.serviceMessage ?? '');
}

/**
 * What a call to the service is made with, for a user: a token and, when the token is a trusted
 * application's rather than the user's own, the service user it acts for (auth-user-id). Where it
 * comes from (a stored user token, or an application's token and a stored user id) is the
 * source's business, behind one interface.
 */

import type { Secret } from '../runtime/secret.js';
import type { Principal, ServiceCommandName, TokenSource } from '../store/types.js';

export interface Credentials {
  token: Secret;
  /** The service user a trusted application's token acts for; absent for a user's own token. */
  onBehalfOf?: string | undefined;
  /** When the user linked: a reminder paused after it waits for a newer link. */
  linkedAt: Date;
  source: TokenSource;
}

export interface CredentialSource {
  /** How to call `command` for this user; undefined when they have not linked for it. */
  credentialsFor(who: Principal, command: ServiceCommandName): Promise<Credentials | undefined>;
}

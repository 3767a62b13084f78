/** Credentials from the users' own stored tokens: the default way of calling the service for someone. */

import type { CredentialSource } from '../service/credentials.js';
import type { Store } from '../store/index.js';

export function storedTokens(store: Store): CredentialSource {
  return {
    async credentialsFor(who, command) {
      const linked = await store.getToken(who, command);
      return linked === undefined ? undefined : { token: linked.token, linkedAt: linked.linkedAt, source: linked.source };
    },
  };
}

/**
 * What every use case may need, built once in main.ts and passed in: no module singletons, so
 * tests build the same objects with a fixed clock, a throwaway store and a scripted service.
 * A feature that needs more (a policy, a port to Slack) says so in its own deps type.
 *
 * It sits where it does because of what it names: the service client, the store, the logger and
 * metrics, so above service/, store/ and runtime/ (which must not import it), and below the use cases
 * and slack/, which it does not name.
 */

import type { Logger } from './runtime/logger.js';
import type { Metrics } from './runtime/metrics.js';
import type { CredentialSource } from './service/credentials.js';
import type { ServiceClient } from './service/index.js';
import type { Store } from './store/index.js';

export interface Deps {
  service: ServiceClient;
  /** How to call the service for a user: their token, or (trusted mode) the application's and their id. */
  credentials: CredentialSource;
  store: Store;
  logger: Logger;
  metrics: Metrics;
  now: () => Date;
  /** Unpredictable ids (confirmations, log references, audit rows). */
  newId: () => string;
  /** The Slack request this work is for, as every log line of it says: audit rows name it too, so the two read together. */
  requestId?: string | undefined;
}

/** Users' time zones, as the chat platform knows them; undefined when it does not say. */
export interface TimeZones {
  lookup(userId: string): Promise<string | undefined>;
}

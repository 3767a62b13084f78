/**
 * countersign's own session with the service as a trusted application (loginTrustedApp): the token
 * lives in this instance's memory only, is got when first needed, and is got again when it reaches
 * its age limit or the service refuses it as expired. However many calls wait on it, one sign-in is
 * under way at a time; when signing in fails, the next attempt waits (longer each time), and calls
 * meanwhile fail at once with the same error, so a wrong secret never hammers the service.
 */

import type { Logger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import type { ServiceClient, TrustedAppCredentials } from '../service/client.js';
import { isServiceError } from '../service/errors.js';

export interface Backoff {
  /** After the service refused the credentials: the first wait, doubled at each failure up to the max. */
  refusedMs: number;
  refusedMaxMs: number;
  /** After it could not be reached or failed on its side: shorter, since that may pass by itself. */
  unreachableMs: number;
  unreachableMaxMs: number;
}

/**
 * A refusal is a configuration problem that only an admin fixes: a minute, then up to half an hour
 * between tries (48 a day at most, per instance). An outage passes by itself: 5 s, up to a minute.
 */
export const DEFAULT_BACKOFF: Readonly<Backoff> = Object.freeze({
  refusedMs: 60_000,
  refusedMaxMs: 30 * 60_000,
  unreachableMs: 5_000,
  unreachableMaxMs: 60_000,
});

/**
 * A 401 met by a token got this recently is not taken as the token's expiry: the service has just
 * issued it, so the refusal is about the user or the command, and signing in again would not help
 * (and, for a user the service does not know, would sign in at every call).
 */
export const MIN_RENEW_AGE_MS = 10_000;

export interface AppSessionOptions {
  service: Pick<ServiceClient, 'loginTrustedApp'>;
  credentials: TrustedAppCredentials;
  /** A token this old is replaced before it is used (COMMAND_SERVICE_APP_TOKEN_MAX_AGE). */
  maxAgeMs: number;
  now: () => Date;
  logger: Logger;
  backoff?: Partial<Backoff> | undefined;
}

type SignInReason = 'first use' | 'age limit' | 'refused as expired';

export class AppSession {
  readonly #o: AppSessionOptions;
  readonly #backoff: Backoff;
  #current: { value: Secret; at: number } | undefined;
  #signingIn: Promise<Secret> | undefined;
  #failure: { error: unknown; attempts: number; retryAt: number } | undefined;
  #signIns = 0;

  constructor(options: AppSessionOptions) {
    this.#o = options;
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  }

  /** Sign-ins attempted by this instance (for the log and tests). */
  get signIns(): number {
    return this.#signIns;
  }

  /** The application's token, signing in first when there is none or it has reached its age limit. */
  token(): Promise<Secret> {
    const current = this.#current;
    if (current !== undefined && this.#age(current) < this.#o.maxAgeMs) return Promise.resolve(current.value);
    return this.#signIn(current === undefined ? 'first use' : 'age limit');
  }

  /**
   * A new token after `stale` met a 401 "invalid or expired"; the one another call got meanwhile
   * if it did. Undefined when `stale` is too new for the refusal to be about it.
   */
  renew(stale: Secret): Promise<Secret | undefined> {
    if (this.#signingIn !== undefined) return this.#signingIn;
    const current = this.#current;
    if (current !== undefined && current.value !== stale) return this.token();
    if (current !== undefined && this.#age(current) < MIN_RENEW_AGE_MS) return Promise.resolve(undefined);
    this.#current = undefined;
    return this.#signIn('refused as expired');
  }

  #age(token: { at: number }): number {
    return this.#o.now().getTime() - token.at;
  }

  #signIn(reason: SignInReason): Promise<Secret> {
    if (this.#signingIn !== undefined) return this.#signingIn;
    const failure = this.#failure;
    // Within the back-off, nothing is sent: the caller gets the last failure again.
    if (failure !== undefined && this.#o.now().getTime() < failure.retryAt) return Promise.reject(failure.error);
    const attempt = this.#attempt(reason).finally(() => {
      this.#signingIn = undefined;
    });
    this.#signingIn = attempt;
    return attempt;
  }

  async #attempt(reason: SignInReason): Promise<Secret> {
    const { logger } = this.#o;
    this.#signIns++;
    try {
      const value = await this.#o.service.loginTrustedApp(this.#o.credentials);
      const failed = this.#failure?.attempts;
      this.#failure = undefined;
      this.#current = { value, at: this.#o.now().getTime() };
      if (failed === undefined) logger.info({ reason, clientId: this.#o.credentials.clientId }, 'signed in as a trusted application');
      else logger.info({ reason, failedAttempts: failed }, 'signed in as a trusted application again: calls for users go on');
      return value;
    } catch (error) {
      const attempts = (this.#failure?.attempts ?? 0) + 1;
      // Refused, or an answer that is not a token (a wrong COMMAND_SERVICE_URL): only a person fixes those.
      const refused = isServiceError(error) && (error.kind === 'app-sign-in' || error.kind === 'unexpected-response');
      const base = refused ? this.#backoff.refusedMs : this.#backoff.unreachableMs;
      const max = refused ? this.#backoff.refusedMaxMs : this.#backoff.unreachableMaxMs;
      const waitMs = Math.min(base * 2 ** Math.min(attempts - 1, 20), max);
      this.#failure = { error, attempts, retryAt: this.#o.now().getTime() + waitMs };
      const fields = {
        clientId: this.#o.credentials.clientId,
        attempts,
        retryInMs: waitMs,
        kind: isServiceError(error) ? error.kind : 'internal',
        status: isServiceError(error) ? error.status : undefined,
        serviceMessage: isServiceError(error) ? error.serviceMessage : undefined,
        ...(isServiceError(error) ? {} : { error }),
      };
      // Said once, when it starts failing; the attempts after it are for debugging only.
      if (attempts > 1) logger.debug(fields, 'trusted-application sign-in failed again');
      else if (refused)
        logger.error(
          fields,
          'the Command Service refused countersign’s trusted-application sign-in: check COMMAND_SERVICE_CLIENT_ID and COMMAND_SERVICE_CLIENT_SECRET against Admin > Web Services > Trusted Application; no call can be made for anyone until it works',
        );
      else logger.warn(fields, 'could not sign in as a trusted application; calls for users wait for the service');
      throw error;
    }
  }
}

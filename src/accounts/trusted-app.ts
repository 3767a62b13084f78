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
import { AppSignInError, type InvalidTokenError, isServiceError } from '../service/errors.js';

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
 * issued it, so signing in again at once would not help (and, were the refusal about the user,
 * would sign in at every call).
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
  #current: { value: Secret; at: number; served: boolean } | undefined;
  #signingIn: Promise<Secret> | undefined;
  #failure: { error: unknown; attempts: number; retryAt: number } | undefined;
  /** Since the last call that worked: how many back-offs fresh tokens refused at once have cost, and when the current one ends. */
  #refusedAtOnce: { rounds: number; retryAt: number } | undefined;
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

  /** A call made with `token` worked: the token is good, and the service acts with it. */
  served(token: Secret): void {
    if (this.#current?.value === token) this.#current.served = true;
    if (this.#refusedAtOnce !== undefined) {
      this.#refusedAtOnce = undefined;
      this.#o.logger.info({}, 'the Command Service takes countersign’s application token again');
    }
  }

  /**
   * Whether a 401 "invalid or expired" met by `token` is about the token rather than the user it
   * acted for: the token is still fresh and no call has worked with it, so the service refused
   * what it had just issued. Once one call has worked with it, such a refusal is about the user.
   */
  refusedAtOnce(token: Secret): boolean {
    const current = this.#current;
    return current !== undefined && current.value === token && !current.served && this.#age(current) < MIN_RENEW_AGE_MS;
  }

  /**
   * The service refused a token it had just issued (refusedAtOnce): nobody's link is at fault, and
   * the error says so in countersign's words. Said in the log once, as an error, until a call works
   * again; and a new token is not asked for meanwhile (see backingOff) for a minute, then twice as
   * long each time, up to half an hour, so that a service that does this to every token is not
   * asked for one at every call.
   */
  tokenRefusedAtOnce(refusal: InvalidTokenError): AppSignInError {
    const now = this.#o.now().getTime();
    const previous = this.#refusedAtOnce;
    if (previous === undefined)
      this.#o.logger.error(
        { clientId: this.#o.credentials.clientId, command: refusal.command, serviceMessage: refusal.serviceMessage },
        'the Command Service refused countersign’s application token as soon as it issued it ("invalid or expired"): no user is marked refused for it; check the trusted application’s token settings in the service (and the clocks); calls for users fail until it takes the token',
      );
    if (previous === undefined || now >= previous.retryAt) {
      const rounds = (previous?.rounds ?? 0) + 1;
      const waitMs = Math.min(this.#backoff.refusedMs * 2 ** Math.min(rounds - 1, 20), this.#backoff.refusedMaxMs);
      this.#refusedAtOnce = { rounds, retryAt: now + waitMs };
    }
    return new AppSignInError({
      command: refusal.command,
      status: refusal.status,
      serviceMessage: refusal.serviceMessage,
      queryString: refusal.queryString,
      cause: refusal,
    });
  }

  /** True while tokens refused as soon as issued keep a new one from being asked for. */
  backingOff(): boolean {
    return this.#refusedAtOnce !== undefined && this.#o.now().getTime() < this.#refusedAtOnce.retryAt;
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
      this.#current = { value, at: this.#o.now().getTime(), served: false };
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

/**
 * countersign's own session with the service as a trusted application (loginTrustedApp): the token
 * lives in this instance's memory only, is got when first needed, and is got again when it reaches
 * its age limit or the service refuses it as invalid or expired, whenever that is: a restarted
 * service, another node that does not know it, a revocation. However many calls wait on it, one
 * sign-in is under way at a time; when signing in fails, or the service refuses the new tokens too,
 * the next attempt waits (longer each time), so a wrong secret or a service that takes no token
 * never has the service hammered.
 */

import type { Logger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import type { ServiceClient, TrustedAppCredentials } from '../service/client.js';
import { AppTokenRefusedError, type AppTrouble } from '../service/credentials.js';
import { type InvalidTokenError, isServiceError } from '../service/errors.js';

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
  #failure: { error: unknown; attempts: number; retryAt: number; since: number } | undefined;
  /**
   * Since the last call that worked, while new tokens are refused too: how many back-offs that has
   * cost, when the current one ends, when it began, and the refusal to answer calls with meanwhile.
   */
  #refused: { rounds: number; retryAt: number; since: number; error: AppTokenRefusedError } | undefined;
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
   * A new token after `stale` met a 401 "invalid or expired": the one another call got meanwhile if
   * it did, else one sign-in, shared by every call that asks while it is under way. While the
   * service refuses new tokens too (see refused), none is asked for: the refusal is thrown again.
   */
  renew(stale: Secret): Promise<Secret> {
    if (this.#signingIn !== undefined) return this.#signingIn;
    const current = this.#current;
    if (current !== undefined && current.value !== stale) return this.token();
    const refused = this.#refused;
    if (refused !== undefined && this.#o.now().getTime() < refused.retryAt) return Promise.reject(refused.error);
    this.#current = undefined;
    return this.#signIn('refused as expired');
  }

  /** A call worked: the service takes countersign's token (again, after refusing new ones). */
  served(): void {
    if (this.#refused !== undefined) {
      this.#refused = undefined;
      this.#o.logger.info({}, 'the Command Service takes countersign’s application token again');
    }
  }

  /**
   * The service refused, as invalid or expired, a token countersign signed in for after it had
   * refused the one before: not about any user, and signing in again at once would not help. Said
   * in the log once, as an error, until a call works again; no new token is asked for (renew) for a
   * minute, then twice as long each time, up to half an hour, so that a service that refuses every
   * token it issues is not asked for one at every call. Calls meanwhile are still sent with the
   * current token: the first that works ends it.
   */
  refused(refusal: InvalidTokenError): AppTokenRefusedError {
    const now = this.#o.now().getTime();
    const previous = this.#refused;
    // Each call gets its own error, with its own command; only a refusal past the back-off costs a round.
    const error = new AppTokenRefusedError(refusal);
    if (previous !== undefined && now < previous.retryAt) return error;
    if (previous === undefined)
      this.#o.logger.error(
        { clientId: this.#o.credentials.clientId, command: refusal.command, serviceMessage: refusal.serviceMessage },
        'the Command Service refused countersign’s application token again right after a new sign-in ("invalid or expired"): no user is marked refused for it; check the trusted application’s token settings in the service, that its nodes share sessions (or the balancer keeps countersign on one), and the clocks; calls for users fail until it takes the token',
      );
    const rounds = (previous?.rounds ?? 0) + 1;
    const waitMs = Math.min(this.#backoff.refusedMs * 2 ** Math.min(rounds - 1, 20), this.#backoff.refusedMaxMs);
    this.#refused = { rounds, retryAt: now + waitMs, since: previous?.since ?? now, error };
    return error;
  }

  /** True while the service refuses new tokens too, and the back-off keeps another from being asked for. */
  backingOff(): boolean {
    return this.#refused !== undefined && this.#o.now().getTime() < this.#refused.retryAt;
  }

  /** What keeps countersign from calling the service for anyone now, if anything does, for whoami. */
  trouble(): AppTrouble | undefined {
    if (this.#refused !== undefined) return { kind: 'refused', since: new Date(this.#refused.since) };
    const failure = this.#failure;
    if (failure === undefined) return undefined;
    return { kind: signInRefused(failure.error) ? 'refused' : 'unreachable', since: new Date(failure.since) };
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
      const refused = signInRefused(error);
      const base = refused ? this.#backoff.refusedMs : this.#backoff.unreachableMs;
      const max = refused ? this.#backoff.refusedMaxMs : this.#backoff.unreachableMaxMs;
      const waitMs = Math.min(base * 2 ** Math.min(attempts - 1, 20), max);
      const now = this.#o.now().getTime();
      this.#failure = { error, attempts, retryAt: now + waitMs, since: this.#failure?.since ?? now };
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

/** Refused, or an answer that is not a token (a wrong COMMAND_SERVICE_URL): only a person fixes those. */
function signInRefused(error: unknown): boolean {
  return isServiceError(error) && (error.kind === 'app-sign-in' || error.kind === 'unexpected-response');
}

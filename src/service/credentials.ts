/**
 * What a call to the service is made with, for a user: their own token, or (the trusted mode) the
 * application's token and the service user it acts for (auth-user-id). Where it comes from is the
 * source's business, behind one interface; how a call is made with it (renewing the application's
 * token once when the service says it expired) is the credentials' own `call`, so every command,
 * today's and any added later, gets the same rule by calling through it.
 */

import type { Principal, ServiceCommandName, TokenSource } from '../domain/index.js';
import type { Secret } from '../runtime/secret.js';
import type { CallOptions } from './client.js';
import { AppSignInError, InvalidTokenError } from './errors.js';

/** How this installation calls the service for people: each one's own token, or its own as a trusted application. */
export type LinkMode = 'user-tokens' | 'trusted-app';

/** One call to the service, given the token to send and the options that go with it (auth-user-id). */
export type ServiceCall<T> = (token: Secret, options: CallOptions) => Promise<T>;

/**
 * What a call's outcome says of the user's link, where the credentials keep it (the trusted mode
 * notes it on the identity; with users' own tokens the use case notes it): 'all', the default;
 * 'not-command-only', all but a refusal of this command alone, after which the link still works for
 * the others; 'none', nothing (a call that only adds to another's answer, whose refusal would
 * otherwise stand as the link's last word).
 */
export type OutcomeNote = 'all' | 'not-command-only' | 'none';

/** What a caller is told of while a call is made: the trusted mode may sign in again and send it once more. */
export interface CallHooks {
  /**
   * Just before the call is sent again with a new application token (the first was refused as
   * expired, before the service ran it): a decision records it as a step of its own.
   */
  beforeResend?: () => Promise<void>;
}

export interface Credentials {
  /** 'user-token': the user's own stored token; 'trusted-app': the application's token, acting for serviceUser. */
  kind: 'user-token' | 'trusted-app';
  /** The user's id in the service (trusted-app), from the store only: never from what a user typed or a button carried. */
  serviceUser?: string | undefined;
  /** When the user linked: a reminder paused after it waits for a newer link. */
  linkedAt: Date;
  source: TokenSource;
  /**
   * Makes one call with these credentials. Pass the token and the options on to the client as they
   * are: `(token, options) => deps.service.findApprovals(query, token, options)`.
   */
  call<T>(send: ServiceCall<T>, note?: OutcomeNote, hooks?: CallHooks): Promise<T>;
  /**
   * Gets what a call will be sent with (the trusted mode signs in when it has no token yet), without
   * calling: a failure here is one before anything was sent. With a user's own token, nothing to do.
   */
  ready(): Promise<void>;
}

/**
 * The trusted mode: what keeps countersign from calling the service for anyone now. 'refused': the
 * service refuses countersign's own sign-in (its credentials, or every token it gives); an
 * administrator fixes it. 'unreachable': signing in did not get an answer; it may pass by itself.
 */
export interface AppTrouble {
  kind: 'refused' | 'unreachable';
  since: Date;
}

export interface CredentialSource {
  readonly mode: LinkMode;
  /** How to call `command` for this user; undefined when they have not linked for it. */
  credentialsFor(who: Principal, command: ServiceCommandName): Promise<Credentials | undefined>;
  /** The trusted mode: what keeps countersign's own session from working now, if anything; whoami says it. */
  trouble?(): AppTrouble | undefined;
}

/** The refusal's details, kept whole under other words. */
function restated(cause: InvalidTokenError) {
  return { command: cause.command, status: cause.status, serviceMessage: cause.serviceMessage, queryString: cause.queryString, cause };
}

/**
 * In the trusted mode, a token linked before the switch has expired: the user links once more, the
 * new way, and is not asked again. Still an InvalidTokenError, so that everything that notes or
 * counts a refused token does so; the words differ (one message, not an error).
 */
export class LinkOutdatedError extends InvalidTokenError {
  constructor(cause: InvalidTokenError) {
    super(restated(cause));
  }
}

/**
 * In the trusted mode, the service refused a call for a linked user for a reason that is theirs: it
 * does not know that user ("could not be found"), or does not let them run the command (`commandOnly`).
 * Its words are shown. Never for "invalid or expired", which is about countersign's own token.
 */
export class RefusedForUserError extends InvalidTokenError {
  readonly serviceUser: string;
  constructor(cause: InvalidTokenError, serviceUser: string) {
    super(restated(cause));
    this.serviceUser = serviceUser;
  }
}

/**
 * In the trusted mode, the service refused countersign's application token as invalid or expired
 * again right after a new sign-in: the service is refusing countersign's sign-in, and no user's link
 * is at fault. The same kind as a refused loginTrustedApp ('app-sign-in'), so that everything that
 * waits for an administrator (reminders, the run watcher, the words for users) treats both alike.
 */
export class AppTokenRefusedError extends AppSignInError {
  constructor(cause: InvalidTokenError) {
    super(restated(cause));
  }
}

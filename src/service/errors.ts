/**
 * Typed failures of the Command Service. Each carries what a person needs to act on it
 * (the service's own message, the Query String line it echoed) and nothing that could hold a
 * credential: the token travels in a header, never in the query, and passwords go in a body
 * that is never quoted back.
 */

export type ServiceErrorKind =
  | 'invalid-token'
  | 'missing-parameter'
  | 'invalid-parameter'
  | 'no-eligible-collectors'
  | 'conflict'
  | 'login-failed'
  | 'app-sign-in'
  | 'not-found'
  | 'not-visible'
  | 'not-offered'
  | 'service-unavailable'
  | 'unexpected-response';

export interface ServiceErrorDetails {
  /** The command the request was for, e.g. findApprovals. */
  command: string;
  /** HTTP status, when the service answered at all. */
  status?: number | undefined;
  /** The service's own message, as plain text. */
  serviceMessage?: string | undefined;
  /** The raw query string the service says it received (its `Query String=` line). */
  queryString?: string | undefined;
  cause?: unknown;
}

export abstract class ServiceError extends Error {
  abstract readonly kind: ServiceErrorKind;
  readonly command: string;
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly queryString: string | undefined;

  constructor(message: string, details: ServiceErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.command = details.command;
    this.status = details.status;
    this.serviceMessage = details.serviceMessage;
    this.queryString = details.queryString;
  }
}

/** 401: the token is invalid, expired, or not allowed to run this command. */
export class InvalidTokenError extends ServiceError {
  readonly kind = 'invalid-token' as const;
  /** True when the service said the token is expired or unknown, false when it only lacks the permission. */
  readonly expired: boolean;
  /**
   * True when what was refused is this command alone ("The token is not valid for the command 'X'."
   * without "invalid or expired"): the token, or the user it acts for, still runs the others.
   */
  readonly commandOnly: boolean;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? `The token is not valid for the command '${details.command}'.`, details);
    this.expired = /invalid or expired/i.test(details.serviceMessage ?? 'invalid or expired');
    this.commandOnly = !this.expired && /not valid for the command/i.test(details.serviceMessage ?? '');
  }
}

/** 412 naming a required parameter, e.g. auth-user-id. */
export class MissingParameterError extends ServiceError {
  readonly kind = 'missing-parameter' as const;
  readonly parameter: string;
  constructor(parameter: string, details: ServiceErrorDetails) {
    super(details.serviceMessage ?? `The parameter ${parameter} is required.`, details);
    this.parameter = parameter;
  }
}

/** 412 for anything else: an invalid enumeration value, a malformed date. */
export class InvalidParameterError extends ServiceError {
  readonly kind = 'invalid-parameter' as const;
  /** The parameter the message names, when it names one. */
  readonly parameter: string | undefined;
  constructor(parameter: string | undefined, details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'The service rejected a parameter.', details);
    this.parameter = parameter;
  }
}

/** 404 from collectEntitlements: no collector matches the application. */
export class NoEligibleCollectorsError extends ServiceError {
  readonly kind = 'no-eligible-collectors' as const;
  readonly application: string | undefined;
  constructor(application: string | undefined, details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'No eligible collectors found.', details);
    this.application = application;
  }
}

/** 409: the service refuses because the same work is already queued. */
export class ConflictError extends ServiceError {
  readonly kind = 'conflict' as const;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'The service refused: the work is already queued.', details);
  }
}

/** 401 from loginUser: wrong username, password or auth source. Never carries the password. */
export class LoginFailedError extends ServiceError {
  readonly kind = 'login-failed' as const;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'User could not be validated.', details);
  }
}

/**
 * The service refused countersign's own sign-in as a trusted application (loginTrustedApp): a wrong
 * ClientId or ClientSecret, an application not registered, or the command switched off. Never
 * carries either credential. No call was made for any user.
 */
export class AppSignInError extends ServiceError {
  readonly kind = 'app-sign-in' as const;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'The trusted application could not sign in.', details);
  }
}

/** Any other 4xx: an unknown command, an unknown run id. */
export class NotFoundError extends ServiceError {
  readonly kind = 'not-found' as const;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? `The service answered ${details.status ?? 'an error'}.`, details);
  }
}

/**
 * 412 "The work item could not be retrieved" / "The change request could not be retrieved": the
 * approval (or request) is not one this user may see: unknown, completed, reassigned or withdrawn.
 */
export class NotVisibleError extends ServiceError {
  readonly kind = 'not-visible' as const;
  constructor(details: ServiceErrorDetails) {
    super(details.serviceMessage ?? 'The work item could not be retrieved.', details);
  }
}

/**
 * 404 whose reason phrase is the command's name: the service does not offer this command (an
 * administrator switched it off, or this version lacks it). Not the user's mistake.
 */
export class NotOfferedError extends ServiceError {
  readonly kind = 'not-offered' as const;
  /** True when no request was sent: the client remembered that the command is not offered. */
  readonly remembered: boolean;
  constructor(details: ServiceErrorDetails, remembered = false) {
    super(details.serviceMessage ?? `The Command Service does not offer ${details.command}.`, details);
    this.remembered = remembered;
  }
}

/**
 * network: the request never reached the service (no connection: refused, no such host, connect
 * timeout, TLS). dropped: the connection failed once made, so the request may have reached it
 * (and a collection may have started). timeout: no complete answer in time (ours, or the service's
 * own 408, which it may send after it acted). aborted: the caller gave up. busy: a 429, the service
 * turning the request away unread because it has too many.
 */
export type UnavailableReason = 'network' | 'dropped' | 'timeout' | 'server-error' | 'aborted' | 'busy';

/** The service could not be reached, was too slow, or failed on its side (5xx). Retryable. */
export class ServiceUnavailableError extends ServiceError {
  readonly kind = 'service-unavailable' as const;
  readonly reason: UnavailableReason;
  constructor(reason: UnavailableReason, message: string, details: ServiceErrorDetails) {
    super(message, details);
    this.reason = reason;
  }
}

/** A 2xx (or unknown status) whose body is not what the contract describes. */
export class UnexpectedResponseError extends ServiceError {
  readonly kind = 'unexpected-response' as const;
  /** What was wrong, for the log; a short excerpt of the body at most. */
  readonly detail: string;
  /** Set when the answer was refused for its size: the most bytes read of it. */
  readonly tooLargeBytes: number | undefined;
  constructor(detail: string, details: ServiceErrorDetails, tooLargeBytes?: number) {
    super(
      tooLargeBytes === undefined
        ? `The Command Service gave an answer that could not be understood (${details.command}).`
        : `The Command Service gave an answer too large to read (${details.command}, over ${tooLargeBytes} bytes).`,
      details,
    );
    this.detail = detail;
    this.tooLargeBytes = tooLargeBytes;
  }
}

/** Every concrete service error: switch on `kind` and TypeScript narrows to the class. */
export type AnyServiceError =
  | InvalidTokenError
  | MissingParameterError
  | InvalidParameterError
  | NoEligibleCollectorsError
  | ConflictError
  | LoginFailedError
  | AppSignInError
  | NotFoundError
  | NotVisibleError
  | NotOfferedError
  | ServiceUnavailableError
  | UnexpectedResponseError;

export function isServiceError(error: unknown): error is AnyServiceError {
  return error instanceof ServiceError;
}

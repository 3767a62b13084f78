/**
 * What a status that is not 2xx means, as a typed ServiceError: the status first, then the command
 * it answered and what the service's page says (an HTML error page, or any text), its Query String
 * line kept apart. Everything taken from the answer has the request's secrets taken out first.
 */

import {
  AppSignInError,
  ConflictError,
  InvalidParameterError,
  InvalidTokenError,
  LoginFailedError,
  MissingParameterError,
  NoEligibleCollectorsError,
  NotFoundError,
  NotOfferedError,
  NotVisibleError,
  type ServiceError,
  type ServiceErrorDetails,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from './errors.js';
import { excerpt } from './formats.js';
import { looksLikeHtml, parseErrorPage } from './html.js';
import type { RawResponse } from './transport.js';

/** What the caller knew of the call that the answer may not say: the application a collection was for. */
export interface ErrorContext {
  application?: string | undefined;
}

interface Refusal {
  command: string;
  status: number;
  /** The page's message, secrets taken out. */
  message: string;
  /** The reason phrase, secrets taken out. */
  reason: string;
  details: ServiceErrorDetails;
  context: ErrorContext;
}

/** In order, the first that applies says what the answer means; the last always applies. */
const RULES: ReadonlyArray<(r: Refusal) => ServiceError | undefined> = [
  (r) => (r.status === 401 && r.command === 'loginUser' ? new LoginFailedError(r.details) : undefined),
  // Any refusal of the application's own sign-in (401, 403, the command switched off) is for an admin to fix.
  (r) => (r.status >= 400 && r.status < 500 && r.command === 'loginTrustedApp' ? new AppSignInError(r.details) : undefined),
  (r) => (r.status === 401 ? new InvalidTokenError(r.details) : undefined),
  (r) => (r.status === 412 && /could not be retrieved/i.test(r.message) ? new NotVisibleError(r.details) : undefined),
  (r) => (r.status === 412 ? preconditionFailed(r) : undefined),
  (r) => (r.status === 404 && offersNot(r.command, r.reason, r.message) ? new NotOfferedError(r.details) : undefined),
  (r) =>
    r.status === 404 && r.command === 'collectEntitlements' && /no eligible collectors/i.test(r.message)
      ? new NoEligibleCollectorsError(applicationNamed(r.message) || r.context.application, r.details)
      : undefined,
  (r) => (r.status === 409 ? new ConflictError(r.details) : undefined),
  // A 408 is the service's own timeout: it may have acted before it gave up on the connection, so it
  // is no refusal (a 4xx taken as "not found" was once told as "nothing was decided").
  (r) =>
    r.status === 408 ? new ServiceUnavailableError('timeout', 'The Command Service timed out the request (408).', r.details) : undefined,
  (r) => (r.status === 429 ? new ServiceUnavailableError('busy', 'The Command Service is busy (429).', r.details) : undefined),
  (r) =>
    r.status >= 500
      ? new ServiceUnavailableError('server-error', `The Command Service failed with status ${r.status}.`, r.details)
      : undefined,
  (r) => (r.status >= 400 ? new NotFoundError(r.details) : undefined),
];

export function errorFor(command: string, res: RawResponse, context: ErrorContext): ServiceError {
  // Read with the request's secrets taken out, and what it says checked again once its entities are decoded.
  const body = res.redact(res.body);
  const read = looksLikeHtml(body) ? parseErrorPage(body) : { message: excerpt(body, 500), queryString: undefined };
  const message = res.redact(read.message);
  const details: ServiceErrorDetails = {
    command,
    status: res.status,
    serviceMessage: message || undefined,
    queryString: read.queryString === undefined ? undefined : res.redact(read.queryString),
  };
  const refusal: Refusal = { command, status: res.status, message, reason: res.redact(res.reason), details, context };
  for (const rule of RULES) {
    const error = rule(refusal);
    if (error !== undefined) return error;
  }
  return new UnexpectedResponseError(`status ${res.status}; body starts: ${excerpt(body)}`, details);
}

/**
 * 412: a parameter the service wants. "The parameter auth-user-id is required.", "The approval-id
 * parameter is required.", "Either the 'approval-id' or the 'request-id' parameter must be provided."
 */
function preconditionFailed({ message, details }: Refusal): ServiceError {
  const required =
    /parameter\s+'?([\w-]+)'?\s+is\s+required/i.exec(message) ??
    /\b'?([\w-]+)'?\s+parameter\s+is\s+required/i.exec(message) ??
    /either\s+the\s+'?([\w-]+)'?\s+or\s+the\s+'?[\w-]+'?\s+parameter/i.exec(message);
  if (required?.[1]) return new MissingParameterError(required[1], details);
  const named = /parameter\s+'?([\w-]+)'?/i.exec(message);
  return new InvalidParameterError(named?.[1], details);
}

/** "No eligible collectors found for the application X": found, then cut (a lazy `(.+?)\s*$` retries the end at every character, slow on a long message). */
function applicationNamed(message: string): string {
  const named = /for the application\s+/i.exec(message);
  return named === null ? '' : message.slice(named.index + named[0].length).trim();
}

/**
 * A switched-off command is answered 404 with its own name as the reason phrase; an unknown one has
 * been seen answered "The command 'X' is not a valid command.". Either way the service lacks it.
 */
function offersNot(command: string, reason: string, message: string): boolean {
  if (reason.trim().toLowerCase() === command.toLowerCase()) return true;
  return message.includes(`'${command}'`) && /is not a valid command|is not enabled|is disabled/i.test(message);
}

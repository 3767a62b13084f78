/**
 * How a request reaches the service and its answer comes back: one keep-alive undici Pool, the
 * timeouts and the call's total deadline, the one retry policy, and the body read within its limit.
 * It knows nothing of commands or formats; a failure to get an answer becomes a typed
 * ServiceUnavailableError here, and what the answer says is decoding's business.
 */

import { EventEmitter } from 'node:events';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { Logger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import { ServiceError, ServiceUnavailableError, UnexpectedResponseError } from './errors.js';
import { excerpt } from './formats.js';
import { MAX_ERROR_PAGE_CHARS } from './html.js';
import { buildQueryString } from './query.js';
import { redactor, userTextRedactor } from './redact.js';

export interface ServiceTimeouts {
  /** TCP + TLS handshake. */
  connectMs: number;
  /** From request sent to response headers received. */
  headersMs: number;
  /** Longest silence while the body streams in. */
  bodyMs: number;
  /**
   * The whole call, from asking to the last byte, the retry included. The timeouts above restart
   * with every byte, so without this a service that drips its answer holds the user, and a pooled
   * connection, for ever.
   */
  totalMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<ServiceTimeouts> = Object.freeze({
  connectMs: 5_000,
  headersMs: 15_000,
  bodyMs: 15_000,
  totalMs: 20_000,
});

/** countersign's own identity as a trusted application of the service (Admin > Web Services > Trusted Application). */
export interface TrustedAppCredentials {
  clientId: string;
  clientSecret: Secret;
}

export interface RawResponse {
  status: number;
  /** The HTTP reason phrase: a command the service does not offer is answered 404 with the command's name here. */
  reason: string;
  contentType: string;
  body: string;
  /** Takes every secret the request revealed out of a text of the answer: for anything that goes into an error. */
  redact: (text: string) => string;
}

export interface ServiceRequest {
  /** A command of the spec's, or the one the operator's decision call names. */
  command: string;
  /** GET unless it has a body or is loginTrustedApp; the decision call says its own. */
  method?: 'GET' | 'POST';
  params: Array<readonly [string, string]>;
  token?: Secret;
  /** Body and its content type: loginUser's, and the decision call's when the operator gives one. */
  body?: { contentType: string; text: string } | undefined;
  /** loginTrustedApp: POSTed without a body, the application's credentials as headers. */
  app?: TrustedAppCredentials;
  /** Safe to send twice: the call only reads. */
  idempotent: boolean;
  signal: AbortSignal | undefined;
  /** A smaller limit than the client's for this command's answer. */
  maxBodyBytes?: number;
  /** Secrets the request reveals besides its token and the application's (loginUser's password, in the body). */
  secrets?: Secret[];
  /**
   * A user's own words the request carries (a decision's comment), and the parameters that carry
   * them: taken out of whatever of the answer goes into an error, as the service may quote the query back.
   */
  userText?: { params: readonly string[]; values: readonly string[] } | undefined;
}

export interface TransportOptions {
  baseUrl: string;
  dispatcher?: Dispatcher | undefined;
  timeouts?: Partial<ServiceTimeouts> | undefined;
  connections?: number | undefined;
  maxBodyBytes?: number | undefined;
  onCall?: ((command: string, status: number | 'error', seconds: number) => void) | undefined;
}

export interface Transport {
  /** One call: sent, retried once when the policy allows, answered or failed by its deadline. */
  call(logger: Logger, req: ServiceRequest): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Connection failures after which a read-only call may be sent again (whether or not the request got there). */
const CONNECTION_FAILURE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Failures before any byte of the request can have reached the service: no connection (refused,
 * no such host, no route, connect timeout) or a TLS handshake that failed. Anything else (a reset
 * or close once connected) may have come after the request went out.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function neverSent(code: string | undefined): boolean {
  return code !== undefined && (NEVER_SENT_CODES.has(code) || code.startsWith('ERR_TLS_') || code.includes('CERT'));
}

/** What aborts a call at its deadline, told apart from the caller's own abort. */
class DeadlinePassed extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
    this.name = 'DeadlinePassed';
  }
}

/**
 * What aborts a call, as undici takes a signal (an emitter of one 'abort', with `aborted` and
 * `reason`): at its deadline, or when the caller's own signal aborts. Not an AbortController: one is
 * made for every call, and a controller's signal cost several times as much as the rest of the
 * call's own bookkeeping.
 */
class CallSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** Aborted by the deadline, not by the caller. */
  byDeadline = false;

  abort(reason: unknown, byDeadline: boolean): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.byDeadline = byDeadline;
    this.emit('abort');
  }

  /** Aborts when `caller` does (at once if it has); returns how to stop following it. */
  follow(caller: AbortSignal): () => void {
    const abort = () => this.abort(caller.reason, false);
    if (caller.aborted) {
      abort();
      return () => {};
    }
    caller.addEventListener('abort', abort, { once: true });
    return () => caller.removeEventListener('abort', abort);
  }
}

export function createTransport(options: TransportOptions): Transport {
  const base = parseBaseUrl(options.baseUrl);
  const timeouts: ServiceTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher: Dispatcher =
    options.dispatcher ??
    new Pool(base.origin, {
      connections: options.connections ?? 32,
      connect: { timeout: timeouts.connectMs },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 300_000,
    });
  const send = async (req: ServiceRequest, signal: CallSignal): Promise<RawResponse> => {
    const response = await dispatcher.request({
      origin: base.origin,
      path: `${base.path}/command.submit?${buildQueryString([['cmd', req.command], ...req.params])}`,
      method: req.method ?? (req.body || req.app ? 'POST' : 'GET'),
      headers: headersFor(req),
      body: req.body?.text ?? null,
      signal,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
    const bodyLimit = Math.min(maxBodyBytes, req.maxBodyBytes ?? maxBodyBytes);
    const limit = limitFor(response.statusCode, bodyLimit);
    if (declaredWithin(response, limit)) return rawResponse(req, response, await response.body.text());
    return readChunks(req, response, limit, bodyLimit);
  };
  return {
    call: (logger, req) => callWithDeadline(send, timeouts.totalMs, logger, req, options.onCall),
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  };
}

/** Every secret a request sends: its bearer token, the application's ClientSecret, and any other (a password). */
function revealedBy(req: ServiceRequest): string[] {
  return [req.token?.reveal(), req.app?.clientSecret.reveal(), ...(req.secrets ?? []).map((s) => s.reveal())].filter(
    (v): v is string => v !== undefined,
  );
}

function headersFor(req: ServiceRequest): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (req.token) headers.authorization = `Bearer ${req.token.reveal()}`;
  if (req.app) {
    // Spelled as the service's documentation spells them: header names are case-insensitive, not every server is.
    headers.ClientId = req.app.clientId;
    headers.ClientSecret = req.app.clientSecret.reveal();
  }
  headers['content-type'] = req.body?.contentType ?? 'application/json';
  return headers;
}

/**
 * The answer's body is read to its limit: a 2xx past it is refused (it cannot be read whole), an
 * error page is cut there (its message is at the top, the rest is left unread, its connection
 * closed). A length declared within the limit is all there can be (undici holds the answer to it):
 * that body is read whole, without a promise per chunk, in the one async step of send().
 */
function limitFor(status: number, bodyLimit: number): number {
  return status >= 200 && status < 300 ? bodyLimit : Math.min(bodyLimit, MAX_ERROR_PAGE_CHARS);
}

function declaredWithin(response: Dispatcher.ResponseData, limit: number): boolean {
  const declared = Number(response.headers['content-length'] ?? Number.NaN);
  return Number.isInteger(declared) && declared <= limit;
}

function rawResponse(req: ServiceRequest, response: Dispatcher.ResponseData, body: string): RawResponse {
  return {
    status: response.statusCode,
    reason: response.statusText ?? '',
    contentType: String(response.headers['content-type'] ?? ''),
    body,
    redact: (text) => {
      const out = redactor(revealedBy(req))(text);
      return req.userText === undefined ? out : userTextRedactor(req.userText.params, req.userText.values)(out);
    },
  };
}

/** A body of unknown or excessive length, chunk by chunk, stopped at `limit`. */
async function readChunks(req: ServiceRequest, response: Dispatcher.ResponseData, limit: number, bodyLimit: number): Promise<RawResponse> {
  const status = response.statusCode;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      response.body.destroy();
      if (status >= 200 && status < 300)
        throw new UnexpectedResponseError(`body larger than ${bodyLimit} bytes`, { command: req.command, status }, bodyLimit);
      chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - limit)));
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return rawResponse(req, response, Buffer.concat(chunks).toString('utf8'));
}

/**
 * The retry policy and the deadline: a read-only call whose connection failed is sent once more,
 * nothing else is; the whole call, retry included, ends at `totalMs`. Aborting a request undici has
 * under way destroys its connection, so a call cut off at its deadline frees its place in the pool
 * instead of leaving it to trickle.
 */
async function callWithDeadline(
  send: (req: ServiceRequest, signal: CallSignal) => Promise<RawResponse>,
  totalMs: number,
  logger: Logger,
  req: ServiceRequest,
  onCall: TransportOptions['onCall'],
): Promise<RawResponse> {
  const started = performance.now();
  const signal = new CallSignal();
  const timer = setTimeout(() => signal.abort(new DeadlinePassed(totalMs), true), totalMs);
  const unfollow = req.signal === undefined ? undefined : signal.follow(req.signal);
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await send(req, signal);
        const ms = performance.now() - started;
        onCall?.(req.command, res.status, ms / 1000);
        // An answered call is in the histogram (onCall) already: its line is for debugging, and at
        // info it cost about 5 % of a command's CPU. Anything but a 2xx stays at info, as a failure.
        const fields = { command: req.command, status: res.status, ms: Math.round(ms), attempt };
        if (res.status >= 200 && res.status < 300) logger.debug(fields, 'service call');
        else logger.info(fields, 'service call');
        return res;
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        const pastDeadline = signal.byDeadline && req.signal?.aborted !== true;
        const failure = toTransportError(req.command, error, pastDeadline ? totalMs : undefined, req.signal?.aborted === true);
        const retry = req.idempotent && attempt === 1 && isConnectionFailure(error) && !signal.aborted;
        logger.warn(
          {
            command: req.command,
            reason: failure.reason,
            code: pastDeadline ? 'deadline' : errorCode(error),
            attempt,
            retrying: retry,
            ms: Math.round(performance.now() - started),
          },
          'service call failed',
        );
        if (!retry) {
          onCall?.(req.command, 'error', (performance.now() - started) / 1000);
          throw failure;
        }
      }
    }
  } finally {
    clearTimeout(timer);
    unfollow?.();
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const causeCode = ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
  return typeof causeCode === 'string' ? causeCode : undefined;
}

function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && CONNECTION_FAILURE_CODES.has(code);
}

/**
 * `deadlineMs` is set when the call's own deadline cut it off; `callerGaveUp`, when the caller's
 * signal did (whatever its reason: an AbortSignal.timeout rejects with a TimeoutError, not an AbortError).
 */
function toTransportError(command: string, error: unknown, deadlineMs?: number, callerGaveUp = false): ServiceUnavailableError {
  const code = errorCode(error);
  // The cause is kept for the log; undici errors carry no headers, so no token rides along.
  const details = { command, cause: error };
  if (deadlineMs !== undefined) {
    return new ServiceUnavailableError('timeout', `The Command Service did not answer within ${deadlineMs / 1000} s.`, details);
  }
  if (callerGaveUp || error instanceof undiciErrors.RequestAbortedError || (error as Error | null)?.name === 'AbortError') {
    return new ServiceUnavailableError('aborted', 'The call to the Command Service was cancelled.', details);
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new ServiceUnavailableError('timeout', 'The Command Service did not answer in time.', details);
  }
  if (neverSent(code)) {
    return new ServiceUnavailableError('network', `The Command Service could not be reached (${code}).`, details);
  }
  return new ServiceUnavailableError(
    'dropped',
    `The connection to the Command Service dropped before it answered (${code ?? 'connection lost'}); the request may have reached it.`,
    details,
  );
}

function parseBaseUrl(baseUrl: string): { origin: string; path: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`COMMAND_SERVICE_URL is not a URL: ${excerpt(baseUrl, 80)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('COMMAND_SERVICE_URL must be http or https');
  if (url.username || url.password) throw new TypeError('COMMAND_SERVICE_URL must not carry credentials');
  return { origin: url.origin, path: url.pathname.replace(/\/+$/, '').replace(/\/command\.submit$/, '') };
}

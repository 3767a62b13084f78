/**
 * The Command Service client: the only code in the app that speaks HTTP to the service.
 *
 * One undici Pool per client keeps connections alive across users and commands (the token is a
 * header, so sharing a connection shares nothing between users). Every answer goes through one
 * decoder, whatever its status or format, and comes out as typed data or a typed ServiceError.
 */

import { EventEmitter } from 'node:events';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { z } from 'zod';
import { type LogFields, type Logger, silentLogger } from '../runtime/logger.js';
import { Secret } from '../runtime/secret.js';
import { type DecisionCall, type DecisionValues, fillDecisionCall } from './decision-call.js';
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
  ServiceError,
  type ServiceErrorDetails,
  ServiceUnavailableError,
  UnexpectedResponseError,
} from './errors.js';
import { excerpt, parseProperties, parseXml } from './formats.js';
import { looksLikeHtml, MAX_ERROR_PAGE_CHARS, parseErrorPage } from './html.js';
import {
  type ApprovalQuery,
  approvalIdSchema,
  approvalQuerySchema,
  buildQueryString,
  type CollectQuery,
  collectQuerySchema,
  decisionValuesSchema,
  type RequestItemsPageQuery,
  type RequestItemsSelector,
  requestItemsPageSchema,
  requestItemsSelectorSchema,
  serviceUserIdSchema,
} from './query.js';
import {
  type ApprovalDetails,
  type ApprovalsPage,
  approvalDetailsBody,
  type CollectionResult,
  collectBody,
  findApprovalsBody,
  loginBody,
  type RequestItemsPage,
  type RunStatus,
  readApprovalsPage,
  requestItemsBody,
  runStatusBody,
  toRunStatus,
} from './schemas.js';

export type CommandName =
  | 'findApprovals'
  | 'collectEntitlements'
  | 'getRunStatus'
  | 'loginUser'
  | 'logoutUser'
  | 'getApprovalDetails'
  | 'getRequestItems'
  | 'loginTrustedApp';

/**
 * Commands an administrator may have switched off, whose absence the app works around (it stops
 * offering Details, or decisions); 'decision' stands for the operator's decision call, whatever
 * its command is named.
 */
export type OptionalCommand = 'getApprovalDetails' | 'getRequestItems' | 'decision';

/**
 * The largest answer of getApprovalDetails and getRequestItems read: one approval, or a page of its
 * items, is a few kilobytes; reading and checking megabytes would hold every other user's work up.
 */
export const DETAILS_MAX_BODY_BYTES = 1024 * 1024;

/** Deeper than any answer of the service nests (five levels for a page of items): past it, JSON.parse is not even tried. */
const DETAILS_MAX_DEPTH = 32;

/** How long "not offered" is believed before the command is tried again: an administrator may have switched it on. */
export const NOT_OFFERED_RECHECK_MS = 3_600_000;

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

export interface ServiceClientOptions {
  /** base_url of the spec: requests go to `<baseUrl>/command.submit`. */
  baseUrl: string;
  /** Where requests go; a keep-alive Pool to baseUrl's origin when omitted (tests pass a MockAgent). */
  dispatcher?: Dispatcher;
  timeouts?: Partial<ServiceTimeouts> | undefined;
  /** Sockets kept open to the service. */
  connections?: number;
  /** A body larger than this is refused rather than buffered. */
  maxBodyBytes?: number;
  logger?: Logger;
  /** Told of every call: the command, the HTTP status ("error" when none came), seconds taken. */
  onCall?: (command: string, status: number | 'error', seconds: number) => void;
  /** The clock for remembering what the service does not offer (milliseconds); Date.now by default. */
  now?: () => number;
  /** How long a command found not offered is not asked for again; an hour by default. */
  notOfferedRecheckMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** With a trusted application's token: the service user the call acts for (auth-user-id). */
  onBehalfOf?: string | undefined;
}

/** auth-user-id when the token is an application's, checked like every value that is sent. */
function actingFor(command: string, callOptions: CallOptions | undefined): Array<readonly [string, string]> {
  const id = callOptions?.onBehalfOf;
  if (id === undefined) return [];
  if (!serviceUserIdSchema.safeParse(id).success)
    throw new InvalidParameterError('auth-user-id', { command, serviceMessage: 'Refused to send an invalid auth-user-id' });
  return [['auth-user-id', id]];
}

export interface LoginCredentials {
  username: string;
  password: Secret;
  /** An authentication source such as an LDAP directory; the service's default when omitted. */
  authsource?: string | undefined;
}

/** countersign's own identity as a trusted application of the service (Admin > Web Services > Trusted Application). */
export interface TrustedAppCredentials {
  clientId: string;
  clientSecret: Secret;
}

export interface ServiceClient {
  findApprovals(query: ApprovalQuery, token: Secret, options?: CallOptions): Promise<ApprovalsPage>;
  /** Starts work on the service: never retried. */
  collectEntitlements(query: CollectQuery, token: Secret, options?: CallOptions): Promise<CollectionResult>;
  getRunStatus(runId: string, token: Secret, options?: CallOptions): Promise<RunStatus>;
  /** Returns the new token; the password is sent once, in the body, and kept nowhere. */
  loginUser(credentials: LoginCredentials, options?: CallOptions): Promise<Secret>;
  logoutUser(token: Secret, options?: CallOptions): Promise<void>;
  /** An application token (acts for nobody until a call names auth-user-id); the secret goes in a header, once. */
  loginTrustedApp(credentials: TrustedAppCredentials, options?: CallOptions): Promise<Secret>;
  /** One approval with what can be done to it; NotVisibleError when the user may not see it. */
  getApprovalDetails(approvalId: string, token: Secret, options?: CallOptions): Promise<ApprovalDetails>;
  /** A page of what the request behind an approval (or a request by id) asks for. */
  getRequestItems(
    selector: RequestItemsSelector,
    page: RequestItemsPageQuery,
    token: Secret,
    options?: CallOptions,
  ): Promise<RequestItemsPage>;
  /**
   * The operator's decision call (DECISION_REQUEST) for one approval: `values` checked, then put in
   * its template, each escaped for where it goes. Deciding is not idempotent, so it is never sent
   * twice by the client, whatever happens to the connection; any 2xx is success (the answer's body
   * says nothing countersign relies on: getApprovalDetails tells the new state).
   */
  decide(call: DecisionCall, values: DecisionValues, token: Secret, options?: CallOptions): Promise<void>;
  /**
   * False once the service answered that it does not offer the command (NotOfferedError), until
   * NOT_OFFERED_RECHECK_MS has passed; meanwhile calls to it fail at once without a request.
   */
  offers(command: OptionalCommand): boolean;
  /** The same client, its log lines carrying these fields too (the request a call is made for). */
  withLogFields(fields: LogFields): ServiceClient;
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

interface RawResponse {
  status: number;
  /** The HTTP reason phrase: a command the service does not offer is answered 404 with the command's name here. */
  reason: string;
  contentType: string;
  body: string;
  /** Takes every secret the request revealed out of a text of the answer: for anything that goes into an error. */
  redact: (text: string) => string;
}

interface Request {
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
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
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

  async function send(req: Request, signal: CallSignal): Promise<RawResponse> {
    const query = buildQueryString([['cmd', req.command], ...req.params]);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.token) headers.authorization = `Bearer ${req.token.reveal()}`;
    if (req.app) {
      // Spelled as the service's documentation spells them: header names are case-insensitive, not every server is.
      headers.ClientId = req.app.clientId;
      headers.ClientSecret = req.app.clientSecret.reveal();
    }
    headers['content-type'] = req.body?.contentType ?? 'application/json';
    const response = await dispatcher.request({
      origin: base.origin,
      path: `${base.path}/command.submit?${query}`,
      method: req.method ?? (req.body || req.app ? 'POST' : 'GET'),
      headers,
      body: req.body?.text ?? null,
      signal,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
    const contentType = String(response.headers['content-type'] ?? '');
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    // An error's message is at the top of its page: the rest is left unread, its connection closed.
    const bodyLimit = Math.min(maxBodyBytes, req.maxBodyBytes ?? maxBodyBytes);
    const limit = ok ? bodyLimit : Math.min(bodyLimit, MAX_ERROR_PAGE_CHARS);
    // A length declared within the limit is all there can be (undici holds the answer to it): read
    // whole, without a promise per chunk.
    const declared = Number(response.headers['content-length'] ?? Number.NaN);
    if (Number.isInteger(declared) && declared <= limit) {
      return {
        status: response.statusCode,
        reason: response.statusText ?? '',
        contentType,
        body: await response.body.text(),
        redact: (text) => redactor(revealedBy(req))(text),
      };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > limit) {
        response.body.destroy();
        if (ok)
          throw new UnexpectedResponseError(
            `body larger than ${bodyLimit} bytes`,
            { command: req.command, status: response.statusCode },
            bodyLimit,
          );
        chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (size - limit)));
        break;
      }
      chunks.push(chunk as Buffer);
    }
    return {
      status: response.statusCode,
      reason: response.statusText ?? '',
      contentType,
      body: Buffer.concat(chunks).toString('utf8'),
      redact: (text) => redactor(revealedBy(req))(text),
    };
  }

  // One service behind one client: what it does not offer is remembered here, for every user.
  const now = options.now ?? Date.now;
  const recheckMs = options.notOfferedRecheckMs ?? NOT_OFFERED_RECHECK_MS;
  const notOfferedUntil = new Map<OptionalCommand, number>();
  const offers = (command: OptionalCommand): boolean => {
    const until = notOfferedUntil.get(command);
    if (until === undefined) return true;
    if (now() < until) return false;
    notOfferedUntil.delete(command);
    return true;
  };
  /** `named`: the command as the service knows it, when the key is not its name (the decision call's). */
  async function optional<T>(logger: Logger, command: OptionalCommand, work: () => Promise<T>, named: string = command): Promise<T> {
    if (!offers(command)) throw new NotOfferedError({ command: named, status: 404 }, true);
    try {
      return await work();
    } catch (error) {
      if (error instanceof NotOfferedError) {
        if (!notOfferedUntil.has(command))
          logger.info({ command: named, recheckMinutes: Math.round(recheckMs / 60_000) }, 'command not offered');
        notOfferedUntil.set(command, now() + recheckMs);
      }
      throw error;
    }
  }

  async function call(logger: Logger, req: Request): Promise<RawResponse> {
    const started = performance.now();
    // Aborting a request undici has under way destroys its connection, so a call cut off at its
    // deadline frees its place in the pool instead of leaving it to trickle.
    const signal = new CallSignal();
    const timer = setTimeout(() => signal.abort(new DeadlinePassed(timeouts.totalMs), true), timeouts.totalMs);
    const unfollow = req.signal === undefined ? undefined : signal.follow(req.signal);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await send(req, signal);
          const ms = performance.now() - started;
          options.onCall?.(req.command, res.status, ms / 1000);
          logger.info({ command: req.command, status: res.status, ms: Math.round(ms), attempt }, 'service call');
          return res;
        } catch (error) {
          if (error instanceof ServiceError) throw error;
          const pastDeadline = signal.byDeadline && req.signal?.aborted !== true;
          const failure = toTransportError(req.command, error, pastDeadline ? timeouts.totalMs : undefined);
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
            options.onCall?.(req.command, 'error', (performance.now() - started) / 1000);
            throw failure;
          }
        }
      }
    } finally {
      clearTimeout(timer);
      unfollow?.();
    }
  }

  // A view per logger: the same connections and memory of what is not offered, its lines with other fields.
  const clientFor = (logger: Logger): ServiceClient => ({
    async findApprovals(query, token, callOptions) {
      const checked = checkQuery('findApprovals', approvalQuerySchema, query);
      const params = Object.entries(checked)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, String(v)] as const);
      const res = await call(logger, {
        command: 'findApprovals',
        params: [['format', 'json'], ...params, ...actingFor('findApprovals', callOptions)],
        token,
        idempotent: true,
        signal: callOptions?.signal,
      });
      return decode('findApprovals', res, findApprovalsBody, approvalsFromProperties, {}, undefined, readApprovalsPage);
    },

    async collectEntitlements(query, token, callOptions) {
      const checked = checkQuery('collectEntitlements', collectQuerySchema, query);
      const params: Array<readonly [string, string]> = [['format', 'json']];
      if (checked.name !== undefined) params.push(['name', checked.name]);
      if (checked.application !== undefined) params.push(['application', checked.application]);
      if (checked.force !== undefined) params.push(['force', String(checked.force)]);
      params.push(...actingFor('collectEntitlements', callOptions));
      const res = await call(logger, { command: 'collectEntitlements', params, token, idempotent: false, signal: callOptions?.signal });
      const body = decode('collectEntitlements', res, collectBody, (props) => ({ data: Object.fromEntries(props) }), {
        application: checked.application,
      });
      return body.data;
    },

    async getRunStatus(runId, token, callOptions) {
      if (!/^[\w.-]{1,64}$/.test(runId)) {
        throw new UnexpectedResponseError(`refused to send run id ${JSON.stringify(excerpt(runId, 40))}`, { command: 'getRunStatus' });
      }
      const res = await call(logger, {
        command: 'getRunStatus',
        params: [['run-id', runId], ['format', 'json'], ...actingFor('getRunStatus', callOptions)],
        token,
        idempotent: true,
        signal: callOptions?.signal,
      });
      const body = decode('getRunStatus', res, runStatusBody, (props) => ({ data: Object.fromEntries(props) }));
      return toRunStatus(runId, body.data);
    },

    async loginUser(credentials, callOptions) {
      const params: Array<readonly [string, string]> = [['format', 'json']];
      if (credentials.authsource) params.push(['authsource', credentials.authsource]);
      const res = await call(logger, {
        command: 'loginUser',
        params,
        body: {
          contentType: 'application/xml',
          text: `<username>${escapeXml(credentials.username)}</username><password>${escapeXml(credentials.password.reveal())}</password>`,
        },
        secrets: [credentials.password],
        idempotent: false,
        signal: callOptions?.signal,
      });
      const token = decode('loginUser', res, loginBody, (props) => ({ data: Object.fromEntries(props) }));
      return new Secret(token);
    },

    async logoutUser(token, callOptions) {
      const res = await call(logger, {
        command: 'logoutUser',
        params: [['format', 'json']],
        token,
        idempotent: false,
        signal: callOptions?.signal,
      });
      if (res.status >= 200 && res.status < 300) return;
      throw errorFor('logoutUser', res, {});
    },

    async loginTrustedApp(credentials, callOptions) {
      const res = await call(logger, {
        command: 'loginTrustedApp',
        params: [['format', 'json']],
        app: credentials,
        // Signing in twice does no harm (each answer is a new token), so a connection that failed may be tried again.
        idempotent: true,
        signal: callOptions?.signal,
      });
      const token = decode('loginTrustedApp', res, loginBody, (props) => ({ data: Object.fromEntries(props) }));
      return new Secret(token);
    },

    getApprovalDetails(approvalId, token, callOptions) {
      return optional(logger, 'getApprovalDetails', async () => {
        const id = checkQuery('getApprovalDetails', approvalIdSchema, approvalId);
        const res = await call(logger, {
          command: 'getApprovalDetails',
          params: [['format', 'json'], ['approval-id', id], ...actingFor('getApprovalDetails', callOptions)],
          token,
          idempotent: true,
          signal: callOptions?.signal,
          maxBodyBytes: DETAILS_MAX_BODY_BYTES,
        });
        const details = decode(
          'getApprovalDetails',
          res,
          approvalDetailsBody,
          (props) => ({ getApprovalDetails: { Approval: detailsFromProperties(props) } }),
          {},
          DETAILS_MAX_DEPTH,
        );
        // A record that does not say which work item it is, is the one asked for.
        return details.workItemId === '' ? { ...details, workItemId: id } : details;
      });
    },

    getRequestItems(selector, page, token, callOptions) {
      return optional(logger, 'getRequestItems', async () => {
        const which = checkQuery('getRequestItems', requestItemsSelectorSchema, selector);
        const paging = checkQuery('getRequestItems', requestItemsPageSchema, page);
        const res = await call(logger, {
          command: 'getRequestItems',
          params: [
            ['format', 'json'],
            'approvalId' in which ? ['approval-id', which.approvalId] : ['request-id', which.requestId],
            ['page-size', String(paging.pageSize)],
            ['start-page', String(paging.startPage)],
            ...actingFor('getRequestItems', callOptions),
          ],
          token,
          idempotent: true,
          signal: callOptions?.signal,
          maxBodyBytes: DETAILS_MAX_BODY_BYTES,
        });
        return decode(
          'getRequestItems',
          res,
          requestItemsBody,
          () => {
            // Item values hold commas ("Wayne, Bruce"), so the properties format's comma lists cannot be split safely.
            throw new SyntaxError('the properties format of getRequestItems cannot be read');
          },
          {},
          DETAILS_MAX_DEPTH,
        );
      });
    },

    decide(decision, values, token, callOptions) {
      return optional(
        logger,
        'decision',
        async () => {
          const checked = checkQuery(decision.command, decisionValuesSchema, values);
          const filled = fillDecisionCall(decision, checked);
          const res = await call(logger, {
            command: filled.command,
            method: filled.method,
            params: [
              ...filled.params,
              ...(decision.setsFormat ? [] : [['format', 'json'] as const]),
              ...actingFor(filled.command, callOptions),
            ],
            body: filled.body,
            token,
            idempotent: false,
            signal: callOptions?.signal,
            maxBodyBytes: DETAILS_MAX_BODY_BYTES,
          });
          if (res.status < 200 || res.status >= 300) throw errorFor(filled.command, res, {});
        },
        decision.command,
      );
    },

    offers,

    withLogFields: (fields) => clientFor(logger.child(fields)),

    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  });
  return clientFor(options.logger ?? silentLogger);
}

/** The properties format of one approval record: its keys as they are, ActionName as a comma list. */
function detailsFromProperties(props: Map<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [rawKey, value] of props) {
    const key = rawKey.replace(/^getApprovalDetails\./, '').replace(/^Approval\./, '');
    if (key === 'ActionName' || key === 'Actions.ActionName' || key === 'Actions') record.Actions = { ActionName: value.split(',') };
    else record[key] = value;
  }
  return record;
}

function checkQuery<S extends z.ZodType>(command: string, schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  // A programming error upstream (the parsers validate user input first); say what, never send it.
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ');
  throw new InvalidParameterError(undefined, { command, serviceMessage: `Refused to send an invalid query: ${issues}` });
}

interface ErrorContext {
  application?: string | undefined;
}

/**
 * One decoder for every answer: status first, then the format the body is actually in (the
 * service may ignore format=json), then the schema. Anything unexpected becomes an
 * UnexpectedResponseError whose detail holds a short excerpt for the log.
 */
function decode<S extends z.ZodType>(
  command: CommandName,
  res: RawResponse,
  schema: S,
  fromProperties: (props: Map<string, string>) => unknown,
  context: ErrorContext = {},
  maxDepth?: number,
  /** The schema's answer for the usual shape, read without it; undefined: ask the schema. */
  quick?: (tree: unknown) => z.infer<S> | undefined,
): z.infer<S> {
  if (res.status < 200 || res.status >= 300) throw errorFor(command, res, context);
  const text = res.body.replace(/^\uFEFF/, '').trim();
  const details = { command, status: res.status };
  // What goes into the error comes from the answer with the request's secrets taken out, before it is cut short.
  const unreadable = (what: string) =>
    new UnexpectedResponseError(res.redact(`${what}; body starts: ${excerpt(res.redact(text))}`), details);
  let tree: unknown;
  if (text === '') {
    // Seen from the real service for zero approvals, and read the same way for a page of no request
    // items; for any other command an empty answer says nothing.
    if (command !== 'findApprovals' && command !== 'getRequestItems') throw unreadable('empty body');
    tree = { [command]: '' };
  } else if (text.startsWith('{') || text.startsWith('[')) {
    if (maxDepth !== undefined && nestedDeeperThan(text, maxDepth)) throw unreadable(`JSON nested deeper than ${maxDepth} levels`);
    try {
      tree = JSON.parse(text);
    } catch {
      // JSON.parse's own message quotes the body around the fault, where a secret may be cut in two.
      throw unreadable('not valid JSON');
    }
  } else if (text.startsWith('<') && looksLikeHtml(text)) {
    throw unreadable(`HTML page with status ${res.status}: ${excerpt(parseErrorPage(res.redact(text)).message)}`);
  } else {
    const read = text.startsWith('<')
      ? (body: string) => {
          const xml = parseXml(body);
          return { [xml.name]: xml.value };
        }
      : (body: string) => fromProperties(parseProperties(body));
    try {
      tree = read(text);
    } catch (error) {
      // The parser's message quotes the body: it is told again from the body with the secrets out.
      throw unreadable(failureOf(() => read(res.redact(text))) ?? res.redact((error as Error).message));
    }
  }
  const quickly = quick?.(tree);
  if (quickly !== undefined) return quickly;
  const parsed = schema.safeParse(tree);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
      .join('; ');
    throw unreadable(issues);
  }
  return parsed.data;
}

/**
 * Whether JSON text nests objects and lists deeper than `max`, in one pass that stops there:
 * JSON.parse of a body that is all brackets holds the event loop for a long time.
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The properties format of findApprovals: one key per field, a comma-separated value per object.
 * A value that itself holds commas cannot be split safely; then the body is refused, not guessed.
 */
function approvalsFromProperties(props: Map<string, string>): unknown {
  const countText = props.get('NumApprovals') ?? props.get('findApprovals.NumApprovals');
  const count = countText === undefined ? Number.NaN : Number(countText);
  if (!Number.isInteger(count) || count < 0) throw new SyntaxError('properties body without a NumApprovals count');
  const records: Array<Record<string, string>> = Array.from({ length: count }, () => ({}));
  for (const [rawKey, value] of props) {
    const key = rawKey.replace(/^findApprovals\./, '').replace(/^Approval\./, '');
    if (key === 'NumApprovals') continue;
    const parts = count === 1 ? [value] : value.split(',');
    if (parts.length !== count) throw new SyntaxError(`properties value of ${key} does not split into ${count} values`);
    parts.forEach((part, i) => {
      (records[i] as Record<string, string>)[key] = part;
    });
  }
  return { findApprovals: { NumApprovals: count, ...(count > 0 ? { Approval: records } : {}) } };
}

/** The message of what `work` throws, or undefined when it does not. */
function failureOf(work: () => unknown): string | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const REDACTED = '[redacted]';

/**
 * Takes the request's secrets out of a text of the answer: a proxy or firewall page may quote the
 * request back (its headers, its body), and an error reaches logs and users. Each secret in every
 * form it may be quoted in: as sent, percent-encoded, XML-escaped and JSON-escaped; and a text that
 * ends inside one (an error page is read only so far) loses that end too.
 */
function redactor(secrets: readonly string[]): (text: string) => string {
  const forms = [
    ...new Set(secrets.filter((v) => v !== '').flatMap((v) => [v, encodeURIComponent(v), escapeXml(v), JSON.stringify(v).slice(1, -1)])),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    for (const form of forms)
      for (let k = Math.min(form.length - 1, out.length); k >= 4; k--)
        if (out.endsWith(form.slice(0, k))) {
          out = `${out.slice(0, -k)}${REDACTED}`;
          break;
        }
    return out;
  };
}

/** Every secret a request sends: its bearer token, the application's ClientSecret, and any other (a password). */
function revealedBy(req: Request): string[] {
  return [req.token?.reveal(), req.app?.clientSecret.reveal(), ...(req.secrets ?? []).map((s) => s.reveal())].filter(
    (v): v is string => v !== undefined,
  );
}

function errorFor(command: string, res: RawResponse, context: ErrorContext): ServiceError {
  // Read with the request's secrets taken out, and what it says checked again once its entities are decoded.
  const body = res.redact(res.body);
  const read = looksLikeHtml(body) ? parseErrorPage(body) : { message: excerpt(body, 500), queryString: undefined };
  const page = {
    message: res.redact(read.message),
    queryString: read.queryString === undefined ? undefined : res.redact(read.queryString),
  };
  const reason = res.redact(res.reason);
  const details: ServiceErrorDetails = {
    command,
    status: res.status,
    serviceMessage: page.message || undefined,
    queryString: page.queryString,
  };
  const message = page.message;
  switch (true) {
    case res.status === 401 && command === 'loginUser':
      return new LoginFailedError(details);
    // Any refusal of the application's own sign-in (401, 403, the command switched off) is for an admin to fix.
    case res.status >= 400 && res.status < 500 && command === 'loginTrustedApp':
      return new AppSignInError(details);
    case res.status === 401:
      return new InvalidTokenError(details);
    case res.status === 412 && /could not be retrieved/i.test(message):
      return new NotVisibleError(details);
    case res.status === 412: {
      // "The parameter auth-user-id is required.", "The approval-id parameter is required.",
      // "Either the 'approval-id' or the 'request-id' parameter must be provided."
      const required =
        /parameter\s+'?([\w-]+)'?\s+is\s+required/i.exec(message) ??
        /\b'?([\w-]+)'?\s+parameter\s+is\s+required/i.exec(message) ??
        /either\s+the\s+'?([\w-]+)'?\s+or\s+the\s+'?[\w-]+'?\s+parameter/i.exec(message);
      if (required?.[1]) return new MissingParameterError(required[1], details);
      const named = /parameter\s+'?([\w-]+)'?/i.exec(message);
      return new InvalidParameterError(named?.[1], details);
    }
    case res.status === 404 && offersNot(command, reason, message):
      return new NotOfferedError(details);
    case res.status === 404 && command === 'collectEntitlements' && /no eligible collectors/i.test(message): {
      // Found, then cut: a lazy `(.+?)\s*$` retries the end at every character, slow on a long message.
      const named = /for the application\s+/i.exec(message);
      const app = (named === null ? '' : message.slice(named.index + named[0].length).trim()) || context.application;
      return new NoEligibleCollectorsError(app, details);
    }
    case res.status === 409:
      return new ConflictError(details);
    case res.status >= 500:
      return new ServiceUnavailableError('server-error', `The Command Service failed with status ${res.status}.`, details);
    case res.status >= 400:
      return new NotFoundError(details);
    default:
      return new UnexpectedResponseError(`status ${res.status}; body starts: ${excerpt(body)}`, details);
  }
}

/**
 * A switched-off command is answered 404 with its own name as the reason phrase; an unknown one has
 * been seen answered "The command 'X' is not a valid command.". Either way the service lacks it.
 */
function offersNot(command: string, reason: string, message: string): boolean {
  if (reason.trim().toLowerCase() === command.toLowerCase()) return true;
  return message.includes(`'${command}'`) && /is not a valid command|is not enabled|is disabled/i.test(message);
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

/** `deadlineMs` is set when the call's own deadline cut it off (not the caller's signal). */
function toTransportError(command: string, error: unknown, deadlineMs?: number): ServiceUnavailableError {
  const code = errorCode(error);
  // The cause is kept for the log; undici errors carry no headers, so no token rides along.
  const details = { command, cause: error };
  if (deadlineMs !== undefined) {
    return new ServiceUnavailableError('timeout', `The Command Service did not answer within ${deadlineMs / 1000} s.`, details);
  }
  if (error instanceof undiciErrors.RequestAbortedError || (error as Error | null)?.name === 'AbortError') {
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

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] as string);
}

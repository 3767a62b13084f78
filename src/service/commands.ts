/**
 * The commands: for each, what is checked before anything is sent, the request it makes and how
 * its answer is read. Every request goes through the one transport and every answer through the
 * one decoder; a command the service may have switched off goes through what the client remembers
 * of that (offered.ts).
 */

import type { z } from 'zod';
import type { LogFields, Logger } from '../runtime/logger.js';
import { Secret } from '../runtime/secret.js';
import { type DecisionAnswer, type DecisionCall, type DecisionValues, fillDecisionCall } from './decision-call.js';
import { approvalsFromProperties, dataFromProperties, decode, detailsFromProperties, type Reading } from './decode.js';
import { InvalidParameterError, UnexpectedResponseError } from './errors.js';
import { escapeXml, excerpt } from './formats.js';
import { looksLikeHtml, parseErrorPage } from './html.js';
import type { Offerings, OptionalCommand } from './offered.js';
import {
  type ApprovalQuery,
  approvalIdSchema,
  approvalQuerySchema,
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
import { errorFor } from './status.js';
import type { Transport, TrustedAppCredentials } from './transport.js';

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** With a trusted application's token: the service user the call acts for (auth-user-id). */
  onBehalfOf?: string | undefined;
}

export interface LoginCredentials {
  username: string;
  password: Secret;
  /** An authentication source such as an LDAP directory; the service's default when omitted. */
  authsource?: string | undefined;
}

/**
 * The largest answer of getApprovalDetails and getRequestItems read: one approval, or a page of its
 * items, is a few kilobytes; reading and checking megabytes would hold every other user's work up.
 */
export const DETAILS_MAX_BODY_BYTES = 1024 * 1024;

/** Deeper than any answer of the service nests (five levels for a page of items): past it, JSON.parse is not even tried. */
const DETAILS_MAX_DEPTH = 32;

const FIND_APPROVALS: Reading<typeof findApprovalsBody> = {
  schema: findApprovalsBody,
  fromProperties: approvalsFromProperties,
  quick: readApprovalsPage,
};
const RUN_STATUS: Reading<typeof runStatusBody> = { schema: runStatusBody, fromProperties: dataFromProperties };
const LOGIN: Reading<typeof loginBody> = { schema: loginBody, fromProperties: dataFromProperties, quote: false };
const APPROVAL_DETAILS: Reading<typeof approvalDetailsBody> = {
  schema: approvalDetailsBody,
  fromProperties: (props) => ({ getApprovalDetails: { Approval: detailsFromProperties(props) } }),
  maxDepth: DETAILS_MAX_DEPTH,
};
const REQUEST_ITEMS: Reading<typeof requestItemsBody> = {
  schema: requestItemsBody,
  fromProperties: () => {
    // Item values hold commas ("Wayne, Bruce"), so the properties format's comma lists cannot be split safely.
    throw new SyntaxError('the properties format of getRequestItems cannot be read');
  },
  maxDepth: DETAILS_MAX_DEPTH,
};

/**
 * The client's commands, as seen through one logger: `withLogFields` gives a view with another
 * logger over the same transport and the same memory of what is not offered.
 */
export class Commands {
  constructor(
    private readonly transport: Transport,
    private readonly offered: Offerings,
    private readonly logger: Logger,
  ) {}

  async findApprovals(query: ApprovalQuery, token: Secret, options?: CallOptions): Promise<ApprovalsPage> {
    const checked = checkQuery('findApprovals', approvalQuerySchema, query);
    const params = Object.entries(checked)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)] as const);
    const res = await this.transport.call(this.logger, {
      command: 'findApprovals',
      params: [['format', 'json'], ...params, ...actingFor('findApprovals', options)],
      token,
      // Names and free text a user typed: out of what the service quotes back of the query. Enumerations, dates and paging stay, to tell a refused value.
      userText: { params: TYPED_FILTERS, values: [] },
      idempotent: true,
      signal: options?.signal,
    });
    return decode('findApprovals', res, FIND_APPROVALS);
  }

  async collectEntitlements(query: CollectQuery, token: Secret, options?: CallOptions): Promise<CollectionResult> {
    const checked = checkQuery('collectEntitlements', collectQuerySchema, query);
    const params: Array<readonly [string, string]> = [['format', 'json']];
    if (checked.name !== undefined) params.push(['name', checked.name]);
    if (checked.application !== undefined) params.push(['application', checked.application]);
    if (checked.force !== undefined) params.push(['force', String(checked.force)]);
    params.push(...actingFor('collectEntitlements', options));
    const res = await this.transport.call(this.logger, {
      command: 'collectEntitlements',
      params,
      token,
      idempotent: false,
      signal: options?.signal,
    });
    const reading = { schema: collectBody, fromProperties: dataFromProperties, context: { application: checked.application } };
    return decode('collectEntitlements', res, reading).data;
  }

  async getRunStatus(runId: string, token: Secret, options?: CallOptions): Promise<RunStatus> {
    if (!/^[\w.-]{1,64}$/.test(runId)) {
      throw new UnexpectedResponseError(`refused to send run id ${JSON.stringify(excerpt(runId, 40))}`, { command: 'getRunStatus' });
    }
    const res = await this.transport.call(this.logger, {
      command: 'getRunStatus',
      params: [['run-id', runId], ['format', 'json'], ...actingFor('getRunStatus', options)],
      token,
      idempotent: true,
      signal: options?.signal,
    });
    return toRunStatus(runId, decode('getRunStatus', res, RUN_STATUS).data);
  }

  async loginUser(credentials: LoginCredentials, options?: CallOptions): Promise<Secret> {
    const params: Array<readonly [string, string]> = [['format', 'json']];
    if (credentials.authsource) params.push(['authsource', credentials.authsource]);
    const res = await this.transport.call(this.logger, {
      command: 'loginUser',
      params,
      body: {
        contentType: 'application/xml',
        text: `<username>${escapeXml(credentials.username)}</username><password>${escapeXml(credentials.password.reveal())}</password>`,
      },
      secrets: [credentials.password],
      idempotent: false,
      signal: options?.signal,
    });
    return new Secret(decode('loginUser', res, LOGIN));
  }

  async logoutUser(token: Secret, options?: CallOptions): Promise<void> {
    const res = await this.transport.call(this.logger, {
      command: 'logoutUser',
      params: [['format', 'json']],
      token,
      idempotent: false,
      signal: options?.signal,
    });
    if (res.status >= 200 && res.status < 300) return;
    throw errorFor('logoutUser', res, {});
  }

  async loginTrustedApp(credentials: TrustedAppCredentials, options?: CallOptions): Promise<Secret> {
    const res = await this.transport.call(this.logger, {
      command: 'loginTrustedApp',
      params: [['format', 'json']],
      app: credentials,
      // Signing in twice does no harm (each answer is a new token), so a connection that failed may be tried again.
      idempotent: true,
      signal: options?.signal,
    });
    return new Secret(decode('loginTrustedApp', res, LOGIN));
  }

  getApprovalDetails(approvalId: string, token: Secret, options?: CallOptions): Promise<ApprovalDetails> {
    return this.offered.optional(this.logger, 'getApprovalDetails', async () => {
      const id = checkQuery('getApprovalDetails', approvalIdSchema, approvalId);
      const res = await this.transport.call(this.logger, {
        command: 'getApprovalDetails',
        params: [['format', 'json'], ['approval-id', id], ...actingFor('getApprovalDetails', options)],
        token,
        idempotent: true,
        signal: options?.signal,
        maxBodyBytes: DETAILS_MAX_BODY_BYTES,
      });
      const details = decode('getApprovalDetails', res, APPROVAL_DETAILS);
      // A record that does not say which work item it is, is the one asked for.
      return details.workItemId === '' ? { ...details, workItemId: id } : details;
    });
  }

  getRequestItems(
    selector: RequestItemsSelector,
    page: RequestItemsPageQuery,
    token: Secret,
    options?: CallOptions,
  ): Promise<RequestItemsPage> {
    return this.offered.optional(this.logger, 'getRequestItems', async () => {
      const which = checkQuery('getRequestItems', requestItemsSelectorSchema, selector);
      const paging = checkQuery('getRequestItems', requestItemsPageSchema, page);
      const res = await this.transport.call(this.logger, {
        command: 'getRequestItems',
        params: [
          ['format', 'json'],
          'approvalId' in which ? ['approval-id', which.approvalId] : ['request-id', which.requestId],
          ['page-size', String(paging.pageSize)],
          ['start-page', String(paging.startPage)],
          ...actingFor('getRequestItems', options),
        ],
        token,
        idempotent: true,
        signal: options?.signal,
        maxBodyBytes: DETAILS_MAX_BODY_BYTES,
      });
      return decode('getRequestItems', res, REQUEST_ITEMS);
    });
  }

  decide(decision: DecisionCall, values: DecisionValues, token: Secret, options?: CallOptions): Promise<DecisionAnswer> {
    const send = async (): Promise<DecisionAnswer> => {
      const checked = checkQuery(decision.command, decisionValuesSchema, values);
      const filled = fillDecisionCall(decision, checked);
      const res = await this.transport.call(this.logger, {
        command: filled.command,
        method: filled.method,
        params: [...filled.params, ...(decision.setsFormat ? [] : [['format', 'json'] as const]), ...actingFor(filled.command, options)],
        body: filled.body,
        token,
        userText: {
          params: decision.query.filter((q) => q.value.some((part) => 'value' in part && part.value === 'comment')).map((q) => q.name),
          values: [checked.comment],
        },
        idempotent: false,
        signal: options?.signal,
        maxBodyBytes: DETAILS_MAX_BODY_BYTES,
      });
      if (res.status < 200 || res.status >= 300) throw errorFor(filled.command, res, {});
      // An HTML page is a sign-in form or an error page of something in between (a proxy, a single
      // sign-on gateway) that answered instead of the service, and says nothing of whether it was decided.
      if (looksLikeHtml(res.body.trimStart()))
        throw new UnexpectedResponseError(
          res.redact(
            `status ${res.status} with an HTML page, not the service's answer: ${excerpt(parseErrorPage(res.redact(res.body)).message)}`,
          ),
          { command: filled.command, status: res.status },
        );
      const says = failureStatedIn(res.body);
      return { status: res.status, saysError: says === undefined ? undefined : res.redact(says) };
    };
    return this.offered.optional(this.logger, 'decision', send, decision.command);
  }

  offers(command: OptionalCommand): boolean {
    return this.offered.offers(command);
  }

  withLogFields(fields: LogFields): Commands {
    return new Commands(this.transport, this.offered, this.logger.child(fields));
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** findApprovals' filters that hold what a user typed about people and access, rather than a value the service enumerates. */
const TYPED_FILTERS = ['business-source', 'entitlement-name', 'user-first-name', 'user-last-name', 'user-id'] as const;

/** Words that say a call failed, as a status or a flag: `{"status":"error"}`, `{"success":false}`, `<status>failed</status>`. */
const FAILED = /^(error|errors|fail|failed|failure|ko|false)$/i;

/**
 * The failure a 2xx body states of itself, if it states one: a JSON object (or its one wrapper, as
 * `data` wraps this service's answers) whose `status`/`result` is a failure word, whose `success` is
 * false, or that carries an `error`; an XML answer whose status element is a failure word. The words
 * returned are its message when it has one. Anything else states nothing.
 */
export function failureStatedIn(body: string): string | undefined {
  const text = body.trim();
  if (text.startsWith('<')) {
    const status = /<(?:status|result)>\s*([^<]{1,40}?)\s*<\/(?:status|result)>/i.exec(text)?.[1];
    if (status === undefined || !FAILED.test(status)) return undefined;
    const said = /<(?:message|error|description)>([^<]{1,500})<\//i.exec(text)?.[1];
    return excerpt(said?.trim() || `status ${status}`, 300);
  }
  if (!text.startsWith('{') || text.length > DETAILS_MAX_BODY_BYTES) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const objects = [value, ...Object.values(typeof value === 'object' && value !== null ? value : {})].filter(
    (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
  for (const o of objects) {
    const flag = o.status ?? o.result;
    const failed =
      (typeof flag === 'string' && FAILED.test(flag.trim())) ||
      o.success === false ||
      o.ok === false ||
      (o.error !== undefined && o.error !== null && o.error !== '');
    if (!failed) continue;
    const nested = typeof o.error === 'object' && o.error !== null ? (o.error as Record<string, unknown>).message : undefined;
    const said = [o.message, o.error, nested, o.errorMessage, o.description].find(
      (m): m is string => typeof m === 'string' && m.trim() !== '',
    );
    return excerpt(said?.trim() ?? `status ${typeof flag === 'string' ? flag : 'failed'}`, 300);
  }
  return undefined;
}

/** auth-user-id when the token is an application's, checked like every value that is sent. */
function actingFor(command: string, options: CallOptions | undefined): Array<readonly [string, string]> {
  const id = options?.onBehalfOf;
  if (id === undefined) return [];
  if (!serviceUserIdSchema.safeParse(id).success)
    throw new InvalidParameterError('auth-user-id', { command, serviceMessage: 'Refused to send an invalid auth-user-id' });
  return [['auth-user-id', id]];
}

function checkQuery<S extends z.ZodType>(command: string, schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  // A programming error upstream (the parsers validate user input first); say what, never send it.
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ');
  throw new InvalidParameterError(undefined, { command, serviceMessage: `Refused to send an invalid query: ${issues}` });
}

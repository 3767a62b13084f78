/**
 * The reference Command Service over HTTP (node:http): `{base}/command.submit?cmd=…`, bearer
 * tokens, HTML error pages titled Error with the `Query String=` line, json and properties
 * formats. It is what local mode and the end-to-end tests talk to, so it follows the spec
 * as docs/service-contract.md describes it, rather than this app's wishes.
 */

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ArrivedApproval,
  type ArriveOptions,
  arriveApproval,
  decideInService,
  reassignInService,
  type ServiceChange,
} from './arrivals.js';
import {
  type Answer,
  ApprovalFinder,
  collectEntitlements,
  DEFAULT_RUN_TIMINGS,
  type DecisionFields,
  errorAnswer,
  formatParam,
  getRunStatus,
  type Quirks,
  RequestReader,
  type RunTimings,
  withParameterChecks,
} from './commands.js';
import { type Db, openReferenceDb } from './db.js';
import { DEMO_USERS, loadDemoData, serviceZoneOf } from './demo.js';
import { DEFAULT_SERVICE_ZONE, isServiceZone } from './time.js';
import { APP_TOKEN_POLICY, LOGIN_TOKEN_POLICY, type SessionStorage, type TokenPolicy, TokenRegistry } from './tokens.js';

export interface ReferenceServiceOptions {
  /** The data; a fresh in-memory demo data set when omitted. */
  db?: Db | undefined;
  /**
   * The zone whose clocks the service writes its times on (a fresh demo data set's, and runs'):
   * UTC unless given, or for a database given, the zone its data was written in.
   */
  timeZone?: string | undefined;
  now?: () => Date;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  runTimings?: Partial<RunTimings>;
  loginTokenPolicy?: TokenPolicy;
  /** The trusted application loginTrustedApp accepts; a new one, with a random secret, when omitted. */
  trustedApp?: TrustedApp | undefined;
  /** How long the tokens loginTrustedApp issues last. */
  appTokenPolicy?: TokenPolicy;
  /** Lifetime of the printed demo tokens; a day by default so that a demo session never meets a 401 it did not ask for. */
  demoTokenLifetimeMs?: number;
  quirks?: Quirks;
  /** Delay before every answer, to play a slow service. */
  delayMs?: number;
  conflictWhenQueued?: boolean;
  /**
   * Where sessions (tokens) live: 'shared', in the data, so that every instance over the same data
   * knows them and they outlive a restart (the default); 'instance', in this instance's memory, as a
   * servlet container keeps them without session replication: forgetSessions() is then a restart,
   * and two instances over one data set are two nodes that do not know each other's tokens.
   */
  sessions?: SessionStorage;
}

/** What the service's Admin > Web Services > Trusted Application page would hold for one application. */
export interface TrustedApp {
  clientId: string;
  clientSecret: string;
}

/** A call an application's token made for a user (auth-user-id as sent): lets tests prove whom each call was for. */
export interface ActedFor {
  command: string;
  authUserId: string;
}

export interface DemoToken {
  label: string;
  userId: string;
  commands: string[];
  token: string;
  note: string;
}

export interface ReferenceService {
  /** base_url: `http://127.0.0.1:<port>/aveksa`. */
  readonly url: string;
  readonly port: number;
  readonly db: Db;
  /** The zone its times are written in: what countersign's COMMAND_SERVICE_TIME_ZONE should say. */
  readonly timeZone: string;
  readonly tokens: TokenRegistry;
  readonly demoTokens: readonly DemoToken[];
  setDelay(ms: number): void;
  setQuirks(quirks: Quirks): void;
  /** Requests answered so far, by command: lets tests prove that bad input never arrived. */
  readonly calls: ReadonlyMap<string, number>;
  /** Requests being answered now, and the most there have been at once (counted from arrival to the answer's last byte). */
  readonly load: { readonly inFlight: number; readonly maxInFlight: number };
  /** Starts the most-at-once count again from the requests in flight now (a test measuring one stretch). */
  resetLoad(): void;
  /** The trusted application loginTrustedApp accepts. */
  readonly trustedApp: TrustedApp;
  /** Every call an application token made for a user, in order. */
  readonly actedFor: readonly ActedFor[];
  /**
   * Forgets every session this instance knows, as a restart does to sessions held in memory
   * (`sessions: 'instance'`): each token issued before is refused as invalid or expired.
   */
  forgetSessions(): void;
  /**
   * Ends the sessions of trusted applications, as an administrator does from the service's
   * Web Services pages (or the service when it ends them early): their tokens are refused as
   * invalid or expired, and signing in again gives a token that works.
   */
  revokeAppSessions(): void;
  /**
   * Changes how long the tokens loginTrustedApp issues from now on last, as an administrator
   * changing the service's token settings does (`{ lifespanMs: 0 }`: each is refused as soon as issued).
   */
  setAppTokenPolicy(policy: TokenPolicy): void;
  /**
   * A request made now (the service's clock) gives this service user (any case) a new pending
   * approval, as findApprovals will list it to them (arrivals.ts).
   */
  arrive(approver: string, options?: Omit<ArriveOptions, 'now'>): ArrivedApproval;
  /** Its approver decides a pending work item in the service's own pages, now (the step's first action unless given). */
  decideInService(workItemId: string, options?: { action?: string; comment?: string }): ServiceChange;
  /** An administrator gives a pending work item to another service user: it leaves its approver's list. */
  reassign(workItemId: string, to: string): ServiceChange;
  close(): Promise<void>;
}

/**
 * How this service's performWorkItem is called, as DECISION_REQUEST says it (its shape is this
 * service's own: a real one shows its own under Admin > Web Services > performWorkItem > Request).
 */
export const PERFORM_WORK_ITEM_REQUEST = 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}';

/** The path prefix the real product uses; any prefix ending in /command.submit is accepted. */
export const BASE_PATH = '/aveksa';

const COMMANDS_NEEDING_TOKEN = new Set([
  'findApprovals',
  'collectEntitlements',
  'getRunStatus',
  'logoutUser',
  'getApprovalDetails',
  'getRequestItems',
  'performWorkItem',
]);

/** What an application's token may run, always for a user named by auth-user-id: every command that acts for someone. */
const APP_COMMANDS = [...COMMANDS_NEEDING_TOKEN].filter((c) => c !== 'logoutUser');

const MAX_ACTED_FOR = 10_000;

/** A new trusted application for a service started without one: a fixed id, a secret nobody could guess. */
export function newTrustedApp(): TrustedApp {
  return { clientId: 'countersign', clientSecret: randomBytes(24).toString('base64url') };
}

export async function startReferenceService(options: ReferenceServiceOptions = {}): Promise<ReferenceService> {
  const now = options.now ?? (() => new Date());
  if (options.timeZone !== undefined && !isServiceZone(options.timeZone)) throw new Error(`Unknown time zone: ${options.timeZone}`);
  let db = options.db;
  if (db === undefined) {
    db = openReferenceDb(':memory:');
    loadDemoData(db, now(), { timeZone: options.timeZone });
  }
  const timeZone = options.db === undefined ? (options.timeZone ?? DEFAULT_SERVICE_ZONE) : serviceZoneOf(db);
  const tokens = new TokenRegistry(db, now, options.sessions ?? 'shared');
  const demoTokens =
    options.db === undefined || hasDemoUsers(db) ? issueDemoTokens(tokens, now(), options.demoTokenLifetimeMs ?? 86_400_000) : [];
  const trustedApp = options.trustedApp ?? newTrustedApp();
  const handler = createReferenceHandler({
    db,
    tokens,
    now,
    timeZone,
    runTimings: { ...DEFAULT_RUN_TIMINGS, ...options.runTimings },
    loginTokenPolicy: options.loginTokenPolicy ?? LOGIN_TOKEN_POLICY,
    trustedApp,
    appTokenPolicy: options.appTokenPolicy ?? APP_TOKEN_POLICY,
    conflictWhenQueued: options.conflictWhenQueued ?? true,
  });
  handler.setQuirks(options.quirks ?? {});
  handler.setDelay(options.delayMs ?? 0);
  const server: Server = createServer(handler.handle);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const ownDb = options.db === undefined;
  return {
    url: `http://${host}:${port}${BASE_PATH}`,
    port,
    db,
    timeZone,
    tokens,
    demoTokens,
    setDelay: handler.setDelay,
    setQuirks: handler.setQuirks,
    calls: handler.calls,
    load: handler.load,
    resetLoad: handler.resetLoad,
    trustedApp,
    actedFor: handler.actedFor,
    forgetSessions: () => tokens.forgetAll(),
    revokeAppSessions: () => tokens.revokeAll('app'),
    setAppTokenPolicy: handler.setAppTokenPolicy,
    arrive: (approver, arrival = {}) => arriveApproval(db, approver, { ...arrival, now: now() }),
    decideInService: (workItemId, decision = {}) => decideInService(db, workItemId, { ...decision, now: now() }),
    reassign: (workItemId, to) => reassignInService(db, workItemId, to),
    async close() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownDb) db.close();
    },
  };
}

function hasDemoUsers(db: Db): boolean {
  return db.prepare("SELECT 1 FROM users WHERE id = 'ada.lovelace'").get() !== undefined;
}

/** The tokens printed by `countersign service`: one per way of using the service, one already expired. */
export function issueDemoTokens(tokens: TokenRegistry, now: Date, lifetimeMs: number): DemoToken[] {
  const policy = { lifespanMs: lifetimeMs, inactivityMs: null };
  const user = (id: string) => DEMO_USERS.find((u) => u.id === id)?.commands ?? [];
  const make = (label: string, userId: string, commands: string[], note: string, kind: 'user' | 'app' = 'user', issuedAt = now) => ({
    label,
    userId,
    commands,
    note,
    token: tokens.issue(userId, commands, policy, kind, issuedAt),
  });
  return [
    make('approver', 'ada.lovelace', user('ada.lovelace'), 'findApprovals and approval details'),
    make('approver+ops', 'grace.hopper', user('grace.hopper'), 'findApprovals and collectEntitlements'),
    make('ops', 'oscar.ops', user('oscar.ops'), 'collectEntitlements only'),
    make(
      'expired',
      'ada.lovelace',
      user('ada.lovelace'),
      'already expired: every call answers 401',
      'user',
      new Date(now.getTime() - lifetimeMs - 60_000),
    ),
    make('trusted-app', 'integration', APP_COMMANDS, 'an application token: answers 412 until auth-user-id names a user', 'app'),
  ];
}

interface HandlerDeps {
  db: Db;
  tokens: TokenRegistry;
  now: () => Date;
  /** The zone its times are written in. */
  timeZone: string;
  runTimings: RunTimings;
  loginTokenPolicy: TokenPolicy;
  trustedApp: TrustedApp;
  appTokenPolicy: TokenPolicy;
  conflictWhenQueued: boolean;
}

/** Compared as digests, so that the time taken says nothing of how much of a secret was right. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Who a call is for, once its token is checked: its user (the one named by auth-user-id for an application's token). */
type Caller = { ok: true; userId: string; token: string | undefined } | { ok: false; answer: Answer };

export function createReferenceHandler(deps: HandlerDeps) {
  const finder = new ApprovalFinder(deps.db);
  const requests = new RequestReader(deps.db);
  const calls = new Map<string, number>();
  const actedFor: ActedFor[] = [];
  let quirks: Quirks = {};
  let delayMs = 0;
  let appTokenPolicy = deps.appTokenPolicy;
  // What an operator's server would show: how many requests it holds at once, the wait of a slow service included.
  const load = { inFlight: 0, maxInFlight: 0 };

  async function answer(req: IncomingMessage, url: URL): Promise<Answer> {
    const params = url.searchParams;
    const cmd = params.get('cmd');
    if (cmd === null || cmd === '') return errorAnswer(412, 'The parameter cmd is required.');
    calls.set(cmd, (calls.get(cmd) ?? 0) + 1);
    if (cmd === 'loginUser') return loginUser(deps, req, params);
    // As a servlet's sendError(404, name) answers: the command's name is the reason phrase, and the page's message.
    if (quirks.disabledCommands?.includes(cmd)) return { kind: 'error', status: 404, message: cmd, withQueryString: false, reason: cmd };
    if (cmd === 'loginTrustedApp') return loginTrustedApp(deps, appTokenPolicy, req, params);
    if (!COMMANDS_NEEDING_TOKEN.has(cmd) || quirks.missingCommands?.includes(cmd))
      return errorAnswer(404, `The command '${cmd}' is not a valid command.`);
    const caller = callerOf(deps, req, cmd, params, actedFor);
    return caller.ok ? run(cmd, caller, req, params) : caller.answer;
  }

  /** A command the caller may run, run for its user. */
  async function run(cmd: string, caller: Caller & { ok: true }, req: IncomingMessage, params: URLSearchParams): Promise<Answer> {
    const { userId } = caller;
    const now = deps.now();
    switch (cmd) {
      case 'findApprovals':
        return finder.find(userId, params, quirks);
      case 'collectEntitlements':
        return collectEntitlements(deps.db, userId, params, { now, conflictWhenQueued: deps.conflictWhenQueued, timings: deps.runTimings });
      case 'getRunStatus':
        return getRunStatus(deps.db, params, now, deps.runTimings, deps.timeZone);
      case 'getApprovalDetails':
        return requests.details(userId, params, quirks);
      case 'getRequestItems':
        return requests.items(userId, params, quirks);
      case 'performWorkItem': {
        const answer = requests.decide(userId, await decisionFields(req, params), params, now, deps.timeZone);
        const late = quirks.lateAnswers?.performWorkItem;
        // Done, and then slow to say so: the caller's deadline passes with the decision made.
        if (late !== undefined && late > 0) await sleep(late);
        return answer;
      }
      default:
        return withParameterChecks(() => {
          const format = formatParam(params);
          deps.tokens.revoke(caller.token ?? '');
          return { kind: 'object', status: 200, root: 'data', value: { type: 'logoutUser' }, format };
        });
    }
  }

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    countWhileOpen(load, res);
    const url = new URL(req.url ?? '/', 'http://reference.invalid');
    const rawQuery = (req.url ?? '').split('?')[1] ?? '';
    const respond = async () => {
      if (delayMs > 0) await sleep(delayMs);
      if (!url.pathname.endsWith('/command.submit')) return errorAnswer(404, `No such page: ${url.pathname}`, false);
      return answer(req, url);
    };
    void respond()
      .catch((error: unknown) => {
        // A Java service answers a 500 with the exception's text; this one answers with the message only.
        return errorAnswer(500, `java.lang.RuntimeException: ${(error as Error).message}`, false);
      })
      .then((a) => {
        if (!res.destroyed) write(res, a, rawQuery);
      });
  };

  return {
    handle,
    calls: calls as ReadonlyMap<string, number>,
    load: load as { readonly inFlight: number; readonly maxInFlight: number },
    resetLoad: () => {
      load.maxInFlight = load.inFlight;
    },
    actedFor: actedFor as readonly ActedFor[],
    setQuirks: (q: Quirks) => {
      quirks = { ...q };
    },
    setDelay: (ms: number) => {
      delayMs = ms;
    },
    setAppTokenPolicy: (policy: TokenPolicy) => {
      appTokenPolicy = { ...policy };
    },
  };
}

/** Counts a request as held from its arrival until its answer's last byte is sent, or the connection closes. */
function countWhileOpen(load: { inFlight: number; maxInFlight: number }, res: ServerResponse): void {
  load.inFlight++;
  if (load.inFlight > load.maxInFlight) load.maxInFlight = load.inFlight;
  let counted = true;
  const done = () => {
    if (counted) load.inFlight--;
    counted = false;
  };
  res.once('finish', done);
  res.once('close', done);
}

/**
 * The bearer token checked for the command. An application's token acts for nobody until it says
 * for whom (the likely source of the spec's 412), and then exactly as that user would: their
 * approvals, the commands they may run. A user's own token acts for its user alone.
 */
function callerOf(deps: HandlerDeps, req: IncomingMessage, cmd: string, params: URLSearchParams, actedFor: ActedFor[]): Caller {
  const refused = (answer: Answer): Caller => ({ ok: false, answer });
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const check = deps.tokens.check(token, cmd);
  if (!check.ok) {
    const suffix = check.reason === 'invalid-or-expired' ? 'Token is invalid or expired' : '';
    return refused(errorAnswer(401, `The token is not valid for the command '${cmd}'. ${suffix}`, false));
  }
  const onBehalf = params.get('auth-user-id');
  if (check.kind !== 'app') {
    if (onBehalf !== null)
      return refused(errorAnswer(412, "The parameter auth-user-id is accepted only with a trusted application's token."));
    return { ok: true, userId: check.userId, token };
  }
  if (!onBehalf) return refused(errorAnswer(412, 'The parameter auth-user-id is required.'));
  const user = deps.tokens.user(onBehalf);
  if (user === undefined) return refused(errorAnswer(401, `The user '${onBehalf}' given by auth-user-id could not be found.`, false));
  if (!user.commands.includes(cmd)) return refused(errorAnswer(401, `The token is not valid for the command '${cmd}'. `, false));
  // The latest calls only: a service left running under load keeps a bounded record.
  if (actedFor.length >= MAX_ACTED_FOR) actedFor.splice(0, actedFor.length - MAX_ACTED_FOR + 1);
  actedFor.push({ command: cmd, authUserId: onBehalf });
  return { ok: true, userId: user.id, token };
}

async function loginUser(deps: HandlerDeps, req: IncomingMessage, params: URLSearchParams): Promise<Answer> {
  if (req.method !== 'POST') return errorAnswer(405, 'loginUser must be sent with POST.');
  const body = await readBody(req, 64 * 1024);
  const field = (name: string) => {
    const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body);
    return m?.[1] === undefined ? undefined : decodeXmlText(m[1]);
  };
  const username = field('username');
  const password = field('password');
  if (username === undefined) return errorAnswer(412, 'The parameter username is required.');
  if (password === undefined) return errorAnswer(412, 'The parameter password is required.');
  const token = deps.tokens.login(username, password, params.get('authsource') || undefined, deps.loginTokenPolicy);
  if (token === undefined) return errorAnswer(401, 'User could not be validated. The username or password may be incorrect.');
  return withParameterChecks(() => ({
    kind: 'object',
    status: 200,
    root: 'data',
    value: { type: 'loginUser', token },
    format: formatParam(params),
  }));
}

/** loginTrustedApp: POST, no body, the Trusted Application page's ClientId and ClientSecret as headers. */
async function loginTrustedApp(deps: HandlerDeps, policy: TokenPolicy, req: IncomingMessage, params: URLSearchParams): Promise<Answer> {
  if (req.method !== 'POST') return errorAnswer(405, 'loginTrustedApp must be sent with POST.');
  const clientId = headerOf(req, 'clientid');
  const clientSecret = headerOf(req, 'clientsecret');
  const known = deps.trustedApp;
  // Both compared whatever the first says, so that a wrong id answers no faster than a wrong secret.
  const idOk = clientId !== undefined && sameSecret(clientId, known.clientId);
  const secretOk = clientSecret !== undefined && sameSecret(clientSecret, known.clientSecret);
  if (!idOk || !secretOk)
    return errorAnswer(401, 'The trusted application could not be validated. The client id or client secret may be incorrect.');
  const token = deps.tokens.issue(known.clientId, APP_COMMANDS, policy, 'app');
  return withParameterChecks(() => ({
    kind: 'object',
    status: 200,
    root: 'data',
    value: { type: 'loginTrustedApp', token },
    format: formatParam(params),
  }));
}

/**
 * performWorkItem's fields: from the query, or from a POSTed body, as XML elements
 * (<workitem-id>…</workitem-id>), a JSON object or a form; the query's win where both say.
 */
async function decisionFields(req: IncomingMessage, params: URLSearchParams): Promise<DecisionFields> {
  const fields: Record<string, string | undefined> = {
    'workitem-id': params.get('workitem-id') ?? undefined,
    action: params.get('action') ?? undefined,
    comment: params.get('comment') ?? undefined,
  };
  if (req.method === 'POST') {
    const body = (await readBody(req, 64 * 1024)).trim();
    const fromBody = (name: string): string | undefined => {
      if (body.startsWith('<')) {
        const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body);
        return m?.[1] === undefined ? undefined : decodeXmlText(m[1]);
      }
      if (body.startsWith('{')) {
        try {
          const value = (JSON.parse(body) as Record<string, unknown>)[name];
          return typeof value === 'string' ? value : undefined;
        } catch {
          return undefined;
        }
      }
      return new URLSearchParams(body).get(name) ?? undefined;
    };
    for (const name of Object.keys(fields)) fields[name] ??= fromBody(name);
  }
  return { workItemId: fields['workitem-id'], action: fields.action, comment: fields.comment };
}

function write(res: ServerResponse, a: Answer, rawQuery: string): void {
  let body: string;
  let type: string;
  if (a.kind === 'error') {
    type = 'text/html;charset=utf-8';
    body = errorPage(a.message, a.withQueryString ? rawQuery : undefined);
  } else if (a.format === 'json') {
    type = 'application/json;charset=utf-8';
    body = JSON.stringify({ [a.root]: a.value });
  } else if (a.format === 'xml') {
    type = 'application/xml;charset=utf-8';
    body = `<?xml version="1.0" encoding="UTF-8"?>${toXml(a.root, a.value)}`;
  } else {
    type = 'text/plain;charset=utf-8';
    body = toProperties(a.value);
  }
  const headers = { 'content-type': type, 'content-length': Buffer.byteLength(body) };
  if (a.kind === 'error' && a.reason !== undefined) res.writeHead(a.status, a.reason, headers);
  else res.writeHead(a.status, headers);
  res.end(body);
}

/** Text content only ever needs these three; quotes are safe outside attributes. */
const escapeMarkup = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);

export function errorPage(message: string, queryString: string | undefined): string {
  const query = queryString === undefined ? '' : `<p>Query String=${escapeMarkup(queryString)}</p>`;
  return `<html><head><title>Error</title></head><body><h1>Error</h1><p>${escapeMarkup(message)}</p>${query}</body></html>`;
}

/**
 * The default format: `key=value` lines; several objects give one line per key with a
 * comma-separated value per object, in object order, as the spec describes.
 */
function toProperties(value: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v)) {
      const keys = [...new Set(v.flatMap((o) => Object.keys(o as object)))];
      for (const k of keys) lines.push(`${k}=${v.map((o) => String((o as Record<string, unknown>)[k] ?? '')).join(',')}`);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) lines.push(`${k}=${String(inner)}`);
    } else {
      lines.push(`${key}=${String(v)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function toXml(name: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => toXml(name, v)).join('');
  if (value !== null && typeof value === 'object') {
    return `<${name}>${Object.entries(value)
      .map(([k, v]) => toXml(k, v))
      .join('')}</${name}>`;
  }
  return `<${name}>${escapeMarkup(String(value))}</${name}>`;
}

function decodeXmlText(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] as string);
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

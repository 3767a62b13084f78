/**
 * Our own Bolt receiver for HTTP mode, on node:http. It owns everything a request must pass
 * before Bolt sees it, in the order that costs an attacker most and us least:
 *   size (Content-Length, before a byte is read) → signature headers and their time (before the
 *   body is read) → the body, counted as it streams and cut off at the limit → the v0 signature
 *   (HMAC, compared in constant time) → replay (the signature seen before) → the body's shape.
 * Then it hands Bolt a ReceiverEvent whose ack answers the HTTP request, as Bolt's HTTPReceiver
 * does, and serves GET /healthz and GET /metrics beside it. Every request gets an answer, and
 * nothing a client sends can throw out of here.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type App, type Receiver, type ReceiverEvent, ReceiverMultipleAckError } from '@slack/bolt';
import { Counter } from 'prom-client';
import type { Logger } from '../../runtime/logger.js';
import type { Metrics } from '../../runtime/metrics.js';
import type { Secret } from '../../runtime/secret.js';
import type { Route } from './probes.js';
import type { ReplayGuard } from './replay.js';

/**
 * Slack's requests are small: a slash command is under 2 KiB; the largest, a click that carries the
 * 50-block message it was on or a modal's submission, come to a few hundred KiB at most once
 * form-encoded. 1 MiB leaves room for them and keeps what one request can make us hold small.
 */
export const BODY_LIMIT = 1024 * 1024;
/**
 * Bodies are read before their signature can be checked, so anyone can send them; what all of them
 * together may hold in memory is bounded, in two parts so that a flood of large bodies cannot turn
 * Slack away. Slack's bodies are small: a command, most clicks and submissions fit in SMALL_BODY.
 * Each request's first SMALL_BODY bytes count against SMALL_BUDGET (hundreds of Slack's requests at
 * once); whatever a body has beyond that counts against LARGE_BUDGET. A request that finds its part
 * spent is turned away with 503 (Slack does not retry commands and clicks: that is why the large
 * bodies, the rare ones, are the ones that wait).
 */
export const SMALL_BODY = 128 * 1024;
export const SMALL_BUDGET = 64 * 1024 * 1024;
export const LARGE_BUDGET = 32 * 1024 * 1024;
/** An unsigned request is read only to recognise Slack's certificate check (`ssl_check=1&token=…`). */
const UNSIGNED_LIMIT = 4 * 1024;
/** Slack's window: a request signed more than 5 minutes ago is stale. */
export const SIGNATURE_WINDOW_S = 5 * 60;
/** Clocks drift, but not by minutes: a timestamp further ahead than this was not made by Slack just now. */
export const SIGNATURE_FUTURE_S = 60;
/** After refusing a request whose body is still arriving, how long it is read (and dropped) before the connection is cut. */
const LINGER_MS = 1_000;
/** Bolt's own: a request not acknowledged by then is answered for the listener. */
const ACK_TIMEOUT_MS = 3_001;

export interface SlackReceiverOptions {
  signingSecret: Secret;
  logger: Logger;
  metrics: Metrics;
  replay: ReplayGuard;
  /** GET routes by path: /healthz and /metrics. */
  routes: ReadonlyMap<string, Route>;
  port: number;
  host?: string | undefined;
  /** The wall clock, as Slack's timestamps are (tests of the window inject theirs). */
  nowMs?: () => number;
  /** True once the app is stopping: new events are turned away, while health checks are still answered. */
  draining?: () => boolean;
  endpoint?: string;
}

/**
 * Every reason a request to the endpoint is refused for, with its status: the `reason` label of
 * countersign_http_refused_total and the `error` of the answer. docs/operating.md explains each
 * (test/docs.test.ts holds it to this list).
 */
export const REFUSALS = {
  'too-large': 413,
  unsigned: 401,
  'bad-timestamp': 401,
  stale: 401,
  future: 401,
  'bad-signature': 401,
  replayed: 401,
  malformed: 400,
  aborted: 400,
  busy: 503,
  draining: 503,
} as const;

export type RefusalReason = keyof typeof REFUSALS;

type Refusal = { [R in RefusalReason]: { status: (typeof REFUSALS)[R]; reason: R } }[RefusalReason];

/** A body as Bolt reads it: a plain object. */
type Body = Record<string, unknown>;

export class SlackReceiver implements Receiver {
  readonly #o: SlackReceiverOptions;
  readonly #now: () => number;
  readonly #endpoint: string;
  readonly #refused: Counter<'status' | 'reason'>;
  readonly #quiet = new Map<string, { at: number; count: number }>();
  #app: App | undefined;
  #server: Server | undefined;
  /** Bytes held now by bodies being read: their first SMALL_BODY bytes, and the rest. */
  #small = 0;
  #large = 0;

  constructor(options: SlackReceiverOptions) {
    this.#o = options;
    this.#now = options.nowMs ?? Date.now;
    this.#endpoint = options.endpoint ?? '/slack/events';
    const name = 'countersign_http_refused_total';
    // Several apps may share one registry (tests): the counter is made once.
    this.#refused =
      (options.metrics.registry.getSingleMetric(name) as Counter<'status' | 'reason'> | undefined) ??
      new Counter({
        name,
        help: 'Requests to POST /slack/events refused before reaching the app, by status and reason',
        labelNames: ['status', 'reason'],
        registers: [options.metrics.registry],
      });
  }

  init(app: App): void {
    this.#app = app;
  }

  /** Listens; resolves with the server (its address has the port PORT=0 got). */
  start(): Promise<Server> {
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        this.#o.logger.error({ error, path: req.url?.split('?')[0] }, 'request failed');
        if (!res.headersSent) this.#send(req, res, 500, { ok: false });
        else res.end();
      });
    });
    // Slack sends a whole request at once; a client dribbling one out only holds a connection.
    server.headersTimeout = 10_000;
    server.requestTimeout = 15_000;
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port, this.#o.host, () => {
        server.off('error', reject);
        // Errors after listening (a socket torn down mid-request) are the client's, not the app's.
        server.on('error', (error) => this.#o.logger.warn({ error }, 'HTTP server error'));
        resolve(server);
      });
    });
  }

  /** Stops accepting; resolves once the requests being answered are done (acks come within 3 s). */
  stop(): Promise<void> {
    const server = this.#server;
    if (server === undefined || !server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // Keep-alive connections that go idle after their last answer are closed as they do.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      server.close((error) => {
        clearInterval(idle);
        if (error) reject(error);
        else resolve();
      });
      server.closeIdleConnections();
    });
  }

  /** Cuts every connection: for a stop that has run out of time. */
  closeAllConnections(): void {
    this.#server?.closeAllConnections();
  }

  get port(): number | undefined {
    return (this.#server?.address() as AddressInfo | null)?.port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method === 'GET') {
      const route = this.#o.routes.get(path);
      if (route) return route(req, res);
    }
    if (req.method !== 'POST' || path !== this.#endpoint) return this.#send(req, res, 404, { ok: false });
    // Stopping: what was acknowledged is being finished; nothing new is taken (the load balancer has
    // heard 503 from /healthz and sends it elsewhere).
    if (this.#o.draining?.() === true) return this.#refuse(req, res, { status: 503, reason: 'draining' });
    const refusal = await this.#event(req, res);
    if (refusal !== undefined) this.#refuse(req, res, refusal);
  }

  /** Handles a POST to the endpoint: a refusal to answer, or undefined once answered. */
  async #event(req: IncomingMessage, res: ServerResponse): Promise<Refusal | undefined> {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > BODY_LIMIT) return { status: 413, reason: 'too-large' };

    const timestamp = single(req.headers['x-slack-request-timestamp']);
    const signature = single(req.headers['x-slack-signature']);
    if (timestamp === undefined || signature === undefined) return this.#unsigned(req, res);
    if (!/^\d{1,12}$/.test(timestamp)) return { status: 401, reason: 'bad-timestamp' };
    // One instant for the window and the replay check: read twice, a replay that passes the
    // window by a hair could find its first copy already forgotten.
    const nowMs = this.#now();
    const nowS = nowMs / 1000;
    const at = Number(timestamp);
    if (at < nowS - SIGNATURE_WINDOW_S) return { status: 401, reason: 'stale' };
    if (at > nowS + SIGNATURE_FUTURE_S) return { status: 401, reason: 'future' };

    const read = await this.#read(req, BODY_LIMIT);
    if ('status' in read) return read;
    if (!this.#signatureMatches(signature, timestamp, read.body)) return { status: 401, reason: 'bad-signature' };
    // Remembered until the request would be stale anyway: after that the window refuses it.
    if (!(await this.#o.replay.firstTime(signature, (at + SIGNATURE_WINDOW_S) * 1000, nowMs))) return { status: 401, reason: 'replayed' };

    const parsed = parseBody(read.body, single(req.headers['content-type']));
    if (typeof parsed === 'string') {
      this.#o.logger.warn({ problem: parsed }, 'signed request with a malformed body');
      return { status: 400, reason: 'malformed' };
    }
    if (parsed.ssl_check === '1') return void this.#send(req, res, 200);
    if (parsed.type === 'url_verification') return void this.#send(req, res, 200, { challenge: parsed.challenge });
    await this.#dispatch(req, res, parsed);
    return undefined;
  }

  /**
   * A request without Slack's headers gets 401 without its body being read, except Slack's own
   * certificate check, which is unsigned: it gets an empty 200 and reaches nothing else.
   */
  async #unsigned(req: IncomingMessage, res: ServerResponse): Promise<Refusal | undefined> {
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return { status: 401, reason: 'unsigned' };
    const read = await this.#read(req, UNSIGNED_LIMIT);
    if ('status' in read) return { status: 401, reason: 'unsigned' };
    if (new URLSearchParams(read.body.toString('utf8')).get('ssl_check') !== '1') return { status: 401, reason: 'unsigned' };
    this.#send(req, res, 200);
    return undefined;
  }

  #signatureMatches(signature: string, timestamp: string, body: Buffer): boolean {
    const hmac = createHmac('sha256', this.#o.signingSecret.reveal());
    hmac.update(`v0:${timestamp}:`);
    hmac.update(body);
    const expected = Buffer.from(`v0=${hmac.digest('hex')}`);
    const given = Buffer.from(signature);
    // The length of a well-formed signature is public; only its content must not leak through timing.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * The body, counted as it streams: past `limit` (or the budget of all bodies together) reading
   * stops and the request is refused. Nothing is held beyond what has arrived, up to the limit.
   */
  #read(req: IncomingMessage, limit: number): Promise<{ body: Buffer } | Refusal> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (result: { body: Buffer } | Refusal) => {
        if (done) return;
        done = true;
        const small = Math.min(size, SMALL_BODY);
        this.#small -= small;
        this.#large -= size - small;
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
        resolve(result);
      };
      const onData = (chunk: Buffer) => {
        if (size + chunk.length > limit) return finish({ status: 413, reason: 'too-large' });
        const small = Math.min(size + chunk.length, SMALL_BODY) - Math.min(size, SMALL_BODY);
        const large = chunk.length - small;
        if (this.#small + small > SMALL_BUDGET || this.#large + large > LARGE_BUDGET) return finish({ status: 503, reason: 'busy' });
        size += chunk.length;
        this.#small += small;
        this.#large += large;
        chunks.push(chunk);
      };
      const onEnd = () => finish({ body: Buffer.concat(chunks, size) });
      const onError = () => finish({ status: 400, reason: 'aborted' });
      const onClose = () => finish({ status: 400, reason: 'aborted' });
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('close', onClose);
    });
  }

  /** Hands the request to Bolt with an ack that answers it. */
  async #dispatch(req: IncomingMessage, res: ServerResponse, body: Body): Promise<void> {
    const app = this.#app;
    if (app === undefined) return void this.#send(req, res, 503, { ok: false });
    let state: 'waiting' | 'acked' | 'timed-out' | 'failed' = 'waiting';
    const timer = setTimeout(() => {
      if (state !== 'waiting') return;
      state = 'timed-out';
      this.#o.logger.error({}, 'a request was not acknowledged within 3 seconds');
      this.#send(req, res, 404);
    }, ACK_TIMEOUT_MS);
    const ack = async (response?: unknown): Promise<void> => {
      if (state === 'acked') throw new ReceiverMultipleAckError();
      // Too late: Slack has been answered already (and has given up on this request).
      if (state !== 'waiting') return this.#o.logger.warn({}, 'ack() came after the request was answered');
      state = 'acked';
      clearTimeout(timer);
      if (response === undefined || response === '') this.#send(req, res, 200);
      else if (typeof response === 'string') this.#send(req, res, 200, response);
      else this.#send(req, res, 200, response);
    };
    const retryNum = single(req.headers['x-slack-retry-num']);
    const retryReason = single(req.headers['x-slack-retry-reason']);
    const event: ReceiverEvent = {
      body,
      ack,
      ...(retryNum !== undefined && /^\d+$/.test(retryNum) ? { retryNum: Number(retryNum) } : {}),
      ...(retryReason !== undefined ? { retryReason } : {}),
    };
    try {
      await app.processEvent(event);
    } catch (error) {
      this.#o.logger.error({ error }, 'Bolt could not process a request');
      if (state === 'waiting') {
        state = 'failed';
        clearTimeout(timer);
        this.#send(req, res, 500, { ok: false });
      }
    }
  }

  #send(req: IncomingMessage, res: ServerResponse, status: number, body?: unknown): void {
    if (res.headersSent) return;
    if (body === undefined) {
      res.writeHead(status);
      res.end();
    } else if (typeof body === 'string') {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(body);
    } else {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }
    this.#linger(req);
  }

  /**
   * A request answered before its body was all read: Node reads the rest and drops it (nothing is
   * kept), so that the client, still sending, receives the answer rather than a reset. A client
   * that keeps sending is cut off after a moment; one whose body ends in time keeps its connection,
   * for the next request on it may be anyone's (a proxy pools its connections to us).
   */
  #linger(req: IncomingMessage): void {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), LINGER_MS);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
    req.socket.once('close', done);
  }

  #refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
    this.#refused.inc({ status: String(refusal.status), reason: refusal.reason });
    this.#note(refusal, req.socket.remoteAddress);
    const headers: Record<string, string> =
      refusal.reason === 'draining' ? { connection: 'close' } : refusal.status === 503 ? { 'retry-after': '1' } : {};
    if (res.headersSent) return;
    res.writeHead(refusal.status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ ok: false, error: refusal.reason }));
    this.#linger(req);
  }

  /** One log line per reason at first, then at most one per 10 s with how many there were: a flood must not flood the log. */
  #note(refusal: Refusal, remote: string | undefined): void {
    const now = this.#now();
    const seen = this.#quiet.get(refusal.reason);
    if (seen !== undefined && now - seen.at < 10_000) {
      seen.count++;
      return;
    }
    this.#quiet.set(refusal.reason, { at: now, count: 0 });
    const fields = { status: refusal.status, reason: refusal.reason, remote, ...(seen?.count ? { alsoRefusedSince: seen.count } : {}) };
    if (refusal.reason === 'aborted') this.#o.logger.debug(fields, 'request refused');
    else this.#o.logger.warn(fields, 'request refused');
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

/**
 * The body as Bolt expects it, or what is wrong with it. Forms carry slash commands (fields) and
 * interactivity (`payload=` JSON); JSON carries the Events API. Whatever Bolt would trip over
 * (null, a list, an event that is not an object) is refused here with 400 instead.
 */
export function parseBody(raw: Buffer, contentType: string | undefined): Body | string {
  const text = raw.toString('utf8');
  let body: unknown;
  if ((contentType ?? '').startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(text);
    const payload = form.get('payload');
    if (payload === null) body = Object.fromEntries(form);
    else {
      try {
        body = JSON.parse(payload);
      } catch {
        return 'payload is not JSON';
      }
    }
  } else {
    try {
      body = JSON.parse(text);
    } catch {
      return 'body is not JSON';
    }
  }
  return shapeProblem(body) ?? (body as Body);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function shapeProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'not an object';
  if (body.ssl_check === '1') return undefined;
  if ('command' in body)
    return typeof body.command === 'string' && body.command.startsWith('/') ? undefined : 'command is not a slash command';
  if (typeof body.type !== 'string') return 'no type';
  if ('event' in body) {
    const event = body.event;
    if (!isObject(event) || typeof event.type !== 'string') return 'event is not an object with a type';
    if ('item' in event && !isObject(event.item)) return 'event item is not an object';
  }
  if ('actions' in body && !(Array.isArray(body.actions) && body.actions.every(isObject))) return 'actions is not a list of objects';
  for (const key of ['view', 'user', 'container', 'message'] as const) {
    if (key in body && !isObject(body[key])) return `${key} is not an object`;
  }
  for (const key of ['team', 'channel', 'enterprise'] as const) {
    // Slack sends null for these where they do not apply (no enterprise, a modal's channel).
    if (key in body && body[key] !== null && !isObject(body[key])) return `${key} is not an object`;
  }
  return undefined;
}

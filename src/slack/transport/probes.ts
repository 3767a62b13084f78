/**
 * GET /healthz and GET /metrics, the same in HTTP mode (on the receiver's server) and in Socket
 * Mode (on a server of their own). Health asks the store for a cheap answer, so that a load
 * balancer takes an instance whose database is gone out of rotation; metrics are for the scraper
 * only: a bearer token when METRICS_TOKEN is set, loopback (not through a proxy) when it is not.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../runtime/logger.js';
import type { Metrics } from '../../runtime/metrics.js';
import type { Secret } from '../../runtime/secret.js';
import type { Store } from '../../store/index.js';

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Health waits this long for the store; a load balancer's probe usually gives up after a few seconds. */
export const HEALTH_STORE_TIMEOUT_MS = 2_000;

export interface ProbeOptions {
  store: Pick<Store, 'ping'>;
  metrics: Metrics;
  logger: Logger;
  metricsToken: Secret | undefined;
  draining(): boolean;
  healthTimeoutMs?: number;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** The routes by path (GET only). */
export function probeRoutes(options: ProbeOptions): ReadonlyMap<string, Route> {
  const health = storeHealth(options);
  const allowed = metricsAccess(options.metricsToken);
  return new Map<string, Route>([
    [
      '/healthz',
      async (_req, res) => {
        if (options.draining()) return json(res, 503, { ok: false, draining: true });
        const problem = await health();
        if (problem !== undefined) return json(res, 503, { ok: false, store: problem });
        json(res, 200, { ok: true });
      },
    ],
    [
      '/metrics',
      async (req, res) => {
        const access = allowed(req);
        if (access === 'no-token')
          return json(res, 401, { ok: false, error: 'Authorization: Bearer <METRICS_TOKEN> required' }, { 'www-authenticate': 'Bearer' });
        if (access === 'not-local')
          return json(res, 403, { ok: false, error: 'metrics are served to loopback only; set METRICS_TOKEN to scrape from elsewhere' });
        const text = await options.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': options.metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
    ],
  ]);
}

/**
 * The store's answer to a ping, within a short time: undefined when it answered, else a reason
 * fit for an unauthenticated caller (the detail goes to the log, once per change). Probes that
 * arrive while one is running share it, so a hung database does not pile them up.
 */
function storeHealth(options: ProbeOptions): () => Promise<string | undefined> {
  const timeoutMs = options.healthTimeoutMs ?? HEALTH_STORE_TIMEOUT_MS;
  let running: Promise<string | undefined> | undefined;
  let last: string | undefined;
  const probe = async (): Promise<string | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const answer = await Promise.race([options.store.ping().then(() => 'ok' as const), timedOut]);
      return answer === 'ok' ? undefined : `the database did not answer within ${timeoutMs / 1000} s`;
    } catch (error) {
      options.logger.debug({ error }, 'health: the store failed a ping');
      return 'the database does not answer';
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    running ??= probe().then((problem) => {
      running = undefined;
      if (problem !== last) {
        if (problem === undefined) options.logger.info({}, 'health: the store answers again');
        else options.logger.warn({ problem }, 'health: unhealthy, the store does not answer');
        last = problem;
      }
      return problem;
    });
    return running;
  };
}

type Access = 'ok' | 'no-token' | 'not-local';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Who may read /metrics. With a token: whoever sends it, compared in constant time (digests of
 * equal length, so neither the content nor the length leaks through timing). Without: loopback
 * only, and not through a proxy on the same host (which would make every caller look local).
 */
export function metricsAccess(token: Secret | undefined): (req: IncomingMessage) => Access {
  const expected = token === undefined ? undefined : digest(`Bearer ${token.reveal()}`);
  return (req) => {
    if (expected !== undefined) {
      const given = req.headers.authorization;
      return given !== undefined && timingSafeEqual(digest(given), expected) ? 'ok' : 'no-token';
    }
    const proxied = ['forwarded', 'x-forwarded-for', 'x-real-ip'].some((h) => req.headers[h] !== undefined);
    return !proxied && isLoopback(req.socket.remoteAddress) ? 'ok' : 'not-local';
  };
}

export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

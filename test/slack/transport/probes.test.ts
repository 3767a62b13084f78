/** The probes and the replay guard on their own, with stores that fail in the ways a database does: refusing, and hanging. */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/runtime/logger.js';
import { Metrics } from '../../../src/runtime/metrics.js';
import { isLoopback, probeRoutes } from '../../../src/slack/transport/probes.js';
import { ReplayGuard } from '../../../src/slack/transport/replay.js';

const logs: string[] = [];
const logger = createLogger({ level: 'debug', write: (l) => logs.push(l) });
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

/** Serves /healthz with a store whose ping is `ping`. */
async function health(ping: () => Promise<void>): Promise<() => Promise<{ status: number; body: unknown }>> {
  const routes = probeRoutes({
    store: { ping },
    metrics: new Metrics({ defaultMetrics: false }),
    logger,
    metricsToken: undefined,
    draining: () => false,
    healthTimeoutMs: 200,
  });
  const server = createServer((req, res) => void routes.get('/healthz')?.(req, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  return async () => {
    const res = await request(url);
    return { status: res.statusCode, body: await res.body.json() };
  };
}

describe('/healthz', () => {
  it('says 503 when the store does not answer in time, 503 when it refuses, and 200 when it answers', async () => {
    let mode: 'hang' | 'refuse' | 'ok' = 'hang';
    const probe = await health(() =>
      mode === 'hang'
        ? new Promise(() => {})
        : mode === 'refuse'
          ? Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432'))
          : Promise.resolve(),
    );
    expect(await probe()).toEqual({ status: 503, body: { ok: false, store: 'the database did not answer within 0.2 s' } });
    mode = 'refuse';
    const refused = await probe();
    expect(refused).toEqual({ status: 503, body: { ok: false, store: 'the database does not answer' } });
    mode = 'ok';
    expect(await probe()).toEqual({ status: 200, body: { ok: true } });
  });

  it('asks the store once for probes that arrive together', async () => {
    let pings = 0;
    const probe = await health(async () => {
      pings++;
      await new Promise((r) => setTimeout(r, 50));
    });
    await Promise.all(Array.from({ length: 5 }, probe));
    expect(pings).toBe(1);
  });
});

describe('isLoopback', () => {
  it('knows loopback in IPv4, IPv6 and IPv4-mapped forms, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '0.0.0.0', undefined]) expect(isLoopback(a), String(a)).toBe(false);
  });
});

describe('ReplayGuard', () => {
  const NOW = Date.UTC(2026, 10, 22, 12);

  it('refuses a signature seen before, by the store (another instance) or by itself', async () => {
    const seen = new Set<string>();
    const guard = new ReplayGuard({ rememberSignature: async (s) => !seen.has(s) && Boolean(seen.add(s)) }, logger);
    expect(await guard.firstTime('v0=a', NOW + 300_000, NOW)).toBe(true);
    expect(await guard.firstTime('v0=a', NOW + 300_000, NOW + 1)).toBe(false);
    seen.add('v0=b'); // as another instance would have
    expect(await guard.firstTime('v0=b', NOW + 300_000, NOW)).toBe(false);
  });

  it('while the store fails or hangs, still refuses replays to this instance, and takes new requests', async () => {
    let mode: 'refuse' | 'hang' = 'refuse';
    const guard = new ReplayGuard(
      { rememberSignature: () => (mode === 'refuse' ? Promise.reject(new Error('the database is not reachable')) : new Promise(() => {})) },
      logger,
      50,
    );
    expect(await guard.firstTime('v0=c', NOW + 300_000, NOW)).toBe(true);
    expect(await guard.firstTime('v0=c', NOW + 300_000, NOW)).toBe(false);
    mode = 'hang';
    expect(await guard.firstTime('v0=d', NOW + 300_000, NOW)).toBe(true);
    expect(await guard.firstTime('v0=d', NOW + 300_000, NOW)).toBe(false);
    expect(logs.filter((l) => l.includes('replay check: the store did not answer'))).toHaveLength(1);
  });

  it('forgets a signature once its time has passed', async () => {
    const guard = new ReplayGuard({ rememberSignature: async () => true }, logger);
    expect(await guard.firstTime('v0=e', NOW + 1000, NOW)).toBe(true);
    expect(await guard.firstTime('v0=e', NOW + 302_000, NOW + 2000)).toBe(true);
  });

  it('while the store is away, refuses every replay of the last minutes on its own, through thousands of signatures coming and going', async () => {
    const guard = new ReplayGuard({ rememberSignature: () => Promise.reject(new Error('the database is not reachable')) }, logger);
    // 3,000 requests a second apart, each kept 300 s: the first ones expire while the later ones come.
    const at = (i: number) => NOW + i * 1000;
    for (let i = 0; i < 3000; i++) expect(await guard.firstTime(`v0=${i}`, at(i) + 300_000, at(i))).toBe(true);
    const now = at(3000);
    // Those still in force are refused; those past their time are forgotten (the window refuses them).
    for (const i of [2999, 2800, 2701]) expect(await guard.firstTime(`v0=${i}`, at(i) + 300_000, now)).toBe(false);
    for (const i of [0, 1000, 2699]) expect(await guard.firstTime(`v0=${i}`, at(i) + 300_000 + 1, now)).toBe(true);
  });

  it('keeps a signature seen again with a later time until then, when the entry of its first time is forgotten', async () => {
    const guard = new ReplayGuard({ rememberSignature: () => Promise.reject(new Error('the database is not reachable')) }, logger);
    expect(await guard.firstTime('v0=a', NOW + 10_000, NOW)).toBe(true);
    // Out of order: b's first time ends before a's, and b comes again (with a later time) after it.
    expect(await guard.firstTime('v0=b', NOW + 1000, NOW)).toBe(true);
    expect(await guard.firstTime('v0=b', NOW + 302_000, NOW + 2000)).toBe(true);
    // Past a's time, a is forgotten; b's first entry, next in line, holds the queue (the map has b's later time).
    expect(await guard.firstTime('v0=c', NOW + 320_000, NOW + 20_000)).toBe(true);
    expect(await guard.firstTime('v0=a', NOW + 10_000, NOW + 20_000)).toBe(true);
    expect(await guard.firstTime('v0=b', NOW + 302_000, NOW + 30_000)).toBe(false);
  });
});

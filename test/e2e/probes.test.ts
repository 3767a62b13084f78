/**
 * GET /metrics and GET /healthz as operators meet them: metrics behind METRICS_TOKEN (compared in
 * constant time) or, without one, for loopback only and not through a proxy; health that says 503
 * with a reason while the database does not answer, and 200 again once it does.
 */

import { networkInterfaces } from 'node:os';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { freshSchema, PG_URL, postgresAvailable } from '../helpers/postgres.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function harness(options: Parameters<typeof startHarness>[0]): Promise<Harness> {
  const h = await startHarness({ startScheduler: false, ...options });
  cleanups.push(h.close);
  return h;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; authenticate: unknown }> {
  const res = await request(url, { headers });
  return { status: res.statusCode, body: await res.body.text(), authenticate: res.headers['www-authenticate'] };
}

const TOKEN = 'metrics-0123456789abcdef-scraper';

/** An address of this machine that is not loopback, when it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

describe('/metrics without METRICS_TOKEN', () => {
  it('answers loopback, and refuses a request that came through a proxy', async () => {
    const h = await harness({});
    const local = await get(`${h.url}/metrics`);
    expect(local.status).toBe(200);
    expect(local.body).toContain('countersign_requests_total');
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const proxied = await get(`${h.url}/metrics`, { [header]: '203.0.113.9' });
      expect(proxied.status, header).toBe(403);
      expect(proxied.body).toContain('METRICS_TOKEN');
      expect(proxied.body).not.toContain('countersign_');
    }
  });

  it.skipIf(external === undefined)('refuses a caller on another interface', async () => {
    const h = await harness({ host: '0.0.0.0' });
    const port = new URL(h.url).port;
    const remote = await get(`http://${external}:${port}/metrics`);
    expect(remote.status).toBe(403);
    expect(remote.body).not.toContain('countersign_');
    // Health is for load balancers, wherever they are.
    expect((await get(`http://${external}:${port}/healthz`)).status).toBe(200);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  it('answers only `Authorization: Bearer <token>`, from loopback too', async () => {
    const h = await harness({ env: { METRICS_TOKEN: TOKEN } });
    const none = await get(`${h.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.authenticate).toBe('Bearer');
    expect(none.body).not.toContain('countersign_');
    for (const wrong of [`Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, TOKEN, `Basic ${TOKEN}`, `bearer  ${TOKEN}`]) {
      expect((await get(`${h.url}/metrics`, { authorization: wrong })).status, wrong).toBe(401);
    }
    const right = await get(`${h.url}/metrics`, { authorization: `Bearer ${TOKEN}` });
    expect(right.status).toBe(200);
    expect(right.body).toContain('countersign_requests_total');
    // Through a proxy, the token is what counts.
    expect((await get(`${h.url}/metrics`, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    // Health needs no token.
    expect((await get(`${h.url}/healthz`)).status).toBe(200);
    expect(h.logs.join('\n')).not.toContain(TOKEN);
  });
});

const pgAvailable = await postgresAvailable('the health test with PostgreSQL going away');

describe.skipIf(!pgAvailable)('/healthz and the store', () => {
  it('says 503 with a reason while the database does not answer, and 200 again once it does', async () => {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    const pgUrl = new URL(PG_URL);
    const proxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    cleanups.push(proxy.close);
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    const h = await harness({ env: { DATABASE_URL: viaProxy.toString() } });
    expect(await get(`${h.url}/healthz`)).toMatchObject({ status: 200, body: '{"ok":true}' });

    await proxy.stop();
    const down = await get(`${h.url}/healthz`);
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toEqual({ ok: false, store: 'the database does not answer' });
    // The reason is for anyone; the detail (addresses, errors) only for the log.
    expect(down.body).not.toContain(String(proxy.port));
    expect(h.logs.some((l) => l.includes('health: unhealthy, the store does not answer'))).toBe(true);

    await proxy.start();
    let up = await get(`${h.url}/healthz`);
    await eventually('/healthz 200 again', async () => {
      up = await get(`${h.url}/healthz`);
      return up.status === 200;
    });
    expect(up).toMatchObject({ status: 200, body: '{"ok":true}' });
    // Draining still wins: a stopping instance says so whatever the store does.
    await h.app.slack.beginDraining();
    expect(await get(`${h.url}/healthz`)).toMatchObject({ status: 503, body: '{"ok":false,"draining":true}' });
  }, 40_000);
});

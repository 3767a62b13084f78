/**
 * Faults the app must live through, each asserting what the user is told and that the app stays
 * up: a service that hangs, answers truncated JSON, an empty 200 or an HTML 500; response_url
 * failing (404, 500, 429); the database going away and coming back. (A slow service, refused
 * connections, a 409 on collect and Slack's 429 on chat.postMessage are in edges, collect and
 * reminders tests.)
 */

import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, type HarnessOptions, startHarness } from '../helpers/harness.js';
import { freshSchema, PG_URL, postgresAvailable } from '../helpers/postgres.js';
import { settled } from '../helpers/settled.js';
import { type StubServer, sendBody, startStubServer } from '../helpers/stub-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function withStub(handler: Parameters<typeof startStubServer>[0], options: HarnessOptions = {}): Promise<Harness> {
  const stub: StubServer = await startStubServer(handler);
  const h = await startHarness({ serviceUrl: stub.url, startScheduler: false, ...options });
  cleanups.push(stub.close, h.close);
  await h.link('UADA', 'approver');
  return h;
}

async function stillUp(h: Harness): Promise<void> {
  const health = await request(`${h.url}/healthz`);
  expect(health.statusCode).toBe(200);
  await health.body.dump();
}

async function answerTo(h: Harness, text: string, timeoutMs = 10_000): Promise<string> {
  const sent = await h.command('UADA', '/approvals', text);
  expect(sent.status).toBe(200);
  expect(sent.ackMs).toBeLessThan(3000);
  return textOf((await h.slack.waitForResponses(sent.responseId, 1, timeoutMs))[0]);
}

describe('the Command Service misbehaving', () => {
  it('hangs (or takes 30 s): acked at once, then told it did not answer in time (the headers deadline, 15 s by default)', async () => {
    // The deadline is injected short, so that the suite does not wait out the real one.
    const h = await withStub(
      () => {
        // Never answers.
      },
      { serviceTimeouts: { headersMs: 1_000 } },
    );
    const started = performance.now();
    const text = await answerTo(h, '');
    expect(text).toContain('did not answer in time. Nothing was changed.');
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await stillUp(h);
  });

  it('answers truncated JSON: told it could not be read, with a reference', async () => {
    const h = await withStub((_req, res) => sendBody(res, 200, '{"findApprovals": {"NumApprovals": 2, "Approval": [{"WorkItemId": "1:W'));
    const text = await answerTo(h, '');
    expect(text).toContain('could not read');
    expect(text).toMatch(/Reference `[\w-]+`/);
    await stillUp(h);
  });

  it('answers 200 with an empty body: read as no approvals, as the real service means it', async () => {
    const h = await withStub((_req, res) => sendBody(res, 200, ''));
    expect(await answerTo(h, '')).toContain('No pending approvals.');
    await stillUp(h);
  });

  it('answers an HTML 500 page with a Java stack trace: told it failed, without the trace', async () => {
    const page =
      '<html><head><title>Error</title></head><body><h1>HTTP Status 500</h1><pre>java.lang.IllegalStateException: pool exhausted\n\tat com.aveksa.server.db.ConnectionPool.get(ConnectionPool.java:211)\n\tat com.aveksa.ws.CommandServlet.doGet(CommandServlet.java:88)</pre></body></html>';
    const h = await withStub((_req, res) => sendBody(res, 500, page, 'text/html'));
    const text = await answerTo(h, '');
    expect(text).toContain('failed while answering (status 500)');
    expect(text).not.toContain('CommandServlet.java');
    await stillUp(h);
  });
});

describe('response_url misbehaving', () => {
  async function harnessWith(responder: (attempt: number) => { status: number; headers?: Record<string, string> }) {
    let attempts = 0;
    const received: string[] = [];
    const target = await startStubServer((_req, res, index) => {
      attempts++;
      const { status, headers } = responder(attempts);
      if (status === 200) received.push(target.requests[index]?.body ?? '');
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(status === 200 ? 'ok' : 'no');
    });
    const h = await startHarness({ startScheduler: false });
    cleanups.push(target.close, h.close);
    await h.link('UADA', 'approver');
    const send = () => h.command('UADA', '/approvals', 'page-size:1', { responseUrl: { id: 'x', url: `${target.url}/hooks/1` } });
    return { h, send, received, attempts: () => attempts };
  }

  it('404 (expired): logged once, not retried, and the app stays up', async () => {
    const t = await harnessWith(() => ({ status: 404 }));
    await t.send();
    await eventually('response_url refused, logged', () => t.h.logs.some((l) => l.includes('response_url refused')), 8000);
    await settled(t.h);
    expect(t.attempts()).toBe(1);
    expect(t.h.logs.find((l) => l.includes('response_url refused'))).toContain('"status":404');
    await stillUp(t.h);
  });

  it('500 once: the answer goes through on the retry', async () => {
    const t = await harnessWith((n) => ({ status: n === 1 ? 500 : 200 }));
    await t.send();
    await eventually('the answer received', () => t.received.length === 1, 8000);
    expect(t.attempts()).toBe(2);
    expect(t.received[0]).toContain('Pending approvals');
  });

  it('429 with Retry-After: waits as asked, then answers', async () => {
    const t = await harnessWith((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const started = Date.now();
    await t.send();
    await eventually('the answer received', () => t.received.length === 1, 8000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(t.received[0]).toContain('Pending approvals');
  });
});

const pgAvailable = await postgresAvailable('the store-outage test');

describe.skipIf(!pgAvailable)('the database going away', () => {
  let proxy: TcpProxy;
  it('tells the user plainly while PostgreSQL is gone, stays up, and carries on when it is back', async () => {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    const pgUrl = new URL(PG_URL);
    proxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    cleanups.push(proxy.close);
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    const h = await startHarness({ env: { DATABASE_URL: viaProxy.toString() }, startScheduler: false });
    cleanups.push(h.close);
    await h.link('UADA', 'approver');
    expect(await answerTo(h, 'page-size:1')).toContain('Pending approvals');

    await proxy.stop();
    const down = await answerTo(h, 'page-size:1', 15_000);
    expect(down).toContain('countersign cannot reach its own database right now');
    expect(down).toContain('Nothing was sent to the Command Service');
    // Up and answering, and saying to the load balancer that it cannot serve without its database.
    const health = await request(`${h.url}/healthz`);
    expect(health.statusCode).toBe(503);
    expect(await health.body.json()).toEqual({ ok: false, store: 'the database does not answer' });
    const metrics = await (await request(`${h.url}/metrics`)).body.text();
    expect(metrics).toMatch(/countersign_store_errors_total\{operation="getToken"\} [1-9]/);

    await proxy.start();
    expect(await answerTo(h, 'page-size:1')).toContain('Pending approvals');
    await stillUp(h);
  }, 40_000);
});

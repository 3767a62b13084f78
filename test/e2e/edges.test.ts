/** The edges: signatures, a slow service, a dead one, a garbled one, health and shutdown, secrecy. */

import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { settled } from '../helpers/settled.js';
import { type StubServer, sendBody, startStubServer } from '../helpers/stub-server.js';

const harnesses: Harness[] = [];
const stubs: StubServer[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.close();
  for (const s of stubs) await s.close();
});
async function harness(serviceUrl?: string) {
  const h = await startHarness(serviceUrl ? { serviceUrl } : {});
  harnesses.push(h);
  return h;
}

describe('signatures', () => {
  it('refuses a forged and a stale signature with 401, reaching nothing else', async () => {
    const h = await harness();
    await h.link('UADA', 'approver');
    const before = h.service.calls.get('findApprovals') ?? 0;
    const forged = await h.command('UADA', '/approvals', '', { secret: 'ffffffffffffffffffffffffffffffff' });
    const stale = await h.command('UADA', '/approvals', '', { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    const clickForged = await h.click('UADA', 'approvals:next', '{"u":"UADA","q":{}}', { secret: 'ffffffffffffffffffffffffffffffff' });
    expect([forged.status, stale.status, clickForged.status]).toEqual([401, 401, 401]);
    await settled(h);
    expect(h.slack.responses(forged.responseId)).toEqual([]);
    expect(h.slack.responses(stale.responseId)).toEqual([]);
    expect(h.service.calls.get('findApprovals') ?? 0).toBe(before);
    const unsigned = await request(`${h.url}/slack/events`, {
      method: 'POST',
      body: 'command=/approvals',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsigned.statusCode).toBe(401);
    await unsigned.body.dump();
  });
});

describe('a slow service', () => {
  it('is still acked in well under 3 s, and the answer follows when the service answers', async () => {
    const h = await harness();
    await h.link('UADA', 'approver');
    h.service.setDelay(5_000);
    const sent = await h.command('UADA', '/approvals', '');
    expect(sent.status).toBe(200);
    expect(sent.ackMs).toBeLessThan(3000);
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1, 15_000);
    expect(textOf(answer)).toContain('Pending approvals');
    h.service.setDelay(0);
  }, 30_000);
});

describe('a service that does not answer in time', () => {
  it('says so, and for /collect warns that the run may have started', async () => {
    const h = await startHarness({ serviceTimeouts: { headersMs: 300 } });
    harnesses.push(h);
    await h.link('UADA', 'approver');
    await h.link('UOSCAR', 'ops');
    h.service.setDelay(1_500);
    const sent = await h.command('UADA', '/approvals', '');
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1))[0]);
    expect(text).toContain('did not answer in time. Nothing was changed.');
    const collect = await h.command('UOSCAR', '/collect', 'SAP Roles');
    expect(textOf((await h.slack.waitForResponses(collect.responseId, 1))[0])).toContain('may or may not have started');
    h.service.setDelay(0);
  });
});

describe('a service that is down or garbled', () => {
  it('gives a clear, retryable message when the service refuses connections', async () => {
    const dead = await startStubServer(() => {});
    const url = dead.url;
    await dead.close();
    const h = await harness(url);
    await h.link('UADA', 'approver');
    await h.link('UOSCAR', 'ops');
    const sent = await h.command('UADA', '/approvals', '');
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1))[0]);
    expect(text).toContain('cannot be reached right now');
    expect(text).toContain('Try again in a few minutes');
    const collect = await h.command('UOSCAR', '/collect', 'SAP Roles');
    expect(textOf((await h.slack.waitForResponses(collect.responseId, 1))[0])).toContain('Nothing was started');
  });

  it('says an answer could not be read, and logs the detail with a reference', async () => {
    const stub = await startStubServer((_req, res) => sendBody(res, 200, '{"findApprovals": {"NumApprovals": "lots"}}'));
    stubs.push(stub);
    const h = await harness(stub.url);
    await h.link('UADA', 'approver');
    const sent = await h.command('UADA', '/approvals', '');
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1))[0]);
    expect(text).toContain('could not read');
    const reference = /Reference `([\w-]+)`/.exec(text)?.[1];
    expect(reference).toBeDefined();
    const line = h.logs.find((l) => l.includes(reference ?? '-') && l.includes('unexpected service response'));
    expect(line).toContain('NumApprovals');
  });

  it('keeps the process up through a 500 with a stack trace', async () => {
    const stub = await startStubServer((_req, res) =>
      sendBody(res, 500, 'java.lang.NullPointerException\n\tat com.aveksa.X', 'text/plain'),
    );
    stubs.push(stub);
    const h = await harness(stub.url);
    await h.link('UADA', 'approver');
    const sent = await h.command('UADA', '/approvals', '');
    expect(textOf((await h.slack.waitForResponses(sent.responseId, 1))[0])).toContain('failed while answering (status 500)');
    const health = await request(`${h.url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});

describe('health and shutdown', () => {
  it('answers /healthz 200, finishes in-flight work on shutdown, and stops accepting', async () => {
    const h = await startHarness();
    await h.link('UADA', 'approver');
    const health = await request(`${h.url}/healthz`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toEqual({ ok: true });
    h.service.setDelay(1_000);
    const sent = await h.command('UADA', '/approvals', '');
    expect(sent.status).toBe(200);
    const stopping = h.app.shutdown();
    // While the acked command is still being answered, health checks are answered, with 503: the
    // load balancer hears the instance is going, rather than finding its port closed.
    const draining = await request(`${h.url}/healthz`);
    expect(draining.statusCode).toBe(503);
    expect(await draining.body.json()).toEqual({ ok: false, draining: true });
    // A new request is not taken, and says why.
    const late = await h.command('UADA', '/approvals', '');
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body)).toEqual({ ok: false, error: 'draining' });
    await stopping;
    // The command acked before shutdown still got its answer.
    expect(textOf(h.slack.responses(sent.responseId)[0])).toContain('Pending approvals');
    await expect(request(`${h.url}/healthz`)).rejects.toThrow();
    await h.close();
  });
});

describe('secrecy', () => {
  it('writes no token into any log line, whatever happened', async () => {
    for (const h of harnesses) {
      const all = h.logs.join('\n');
      expect(all.length).toBeGreaterThan(0);
      for (const t of h.service.demoTokens) expect(all).not.toContain(t.token);
      expect(all).not.toContain('xoxb-0000-1111-e2etestbot');
      expect(all).not.toContain('0123456789abcdef0123456789abcdef');
    }
  });
});

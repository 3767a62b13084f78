/**
 * Services that misbehave in ways that cost time rather than fail outright: one that drips its
 * answer a byte at a time (every call has a deadline, and its connection is freed), one that
 * answers a 400 KB HTML error page (read in linear time, and only its first part), and one whose
 * connection drops after a collection was asked for (it may have started, and the user is told so).
 */

import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { sendBody, startStubServer } from '../helpers/stub-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function harnessFor(handler: Parameters<typeof startStubServer>[0], env: Record<string, string> = {}): Promise<Harness> {
  const stub = await startStubServer(handler);
  const h = await startHarness({ serviceUrl: stub.url, startScheduler: false, env: { COMMANDS_PER_MINUTE: '0', ...env } });
  cleanups.push(stub.close, h.close);
  await h.link('UADA', 'approver+ops');
  return h;
}

const NO_APPROVALS = JSON.stringify({ findApprovals: { NumApprovals: 0 } });

describe('a service that drips its answer', () => {
  it('is cut off at SERVICE_TIMEOUT: 40 callers are told, the connections are freed, and the next command is answered', async () => {
    const h = await harnessFor(
      (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url?.includes('sort=desc')) return void res.end(NO_APPROVALS);
        // One byte every 3 s: never silent long enough for the body timeout.
        const drip = setInterval(() => res.write(' '), 3000);
        res.on('close', () => clearInterval(drip));
      },
      { SERVICE_TIMEOUT: '2s' },
    );
    // More calls than the pool has connections (32).
    const sent = await Promise.all(Array.from({ length: 40 }, () => h.command('UADA', '/approvals', 'page-size:5')));
    for (const s of sent) expect(s.status).toBe(200);
    const answers = await Promise.all(sent.map(async (s) => textOf((await h.slack.waitForResponses(s.responseId, 1, 20_000))[0])));
    for (const text of answers) expect(text).toContain('did not answer in time. Nothing was changed.');

    const next = await h.command('UADA', '/approvals', 'sort:desc');
    expect(textOf((await h.slack.waitForResponses(next.responseId, 1, 10_000))[0])).toContain('No pending approvals.');
  }, 60_000);
});

describe('a 400 KB HTML error page', () => {
  it('is read in linear time: the user gets the service’s message and /healthz answers meanwhile', async () => {
    // Unclosed tags by the thousand: a backtracking pattern over this takes tens of seconds.
    const page = `<html><head><title>Error</title></head><body><h1>Error</h1><p>The value 'x' of the parameter sort is invalid.</p><p>${'<a '.repeat(136_000)}</p></body></html>`;
    expect(page.length).toBeGreaterThan(400_000);
    const h = await harnessFor((_req, res) => sendBody(res, 412, page, 'text/html'));
    const sent = await h.command('UADA', '/approvals', '');
    expect(sent.status).toBe(200);
    const health = await request(`${h.url}/healthz`, { headersTimeout: 10_000 });
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1, 10_000))[0]);
    expect(text).toContain("The value 'x' of the parameter sort is invalid.");
    expect(text).not.toContain('&lt;a');
  });
});

describe('a connection that drops once /collect has asked', () => {
  it('says the collection may have started, and where to check', async () => {
    const h = await harnessFor((req) => req.socket.destroy());
    const sent = await h.command('UADA', '/collect', 'AD Accounts');
    const text = textOf((await h.slack.waitForResponses(sent.responseId, 1, 10_000))[0]);
    expect(text).toContain('may have started: check `/collect history` and the service');
    expect(text).not.toContain('Nothing was started');
  });
});

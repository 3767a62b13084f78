/**
 * Socket Mode end to end: the real app, started as main.ts starts it with SLACK_APP_TOKEN set,
 * connects to a loopback stand-in of Slack's WebSocket side and serves the reference Command
 * Service through it; FakeSlack plays the Web API and the response_urls.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlackConfig } from '../../src/config.js';
import { type Running, startCountersign } from '../../src/main.js';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { LINK_FIELDS, linkProgress } from '../../src/render/link.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import { createSlackApp } from '../../src/slack/transport/app.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, type FakeSlack, startFakeSlack, textOf, viewsSent } from '../helpers/fake-slack.js';
import { envelopes, type FakeSlackSocket, startFakeSlackSocket } from '../helpers/fake-slack-socket.js';
import { SIGNING_SECRET, TEAM } from '../helpers/harness.js';

const APP_TOKEN = 'xapp-1-A0COUNTERSIGN-1-e2esocketmode';
const build = envelopes(TEAM);

let dir: string;
let slack: FakeSlack;
let socket: FakeSlackSocket;
let service: ReferenceService;
let app: Running;
const logs: string[] = [];

const env = (overrides: Record<string, string> = {}) =>
  loadSlackConfig({
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-e2esocketbot',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    COMMAND_SERVICE_URL: service.url,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
    PORT: '0',
    LOG_LEVEL: 'debug',
    ...overrides,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'countersign-socket-'));
  slack = await startFakeSlack();
  socket = await startFakeSlackSocket(slack, { appToken: APP_TOKEN });
  service = await startReferenceService();
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  // Pings every half second and reconnects after 1.5 s, instead of the client's 5 s: the same behaviour, sooner.
  app = await startCountersign(env(), { logger, host: '127.0.0.1', socketPingTimeoutMs: 1_500 });
  const ada = service.demoTokens.find((t) => t.label === 'approver');
  if (!ada) throw new Error('the reference service has no approver demo token');
  await app.deps.store.setToken({ teamId: TEAM, userId: 'UADA' }, ['findApprovals'], new Secret(ada.token), 'admin', new Date());
});

afterAll(async () => {
  await app?.shutdown();
  await socket?.close();
  await service?.close();
  await slack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const workItemIds = (text: string) => [...text.matchAll(/`(\d+:[A-Z]+:\d+)`/g)].map((m) => m[1]);

/** Sends a slash command envelope; resolves once the app has acked it, with the ack and where the answer will go. */
async function command(userId: string, text: string) {
  const response = slack.responseUrl();
  const sent = socket.send('slash_commands', build.command({ userId, command: '/approvals', text, responseUrl: response.url }));
  const ack = await socket.waitForAck(sent.envelopeId);
  return { ...sent, ack, responseId: response.id };
}

describe('Socket Mode', () => {
  it('opens its connection with the app-level token at SLACK_API_URL, and start() reports the port it listens on', () => {
    expect(socket.opens).toEqual([{ authorized: true }]);
    expect(socket.connections).toHaveLength(1);
    expect(socket.connections[0]?.open).toBe(true);
    expect(app.port).toEqual(expect.any(Number));
    expect(app.port).toBeGreaterThan(0);
  });

  it('acks a /approvals envelope by its envelope_id and answers at its response_url', async () => {
    const sent = await command('UADA', '');
    expect(sent.ack).toEqual({ envelopeId: sent.envelopeId, payload: {}, connection: sent.connection });
    const [answer] = await slack.waitForResponses(sent.responseId, 1);
    expect(answer?.response_type).toBe('ephemeral');
    expect(textOf(answer)).toContain('Pending approvals');
    expect(workItemIds(textOf(answer))).toHaveLength(10);
    expect(buttonsOf(answer).map((b) => b.action_id)).toContain(PAGE_ACTIONS.next);
  });

  it('acks a Next click and replaces the message with page 2, the same page as typed', async () => {
    const first = await command('UADA', 'page-size:5');
    const [page1] = await slack.waitForResponses(first.responseId, 1);
    const next = buttonsOf(page1).find((b) => b.action_id === PAGE_ACTIONS.next);
    expect(next?.value).toBeDefined();

    const response = slack.responseUrl();
    const click = socket.send(
      'interactive',
      build.click({ userId: 'UADA', actionId: PAGE_ACTIONS.next, value: next?.value, responseUrl: response.url }),
    );
    expect((await socket.waitForAck(click.envelopeId)).payload).toEqual({});
    const [page2] = await slack.waitForResponses(response.id, 1);
    expect(page2?.replace_original).toBe(true);
    expect(textOf(page2)).toContain('Pending approvals · page 2');

    const typed = await command('UADA', 'page-size:5 start-page:2');
    const [typedPage2] = await slack.waitForResponses(typed.responseId, 1);
    expect(workItemIds(textOf(page2))).toHaveLength(5);
    expect(workItemIds(textOf(page2))).toEqual(workItemIds(textOf(typedPage2)));
    expect(workItemIds(textOf(page2))).not.toEqual(workItemIds(textOf(page1)));
  });

  it('acks the login modal’s submission with the same response_action payloads as over HTTP, and links the account', async () => {
    const opens = viewsSent(slack, 'views.open').length;
    const login = await command('ULOGIN', 'login');
    expect(login.ack.payload).toEqual({});
    await waitUntil(() => viewsSent(slack, 'views.open').length > opens, 'views.open after /approvals login');
    const opened = viewsSent(slack, 'views.open').at(-1);
    expect(opened?.triggerId).toBe('1234.5678.socket');
    const view = opened?.view ?? {};

    const incomplete = socket.send('interactive', build.submit({ userId: 'ULOGIN', view, viewId: 'VSOCKET', values: {} }));
    expect((await socket.waitForAck(incomplete.envelopeId)).payload).toEqual({
      response_action: 'errors',
      errors: { [LINK_FIELDS.username.block]: 'Give your username and password.' },
    });

    // A wrong password first: it travels in a frame like any other, and must reach no log line.
    const wrongUpdates = viewsSent(slack, 'views.update').length;
    const wrong = socket.send(
      'interactive',
      build.submit({
        userId: 'ULOGIN',
        view,
        viewId: 'VSOCKET',
        values: { [LINK_FIELDS.username.block]: 'ada.lovelace', [LINK_FIELDS.password.block]: 'Hunter2-socket-secret' },
      }),
    );
    expect((await socket.waitForAck(wrong.envelopeId)).payload).toEqual({
      response_action: 'update',
      view: linkProgress('Checking with the Command Service…'),
    });
    await waitUntil(() => viewsSent(slack, 'views.update').length > wrongUpdates, 'views.update after a wrong password');
    expect(JSON.stringify(viewsSent(slack, 'views.update').at(-1)?.view)).toContain('did not accept that username and password');
    expect(logs.join('\n')).not.toContain('Hunter2-socket-secret');

    const updates = viewsSent(slack, 'views.update').length;
    const submitted = socket.send(
      'interactive',
      build.submit({
        userId: 'ULOGIN',
        view,
        viewId: 'VSOCKET',
        values: { [LINK_FIELDS.username.block]: 'ada.lovelace', [LINK_FIELDS.password.block]: 'demo' },
      }),
    );
    const ack = await socket.waitForAck(submitted.envelopeId);
    expect(ack.payload).toEqual({ response_action: 'update', view: linkProgress('Checking with the Command Service…') });
    await waitUntil(() => viewsSent(slack, 'views.update').length > updates, 'views.update with the outcome of the login');
    const outcome = viewsSent(slack, 'views.update').at(-1);
    expect(outcome?.viewId).toBe('VSOCKET');
    expect(JSON.stringify(outcome?.view)).toContain('Linked: countersign can list your approvals and start collections for you.');
    const links = (await app.deps.store.listLinks()).filter((l) => l.userId === 'ULOGIN');
    expect(links.map((l) => [l.command, l.source])).toEqual([
      ['collectEntitlements', 'login'],
      ['findApprovals', 'login'],
    ]);
  });

  it('answers /healthz and /metrics on its port, the metrics counting what came over the socket (to loopback only)', async () => {
    const health = await request(`http://127.0.0.1:${app.port}/healthz`);
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toEqual({ ok: true });
    const metrics = await request(`http://127.0.0.1:${app.port}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.body.text();
    expect(text).toContain('# TYPE countersign_requests_total counter');
    expect(text).toMatch(/countersign_requests_total\{type="command",name="\/approvals",outcome="ok"\} [1-9]/);
    expect(text).toContain(`countersign_requests_total{type="action",name="${PAGE_ACTIONS.next}",outcome="ok"} 1`);
    // The same guard as in HTTP mode: without METRICS_TOKEN, not for a caller behind a proxy.
    const proxied = await request(`http://127.0.0.1:${app.port}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.statusCode).toBe(403);
    await proxied.body.dump();
    const other = await request(`http://127.0.0.1:${app.port}/slack/events`, { method: 'POST', body: '{}' });
    expect(other.statusCode).toBe(404);
    await other.body.dump();
  });

  it('reconnects after Slack sends a disconnect message, and answers on the new connection', async () => {
    const before = socket.connections.length;
    const old = socket.connections[before - 1];
    if (!old) throw new Error('no connection yet');
    socket.disconnect('refresh_requested');
    await socket.waitForClose(old);
    // The app closed it itself, with a close frame, as asked.
    expect(old.closeCode).toBe(1000);
    const fresh = await socket.waitForConnections(before + 1);
    expect(socket.opens.at(-1)).toEqual({ authorized: true });
    expect(socket.opens).toHaveLength(before + 1);

    const sent = await command('UADA', 'page-size:2');
    expect(sent.connection).toBe(fresh.id);
    expect(sent.ack).toMatchObject({ envelopeId: sent.envelopeId, connection: fresh.id });
    expect(workItemIds(textOf((await slack.waitForResponses(sent.responseId, 1))[0]))).toHaveLength(2);
  });

  it('reconnects after the connection is dropped without a close frame, and answers on the new connection', async () => {
    const before = socket.connections.length;
    const old = socket.connections[before - 1];
    if (!old) throw new Error('no connection yet');
    socket.drop();
    await socket.waitForClose(old);
    expect(old.closeCode).toBe(1006);
    const fresh = await socket.waitForConnections(before + 1);
    expect(socket.opens).toHaveLength(before + 1);

    const sent = await command('UADA', 'page-size:3');
    expect(sent.ack).toMatchObject({ envelopeId: sent.envelopeId, connection: fresh.id });
    expect(workItemIds(textOf((await slack.waitForResponses(sent.responseId, 1))[0]))).toHaveLength(3);
  });

  it('keeps its connection while the stand-in answers its pings: past four pings, which it would not wait out unanswered', async () => {
    const current = socket.connections.at(-1);
    if (!current?.open) throw new Error('no open connection');
    const count = socket.connections.length;
    await socket.waitForPings(current, current.pings + 5);
    expect(current.open).toBe(true);
    expect(socket.connections).toHaveLength(count);
  });

  it('fails at once on a busy port, before it opens a WebSocket', async () => {
    const opens = socket.opens.length;
    const second = createSlackApp(app.deps, {
      botToken: new Secret('xoxb-0000-1111-e2esocketbot'),
      signingSecret: new Secret(SIGNING_SECRET),
      appToken: new Secret(APP_TOKEN),
      apiUrl: slack.apiUrl,
      port: app.port ?? 0,
      host: '127.0.0.1',
    });
    await expect(second.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(socket.opens).toHaveLength(opens);
    await second.stop();
  });

  it('on shutdown closes the WebSocket and the HTTP server', async () => {
    const current = socket.connections.at(-1);
    if (!current) throw new Error('no connection');
    const opens = socket.opens.length;
    await app.shutdown();
    // Closed by the time shutdown resolves, not later.
    expect(current.open).toBe(false);
    expect(current.closeCode).toBe(1000);
    const refused = await request(`http://127.0.0.1:${app.port}/healthz`).then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    expect(refused).toBe('ECONNREFUSED');
    expect(socket.opens).toHaveLength(opens);
    expect(socket.stray).toEqual([]);
  });

  it('does not start with an app-level token Slack refuses', async () => {
    const logger = createLogger({ level: 'error', write: () => {} });
    const config = env({ SLACK_APP_TOKEN: 'xapp-1-A0COUNTERSIGN-1-revoked', DATABASE_URL: `sqlite:${join(dir, 'refused.db')}` });
    await expect(startCountersign(config, { logger, host: '127.0.0.1' })).rejects.toThrow(/invalid_auth/);
    expect(socket.opens.at(-1)).toEqual({ authorized: false });
  });
});

/** Polls a condition that has no event to wait on (a Web API call recorded by FakeSlack). */
async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  await eventually(what, condition, timeoutMs);
}

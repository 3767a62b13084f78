/**
 * The playground's modals keep Slack's hash: each view has one, a click in it carries it, and an
 * update made with a hash the view has moved on from is refused with hash_conflict, as Slack does.
 */

import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../src/playground/server.js';
import { createLogger } from '../../src/runtime/logger.js';

const BOT = 'xoxb-playground-test-token';
const forwarded: URLSearchParams[] = [];
let app: Server;
let playground: Playground;

beforeAll(async () => {
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      forwarded.push(new URLSearchParams(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  playground = await startPlayground({
    port: 0,
    host: '127.0.0.1',
    signingSecret: 'a'.repeat(32),
    botToken: BOT,
    users: [{ id: 'U0ADA', name: 'Ada', role: 'approver', tz: 'UTC' }],
    teamId: 'T0PLAY',
    channel: { id: 'C0PLAY', name: 'general' },
    suggestions: [],
    usage: {},
    logger: createLogger({ level: 'error', write: () => {} }),
  });
  const address = app.address() as { port: number };
  playground.setAppUrl(`http://127.0.0.1:${address.port}/slack/events`);
});
afterAll(async () => {
  await playground?.close();
  await new Promise((resolve) => app?.close(resolve));
});

async function api(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await request(`${playground.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BOT}`, 'content-type': 'application/json' },
    body: JSON.stringify(params),
  });
  return (await res.body.json()) as Record<string, unknown>;
}

async function page(path: string, body: Record<string, unknown>): Promise<void> {
  await request(`${playground.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: playground.url },
    body: JSON.stringify(body),
  });
}

const modal = (text: string) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Test' },
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});

it('gives each view a hash, sends it with clicks, and refuses an update made with an old one (hash_conflict)', async () => {
  await page('/playground/command', { user: 'U0ADA', text: '/approvals' });
  const trigger = forwarded.at(-1)?.get('trigger_id') ?? '';
  const opened = (await api('views.open', { trigger_id: trigger, view: modal('loading') })).view as { id: string; hash: string };
  expect(opened.hash).toMatch(/\S/);
  const first = await api('views.update', { view_id: opened.id, hash: opened.hash, view: modal('page 2') });
  expect(first.ok).toBe(true);
  // A second update made from what the same click saw: a newer one has landed since.
  expect(await api('views.update', { view_id: opened.id, hash: opened.hash, view: modal('page 3') })).toEqual({
    ok: false,
    error: 'hash_conflict',
  });
  // Without a hash, an update is made whatever the view is now.
  expect((await api('views.update', { view_id: opened.id, view: modal('page 4') })).ok).toBe(true);
  // A click in the modal carries the view's current hash.
  await page('/playground/action', { user: 'U0ADA', surface: 'modal', actionId: 'x', value: '1' });
  const clicked = JSON.parse(forwarded.at(-1)?.get('payload') ?? '{}') as { view: { hash: string } };
  const current = await api('views.update', { view_id: opened.id, hash: clicked.view.hash, view: modal('page 5') });
  expect(current.ok).toBe(true);
});

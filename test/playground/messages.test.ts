/**
 * What the playground shows of a command's answer when it comes in the ack itself, as Slack shows
 * it: a JSON message by its response_type, and a plain-text body as a message of that text,
 * whatever the text looks like. Nothing the app answered is dropped.
 */

import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../src/playground/server.js';
import { createLogger } from '../../src/runtime/logger.js';

/** What the stand-in app acks each command with: by the command's text. */
const ACKS: Record<string, { type: string; body: string }> = {
  number: { type: 'text/plain; charset=utf-8', body: '42' },
  quoted: { type: 'text/plain; charset=utf-8', body: '"on it"' },
  words: { type: 'text/plain; charset=utf-8', body: 'Working on it…' },
  channel: { type: 'application/json', body: JSON.stringify({ response_type: 'in_channel', text: 'For everyone' }) },
  private: { type: 'application/json', body: JSON.stringify({ text: 'Just for you' }) },
};

let app: Server;
let playground: Playground;

beforeAll(async () => {
  app = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const ack = ACKS[new URLSearchParams(body).get('text') ?? ''];
      if (ack === undefined) return void res.writeHead(200).end();
      res.writeHead(200, { 'content-type': ack.type }).end(ack.body);
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  playground = await startPlayground({
    port: 0,
    host: '127.0.0.1',
    signingSecret: 'a'.repeat(32),
    botToken: 'xoxb-playground-test-token',
    users: [
      { id: 'U0ADA', name: 'Ada', role: 'approver', tz: 'UTC' },
      { id: 'U0OSCAR', name: 'Oscar', role: 'ops', tz: 'UTC' },
    ],
    teamId: 'T0PLAY',
    channel: { id: 'C0PLAY', name: 'general' },
    suggestions: [],
    usage: {},
    logger: createLogger({ level: 'error', write: () => {} }),
  });
  playground.setAppUrl(`http://127.0.0.1:${(app.address() as { port: number }).port}/slack/events`);
});
afterAll(async () => {
  await playground?.close();
  await new Promise((resolve) => app?.close(resolve));
});

async function type(text: string): Promise<void> {
  await request(`${playground.url}/playground/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: playground.url },
    body: JSON.stringify({ user: 'U0ADA', text: `/approvals ${text}` }),
  });
}

async function shown(userId: string): Promise<Array<{ text: string; ephemeralTo?: string; typed?: boolean }>> {
  const res = await request(`${playground.url}/playground/state?user=${userId}`);
  const state = (await res.body.json()) as { messages: Array<{ text: string; ephemeralTo?: string; typed?: boolean }> };
  return state.messages.filter((m) => m.typed !== true);
}

it('shows a plain-text ack as a message of that very text, even one that reads as JSON', async () => {
  for (const text of ['number', 'quoted', 'words']) await type(text);
  expect((await shown('U0ADA')).map((m) => [m.text, m.ephemeralTo])).toEqual([
    ['42', 'U0ADA'],
    ['"on it"', 'U0ADA'],
    ['Working on it…', 'U0ADA'],
  ]);
});

it('shows a JSON ack to the channel when it says in_channel, and to the asker alone otherwise', async () => {
  await type('channel');
  await type('private');
  const ada = await shown('U0ADA');
  expect(ada.slice(-2).map((m) => [m.text, m.ephemeralTo])).toEqual([
    ['For everyone', undefined],
    ['Just for you', 'U0ADA'],
  ]);
  expect((await shown('U0OSCAR')).map((m) => m.text)).toEqual(['For everyone']);
});

it('answers a Web API method it does not play as Slack answers an unknown one, whatever the name', async () => {
  for (const method of ['chat.scheduleMessage', 'constructor', 'toString', '__proto__']) {
    const res = await request(`${playground.url}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer xoxb-playground-test-token' },
      body: '',
    });
    expect(await res.body.json()).toMatchObject({ ok: false, error: 'unknown_method' });
  }
});

/**
 * The playground (local mode's Slack stand-in) answers its own page only: a POST from another
 * site (by Origin, or Referer when there is no Origin) is refused, and so is any request whose
 * Host is not this playground's (a rebound DNS name pointing at 127.0.0.1).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { startLocal } from '../../src/playground/local.js';
import { createLogger } from '../../src/runtime/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-playground-'));
let local: Awaited<ReturnType<typeof startLocal>>;
let port: number;
const logs: string[] = [];

beforeAll(async () => {
  const config = loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}` });
  if (config.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  local = await startLocal(config, startCountersign, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
  port = Number(new URL(local.url).port);
});
afterAll(async () => {
  await local?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

function send(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const typed = (headers: Record<string, string>, text = '/approvals help') =>
  send('POST', '/playground/command', { 'content-type': 'application/json', ...headers }, JSON.stringify({ user: 'U0DEMOADA', text }));

async function messages(): Promise<string[]> {
  const state = JSON.parse((await send('GET', '/playground/state?user=U0DEMOADA', { host: `127.0.0.1:${port}` })).body) as {
    messages: Array<{ text: string }>;
  };
  return state.messages.map((m) => m.text);
}

describe('the playground', () => {
  it('takes a command from its own page (Origin, or Referer without one), on 127.0.0.1 and on localhost', async () => {
    const self = `http://127.0.0.1:${port}`;
    expect((await typed({ host: `127.0.0.1:${port}`, origin: self }, '/approvals help')).status).toBe(200);
    expect((await typed({ host: `127.0.0.1:${port}`, referer: `${self}/` }, '/approvals whoami')).status).toBe(200);
    expect((await typed({ host: `localhost:${port}`, origin: `http://localhost:${port}` }, '/collect help')).status).toBe(200);
    expect(await messages()).toEqual(expect.arrayContaining(['/approvals help', '/approvals whoami', '/collect help']));
  });

  it('refuses a cross-site POST, and one that says neither where it comes from', async () => {
    const host = `127.0.0.1:${port}`;
    const before = await messages();
    for (const headers of [
      { host, origin: 'http://evil.example' },
      { host, origin: 'null' },
      { host, origin: `http://127.0.0.1:${port + 1}` },
      { host, referer: 'http://evil.example/page' },
      { host },
    ]) {
      const res = await typed(headers, '/approvals page-size:1');
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await messages()).toEqual(before);
    expect(logs.some((l) => l.includes('playground refused: a request from another site'))).toBe(true);
  });

  it('refuses a foreign Host, reads included (DNS rebinding)', async () => {
    const rebound = `evil.example:${port}`;
    expect((await send('GET', '/', { host: rebound })).status).toBe(403);
    const state = await send('GET', '/playground/state?user=U0DEMOADA', { host: rebound });
    expect(state.status).toBe(403);
    expect(state.body).not.toContain('/approvals');
    expect((await typed({ host: rebound, origin: `http://${rebound}` })).status).toBe(403);
    // The right name on another port is not this playground either.
    expect((await send('GET', '/', { host: `127.0.0.1:${port + 1}` })).status).toBe(403);
    expect((await send('GET', '/', { host: `127.0.0.1:${port}` })).status).toBe(200);
  });
});

describe('the address local mode prints', () => {
  it('answers GET /healthz as the app does, and does not hand out /metrics', async () => {
    const health = await send('GET', '/healthz', { host: `127.0.0.1:${port}` });
    expect(health).toEqual({ status: 200, body: '{"ok":true}' });
    expect((await send('GET', '/metrics', { host: `127.0.0.1:${port}` })).status).toBe(404);
  });
});

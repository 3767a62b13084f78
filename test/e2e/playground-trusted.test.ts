/**
 * Local mode in the trusted-application mode: with COMMAND_SERVICE_CLIENT_ID and _SECRET set, the
 * embedded reference service trusts that application, the demo users are linked by who they are,
 * and the playground's commands are made for them with auth-user-id.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';
import { startLocal } from '../../src/playground/local.js';
import { createLogger } from '../../src/runtime/logger.js';
import { eventually } from '../helpers/eventually.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-playground-trusted-'));
const SECRET = 'local-trusted-secret-01';
let local: Awaited<ReturnType<typeof startLocal>>;
const logs: string[] = [];

beforeAll(async () => {
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
    COMMAND_SERVICE_CLIENT_ID: 'countersign-local',
    COMMAND_SERVICE_CLIENT_SECRET: SECRET,
  });
  if (config.mode !== 'local') throw new Error('no Slack credentials were given, so this is local mode');
  local = await startLocal(config, startCountersign, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
});
afterAll(async () => {
  await local?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

async function type(text: string): Promise<string> {
  const origin = new URL(local.url).origin;
  const count = async () => {
    const res = await request(`${origin}/playground/state?user=U0DEMOADA`);
    return (JSON.parse(await res.body.text()) as { messages: Array<{ text: string; author: string }> }).messages;
  };
  const before = (await count()).length;
  const sent = await request(`${origin}/playground/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ user: 'U0DEMOADA', text }),
  });
  expect(sent.statusCode).toBe(200);
  await sent.body.text();
  // The command as typed, then the app's answer.
  const messages = await eventually(`an answer to ${text}`, async () => {
    const messages = await count();
    return messages.length >= before + 2 && messages;
  });
  return messages.at(-1)?.text ?? '';
}

it('links the demo users by who they are and answers them through the trusted application', async () => {
  expect(await type('/approvals page-size:2')).toContain('Pending approvals');
  expect(await type('/approvals whoami')).toContain('as an application the service trusts');
  expect(logs.some((l) => l.includes('signed in as a trusted application'))).toBe(true);
  expect(logs.join('\n')).not.toContain(SECRET);
});

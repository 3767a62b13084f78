/** main.ts as operators run it: a child process, configured by the environment, stopped by SIGTERM. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, ROOT } from './helpers/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => err };
}

describe('main', () => {
  it('stops with exit 0 on SIGTERM even while Slack is unreachable, and /healthz answers before that', async () => {
    const run = runMain({
      SLACK_BOT_TOKEN: 'xoxb-0000-1111-maintestbot',
      SLACK_SIGNING_SECRET: '0123456789abcdef0123456789abcdef',
      // Nothing listens on port 9: every Web API call fails and is retried with back-off.
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      COMMAND_SERVICE_URL: 'http://127.0.0.1:9/aveksa',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64'),
      DATABASE_URL: `sqlite:${join(dir, 'a', 'countersign.db')}`,
      PORT: '0',
    });
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${run.stderr()}`)), 20_000);
      run.child.stderr.on('data', () => {
        const running = run
          .stderr()
          .split('\n')
          .filter((l) => l.startsWith('{') && l.endsWith('}'))
          .map((l) => JSON.parse(l) as { msg?: string; port?: number })
          .find((l) => l.msg === 'countersign is running');
        if (running?.port) {
          clearTimeout(timer);
          resolve(running.port);
        }
      });
    });
    const health = await request(`http://127.0.0.1:${port}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    run.child.kill('SIGTERM');
    const code = await Promise.race([run.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    expect(code).toBe(0);
    expect(run.stderr()).toContain('"msg":"stopped"');
  }, 40_000);

  it('refuses a bad configuration with exit 1 and a message naming the variable', async () => {
    const run = runMain({ SLACK_BOT_TOKEN: 'xoxb-0000-1111-maintestbot', SLACK_SIGNING_SECRET: 'nope' });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain(
      'countersign: SLACK_SIGNING_SECRET must be the app’s Signing Secret (Basic Information page): hex digits (0-9, a-f) only.',
    );
  });
});

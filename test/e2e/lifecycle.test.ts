/**
 * Starting and stopping the app as operators do, as a process: it refuses to start with a
 * TOKEN_ENCRYPTION_KEY that reads none of the stored tokens, or on a damaged SQLite file, saying
 * which variable and what to do; and a SIGTERM while service calls hang ends within
 * SHUTDOWN_TIMEOUT, logging what it gave up.
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/runtime/secret.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { eventually } from '../helpers/eventually.js';
import { type FakeSlack, startFakeSlack } from '../helpers/fake-slack.js';
import { SIGNING_SECRET, sign, TEAM } from '../helpers/harness.js';
import { childEnv, ROOT, spawnApp } from '../helpers/spawn.js';
import { type StubServer, startStubServer } from '../helpers/stub-server.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-lifecycle-'));
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const OLD_KEY = Buffer.alloc(32, 21).toString('base64');
const NEW_KEY = Buffer.alloc(32, 22).toString('base64');
const TOKEN = 'ws3101lifecycle:-28aff589:18a2758240d:-7c4e0.57';

const base = (database: string): Record<string, string> => ({
  SLACK_BOT_TOKEN: 'xoxb-0000-1111-lifecyclebot',
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: 'http://127.0.0.1:9/api/',
  COMMAND_SERVICE_URL: 'http://127.0.0.1:9/aveksa',
  DATABASE_URL: `sqlite:${database}`,
  PORT: '0',
});

/** Runs main.ts to its end (it is expected not to start): its exit code and what it wrote. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

/** A database with tokens written with OLD_KEY. */
async function databaseWithTokens(name: string): Promise<string> {
  const path = join(dir, name, 'countersign.db');
  mkdirSync(join(dir, name), { recursive: true });
  const store = new SqliteStore(path, new Secret(OLD_KEY));
  await store.setToken({ teamId: TEAM, userId: 'UADA' }, ['findApprovals', 'collectEntitlements'], new Secret(TOKEN), 'admin', new Date());
  await store.setToken({ teamId: '', userId: 'UBOB' }, ['findApprovals'], new Secret(TOKEN), 'admin', new Date());
  await store.close();
  return path;
}

describe('starting', () => {
  it('refuses a TOKEN_ENCRYPTION_KEY that reads none of the stored tokens, naming it and what to do', async () => {
    const database = await databaseWithTokens('wrong-key');
    const { code, stderr } = await runToExit({ ...base(database), TOKEN_ENCRYPTION_KEY: NEW_KEY });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^countersign: TOKEN_ENCRYPTION_KEY \(key id \w+\) cannot read any of the 3 stored tokens/m);
    expect(stderr).toContain('users UADA (T0001), UBOB');
    expect(stderr).toContain('TOKEN_ENCRYPTION_KEY_PREVIOUS');
    expect(stderr).toContain('countersign keys rotate');
    for (const secret of [OLD_KEY, NEW_KEY, TOKEN]) expect(stderr).not.toContain(secret);
    expect(stderr).not.toContain('countersign is running');
  });

  it('starts with the old key as TOKEN_ENCRYPTION_KEY_PREVIOUS', async () => {
    const database = await databaseWithTokens('rotating');
    const app = await spawnApp({ ...base(database), TOKEN_ENCRYPTION_KEY: NEW_KEY, TOKEN_ENCRYPTION_KEY_PREVIOUS: OLD_KEY });
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
  });

  it('refuses a SQLite file that is not a database, naming DATABASE_URL and the file', async () => {
    mkdirSync(join(dir, 'corrupt'), { recursive: true });
    const database = join(dir, 'corrupt', 'countersign.db');
    writeFileSync(database, Buffer.alloc(64 * 1024, 'not a database, a damaged copy '));
    const { code, stderr } = await runToExit({ ...base(database), TOKEN_ENCRYPTION_KEY: NEW_KEY });
    expect(code).toBe(1);
    expect(stderr).toContain(`countersign: DATABASE_URL: the SQLite database ${database} cannot be used`);
    expect(stderr).toContain('Restore it from a backup');
  });

  it('refuses a SQLite database with damaged pages, found at start rather than by the first user on them', async () => {
    const database = await databaseWithTokens('damaged');
    // Everything past the first two pages (the header and the schema) overwritten.
    const bytes = readFileSync(database);
    bytes.fill(0x5a, 2 * 4096);
    writeFileSync(database, bytes);
    const { code, stderr } = await runToExit({ ...base(database), TOKEN_ENCRYPTION_KEY: OLD_KEY });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /countersign: DATABASE_URL: the SQLite database \S+ cannot be used \((integrity check failed|database disk image is malformed)/,
    );
  });
});

describe('stopping', () => {
  let slack: FakeSlack;
  let hanging: StubServer;

  /** The app, with Ada linked, in front of a service that takes every call and never answers. */
  async function appOnHangingService(name: string, env: Record<string, string>) {
    slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    hanging = await startStubServer(() => {});
    cleanups.push(() => hanging.close());
    const path = join(dir, name, 'countersign.db');
    mkdirSync(join(dir, name), { recursive: true });
    const store = new SqliteStore(path, new Secret(NEW_KEY));
    await store.setToken({ teamId: TEAM, userId: 'UADA' }, ['findApprovals'], new Secret(TOKEN), 'admin', new Date());
    await store.close();
    return spawnApp({
      ...base(path),
      SLACK_API_URL: slack.apiUrl,
      COMMAND_SERVICE_URL: hanging.url,
      TOKEN_ENCRYPTION_KEY: NEW_KEY,
      ...env,
    });
  }

  it('ends within SHUTDOWN_TIMEOUT while service calls hang, and logs how many requests of which kinds it gave up', async () => {
    const app = await appOnHangingService('stopping', {
      SHUTDOWN_TIMEOUT: '2s',
      // The three commands are what hangs here; an arrival check's call would be a fourth (below, its own test).
      NOTIFY_INTERVAL: 'off',
    });
    const url = `http://127.0.0.1:${app.port}/slack/events`;
    for (let i = 0; i < 3; i++) {
      const form = new URLSearchParams({
        team_id: TEAM,
        channel_id: 'C0OPS',
        user_id: 'UADA',
        command: '/approvals',
        text: `page-size:${i + 1}`,
        response_url: slack.responseUrl().url,
        trigger_id: `t${i}`,
      }).toString();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(form, SIGNING_SECRET, Math.floor(Date.now() / 1000)) },
        body: form,
      });
      expect(res.status).toBe(200);
    }
    // All three are now waiting on the service.
    await eventually('three calls waiting on the service', () => hanging.requests.length >= 3);
    expect(hanging.requests).toHaveLength(3);

    app.child.kill('SIGTERM');
    const code = await Promise.race([app.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    expect(code).toBe(1);
    const gaveUp = app.logs().find((l) => l.msg === 'shutdown limit reached: abandoning the work still in flight');
    expect(gaveUp).toMatchObject({ limitMs: 2000, inFlight: 3, kinds: { '/approvals': 3 }, waitingFor: ['work in flight'] });
    expect(app.logs().find((l) => l.msg === 'stopped')).toMatchObject({ abandoned: 3 });
  }, 40_000);

  it('stops at once while an arrival check waits on a service that never answers: its call is cancelled, and the exit is clean', async () => {
    const app = await appOnHangingService('stopping-arrivals', { SHUTDOWN_TIMEOUT: '10s' });
    // Ada is linked: the first arrival check asks for her list, and the service keeps it.
    await eventually('the arrival check waiting on the service', () => hanging.requests.length >= 1, 15_000);

    app.child.kill('SIGTERM');
    // Not held for SERVICE_TIMEOUT (20 s), nor abandoned at SHUTDOWN_TIMEOUT: the check is cancelled.
    expect(await Promise.race([app.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(0);
    expect(app.logs().find((l) => l.msg === 'shutdown limit reached: abandoning the work still in flight')).toBeUndefined();
  }, 40_000);
});

describe('the last resort', () => {
  const env = () => {
    mkdirSync(join(dir, 'fault'), { recursive: true });
    return { ...base(join(dir, 'fault', 'countersign.db')), TOKEN_ENCRYPTION_KEY: NEW_KEY };
  };
  const health = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`)).status;

  it('logs a rejection nobody handled, and the app carries on serving', async () => {
    const app = await spawnApp(env(), { preload: './test/helpers/inject-fault.ts' });
    app.child.kill('SIGUSR2');
    await eventually('the unhandled rejection logged', () =>
      app.logs().some((l) => l.msg?.startsWith('unhandled promise rejection') === true),
    );
    const line = app.logs().find((l) => l.msg?.startsWith('unhandled promise rejection') === true);
    expect(line).toMatchObject({ level: 'error', error: { message: 'injected: a rejection nobody handled' } });
    expect(await health(app.port)).toBe(200);
    expect(app.child.exitCode).toBeNull();
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
  });

  it('on an uncaught exception, logs it, stops as on SIGTERM, and exits 1', async () => {
    const app = await spawnApp({ ...env(), FAULT: 'throw' }, { preload: './test/helpers/inject-fault.ts' });
    app.child.kill('SIGUSR2');
    const code = await Promise.race([app.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))]);
    expect(code).toBe(1);
    expect(app.logs().find((l) => l.msg?.startsWith('uncaught exception') === true)).toMatchObject({
      error: { message: 'injected: a bug thrown from a callback' },
    });
    expect(app.logs().some((l) => l.msg === 'stopped')).toBe(true);
  });
});

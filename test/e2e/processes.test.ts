/**
 * Deployed as operators deploy it: two app processes on one PostgreSQL behind a round-robin
 * load balancer (a small loopback proxy), Slack and the Command Service on loopback. Paging,
 * confirmations, run-status polling and reminders behave as one app. And one process stopped
 * with SIGTERM under load answers everything it acknowledged, takes nothing new, and exits 0.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { CONFIRM_ACTIONS } from '../../src/render/collect.js';
import { Secret } from '../../src/runtime/secret.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, type FakeSlack, startFakeSlack, textOf } from '../helpers/fake-slack.js';
import { SIGNING_SECRET, sign, TEAM } from '../helpers/harness.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';
import { childEnv, ROOT } from '../helpers/spawn.js';
import { visible } from '../helpers/visible.js';

const available = await postgresAvailable('the two-process test');
const KEY = Buffer.alloc(32, 11).toString('base64');

interface Instance {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  stderr(): string;
}

async function startInstance(env: Record<string, string>, entry = 'test/helpers/instance-main.ts'): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start: ${err}`)), 30_000);
    const look = () => {
      const fromStdout = /\{"port":(\d+)\}/.exec(out)?.[1];
      const fromLog = /"port":(\d+)[^\n]*"msg":"countersign is running"|"msg":"countersign is running"[^\n]*"port":(\d+)/.exec(err);
      const found = fromStdout ?? fromLog?.[1] ?? fromLog?.[2];
      if (found) {
        clearTimeout(timer);
        resolve(Number(found));
      }
    };
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      look();
    });
    child.stderr?.on('data', look);
    child.on('exit', () => reject(new Error(`instance exited: ${err}`)));
  });
  return { child, port, exited, stderr: () => err };
}

/** The load balancer: each request to the next instance in turn. */
async function roundRobin(ports: () => number[]): Promise<{ url: string; close(): Promise<void>; served: number[] }> {
  let next = 0;
  const served: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const list = ports();
      const port = list[next++ % list.length] as number;
      served.push(port);
      try {
        const upstream = await request(`http://127.0.0.1:${port}${req.url}`, {
          method: req.method as 'POST',
          headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection')) as Record<
            string,
            string
          >,
          body: chunks.length > 0 ? Buffer.concat(chunks) : null,
        });
        res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type'] ?? 'text/plain') });
        res.end(Buffer.from(await upstream.body.arrayBuffer()));
      } catch {
        res.writeHead(502);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function post(url: string, form: string): Promise<number> {
  const res = await request(`${url}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(form, SIGNING_SECRET, Math.floor(Date.now() / 1000)) },
    body: form,
  });
  await res.body.dump();
  return res.statusCode;
}
const command = (url: string, user: string, slash: string, text: string, responseUrl: string) =>
  post(
    url,
    new URLSearchParams({
      team_id: TEAM,
      channel_id: 'C0OPS',
      user_id: user,
      command: slash,
      text,
      response_url: responseUrl,
      trigger_id: 't',
    }).toString(),
  );
const click = (url: string, user: string, actionId: string, value: string | undefined, responseUrl: string) =>
  post(
    url,
    new URLSearchParams({
      payload: JSON.stringify({
        type: 'block_actions',
        user: { id: user, team_id: TEAM },
        team: { id: TEAM },
        channel: { id: 'C0OPS' },
        trigger_id: 't',
        response_url: responseUrl,
        actions: [{ action_id: actionId, block_id: 'b', type: 'button', value }],
      }),
    }).toString(),
  );

let slack: FakeSlack;
let service: ReferenceService;
let schema: Awaited<ReturnType<typeof freshSchema>>;
let env: Record<string, string>;
const instances: Instance[] = [];
let lb: Awaited<ReturnType<typeof roundRobin>>;

beforeAll(async () => {
  if (!available) return;
  slack = await startFakeSlack();
  service = await startReferenceService({ runTimings: { queuedMs: 300, runningMs: 700 } });
  schema = await freshSchema();
  env = {
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-processes',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    COMMAND_SERVICE_URL: service.url,
    TOKEN_ENCRYPTION_KEY: KEY,
    DATABASE_URL: schema.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    COMMANDS_PER_MINUTE: '0',
    // The first arrival check would DM Grace what already waits for her: these tests count her DMs from
    // collections. Arrivals across instances are tested in arrivals-instances.test.ts.
    NOTIFY_INTERVAL: 'off',
  };
  instances.push(await startInstance(env), await startInstance(env));
  lb = await roundRobin(() => instances.slice(0, 2).map((i) => i.port));
  const store = await PostgresStore.open(new Secret(schema.url), new Secret(KEY));
  const grace = service.demoTokens.find((t) => t.label === 'approver+ops')?.token ?? '';
  await store.setToken(
    { teamId: TEAM, userId: 'UGRACE' },
    ['findApprovals', 'collectEntitlements'],
    new Secret(grace),
    'admin',
    new Date(),
  );
  await store.close();
}, 90_000);

afterAll(async () => {
  for (const i of instances) {
    if (i.child.exitCode === null) {
      i.child.kill('SIGTERM');
      await i.exited;
    }
  }
  await lb?.close();
  await service?.close();
  await slack?.close();
  await schema?.drop();
});

describe.skipIf(!available)('two app processes behind a round-robin load balancer', () => {
  it('turn a page asked of one process on the other', async () => {
    const asked = slack.responseUrl();
    expect(await command(lb.url, 'UGRACE', '/approvals', 'page-size:3', asked.url)).toBe(200);
    const [page1] = await slack.waitForResponses(asked.id, 1);
    const next = buttonsOf(page1).find((b) => b.action_id === PAGE_ACTIONS.next);
    const turned = slack.responseUrl();
    expect(await click(lb.url, 'UGRACE', PAGE_ACTIONS.next, next?.value, turned.url)).toBe(200);
    expect(textOf((await slack.waitForResponses(turned.id, 1))[0])).toContain('Pending approvals · page 2');
    expect(new Set(lb.served.slice(-2)).size).toBe(2);
  });

  it('start one collection for a confirmation clicked six times across both, and follow its runs to the end', async () => {
    const asked = slack.responseUrl();
    await command(lb.url, 'UGRACE', '/collect', '', asked.url);
    const [confirmation] = await slack.waitForResponses(asked.id, 1);
    const run = buttonsOf(confirmation).find((b) => b.action_id === CONFIRM_ACTIONS.run);
    const before = service.calls.get('collectEntitlements') ?? 0;
    const posts = slack.posted().length;
    const clicks = Array.from({ length: 6 }, () => slack.responseUrl());
    await Promise.all(clicks.map((r) => click(lb.url, 'UGRACE', CONFIRM_ACTIONS.run, run?.value, r.url)));
    await slack.waitForPosts(posts + 1);
    // A click's work ends with its answer: once all six are answered, none of them can start anything more.
    await Promise.all(clicks.map((r) => slack.waitForResponses(r.id, 1)));
    expect(service.calls.get('collectEntitlements') ?? 0).toBe(before + 1);
    const message = slack.posted().slice(posts);
    expect(message).toHaveLength(1);
    expect(message[0]?.text).toMatch(/^<@UGRACE> started 7 collections/);
    // Whichever process polls, the message ends once, with every run's end; AWS IAM's breaker aborts it.
    const ts = `1700000000.${String(posts + 1).padStart(6, '0')}`;
    const last = () =>
      slack
        .updates()
        .filter((u) => u.ts === ts)
        .at(-1);
    await eventually('the message saying all 7 ended', () => /All 7 ended/.test(visible(last()?.blocks)), 15_000);
    expect(visible(last()?.blocks)).toContain('*All 7 ended: 6 completed, 1 aborted*');
    await eventually('the DM to UGRACE', () => slack.posted().some((p) => p.channel === 'UGRACE'), 15_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(slack.posted().filter((p) => p.channel === 'UGRACE')).toHaveLength(1);
  });

  it('send each due reminder once, with both processes’ schedulers taking from the same store', async () => {
    const store = await PostgresStore.open(new Secret(schema.url), new Secret(KEY));
    const token = new Secret(service.demoTokens.find((t) => t.label === 'approver')?.token ?? '');
    const users = Array.from({ length: 12 }, (_, i) => `UREM${String(i).padStart(2, '0')}`);
    const due = new Date(Date.now() - 1000);
    for (const userId of users) {
      const who = { teamId: TEAM, userId };
      await store.setToken(who, ['findApprovals'], token, 'admin', new Date());
      await store.setReminder({ ...who, days: 'daily', minuteOfDay: 540, timeZone: 'UTC', nextAt: due, dueAt: due });
    }
    const digests = () => slack.posted().filter((p) => p.channel.startsWith('UREM'));
    await eventually(
      () => `${users.length} digests (${digests().length} sent)`,
      () => digests().length >= users.length,
      15_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(digests()).toHaveLength(users.length);
    expect(new Set(digests().map((d) => d.channel)).size).toBe(users.length);
    for (const userId of users) expect((await store.getReminder({ teamId: TEAM, userId }))?.nextAt.getTime()).toBeGreaterThan(Date.now());
    await store.close();
  });
});

describe.skipIf(!available)('SIGTERM under load', () => {
  it('answers every command it acknowledged, takes nothing new, and exits 0', async () => {
    service.setDelay(400);
    try {
      const lone = await startInstance({ ...env, LOG_LEVEL: 'info' }, 'src/main.ts');
      const url = `http://127.0.0.1:${lone.port}`;
      const urls = Array.from({ length: 40 }, () => slack.responseUrl());
      const acks = await Promise.all(urls.map((r) => command(url, 'UGRACE', '/approvals', 'page-size:1', r.url)));
      expect(acks.every((s) => s === 200)).toBe(true);
      // All 40 are now waiting on the slow service.
      lone.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      const late = await request(`${url}/slack/events`, { method: 'POST', body: 'x' }).then(
        async (res) => {
          await res.body.dump();
          return res.statusCode;
        },
        (error: { code?: string }) => error.code ?? 'failed',
      );
      expect(late === 'ECONNREFUSED' || late === 503 || late === 'UND_ERR_SOCKET').toBe(true);
      expect(await lone.exited).toBe(0);
      for (const r of urls) expect(textOf(slack.responses(r.id)[0])).toContain('Pending approvals');
      expect(lone.stderr()).toContain('"msg":"stopped"');
    } finally {
      service.setDelay(0);
    }
  }, 60_000);
});

/**
 * The Slack-facing figures: ack latency at a fixed rate, own time per /approvals, and the full
 * pipeline at fixed rates beside a bare Bolt app. Cost per answered command against an app doing
 * the same work is the floor suite's (floor.ts).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { parseApprovalsCommand } from '../src/parse/approvals.js';
import { approvalsPageJson, renderApprovalsPage } from '../src/render/approvals.js';
import { Secret } from '../src/runtime/secret.js';
import { createServiceClient } from '../src/service/index.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { timeFrame } from '../src/time/frame.js';
import { sign } from '../test/helpers/harness.js';
import { fmt, percentile, ROOT, startChildService } from './lib.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 4).toString('base64');
const USERS = Array.from({ length: 50 }, (_, i) => `UBENCH${String(i).padStart(4, '0')}`);

/**
 * Slack's side for the benchmark: answers the two Web API methods the app calls and counts what
 * arrives at response_url without parsing it, so that the rig takes as little CPU as it can.
 */
async function startSink(): Promise<{
  apiUrl: string;
  responseUrl: string;
  answered(): number;
  /** When the answer to the request with this index arrived (performance.now()), for URLs ending /<index>. */
  arrivals: Map<number, number>;
  close(): Promise<void>;
}> {
  let answered = 0;
  const arrivals = new Map<number, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/response')) {
        answered++;
        const index = /^\/response\/(\d+)$/.exec(req.url)?.[1];
        if (index !== undefined) arrivals.set(Number(index), performance.now());
      }
      const body = req.url?.includes('auth.test')
        ? '{"ok":true,"user_id":"UBOT","bot_id":"BBOT","team_id":"T0001"}'
        : req.url?.includes('users.info')
          ? '{"ok":true,"user":{"tz":"Europe/Berlin"}}'
          : 'ok';
      res.writeHead(200, { 'content-type': body === 'ok' ? 'text/plain' : 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${url}/api/`,
    responseUrl: `${url}/response`,
    answered: () => answered,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AppProcess {
  port: number;
  child: ChildProcess;
  /** CPU time (µs) the process has used so far, all threads. */
  cpu(): Promise<number>;
  /** Resident memory now and at its highest, in bytes. */
  memory(): Promise<{ rss: number; maxRss: number }>;
  stop(): Promise<void>;
}

/** `logFile`: where the app's log (its stderr) goes, instead of this terminal. */
export async function startApp(kind: 'countersign' | 'bare', env: NodeJS.ProcessEnv, logFile?: string): Promise<AppProcess> {
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const log = logFile === undefined ? 'inherit' : openSync(logFile, 'a');
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/app-process.ts', kind], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', log],
  });
  if (typeof log === 'number') closeSync(log);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`${kind} app exited with ${code}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const usage = () =>
    new Promise<{ cpu: number; rss: number; maxRss: number }>((resolve) => {
      const onData = (c: Buffer) => {
        const m = /CPU (\d+) RSS (\d+) MAXRSS (\d+)/.exec(c.toString());
        if (m) {
          child.stdout?.off('data', onData);
          resolve({ cpu: Number(m[1]), rss: Number(m[2]), maxRss: Number(m[3]) });
        }
      };
      child.stdout?.on('data', onData);
      child.kill('SIGUSR2');
    });
  return { port, child, cpu: async () => (await usage()).cpu, memory: usage, stop };
}

// Slack's trigger ids are unique per request; so are these, or the app would refuse repeats as replays.
let triggers = 0;

function commandBody(i: number, responseUrl: string): string {
  return new URLSearchParams({
    team_id: 'T0001',
    channel_id: 'C0BENCH',
    user_id: USERS[i % USERS.length] as string,
    command: '/approvals',
    text: i % 3 === 0 ? 'due-before:7d' : i % 3 === 1 ? '' : 'completed sort:desc',
    response_url: responseUrl,
    trigger_id: `t.${++triggers}`,
  }).toString();
}

/** Sends one command; the ack's time, and whether it was the "very busy" of load shedding (answered in the ack itself). */
async function send(pool: Pool, body: string): Promise<{ ms: number; busy: boolean }> {
  const started = performance.now();
  const res = await pool.request({
    path: '/slack/events',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body, SIGNING_SECRET, Math.floor(Date.now() / 1000)) },
    body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
  return { ms: performance.now() - started, busy: text.includes('very busy') };
}

/** Sends at a fixed arrival rate, whatever the answers take (open loop), and times each ack. */
async function fixedRate(pool: Pool, rate: number, seconds: number, body: (i: number) => string) {
  const total = rate * seconds;
  const latencies: number[] = [];
  let errors = 0;
  let busy = 0;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      send(pool, body(i)).then(
        (r) => {
          latencies.push(r.ms);
          if (r.busy) busy++;
        },
        () => void errors++,
      ),
    );
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  return {
    sent: total,
    errors,
    busy,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    seconds: (performance.now() - started) / 1000,
  };
}

async function closedLoop(pool: Pool, concurrency: number, seconds: number, body: (i: number) => string) {
  let i = 0;
  let done = 0;
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        try {
          await send(pool, body(i++));
          done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { perSecond: done / seconds, errors };
}

/** What every Slack benchmark runs against: the reference service, the Slack stand-in, a store with 50 linked users. */
async function startRig() {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-'));
  const service = await startChildService();
  const slack = await startSink();
  const env = {
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-benchbench',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    COMMAND_SERVICE_URL: service.url,
    TOKEN_ENCRYPTION_KEY: KEY,
    DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
    PORT: '0',
    LOG_LEVEL: 'error',
    // The per-user limit would (rightly) refuse a load generator posing as 50 users.
    COMMANDS_PER_MINUTE: '0',
  };
  const store = new SqliteStore(join(dir, 'countersign.db'), new Secret(KEY));
  for (const user of USERS)
    await store.setToken(
      { teamId: 'T0001', userId: user },
      ['findApprovals'],
      new Secret(service.tokens.get('approver') ?? ''),
      'admin',
      new Date(),
    );
  await store.close();
  return { dir, service, slack, env };
}

export async function slackSuite(): Promise<void> {
  console.log('\n## Slack commands (signed /approvals over HTTP; app and reference service each in their own process)');
  const rig = await startRig();
  const { dir, service, slack } = rig;
  const env = rig.env;
  const body = (i: number) => commandBody(i, slack.responseUrl);
  try {
    const ours = await startApp('countersign', env);
    const oursPool = new Pool(`http://127.0.0.1:${ours.port}`, { connections: 64 });
    await closedLoop(oursPool, 8, 1, body); // warm-up
    // The warm-up's answers arrive after its acks: let them in before counting.
    await new Promise((r) => setTimeout(r, 1000));

    const RATE = 200;
    const SECONDS = 10;
    const before = slack.answered();
    const fixed = await fixedRate(oursPool, RATE, SECONDS, body);
    await new Promise((r) => setTimeout(r, 2000));
    const answered = slack.answered() - before;
    console.log(
      `fixed rate ${RATE}/s for ${SECONDS} s: ack p50 ${fmt(fixed.p50, 2)} ms, p99 ${fmt(fixed.p99, 2)} ms (goal < 50 ms), max ${fmt(fixed.max, 1)} ms; ${fixed.errors} errors; ${answered} of ${fixed.sent} answered through response_url`,
    );

    await oursPool.close();
    await ours.stop();
  } finally {
    await slack.close();
    await service.stop();
  }
  await ownWork(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Parse + store + render + the response body, per /approvals, with the service's answer fixed. */
async function ownWork(dir: string): Promise<void> {
  const service = await startChildService();
  const client = createServiceClient({ baseUrl: service.url });
  const page = await client.findApprovals({ 'page-size': 10 }, new Secret(service.tokens.get('approver') ?? ''));
  await client.close();
  await service.stop();
  const store = new SqliteStore(join(dir, 'own.db'), new Secret(KEY));
  await store.setToken({ teamId: 'T1', userId: 'UOWN' }, ['findApprovals'], new Secret('ws-bench-token'), 'admin', new Date());
  const frame = timeFrame(new Date('2026-11-22T12:00:00Z'), 'Europe/Berlin', 'America/New_York');
  const zones = { user: frame.zone, service: 'America/New_York' };
  const times: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const started = performance.now();
    const parsed = parseApprovalsCommand(
      i % 2 === 0 ? 'due-before:7d entitlement-name:"Domain Admins"' : 'completed sort:desc page-size:10',
      frame.today,
      zones,
    );
    if (parsed.kind !== 'query') throw new Error('parse failed');
    const linked = await store.getToken({ teamId: 'T1', userId: 'UOWN' }, 'findApprovals');
    if (!linked) throw new Error('no token');
    await store.recordOutcome({ teamId: 'T1', userId: 'UOWN' }, 'findApprovals', 'ok', new Date());
    const message = renderApprovalsPage({ query: parsed.query, approvals: page.approvals, userId: 'UOWN', frame });
    JSON.stringify({ response_type: 'ephemeral', ...message });
    if (i >= 300) times.push(performance.now() - started);
  }
  await store.close();
  times.sort((a, b) => a - b);
  console.log(
    `own work per /approvals (parse + decrypt token + record outcome + render 10 approvals + JSON), service excluded: median ${fmt(percentile(times, 50), 3)} ms, p99 ${fmt(percentile(times, 99), 3)} ms (goal < 2 ms median)`,
  );
  pageAlone(page.approvals);
}

/**
 * The page as /approvals posts it (approvalsPageJson), drawn alone in a loop: the part of an
 * answered command that the floor does in a line (bench/floor.ts), in a figure steady enough to
 * tell a change of a few microseconds. The floor's frame (no zone known) and its Details buttons.
 */
function pageAlone(approvals: Parameters<typeof approvalsPageJson>[0]['approvals']): void {
  const PAGES = 100_000;
  const input = {
    query: { 'page-size': 10 },
    approvals,
    userId: 'UFLOOR0016',
    frame: timeFrame(new Date('2026-11-22T12:00:00Z'), undefined, undefined),
    details: true,
  };
  let characters = 0;
  for (let i = 0; i < 20_000; i++) characters = approvalsPageJson(input).length;
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage();
    // Its bytes counted as a post counts them, which lays the written string out once.
    for (let i = 0; i < PAGES / 5; i++) Buffer.byteLength(approvalsPageJson(input));
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / (PAGES / 5));
  }
  rounds.sort((a, b) => a - b);
  console.log(
    `the page as posted (${approvals.length} approvals, Details buttons, ${fmt(characters, 0)} characters), drawn ${fmt(PAGES, 0)} times: median of 5 rounds ${fmt(percentile(rounds, 50), 1)} µs of CPU each (rounds ${fmt(rounds[0] ?? 0, 1)}–${fmt(rounds.at(-1) ?? 0, 1)})`,
  );
}

/**
 * The full pipeline at fixed arrival rates (open loop: commands are sent on schedule whatever the
 * app does): signed slash command → ack → token → reference service → render → response_url. The
 * same load goes to a bare Bolt app that only acks, in the same run. Throughput is commands
 * answered (countersign: from the first command sent to the last answer, so that a backlog
 * drained afterwards does not count as keeping up) or acked (bare) per second.
 */
/** How long answers may keep arriving after the last command was sent. */
const DRAIN_MS = 60_000;

export async function pipelineSuite(): Promise<void> {
  const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
  const RATES = (process.env.BENCH_RATES ?? '200,500,1000').split(',').map(Number);
  console.log(
    `\n## Full pipeline at fixed rates (${SECONDS} s each; app, bare Bolt app, reference service and this load generator share the 2 cores)`,
  );
  const { dir, service, slack, env } = await startRig();
  try {
    for (const rate of RATES) {
      const results: Record<string, string> = {};
      let oursPerSecond = 0;
      let barePerSecond = 0;
      for (const kind of ['bare', 'countersign'] as const) {
        const app = await startApp(kind, env);
        const pool = new Pool(`http://127.0.0.1:${app.port}`, { connections: 128, pipelining: 1 });
        // Warm-up: JIT, connections, the service's statement cache.
        await closedLoop(pool, 8, 1, (i) => commandBody(i, slack.responseUrl));
        slack.arrivals.clear();
        const sentAt = new Map<number, number>();
        const fixed = await fixedRate(pool, rate, SECONDS, (i) => {
          sentAt.set(i, performance.now());
          return commandBody(i, `${slack.responseUrl}/${i}`);
        });
        const endOfSending = performance.now();
        if (kind === 'countersign') {
          while (slack.arrivals.size < fixed.sent - fixed.errors - fixed.busy && performance.now() - endOfSending < DRAIN_MS)
            await new Promise((r) => setTimeout(r, 50));
        }
        const mem = await app.memory();
        await pool.close();
        await app.stop();
        if (kind === 'bare') {
          barePerSecond = (fixed.sent - fixed.errors) / fixed.seconds;
          // (fixed.seconds runs from the first command sent to the last ack.)
          results.bare = `bare Bolt: ack p50 ${fmt(fixed.p50, 2)} ms, p99 ${fmt(fixed.p99, 2)} ms, ${fixed.errors} errors, ${fmt(barePerSecond, 0)} acks/s, RSS max ${fmt(mem.maxRss / 1e6, 0)} MB`;
          continue;
        }
        const answers: number[] = [];
        for (const [i, at] of slack.arrivals) {
          const sent = sentAt.get(i);
          if (sent !== undefined) answers.push(at - sent);
        }
        answers.sort((a, b) => a - b);
        // Answers per second from the first command sent to the last answer: a backlog that drains
        // after the sending stops does not count as keeping up.
        const first = Math.min(...sentAt.values());
        const last = Math.max(...slack.arrivals.values());
        oursPerSecond = answers.length / ((last - first) / 1000);
        results.ours =
          `countersign: ack p50 ${fmt(fixed.p50, 2)} ms, p99 ${fmt(fixed.p99, 2)} ms${rate === 200 ? ' (goal < 50 ms)' : ''}; ` +
          `answer p50 ${fmt(percentile(answers, 50), 1)} ms, p99 ${fmt(percentile(answers, 99), 1)} ms; ` +
          `${fixed.errors} errors, ${fixed.busy} turned away as busy, ${fixed.sent - fixed.errors - fixed.busy - answers.length} unanswered; ${fmt(oursPerSecond, 0)} answered/s; RSS max ${fmt(mem.maxRss / 1e6, 0)} MB`;
      }
      const ratio = (100 * oursPerSecond) / barePerSecond;
      console.log(
        `${rate}/s: ${results.ours}\n        ${results.bare}\n        throughput countersign answered / bare acked = ${fmt(ratio)} % (the bare app only acks; cost against the same work: the floor suite)`,
      );
    }
  } finally {
    await slack.close();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

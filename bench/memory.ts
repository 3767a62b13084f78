/**
 * Memory: countersign's resident memory (RSS) and its heap after a full collection, idle after
 * start, after 100,000 requests answered one after another by 16 workers (closed loop), and at a
 * steady 200 a second (open loop), with a least-squares slope of the heap over the requests
 * answered as a leak check. Printed, never asserted.
 *
 * The app runs as deployed (logs at info, metrics, the per-user rate limit, SQLite store) in its
 * own process, started with --expose-gc and an IPC channel by which this bench asks it, while the
 * load is paused, for its heap after a full collection or for a heap snapshot (a hook of the
 * bench's launcher, bench/app-process.ts; the app has no such endpoint). The reference service
 * runs in a process of its own; Slack's side (response_url, views.open/update, users.info) is a
 * small server here.
 *
 * BENCH_COMMANDS (100000) and BENCH_ROUNDS (6, of 20 s at 200/s) size the run;
 * BENCH_DATABASE_URL=postgres://… runs the store on PostgreSQL (in a schema of its own, dropped
 * afterwards); BENCH_HEAP_SNAPSHOTS=<dir> writes a heap snapshot at the first
 * checkpoint, after the last round and after the new users, to compare in Chrome's DevTools
 * (Memory, Comparison); a snapshot costs the app RSS of its own, so RSS figures after one mean little.
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pg from 'pg';
import { Pool } from 'undici';
import { parseApprovalsCommand } from '../src/parse/approvals.js';
import { encodePageState, PAGE_ACTIONS } from '../src/render/approvals.js';
import { DETAILS_ACTIONS, encodeDetailsValue } from '../src/render/details-controls.js';
import { silentLogger } from '../src/runtime/logger.js';
import { Secret } from '../src/runtime/secret.js';
import { createServiceClient } from '../src/service/index.js';
import type { ApprovalQuery } from '../src/service/query.js';
import { ReplayGuard } from '../src/slack/transport/replay.js';
import { PostgresStore } from '../src/store/postgres.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { Store } from '../src/store/types.js';
import { sign } from '../test/helpers/harness.js';
import { fmt, ROOT, startChildService } from './lib.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 4).toString('base64');
const USERS = Array.from({ length: 2000 }, (_, i) => `UMEM${String(i).padStart(5, '0')}`);
/**
 * Users who first appear at the end, one request each: what a user the app has not seen before
 * costs (time zone, rate-limit buckets, last outcome), below the caps of those (10,000 time zones).
 */
const NEW_USERS = Array.from({ length: 8000 }, (_, i) => `UNEW${String(i).padStart(5, '0')}`);
const CONCURRENCY = 16;
const RATE = 200;
const ROUND_SECONDS = 20;
const CHECKPOINTS = 4;
/**
 * The app remembers each request's signature until the request would be stale (Slack's 5
 * minutes), to refuse replays. Requests here are signed as if sent 292 s ago (inside the window
 * still, with 8 s to spare for a machine that stalls), so that this memory empties 8 s after the
 * last request rather than 5 minutes: every checkpoint then finds it empty, and the rounds compare. What a full window holds is measured
 * on its own (replayWindowCost).
 */
const SIGNATURE_AGE_S = 292;
const REPLAY_EMPTY_MS = 8_500;
/** Heap growth past this, per 10,000 requests, reads as "grows": ~20 bytes a request, less than one small object each. */
const LEAK_THRESHOLD_KB_PER_10K = 200;

const mb = (bytes: number) => fmt(bytes / 1e6, 1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Slack's side: answers the Web API methods the app calls and tells the bench when each request's answer arrives. */
async function startSlack() {
  const waiting = new Map<string, (shown: boolean) => void>();
  const counts = { answers: 0, shown: 0 };
  const arrived = (key: string, shown: boolean) => {
    counts.answers++;
    if (shown) counts.shown++;
    waiting.get(key)?.(shown);
    waiting.delete(key);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      let body = '{"ok":true}';
      if (url.startsWith('/response/')) {
        // A page of approvals says how many it shows per page; anything else is an error or a notice.
        arrived(url.slice('/response/'.length), Buffer.concat(chunks).includes(' per page'));
        body = 'ok';
      } else if (url.includes('users.info')) body = '{"ok":true,"user":{"tz":"Europe/Berlin"}}';
      else if (url.includes('auth.test')) body = '{"ok":true,"user_id":"UBOT","bot_id":"BBOT","team_id":"T0001"}';
      else if (url.includes('views.open')) {
        const trigger = new URLSearchParams(Buffer.concat(chunks).toString()).get('trigger_id') ?? '';
        body = JSON.stringify({ ok: true, view: { id: `V${trigger.slice(2)}` } });
      } else if (url.includes('views.update')) {
        const params = new URLSearchParams(Buffer.concat(chunks).toString());
        arrived((params.get('view_id') ?? '').slice(1), (params.get('view') ?? '').includes('What the request asks for'));
      }
      res.writeHead(200, { 'content-type': body === 'ok' ? 'text/plain' : 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}/api/`,
    responseUrl: `${base}/response`,
    counts,
    /** Resolves when request `n`'s answer arrives (true when it showed approvals or details), or false after 30 s. */
    answerOf(n: number): Promise<boolean> {
      return new Promise((done) => {
        const timer = setTimeout(() => {
          waiting.delete(String(n));
          done(false);
        }, 30_000);
        waiting.set(String(n), (shown) => {
          clearTimeout(timer);
          done(shown);
        });
      });
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

interface Usage {
  gc: boolean;
  rssBefore: number;
  heapBefore: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  maxRss: number;
}

/**
 * countersign as `npm start` runs it (the compiled dist/main.js, freshly built), in its own process,
 * with --expose-gc and the bench's hook preloaded (bench/memory-hook.mjs). Its log goes to a file.
 */
async function startCountersignChild(env: NodeJS.ProcessEnv, logFile: string) {
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '--import', './bench/memory-hook.mjs', 'dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_MEMORY_HOOK: '1' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.stderr?.pipe(log);
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.includes('"countersign is running"'));
      if (line === undefined) return;
      child.stderr?.off('data', onData);
      done((JSON.parse(line) as { port: number }).port);
    };
    child.stderr?.on('data', onData);
    child.on('exit', (code) => fail(new Error(`countersign exited with ${code}: ${out.slice(-2000)}`)));
  });
  let next = 0;
  const ask = <T>(message: Record<string, unknown>) =>
    new Promise<T>((done) => {
      const id = ++next;
      const onMessage = (reply: { id: number } & T) => {
        if (reply.id !== id) return;
        child.off('message', onMessage);
        done(reply);
      };
      child.on('message', onMessage);
      child.send({ id, ...message });
    });
  return {
    port,
    usage: () => ask<Usage>({ kind: 'memory' }),
    snapshot: (path: string) => ask<{ path: string }>({ kind: 'snapshot', path }),
    stop: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** The store the app will open: SQLite by default, or a fresh schema of BENCH_DATABASE_URL's PostgreSQL. */
async function prepareStore(dir: string): Promise<{ url: string; label: string; open(): Promise<Store>; drop(): Promise<void> }> {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (pgUrl === undefined || pgUrl === '') {
    const path = join(dir, 'countersign.db');
    return {
      url: `sqlite:${path}`,
      label: 'SQLite (the default store)',
      open: async () => new SqliteStore(path, new Secret(KEY)),
      drop: async () => {},
    };
  }
  const schema = `bench_memory_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    label: `PostgreSQL (${new URL(pgUrl).host}, schema ${schema})`,
    open: () => PostgresStore.open(new Secret(url), new Secret(KEY)),
    drop: async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** Least squares: the slope of y over x, and its standard error (how far the points scatter about the line says how sure it is). */
function slope(points: ReadonlyArray<[number, number]>): { slope: number; error: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  const b = sxy / sxx;
  const residuals = points.reduce((s, [x, y]) => s + (y - my - b * (x - mx)) ** 2, 0);
  return { slope: b, error: n > 2 ? Math.sqrt(residuals / (n - 2) / sxx) : Number.NaN };
}

/**
 * What the replay memory holds with a full window, measured here with the app's own ReplayGuard
 * (a store that accepts everything behind it): `count` signatures as Slack's (v0= and 64 hex digits).
 */
async function replayWindowCost(count: number): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const guard = new ReplayGuard({ rememberSignature: async () => true }, silentLogger);
  gc();
  const before = process.memoryUsage().heapUsed;
  const now = Date.now();
  // Flat strings, as a header's value is (a template literal would make a rope, bigger than what the app holds).
  for (let i = 0; i < count; i++)
    await guard.firstTime(Buffer.from(`v0=${i.toString(16).padStart(64, '0')}`).toString('latin1'), now + 600_000, now);
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keep it alive past the measurement.
  if ((await guard.firstTime('v0=0', now + 600_000, now)) === undefined) console.log('');
  return after - before;
}

export async function memorySuite(): Promise<void> {
  const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 100_000);
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
  const snapshots = process.env.BENCH_HEAP_SNAPSHOTS ? resolve(process.env.BENCH_HEAP_SNAPSHOTS) : undefined;
  const began = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-memory-'));
  const store = await prepareStore(dir);
  console.log(
    `\n## Memory (countersign in its own process, logs at info, metrics, the per-user rate limit, store: ${store.label}; ` +
      `${fmt(COMMANDS, 0)} requests by ${CONCURRENCY} workers each waiting for its answer, then ${ROUNDS} rounds of ${ROUND_SECONDS} s at ${RATE}/s)`,
  );
  const service = await startChildService();
  const slack = await startSlack();
  let app: Awaited<ReturnType<typeof startCountersignChild>> | undefined;
  try {
    const token = service.tokens.get('approver') ?? '';
    const linking = await store.open();
    for (const user of [...USERS, ...NEW_USERS])
      await linking.setToken({ teamId: 'T0001', userId: user }, ['findApprovals'], new Secret(token), 'admin', new Date());
    await linking.close();
    const client = createServiceClient({ baseUrl: service.url });
    const ids = (await client.findApprovals({ 'page-size': 100, state: 'all' }, new Secret(token))).approvals.map((a) => a.workItemId);
    await client.close();

    // What `npm start` runs: the compiled app, built from this source now.
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    const logFile = join(dir, 'countersign.log');
    app = await startCountersignChild(
      {
        SLACK_BOT_TOKEN: 'xoxb-0000-1111-benchbench',
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: slack.apiUrl,
        COMMAND_SERVICE_URL: service.url,
        TOKEN_ENCRYPTION_KEY: KEY,
        DATABASE_URL: store.url,
        PORT: '0',
        LOG_LEVEL: 'info',
        // On, and above what 2,000 users send here: its per-user buckets are part of what is measured.
        COMMANDS_PER_MINUTE: '1000',
      },
      logFile,
    );
    const pool = new Pool(`http://127.0.0.1:${app.port}`, { connections: 64 });

    // What is sent: 70 % /approvals (five forms, filters among them), 20 % Next on a page, 10 % Details.
    const TEXTS = ['', 'due-before:7d', 'completed sort:desc', 'all entitlement-name:"Domain Admins"', 'page-size:5 sort:desc'];
    const today = { year: 2026, month: 11, day: 22 };
    const queries = TEXTS.map((t) => {
      const parsed = parseApprovalsCommand(t, today);
      if (parsed.kind !== 'query') throw new Error(`not a query: ${t}`);
      return parsed.query;
    });
    let sent = 0;
    let refused = 0;
    const counts = { command: 0, paging: 0, details: 0 };
    let newcomer: number | undefined;
    const bodyOf = (n: number): string => {
      const user = newcomer === undefined ? (USERS[n % USERS.length] as string) : (NEW_USERS[newcomer++] as string);
      const responseUrl = `${slack.responseUrl}/${n}`;
      const slot = n % 20;
      if (slot < 14) {
        counts.command++;
        return new URLSearchParams({
          team_id: 'T0001',
          channel_id: 'C0BENCH',
          user_id: user,
          command: '/approvals',
          text: TEXTS[n % TEXTS.length] as string,
          response_url: responseUrl,
          trigger_id: `t.${n}`,
        }).toString();
      }
      const query = queries[n % queries.length] as ApprovalQuery;
      const action =
        slot < 18
          ? { action_id: PAGE_ACTIONS.next, value: encodePageState({ user, query: { ...query, 'start-page': 2 } }) }
          : {
              action_id: DETAILS_ACTIONS.open,
              value: encodeDetailsValue(ids[n % ids.length] as string, { kind: 'page', owner: user, query }),
            };
      if (slot < 18) counts.paging++;
      else counts.details++;
      const payload = {
        type: 'block_actions',
        user: { id: user, team_id: 'T0001' },
        team: { id: 'T0001' },
        container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0BENCH', is_ephemeral: true },
        trigger_id: `t.${n}`,
        response_url: responseUrl,
        actions: [{ ...action, block_id: 'b', type: 'button', action_ts: '1700000000.000200' }],
      };
      return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    };
    /** Sends request n and resolves once it is answered (true when the answer showed approvals or details). */
    const request = async (n: number): Promise<boolean> => {
      const body = bodyOf(n);
      const answered = slack.answerOf(n);
      sent++;
      const res = await pool.request({
        path: '/slack/events',
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...sign(body, SIGNING_SECRET, Math.floor(Date.now() / 1000) - SIGNATURE_AGE_S),
        },
        body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.includes('very busy') || text.includes('Easy there')) refused++;
      return answered;
    };

    let n = 0;
    let shown = 0;
    let unanswered = 0;
    const settle = async (work: Promise<boolean>) => {
      if (await work.catch(() => false)) shown++;
      else unanswered++;
    };
    const snapshot = async () => {
      if (snapshots === undefined || app === undefined) return;
      mkdirSync(snapshots, { recursive: true });
      const { path } = await app.snapshot(join(snapshots, `countersign-${n}.heapsnapshot`));
      console.log(`  heap snapshot: ${path}`);
    };
    const printRow = (label: string, requests: number, usage: Usage, underLoad?: Usage) =>
      console.log(
        `${label.padEnd(36)}${fmt(requests, 0).padStart(9)}${mb(usage.rssBefore).padStart(8)}${mb(usage.heapUsed).padStart(11)}` +
          `${mb(usage.heapTotal).padStart(12)}${mb(usage.external).padStart(10)}` +
          (underLoad ? `${mb(underLoad.rss).padStart(10)} / ${mb(underLoad.heapBefore)}` : ''),
      );
    const rows: Array<{ label: string; commands: number; usage: Usage; underLoad?: Usage | undefined; perSecond?: number | undefined }> =
      [];
    /** Waits until the replay memory is empty (see SIGNATURE_AGE_S), sends one request, then asks for the heap after a full collection. */
    const checkpoint = async (label: string, underLoad?: Usage, perSecond?: number) => {
      await sleep(REPLAY_EMPTY_MS);
      await settle(request(n++));
      const usage = await app?.usage();
      if (usage === undefined) throw new Error('no answer from the app');
      if (!usage.gc) throw new Error('the app was started without --expose-gc');
      rows.push({ label, commands: n, usage, underLoad, perSecond });
      printRow(label, n, usage, underLoad);
      if (rows.length === 2) await snapshot();
    };

    const metricsText = async () => {
      const res = await pool.request({ path: '/metrics', method: 'GET' });
      return res.body.text();
    };
    /** Series per metric family of the app's own metrics (countersign_*, not Node's defaults). */
    const seriesOf = (text: string) => {
      const out = new Map<string, number>();
      for (const line of text.split('\n')) {
        if (line.startsWith('#') || !line.startsWith('countersign_')) continue;
        const family = line.replace(/(_bucket|_sum|_count)?[{ ].*$/, '');
        if (line.includes('_bucket{')) continue; // a histogram's buckets are fixed per label set
        out.set(family, (out.get(family) ?? 0) + 1);
      }
      return out;
    };

    await sleep(2000);
    const idleSeries = seriesOf(await metricsText());
    const idle = await app.usage();
    console.log(
      `MB (10^6 bytes). RSS: the app idle (each checkpoint pauses the load for ${REPLAY_EMPTY_MS / 1000} s, see SIGNATURE_AGE_S), before the bench forces a GC;`,
    );
    console.log('heap used and heap total: after a full GC; under load: RSS and heap (garbage included) as the load stopped.');
    console.log(
      `${'checkpoint'.padEnd(36)}${'requests'.padStart(9)}${'RSS'.padStart(8)}${'heap used'.padStart(11)}${'heap total'.padStart(12)}${'external'.padStart(10)}   under load: RSS / heap`,
    );
    rows.push({ label: 'idle after start', commands: 0, usage: idle });
    printRow('idle after start', 0, idle);

    // Closed loop: each worker waits for its request's answer before sending the next.
    const loopStarted = performance.now();
    for (let c = 1; c <= CHECKPOINTS; c++) {
      const until = Math.round((COMMANDS * c) / CHECKPOINTS);
      const started = performance.now();
      const from = n;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (n < until) await settle(request(n++));
        }),
      );
      const perSecond = (n - from) / ((performance.now() - started) / 1000);
      const underLoad = await app.usage();
      await checkpoint(`closed loop, ${fmt(perSecond, 0)}/s`, underLoad, perSecond);
    }
    const closedSeconds = (performance.now() - loopStarted) / 1000;

    // Open loop: RATE a second on schedule, whatever the answers take.
    for (let round = 1; round <= ROUNDS; round++) {
      const started = performance.now();
      const total = RATE * ROUND_SECONDS;
      const work: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = started + (i * 1000) / RATE - performance.now();
        if (wait > 1) await sleep(wait);
        work.push(settle(request(n++)));
      }
      await Promise.all(work);
      const underLoad = await app.usage();
      await checkpoint(`${RATE}/s, round ${round}`, underLoad);
    }
    await snapshot();
    // Newcomers: the same mix, each request from a user not seen before.
    const known = rows[rows.length - 1] as (typeof rows)[number];
    newcomer = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while ((newcomer as number) < NEW_USERS.length) await settle(request(n++));
      }),
    );
    newcomer = undefined;
    await checkpoint(`${fmt(NEW_USERS.length, 0)} new users, 1 request each`, await app.usage());
    const newcomers = rows[rows.length - 1] as (typeof rows)[number];
    const perUser = (newcomers.usage.heapUsed - known.usage.heapUsed) / NEW_USERS.length;
    await snapshot();
    await sleep(3000);
    const endUsage = await app.usage();
    rows.push({ label: 'end, idle', commands: n, usage: endUsage });
    printRow('end, idle 3 s later', n, endUsage);
    console.log(`highest RSS of the run: ${mb(endUsage.maxRss)} MB`);
    const endText = await metricsText();
    const perUserLine = `a user not seen before: ${fmt(perUser, 0)} bytes of heap (${fmt(NEW_USERS.length, 0)} of them, one request each: ${mb(known.usage.heapUsed)} → ${mb(newcomers.usage.heapUsed)} MB)`;
    const endSeries = seriesOf(endText);
    await pool.close();

    console.log(
      `sent ${fmt(sent, 0)} (${fmt(counts.command, 0)} /approvals, ${fmt(counts.paging, 0)} Next clicks, ${fmt(counts.details, 0)} Details clicks); ` +
        `${fmt(shown, 0)} answered with approvals or details, ${fmt(unanswered, 0)} not (errors, or no answer within 30 s); ${refused} refused at the ack (stale, busy or rate-limited: the app's warnings say which)`,
    );

    // The leak check: heap after GC over requests answered, from the first checkpoint (caches and
    // JIT warm: 2,000 users are all seen in the first 2,000 requests) to the last.
    const checkpoints = rows.filter((r) => r.label.startsWith('closed') || r.label.includes('round'));
    const all = slope(checkpoints.map((r) => [r.commands, r.usage.heapUsed]));
    const steady = checkpoints.filter((r) => r.label.includes('round'));
    const rss = slope(checkpoints.map((r) => [r.commands, r.usage.rss]));
    const per10k = ({ slope: b, error }: { slope: number; error: number }) =>
      `${fmt((b * 10_000) / 1000, 0)} ± ${fmt((error * 10_000) / 1000, 0)} KB`;
    const first = checkpoints[0];
    const last = checkpoints[checkpoints.length - 1];
    if (first && last && checkpoints.length >= 3) {
      console.log(
        `heap after GC over ${checkpoints.length} checkpoints (${fmt(first.commands, 0)} → ${fmt(last.commands, 0)} requests): ` +
          `slope ${per10k(all)} per 10,000 requests (least squares, ± its standard error); first → last ${mb(first.usage.heapUsed)} → ${mb(last.usage.heapUsed)} MB`,
      );
      if (steady.length >= 3)
        console.log(
          `  the ${RATE}/s rounds alone: ${per10k(slope(steady.map((r) => [r.commands, r.usage.heapUsed])))} per 10,000 requests`,
        );
      console.log(`  RSS (allocator and fragmentation included, so noisier): ${per10k(rss)} per 10,000 requests`);
      // Two standard errors either side: a slope that noise could put on both sides of the threshold decides nothing.
      const kb = (all.slope * 10_000) / 1000;
      const margin = (2 * all.error * 10_000) / 1000;
      const verdict =
        kb - margin > LEAK_THRESHOLD_KB_PER_10K
          ? 'GROWS'
          : kb + margin < LEAK_THRESHOLD_KB_PER_10K
            ? 'flat'
            : 'undecided (the points scatter too much for this threshold: run more requests)';
      console.log(
        `leak check: ${verdict} (threshold ${LEAK_THRESHOLD_KB_PER_10K} KB of heap per 10,000 requests, about ${LEAK_THRESHOLD_KB_PER_10K / 10} bytes a request, ` +
          `against the slope ± 2 standard errors)`,
      );
    }

    console.log(perUserLine);
    // Label cardinality: the app's own series must not multiply with users or approvals.
    // Node's default metrics (countersign_nodejs_*, countersign_process_*) are summed; the app's own named.
    const isDefault = (f: string) => /^countersign_(nodejs|process)_/.test(f);
    const families = [...new Set([...idleSeries.keys(), ...endSeries.keys()])].filter((f) => !isDefault(f)).sort();
    const defaults = (m: Map<string, number>) => [...m].filter(([f]) => isDefault(f)).reduce((sum, [, k]) => sum + k, 0);
    console.log(
      `metric series (label sets), idle → end: ${families.map((f) => `${f.replace('countersign_', '')} ${idleSeries.get(f) ?? 0} → ${endSeries.get(f) ?? 0}`).join(', ')}; ` +
        `Node's default metrics ${defaults(idleSeries)} → ${defaults(endSeries)}`,
    );
    const leaked = [...USERS.slice(0, 50), ...ids.slice(0, 50)].filter((v) => endText.includes(v));
    console.log(
      leaked.length === 0
        ? '  no user id and no approval id in any label'
        : `  IDS IN LABELS: ${leaked.slice(0, 5).join(', ')}${leaked.length > 5 ? '…' : ''}`,
    );

    const window = RATE * 300;
    const replay = await replayWindowCost(window);
    console.log(
      `not in the figures above (see SIGNATURE_AGE_S): the replay memory of a full 5-minute window, ${fmt(window, 0)} signatures at ${RATE}/s, ` +
        `is ${mb(replay)} MB of heap (${fmt(replay / window, 0)} bytes each; at most 250,000 are kept: ${mb((replay / window) * 250_000)} MB)`,
    );
    // The app's warnings and errors, by message (a request refused as stale would mean the bench's clock margin was too small).
    const troubles = new Map<string, number>();
    for (const line of readFileSync(logFile, 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as { level?: string; msg?: string; reason?: string };
      if (entry.level !== 'warn' && entry.level !== 'error') continue;
      const key = `${entry.level}: ${entry.msg}${entry.reason ? ` (${entry.reason})` : ''}`;
      troubles.set(key, (troubles.get(key) ?? 0) + 1);
    }
    console.log(
      troubles.size === 0
        ? 'the app logged no warning and no error'
        : `the app logged: ${[...troubles].map(([what, count]) => `${what} × ${count}`).join('; ')}`,
    );
    console.log(
      `closed loop took ${fmt(closedSeconds, 0)} s; the whole suite ${fmt((performance.now() - began) / 1000, 0)} s (BENCH_COMMANDS and BENCH_ROUNDS change it)`,
    );
  } finally {
    await app?.stop();
    await slack.close();
    await service.stop();
    await store.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

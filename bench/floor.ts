/**
 * `npm run bench -- floor`: countersign against the floor, a minimal Bolt app on the same receiver
 * doing the same work for a plain /approvals and nothing else (bench/floor-app.ts). Each app runs in
 * its own process, against the same reference service (its own process) and the same stand-in for
 * Slack (this process). Closed loop: 16 commands in flight, each worker sending its next command
 * once the answer to the last has arrived at its response_url, so that no backlog carries over.
 * Rounds alternate between the apps; the figure is answered commands per CPU-second of the app's
 * own process (its process.cpuUsage), which does not depend on how the two shared cores are split.
 *
 * Each app is warmed up by command count, not by time: countersign's cost per command falls from
 * about 2 ms to about 0.6 ms over its first few thousand (JIT, caches, connections), and a slower
 * app would otherwise get less warm-up than a faster one. The figure is the median of the rounds'
 * ratios, printed with its spread and with the first rounds against the last, so that a cost that
 * grows with the commands answered shows. Then the user-facing figure at low load: one command
 * in flight, from the signed POST to the answer arriving at response_url, p50 / p99, per app.
 *
 * Background work counts against the app whose process does it: the arrival scheduler's first check
 * of every user is let finish before the rounds (the users are linked as the app starts; a
 * deployment's checks are spread over NOTIFY_INTERVAL), and each round says what fell in it (the
 * service calls beyond one per answered command, and the arrival checks), read from the app's /metrics.
 *
 * BENCH_BASELINE=<checkout>: that checkout's countersign takes part in the rounds too, to show what
 * a change bought. BENCH_CPU_PROFILE=<dir>: a CPU profile of this checkout's countersign over its
 * rounds, summed up at the end (BENCH_CPU_PROFILE_APP=floor: of the floor; countersign,baseline: of both, under
 * the same load); BENCH_ALLOCATION_PROFILE=<dir>:
 * where its bytes are allocated over the rounds, the same way (V8's sampling heap profiler;
 * BENCH_ALLOCATION_KIND=promoted: only what outlived the young generation, the old space's garbage).
 * BENCH_HEAP_SNAPSHOTS=<dir>: a heap snapshot of each app after its warm-up and after the last round,
 * with the heap each holds once its garbage is collected, and the two compared by constructor (what
 * grew is what the rounds left behind); the collections change the RSS of the rounds after them. BENCH_FLOOR_ROUNDS (9),
 * BENCH_FLOOR_SECONDS (4), BENCH_FLOOR_WARMUP (5000 commands per app) and BENCH_FLOOR_LATENCY
 * (600 commands per app, one in flight) change the run.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { signSlackRequest } from '../src/playground/sign.js';
import { buildTree } from './build.js';
import { compareSnapshots } from './heap-diff.js';
import { fmt, median, percentile, ROOT, startChildService } from './lib.js';
import { summarize, summarizeAllocations } from './profile.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 4).toString('base64');
/** Enough users that the per-user limit (on, at its highest) never refuses a command. */
const USERS = Array.from({ length: 500 }, (_, i) => `UFLOOR${String(i).padStart(4, '0')}`);
const CONCURRENCY = 16;
const ANSWER_TIMEOUT_MS = 10_000;

interface Sink {
  url: string;
  /** Resolves when the answer posted to `<url>/response/<id>` arrives, with its size in bytes. */
  answer(id: number): Promise<number>;
  firstBody(prefix: string): string | undefined;
  connections(): number;
  close(): Promise<void>;
}

/** Slack's side: the two Web API methods the apps call at start and per new user, and response_url. */
async function startSink(): Promise<Sink> {
  const waiting = new Map<number, (bytes: number) => void>();
  const first = new Map<string, string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const id = /^\/response\/(\w+)-(\d+)$/.exec(url);
      if (id) {
        const bytes = chunks.reduce((n, c) => n + c.length, 0);
        if (!first.has(id[1] as string)) first.set(id[1] as string, Buffer.concat(chunks).toString('utf8'));
        const done = waiting.get(Number(id[2]));
        waiting.delete(Number(id[2]));
        done?.(bytes);
      }
      // chat.postMessage: the arrival scheduler's first check tells each new approver what already waits.
      const body = url.includes('auth.test')
        ? '{"ok":true,"user_id":"UBOT","bot_id":"BBOT","team_id":"T0001"}'
        : url.includes('users.info')
          ? '{"ok":true,"user":{"tz":"Europe/Berlin"}}'
          : url.includes('chat.postMessage')
            ? '{"ok":true,"channel":"DBENCH","ts":"1700000000.000100"}'
            : 'ok';
      res.writeHead(200, { 'content-type': body === 'ok' ? 'text/plain' : 'application/json' });
      res.end(body);
    });
  });
  // Connections opened to Slack's side: a client that reused none would open one per answer.
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    answer: (id) =>
      new Promise((resolveAnswer, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('no answer'));
        }, ANSWER_TIMEOUT_MS);
        waiting.set(id, (bytes) => {
          clearTimeout(timer);
          resolveAnswer(bytes);
        });
      }),
    firstBody: (prefix) => first.get(prefix),
    connections: () => connections,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface Usage {
  cpuUs: number;
  rss: number;
  gcUs: number;
  heap: number;
}

interface Contender {
  label: string;
  /** The sink's name for its answers. */
  tag: string;
  child: ChildProcess;
  pool: Pool;
  logFile?: string;
  usage(): Promise<Usage>;
  /** Where its memory is: V8's heap spaces, committed and used, and what lies outside them, in MB. */
  spaces(): Promise<string>;
  /** A heap snapshot written to `file`; the heap used and RSS just after it, garbage collected. */
  snapshot(file: string): Promise<{ heap: number; rss: number }>;
  ask(line: string, answerPrefix: string): Promise<string>;
  /** Its calls to the service and its arrival checks so far (undefined: no arrivals), from its /metrics (undefined: the floor has none). */
  calls(): Promise<{ service: number; arrivalChecks: number | undefined } | undefined>;
  stop(): Promise<void>;
}

async function startContender(
  launcherBuild: string,
  label: string,
  tag: string,
  kind: 'floor' | 'countersign',
  env: NodeJS.ProcessEnv,
  logFile?: string,
): Promise<Contender> {
  const stderr = logFile === undefined ? 'inherit' : openSync(logFile, 'w');
  const child = spawn(process.execPath, [join(launcherBuild, 'bench', 'floor-app.js'), kind], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', stderr],
  });
  if (typeof stderr === 'number') closeSync(stderr);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const waiters: Array<{ prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  lines.on('line', (line) => {
    const at = waiters.findIndex((w) => line.startsWith(w.prefix));
    if (at >= 0) waiters.splice(at, 1)[0]?.resolve(line);
  });
  child.once('exit', (code) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`${label} exited with ${code}`));
  });
  const next = (prefix: string) =>
    new Promise<string>((resolveLine, reject) => {
      waiters.push({ prefix, resolve: resolveLine, reject });
    });
  const ask = (line: string, prefix: string) => {
    const answer = next(prefix);
    child.stdin?.write(`${line}\n`);
    return answer;
  };
  const port = Number((await next('READY')).split(' ')[1]);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  return {
    label,
    tag,
    child,
    pool,
    ...(logFile === undefined ? {} : { logFile }),
    usage: async () => {
      const [, cpu, rss, , gc, heap] = (await ask('usage', 'USAGE')).split(' ');
      return { cpuUs: Number(cpu), rss: Number(rss), gcUs: Number(gc ?? 0), heap: Number(heap ?? 0) };
    },
    spaces: async () => {
      const all = JSON.parse((await ask('spaces', 'SPACES')).slice('SPACES '.length)) as Record<string, unknown> & {
        spaces: Record<string, { committed: number; used: number }>;
      };
      const mb = (n: unknown) => fmt(Number(n) / 1e6, 1);
      const inSpaces = Object.entries(all.spaces)
        .filter(([, s]) => s.committed > 0)
        .map(([name, s]) => `${name.replace(/_space$/, '')} ${mb(s.committed)} (${mb(s.used)} used)`);
      return `RSS ${mb(all.rss)}, V8 heap committed ${mb(all.heapTotal)}: ${inSpaces.join(', ')}; external ${mb(all.external)} (array buffers ${mb(all.arrayBuffers)}), V8 malloc ${mb(all.malloced_memory)} (peak ${mb(all.peak_malloced_memory)})`;
    },
    snapshot: async (file) => {
      const [, heap, rss] = (await ask(`snapshot ${file}`, 'SNAPSHOT')).split(' ');
      return { heap: Number(heap), rss: Number(rss) };
    },
    ask,
    calls: async () => {
      if (kind === 'floor') return undefined;
      const res = await pool.request({ path: '/metrics', method: 'GET' });
      const text = await res.body.text();
      const sum = (pattern: RegExp) =>
        text
          .split('\n')
          .filter((l) => pattern.test(l))
          .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      return {
        service: sum(/^countersign_service_call_seconds_count\b/),
        arrivalChecks: text.includes('countersign_arrival_checks_total') ? sum(/^countersign_arrival_checks_total\b/) : undefined,
      };
    },
    stop: async () => {
      await pool.close();
      await new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      });
    },
  };
}

let sequence = 0;

/** Sends one signed /approvals and waits for its ack, then for its answer at response_url (its size in bytes). */
async function once(app: Contender, sink: Sink): Promise<number> {
  const id = ++sequence;
  const answered = sink.answer(id);
  const body = new URLSearchParams({
    team_id: 'T0001',
    channel_id: 'C0FLOOR',
    user_id: USERS[id % USERS.length] as string,
    command: '/approvals',
    text: '',
    response_url: `${sink.url}/response/${app.tag}-${id}`,
    trigger_id: `t.${id}`,
  }).toString();
  const res = await app.pool.request({
    path: '/slack/events',
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...signSlackRequest(body, SIGNING_SECRET, Math.floor(Date.now() / 1000)),
    },
    body,
  });
  await res.body.dump();
  if (res.statusCode !== 200) {
    answered.catch(() => undefined);
    throw new Error(`status ${res.statusCode}`);
  }
  return answered;
}

interface Round {
  answered: number;
  perSecond: number;
  cpuMsEach: number;
  perCpuSecond: number;
  rssMb: number;
  /** Time in garbage collection per answered command (wall time of the pauses, in the app's process). */
  gcUsEach: number;
  heapMb: number;
  errors: number;
  bytesEach: number;
  /** Service calls the app made in the round beyond one per answered command (arrival checks, digests, the reconciler), and arrival checks. */
  backgroundCalls: number;
  arrivalChecks: number;
}

/** `CONCURRENCY` workers, each with one command in flight, for `seconds` (and until `atLeast` are done); the round ends when the last answer is in. */
async function round(app: Contender, sink: Sink, seconds: number, atLeast = 0): Promise<Round> {
  // Read outside the CPU window: serving /metrics costs the app CPU of its own.
  const callsBefore = await app.calls();
  const before = await app.usage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let answered = 0;
  let errors = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline || answered + errors < atLeast) {
        try {
          const size = await once(app, sink);
          bytes += size;
          answered++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const after = await app.usage();
  const callsAfter = await app.calls();
  const cpuS = (after.cpuUs - before.cpuUs) / 1e6;
  return {
    answered,
    perSecond: answered / elapsed,
    cpuMsEach: (1000 * cpuS) / answered,
    perCpuSecond: answered / cpuS,
    rssMb: after.rss / 1e6,
    gcUsEach: (after.gcUs - before.gcUs) / answered,
    heapMb: after.heap / 1e6,
    errors,
    bytesEach: bytes / answered,
    backgroundCalls: callsBefore && callsAfter ? callsAfter.service - callsBefore.service - answered : 0,
    arrivalChecks: (callsAfter?.arrivalChecks ?? 0) - (callsBefore?.arrivalChecks ?? 0),
  };
}

/** One command at a time, `count` of them: milliseconds from the signed POST to the answer at response_url. */
async function latencies(app: Contender, sink: Sink, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    try {
      await once(app, sink);
      times.push(performance.now() - started);
    } catch {
      times.push(Number.POSITIVE_INFINITY);
    }
  }
  return times;
}

/** min / lower quartile / median / upper quartile / max, as percentages. */
const spread = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [0, 25, 50, 75, 100].map((p) => fmt(100 * (p === 0 ? (sorted[0] as number) : percentile(sorted, p)))).join(' / ');
};

const describe = (r: Round) =>
  `${fmt(r.perSecond, 0).padStart(5)} answered/s, ${fmt(r.cpuMsEach, 3)} ms CPU each (${fmt(r.perCpuSecond, 0)}/CPU-s), GC ${fmt(r.gcUsEach, 0)} µs each, heap ${fmt(r.heapMb, 0)} MB, RSS ${fmt(r.rssMb, 0)} MB${r.errors ? `, ${r.errors} errors` : ''}${r.backgroundCalls || r.arrivalChecks ? `, background: ${r.backgroundCalls} service calls, ${r.arrivalChecks} arrival checks` : ''}`;

export async function floorSuite(): Promise<void> {
  const ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 9);
  const SECONDS = Number(process.env.BENCH_FLOOR_SECONDS ?? 4);
  const WARMUP = Number(process.env.BENCH_FLOOR_WARMUP ?? 5000);
  const LATENCY = Number(process.env.BENCH_FLOOR_LATENCY ?? 600);
  const baseline = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : undefined;
  const profileDir = process.env.BENCH_CPU_PROFILE ? resolve(process.env.BENCH_CPU_PROFILE) : undefined;
  const allocationDir = process.env.BENCH_ALLOCATION_PROFILE ? resolve(process.env.BENCH_ALLOCATION_PROFILE) : undefined;
  const snapshotDir = process.env.BENCH_HEAP_SNAPSHOTS ? resolve(process.env.BENCH_HEAP_SNAPSHOTS) : undefined;
  console.log(
    `\n## The floor: countersign vs a minimal Bolt app doing the same work (${CONCURRENCY} in flight, closed loop on answers, ${ROUNDS} rounds × ${SECONDS} s, alternating)`,
  );
  // Both apps run as compiled JavaScript, as `npm start` runs countersign.
  const oursBuild = buildTree(ROOT, 'floor-ours', ['bench/floor-app.ts', 'src/main.ts']);
  const baseBuild = baseline === undefined ? undefined : buildTree(baseline, 'floor-baseline', ['src/main.ts']);
  const dir = mkdtempSync(join(tmpdir(), 'countersign-floor-'));
  const service = await startChildService();
  const sink = await startSink();
  const token = service.tokens.get('approver') ?? '';
  const common = {
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-benchbench',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: `${sink.url}/api/`,
    COMMAND_SERVICE_URL: service.url,
    TOKEN_ENCRYPTION_KEY: KEY,
    PORT: '0',
    LOG_LEVEL: 'info',
    // On, at its highest: 500 users sharing the load never reach it.
    COMMANDS_PER_MINUTE: '1000',
    BENCH_SEED_USERS: USERS.join(','),
    BENCH_SEED_TOKEN: token,
  };
  const apps: Contender[] = [];
  try {
    apps.push(await startContender(oursBuild, 'floor', 'floor', 'floor', common));
    apps.push(
      await startContender(
        oursBuild,
        'countersign',
        'ours',
        'countersign',
        { ...common, DATABASE_URL: `sqlite:${join(dir, 'ours.db')}`, BENCH_BUILD: oursBuild },
        join(dir, 'ours.log'),
      ),
    );
    if (baseline !== undefined)
      apps.push(
        await startContender(
          oursBuild,
          'baseline',
          'base',
          'countersign',
          { ...common, DATABASE_URL: `sqlite:${join(dir, 'base.db')}`, BENCH_BUILD: baseBuild as string },
          join(dir, 'base.log'),
        ),
      );
    console.log(
      `apps: floor; countersign (this checkout, logs at info, metrics, SQLite store, replay check, rate limit)${baseline ? `; baseline (${baseline})` : ''}`,
    );
    // Warm-up by count (JIT, connections, caches), and every user's time zone looked up (each user twice at least).
    for (const app of apps) {
      const warm = await round(app, sink, 0, Math.max(WARMUP, 2 * USERS.length));
      console.log(`warm-up ${app.label}: ${fmt(Math.max(WARMUP, 2 * USERS.length), 0)} commands, ${describe(warm)}`);
    }
    // The arrival scheduler checks every seeded user as the app starts (all were linked just before),
    // where a deployment's checks are spread over NOTIFY_INTERVAL: that first cycle is let finish
    // before the rounds, and what background work still falls in a round is counted in it.
    for (const app of apps.filter((a) => a.label !== 'floor')) {
      const waited = performance.now();
      let checks = (await app.calls())?.arrivalChecks;
      while (checks !== undefined && checks < USERS.length && performance.now() - waited < 60_000) {
        await new Promise((r) => setTimeout(r, 250));
        checks = (await app.calls())?.arrivalChecks;
      }
      console.log(
        `${app.label}: ${checks === undefined ? 'no arrival checks (none in this code)' : `${fmt(checks, 0)} arrival checks of ${USERS.length} users before the rounds, waited ${fmt((performance.now() - waited) / 1000, 1)} s for them`}`,
      );
    }
    const snapshot = async (app: Contender, when: string) => {
      if (snapshotDir === undefined) return;
      mkdirSync(snapshotDir, { recursive: true });
      const file = join(snapshotDir, `${app.label}-${when}.heapsnapshot`);
      const { heap, rss } = await app.snapshot(file);
      console.log(`${app.label} ${when}: heap after GC ${fmt(heap / 1e6, 1)} MB, RSS ${fmt(rss / 1e6, 0)} MB (${file})`);
    };
    for (const app of apps) await snapshot(app, 'early');
    // BENCH_CPU_PROFILE_APP names the apps profiled (floor, countersign, baseline; comma-separated):
    // several in one run compare where each spends under the same load. Allocations: the first named.
    const named = (process.env.BENCH_CPU_PROFILE_APP ?? 'countersign').split(',').map((n) => n.trim());
    const cpuProfiled = apps.filter((a) => named.includes(a.label));
    const profiled = (cpuProfiled[0] ?? apps[1]) as Contender;
    if (profileDir !== undefined) {
      mkdirSync(profileDir, { recursive: true });
      for (const app of cpuProfiled) await app.ask('profile-start', 'PROFILING');
      console.log(`(profiling ${cpuProfiled.map((a) => a.label).join(', ')}: their figures below include the profiler’s overhead)`);
    }
    if (allocationDir !== undefined) {
      mkdirSync(allocationDir, { recursive: true });
      await profiled.ask(`allocations-start ${process.env.BENCH_ALLOCATION_KIND ?? ''}`, 'SAMPLING');
      console.log(`(sampling ${profiled.label}’s allocations: its figures below include the sampler’s overhead)`);
    }
    const results = new Map<string, Round[]>(apps.map((a) => [a.label, []]));
    for (let r = 0; r < ROUNDS; r++) {
      // Each round starts with the next app, so that none always runs first or last.
      const order = apps.map((_, i) => apps[(i + r) % apps.length] as Contender);
      const line: string[] = [];
      for (const app of order) {
        const result = await round(app, sink, SECONDS);
        results.get(app.label)?.push(result);
      }
      for (const app of apps) line.push(`${app.label} ${describe(results.get(app.label)?.[r] as Round)}`);
      const floorR = results.get('floor')?.[r] as Round;
      const oursR = results.get('countersign')?.[r] as Round;
      console.log(
        `round ${r + 1}: ${line.join(' | ')} | countersign/floor per CPU-s ${fmt((100 * oursR.perCpuSecond) / floorR.perCpuSecond)} %, RSS ${fmt(oursR.rssMb / floorR.rssMb, 2)}×`,
      );
    }
    // Where each app's RSS is once the rounds are over, before a snapshot's collection moves it.
    for (const app of apps) console.log(`${app.label} after the rounds: ${await app.spaces()}`);
    for (const app of apps) await snapshot(app, 'late');
    // The profile covers the rounds only, not the low-load latencies below.
    const profileFiles: string[] = [];
    if (profileDir !== undefined)
      for (const app of cpuProfiled) {
        const file = join(profileDir, `${app.label}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
        await app.ask(`profile-stop ${file}`, 'PROFILED');
        profileFiles.push(file);
      }
    let allocationFile: string | undefined;
    if (allocationDir !== undefined) {
      allocationFile = join(allocationDir, `${profiled.label}-${new Date().toISOString().replace(/[:.]/g, '-')}.heapprofile`);
      await profiled.ask(`allocations-stop ${allocationFile}`, 'SAMPLED');
    }
    const ratios = (a: string, b: string) =>
      (results.get(a) ?? []).map((x, i) => x.perCpuSecond / ((results.get(b) ?? [])[i] as Round).perCpuSecond);
    const med = (label: string, pick: (r: Round) => number) => median((results.get(label) ?? []).map(pick));
    for (const app of apps)
      console.log(
        `${app.label.padEnd(11)} median: ${fmt(
          med(app.label, (r) => r.perSecond),
          0,
        )} answered/s, ${fmt(
          med(app.label, (r) => r.cpuMsEach),
          3,
        )} ms CPU each, RSS ${fmt(
          med(app.label, (r) => r.rssMb),
          0,
        )} MB; answer ${fmt(
          med(app.label, (r) => r.bytesEach),
          0,
        )} bytes`,
      );
    console.log(
      `countersign's answered commands per CPU-second = ${fmt(100 * median(ratios('countersign', 'floor')))} % of the floor's (median of the rounds' ratios; goal ≥ 70 %); rounds min / q1 / median / q3 / max: ${spread(ratios('countersign', 'floor'))} %`,
    );
    // Level over the run: the first third of the rounds against the last third, per app.
    const third = Math.max(1, Math.floor(ROUNDS / 3));
    for (const app of apps) {
      const cpu = (results.get(app.label) ?? []).map((r) => r.cpuMsEach);
      const rss = (results.get(app.label) ?? []).map((r) => r.rssMb);
      const gc = (results.get(app.label) ?? []).map((r) => r.gcUsEach);
      const heap = (results.get(app.label) ?? []).map((r) => r.heapMb);
      console.log(
        `${app.label.padEnd(11)} CPU per command, first ${third} rounds → last ${third}: ${fmt(median(cpu.slice(0, third)), 3)} → ${fmt(median(cpu.slice(-third)), 3)} ms (${fmt((100 * median(cpu.slice(-third))) / median(cpu.slice(0, third)) - 100)} %); GC ${fmt(median(gc.slice(0, third)), 0)} → ${fmt(median(gc.slice(-third)), 0)} µs each; RSS ${fmt(rss[0] as number, 0)} → ${fmt(rss[rss.length - 1] as number, 0)} MB (rounds' max ${fmt(Math.max(...rss), 0)}); heap used ${fmt(heap[0] as number, 0)} → ${fmt(heap[heap.length - 1] as number, 0)} MB`,
      );
    }
    // Background work (arrival checks, digests, the reconciler) in the measured rounds: its CPU counts against the app.
    for (const app of apps.filter((a) => a.label !== 'floor')) {
      const rs = results.get(app.label) ?? [];
      const calls = rs.reduce((n, r) => n + r.backgroundCalls, 0);
      const checks = rs.reduce((n, r) => n + r.arrivalChecks, 0);
      console.log(
        `${app.label.padEnd(11)} background work in the rounds: ${fmt(calls, 0)} service calls beyond one per answered command, ${fmt(checks, 0)} arrival checks${calls || checks ? ` (in rounds ${rs.flatMap((r, i) => (r.backgroundCalls || r.arrivalChecks ? [i + 1] : [])).join(', ')})` : ''}`,
      );
    }
    const ratio = ratios('countersign', 'floor');
    console.log(
      `countersign/floor per CPU-s, first ${third} rounds → last ${third}: ${fmt(100 * median(ratio.slice(0, third)))} → ${fmt(100 * median(ratio.slice(-third)))} %`,
    );
    // Memory as the goal puts it (within 1.5 times the floor's): each round's RSS, read as it ends,
    // over the floor's in the same round, so that what both grow by (the replay check's signatures,
    // a heap V8 sizes by the load) cancels out.
    const rssRatio = (results.get('countersign') ?? []).map((x, i) => x.rssMb / ((results.get('floor') ?? [])[i] as Round).rssMb);
    const times = (values: readonly number[]) => values.map((v) => `${fmt(v, 2)}×`).join(' / ');
    console.log(
      `countersign/floor RSS: ${fmt(median(rssRatio), 2)}× (median of the rounds' ratios; goal ≤ 1.5×); rounds min / median / max: ${times([Math.min(...rssRatio), median(rssRatio), Math.max(...rssRatio)])}; first ${third} rounds → last ${third}: ${times([median(rssRatio.slice(0, third)), median(rssRatio.slice(-third))])}`,
    );
    if (baseline !== undefined) {
      console.log(
        `baseline's = ${fmt(100 * median(ratios('baseline', 'floor')))} % of the floor's; rounds ${spread(ratios('baseline', 'floor'))} %`,
      );
      console.log(
        `this checkout / baseline, answered per CPU-second: ${fmt(100 * median(ratios('countersign', 'baseline')))} % (median of the rounds' ratios); rounds ${spread(ratios('countersign', 'baseline'))} %`,
      );
    }
    // The user-facing figure: at low load (one command in flight), from the signed POST to the
    // answer arriving at response_url. In alternating blocks, so that drift falls on every app alike.
    if (LATENCY > 0) {
      const times = new Map<string, number[]>(apps.map((a) => [a.label, []]));
      const blocks = 4;
      for (let b = 0; b < blocks; b++)
        for (const app of apps) times.get(app.label)?.push(...(await latencies(app, sink, Math.ceil(LATENCY / blocks))));
      for (const app of apps) {
        const sorted = (times.get(app.label) ?? []).sort((a, b) => a - b);
        console.log(
          `${app.label.padEnd(11)} at low load (1 in flight, ${sorted.length} commands): POST → answer at response_url p50 ${fmt(percentile(sorted, 50), 2)} ms, p99 ${fmt(percentile(sorted, 99), 2)} ms`,
        );
      }
    }
    for (const app of apps.filter((a) => a.logFile !== undefined)) {
      const log = readFileSync(app.logFile as string, 'utf8')
        .split('\n')
        .filter(Boolean);
      const bad = log.filter((l) => /"level":"(warn|error)"/.test(l));
      console.log(
        `${app.label} logged ${fmt(log.length, 0)} lines at info and above${bad.length ? `, ${bad.length} warn/error, first: ${bad[0]?.slice(0, 300)}` : ', none warn or error'}`,
      );
    }
    console.log(
      `connections opened to the Slack stand-in (Web API and response_url, all apps): ${fmt(sink.connections(), 0)} for ${fmt(sequence, 0)} commands sent`,
    );
    // What each answered with, block types counted: the same approvals, shown as users see them or plainly.
    const shape = (body: string | undefined) => {
      const counts = new Map<string, number>();
      for (const b of (JSON.parse(body ?? '{}') as { blocks?: Array<{ type: string }> }).blocks ?? [])
        counts.set(b.type, (counts.get(b.type) ?? 0) + 1);
      return [...counts].map(([type, n]) => `${n} ${type}`).join(', ');
    };
    if (process.env.BENCH_SHOW_ANSWER) console.log(sink.firstBody('ours'), sink.firstBody('floor'));
    console.log(`countersign's answer: ${shape(sink.firstBody('ours'))}; the floor's: ${shape(sink.firstBody('floor'))}`);
    for (const file of profileFiles) {
      const app = cpuProfiled[profileFiles.indexOf(file)] as Contender;
      const answered = (results.get(app.label) ?? []).reduce((n, r) => n + r.answered, 0);
      console.log(`${app.label}, ${fmt(answered, 0)} commands answered over its profile:\n${summarize(file, 30)}`);
    }
    if (snapshotDir !== undefined)
      for (const app of apps)
        console.log(
          `${app.label}: ${compareSnapshots(join(snapshotDir, `${app.label}-early.heapsnapshot`), join(snapshotDir, `${app.label}-late.heapsnapshot`), 20)}`,
        );
    if (allocationFile !== undefined) {
      const answered = (results.get(profiled.label) ?? []).reduce((n, r) => n + r.answered, 0);
      console.log(summarizeAllocations(allocationFile, 30, answered));
    }
  } finally {
    for (const app of apps) await app.stop();
    await sink.close();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One app under the floor benchmark, in its own process (bench/floor.ts starts it):
 *   `floor`: the same work as countersign's plain /approvals and nothing else, on countersign's own
 *     receiver: ack; one findApprovals (format=json, page-size 10) with a fixed token over an undici
 *     Pool; a plain page of one section per approval; one POST to response_url over kept-alive
 *     connections. No store, no logs, no metrics, no checks of the answer.
 *   `countersign`: the real app as main.ts starts it, compiled from the checkout to measure (its build
 *     in BENCH_BUILD, so that another checkout can be measured against this one in the same run),
 *     logging at info to stderr, its store seeded first with BENCH_SEED_USERS linked to BENCH_SEED_TOKEN.
 * Both run as compiled JavaScript, as `npm start` runs the app (see bench/build.ts).
 * Prints "READY <port>" when listening. Reads commands on stdin, one a line:
 *   `usage` → "USAGE <cpu µs> <rss bytes> <max rss bytes> <gc µs> <heap used bytes>": this process's own
 *     CPU time, memory, time in garbage collection so far and the heap in use;
 *   `profile-start` / `profile-stop <file>` → a CPU profile of just that stretch (no start-up, no
 *     warm-up), written as a .cpuprofile; answers "PROFILED";
 *   `allocations-start [promoted]` (answers "SAMPLING") / `allocations-stop <file>` → V8's sampling heap profile
 *     of that stretch (where the bytes were allocated, one sample per 32 KiB or so), as a .heapprofile;
 *     answers "SAMPLED". `profile-start` answers "PROFILING".
 *   `snapshot <file>` → a heap snapshot written to `file` (V8 collects all garbage first), then
 *     "SNAPSHOT <heap used bytes> <rss bytes>" just after it: what the heap holds, garbage apart;
 *   `spaces` → "SPACES <json>": where the RSS is, by V8's heap spaces (committed and used) and
 *     what lies outside V8's heap (external, array buffers, malloc'd by V8).
 */

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { App, LogLevel } from '@slack/bolt';
import { Agent, Pool, request } from 'undici';
import { silentLogger } from '../src/runtime/logger.js';
import { Metrics } from '../src/runtime/metrics.js';
import { Secret } from '../src/runtime/secret.js';
import { SlackReceiver } from '../src/slack/transport/receiver.js';
import { ReplayGuard } from '../src/slack/transport/replay.js';

const kind = process.argv[2];
const env = process.env;
let port: number;
let stop: () => Promise<void>;

if (kind === 'floor') {
  const serviceUrl = new URL(env.COMMAND_SERVICE_URL ?? '');
  const token = env.BENCH_SEED_TOKEN ?? '';
  // What countersign sends for a plain `/approvals`, so that both get the same answer from the service.
  const path = `${serviceUrl.pathname.replace(/\/$/, '')}/command.submit?cmd=findApprovals&format=json&page-size=10`;
  const service = new Pool(serviceUrl.origin, { connections: 32 });
  const responses = new Agent({ connections: 64 });
  const receiver = new SlackReceiver({
    signingSecret: new Secret(env.SLACK_SIGNING_SECRET ?? ''),
    logger: silentLogger,
    metrics: new Metrics({ defaultMetrics: false }),
    // The receiver's own replay check, held in memory only: the floor has no store.
    replay: new ReplayGuard({ rememberSignature: async () => true }, silentLogger),
    routes: new Map(),
    port: 0,
    host: '127.0.0.1',
  });
  const app = new App({
    token: env.SLACK_BOT_TOKEN ?? '',
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: env.SLACK_API_URL ?? '' },
    convoStore: false,
  });
  const answer = async (responseUrl: string) => {
    const res = await service.request({
      path,
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`service answered ${res.statusCode}`);
    const found = JSON.parse(text).findApprovals?.Approval ?? [];
    const approvals: Array<Record<string, string>> = Array.isArray(found) ? found : [found];
    const blocks = approvals.map((a) => ({
      type: 'section',
      text: { type: 'mrkdwn', text: `*${a.WorkItemName}*\n${a.RequestName} · due ${a.WorkItemDueDate} · ${a.WorkItemId}` },
    }));
    const posted = await request(responseUrl, {
      method: 'POST',
      dispatcher: responses,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', text: `${approvals.length} approvals`, blocks }),
    });
    await posted.body.dump();
  };
  app.command('/approvals', async ({ ack, command }) => {
    await ack();
    answer(command.response_url).catch((error: unknown) => process.stderr.write(`floor: ${(error as Error).message}\n`));
  });
  port = ((await receiver.start()).address() as AddressInfo).port;
  stop = async () => {
    await app.stop();
    await service.close();
    await responses.close();
  };
} else if (kind === 'countersign') {
  // Loaded from the build of the checkout measured: its own main, config, logger and store.
  const build = env.BENCH_BUILD ?? '';
  const from = (file: string) => import(pathToFileURL(join(build, file)).href);
  const { loadSlackConfig } = await from('src/config.js');
  const { startCountersign } = await from('src/main.js');
  const { createLogger } = await from('src/runtime/logger.js');
  const { SqliteStore } = await from('src/store/sqlite.js');
  const { Secret: TreeSecret } = await from('src/runtime/secret.js');
  const config = loadSlackConfig(env);
  const dbPath = String(env.DATABASE_URL).replace(/^sqlite:/, '');
  const seed = new SqliteStore(dbPath, new TreeSecret(env.TOKEN_ENCRYPTION_KEY ?? ''));
  for (const userId of (env.BENCH_SEED_USERS ?? '').split(',').filter(Boolean))
    await seed.setToken({ teamId: 'T0001', userId }, ['findApprovals'], new TreeSecret(env.BENCH_SEED_TOKEN ?? ''), 'admin', new Date());
  await seed.close();
  const running = await startCountersign(config, { logger: createLogger({ level: 'info' }), host: '127.0.0.1' });
  port = running.port;
  stop = () => running.shutdown();
} else {
  throw new Error(`unknown app kind ${kind}: floor or countersign`);
}

process.stdout.write(`READY ${port}\n`);

// Time in garbage collection, to tell a cost that grows with the heap from one that grows elsewhere.
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

/** Each kind of profile under way, on its own session: both may run over the same rounds. */
const profiling = new Map<'cpu' | 'allocations', Session>();
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(' ');
  if (command === 'usage') {
    const { user, system } = process.cpuUsage();
    process.stdout.write(
      `USAGE ${user + system} ${process.memoryUsage().rss} ${process.resourceUsage().maxRSS * 1024} ${Math.round(gcMs * 1000)} ${process.memoryUsage().heapUsed}\n`,
    );
  } else if (command === 'snapshot' && arg !== undefined) {
    writeHeapSnapshot(arg);
    const { heapUsed, rss } = process.memoryUsage();
    process.stdout.write(`SNAPSHOT ${heapUsed} ${rss}\n`);
  } else if (command === 'spaces') {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, { committed: s.space_size, used: s.space_used_size }]),
    );
    const { malloced_memory, peak_malloced_memory } = getHeapStatistics();
    process.stdout.write(
      `SPACES ${JSON.stringify({ rss, heapTotal, heapUsed, external, arrayBuffers, malloced_memory, peak_malloced_memory, spaces })}\n`,
    );
  } else if (command === 'profile-start') {
    begin(
      'cpu',
      async (session) => {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 250 });
        await session.post('Profiler.start');
      },
      'PROFILING',
    );
  } else if (command === 'allocations-start') {
    begin(
      'allocations',
      async (session) => {
        await session.post('HeapProfiler.enable');
        // Collected objects too: what costs GC is mostly what dies young. `promoted`: all but what
        // dies young, so what lived long enough to reach the old space, where the RSS grows.
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 32 * 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: arg !== 'promoted',
        });
      },
      'SAMPLING',
    );
  } else if (command === 'profile-stop' && arg !== undefined) {
    finish('cpu', (session) => session.post('Profiler.stop'), arg, 'PROFILED');
  } else if (command === 'allocations-stop' && arg !== undefined) {
    finish('allocations', (session) => session.post('HeapProfiler.stopSampling'), arg, 'SAMPLED');
  }
});

/** A new inspector session for `kind`, `start` run on it, then `answer` on stdout; the session is kept for `finish`. */
function begin(kind: 'cpu' | 'allocations', start: (session: Session) => Promise<void>, answer: string): void {
  const session = new Session();
  session.connect();
  profiling.set(kind, session);
  void start(session).then(() => process.stdout.write(`${answer}\n`));
}

/** What `begin` started for `kind`, stopped by `stop`: its profile written to `file`, the session closed, then `answer` on stdout. */
function finish(
  kind: 'cpu' | 'allocations',
  stop: (session: Session) => Promise<{ profile: unknown }>,
  file: string,
  answer: string,
): void {
  const session = profiling.get(kind);
  if (session === undefined) return;
  profiling.delete(kind);
  void (async () => {
    const { profile } = await stop(session);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    process.stdout.write(`${answer}\n`);
  })();
}

process.once('SIGTERM', () => {
  void stop().then(() => process.exit(0));
});

/**
 * Arrivals at scale: N linked approvers watched by two instances (two ArrivalSchedulers, two
 * owners, one store: a SQLite file, or PostgreSQL with BENCH_STORE=postgres), against the
 * reference service in its own process answering every call after a fixed latency, and a Slack
 * stand-in that counts what it is asked to post and update, answering each after SLACK_MS.
 *
 * Phases, on one store and one service:
 * - `prime`: the first check of everyone (records what waits, says at most one line each);
 * - `unchanged`: the clock moved on by the interval, everyone checked again with nothing new: the
 *   cycle's length against approvers × calls each × latency ÷ REMINDER_CONCURRENCY, the service
 *   calls, Slack calls and store calls of one check;
 * - `arrivals`: both schedulers running as in production, the interval at its shortest (10 s) so
 *   that the service cannot keep it and the cycle stretches; BENCH_ARRIVALS approvals made to
 *   arrive at random moments of the first half of a cycle, each timed to its direct message.
 *
 * BENCH_APPROVERS (10000), BENCH_LATENCY (200ms), BENCH_CONCURRENCY (REMINDER_CONCURRENCY, 20),
 * BENCH_ARRIVALS (200), BENCH_STORE (sqlite; postgres for a fresh PostgreSQL schema),
 * BENCH_SECOND_LATE_MS (0: in the arrivals phase the second instance starts this much after the first,
 * as one restarted while the other works through a stretched cycle).
 */

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { storedTokens } from '../src/accounts/credentials.js';
import type { ArrivalMessage, ArrivalOutbox } from '../src/arrivals/ports.js';
import { ArrivalScheduler, type ArrivalTickReport } from '../src/arrivals/scheduler.js';
import { loadSlackConfig } from '../src/config.js';
import { openReferenceDb } from '../src/reference-service/db.js';
import { loadBulkData, serviceZoneOf } from '../src/reference-service/demo.js';
import { formatServiceTimestamp } from '../src/reference-service/time.js';
import { TokenRegistry } from '../src/reference-service/tokens.js';
import type { ReminderOutbox } from '../src/reminders/scheduler.js';
import { ServiceSlots } from '../src/reminders/slots.js';
import { randomIds } from '../src/runtime/ids.js';
import { createLogger } from '../src/runtime/logger.js';
import { Metrics } from '../src/runtime/metrics.js';
import { Secret } from '../src/runtime/secret.js';
import { createServiceClient } from '../src/service/index.js';
import { openStore, type Store } from '../src/store/index.js';
import { freshSchema, postgresAvailable } from '../test/helpers/postgres.js';
import { type ChildService, fmt, percentile, ROOT, startChildService } from './lib.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 9).toString('base64');
const TEAM = 'T0001';
const ZONE = 'Europe/Berlin';
/** Approvals per approver in the reference data: about 7 pending each, well within a page. */
const PER_APPROVER = 10;
/** How long the Slack stand-in takes to answer a post or an update (a Web API round trip). */
const SLACK_MS = 100;
/** The interval of the manual phases: longer than any cycle, so that a tick is exactly one cycle. */
const LONG_INTERVAL_MS = 3_600_000;
/** NOTIFY_INTERVAL's shortest: in the arrivals phase the service cannot keep it, so the cycle stretches. */
const SHORT_INTERVAL_MS = 10_000;

function latencyFrom(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new Error(`BENCH_LATENCY takes a duration like 200ms or 1s, not '${text}'`);
  return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

const slackUser = (i: number) => `UA${String(i).padStart(7, '0')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reference data for N approvers, built once and kept; each run works on a copy (arrivals are added to it). */
function referenceData(n: number, dir: string): { file: string; tokens: string[]; zone: string } {
  const kept = join(ROOT, 'data', 'bench', `arrivals-${n}.db`);
  mkdirSync(join(ROOT, 'data', 'bench'), { recursive: true });
  if (!existsSync(kept)) {
    const started = performance.now();
    const db = openReferenceDb(kept);
    loadBulkData(db, new Date(), n * PER_APPROVER, n);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    console.log(
      `built ${kept} (${fmt(n * PER_APPROVER, 0)} approvals) in ${fmt((performance.now() - started) / 1000)} s (kept for later runs)`,
    );
  }
  const file = join(dir, 'reference.db');
  copyFileSync(kept, file);
  const db = openReferenceDb(file);
  const registry = new TokenRegistry(db, () => new Date());
  const tokens: string[] = [];
  db.transaction(() => {
    for (let i = 1; i <= n; i++)
      tokens.push(registry.issue(`approver-${i}`, ['findApprovals'], { lifespanMs: 2 * 86_400_000, inactivityMs: null }));
  })();
  const zone = serviceZoneOf(db);
  db.close();
  return { file, tokens, zone };
}

/** Calls to the store by method, for both instances together: what one check costs. */
class StoreCalls {
  readonly counts = new Map<string, number>();
  /** When each approver's watch was claimed: the time between two claims of one approver is a cycle. */
  readonly claims = new Map<string, number[]>();
  wrap(store: Store): Store {
    return new Proxy(store, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || property === 'close') return typeof value === 'function' ? value.bind(object) : value;
        return (...args: unknown[]) => {
          this.counts.set(String(property), (this.counts.get(String(property)) ?? 0) + 1);
          const result = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (property === 'claimDueArrivalWatches')
            void (result as Promise<Array<{ userId: string }>>).then(
              (watches) => {
                const at = performance.now();
                for (const { userId } of watches) this.claims.set(userId, [...(this.claims.get(userId) ?? []), at]);
              },
              () => {},
            );
          return result;
        };
      },
    });
  }
  reset(): void {
    this.counts.clear();
    this.claims.clear();
  }

  /** Between two claims of one approver, for every approver claimed more than once, sorted. */
  cycles(): number[] {
    return [...this.claims.values()].flatMap((at) => at.slice(1).map((t, i) => (t - (at[i] as number)) / 1000)).sort((a, b) => a - b);
  }
}

/** Store methods that only read (arrivalItems: the approval ids remembered for one approver; arrivalWatchDue: whether one is due); the rest write, a lease included. */
const READS = /^(get|list|find|read|count|has|load|is|arrivalItems|arrivalWatchDue)[A-Z]?/;
const SLOTS = /ServiceSlot/;

/** Slack's side: counts what it is asked to do and when each approval was first announced. */
class SlackStandIn implements ArrivalOutbox, ReminderOutbox {
  readonly calls = new Map<string, number>();
  /** approval id → when it was announced (performance.now()) and by which instance, every time. */
  readonly announced = new Map<string, Array<{ at: number; by: string }>>();
  #ts = 0;
  async #call(method: string): Promise<void> {
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    await sleep(SLACK_MS);
  }
  /** The outbox of one instance: what it announces is told apart by its name. */
  of(instance: string): ArrivalOutbox & ReminderOutbox {
    return {
      announce: (message) => this.announce(message, instance),
      redraw: () => this.redraw(),
      alreadyWaiting: () => this.alreadyWaiting(),
      digest: () => this.digest(),
      relink: () => this.relink(),
    };
  }
  async announce(message: ArrivalMessage, by = ''): Promise<{ channel: string; ts: string }> {
    await this.#call('announce');
    const at = performance.now();
    for (const entry of message.entries) {
      const times = this.announced.get(entry.approval.approvalId) ?? [];
      times.push({ at, by });
      this.announced.set(entry.approval.approvalId, times);
    }
    return { channel: `D${message.userId}`, ts: `${Date.now() / 1000}.${String(++this.#ts).padStart(6, '0')}` };
  }
  async redraw(): Promise<'updated' | 'gone'> {
    await this.#call('redraw');
    return 'updated';
  }
  async alreadyWaiting(): Promise<void> {
    await this.#call('alreadyWaiting');
  }
  async digest(): Promise<void> {
    await this.#call('digest');
  }
  async relink(): Promise<void> {
    await this.#call('relink');
  }
  total(): number {
    return [...this.calls.values()].reduce((a, b) => a + b, 0);
  }
  reset(): void {
    this.calls.clear();
  }
}

/** The digests' slots, timed: how long each check waited for one, by instance. */
class TimedSlots extends ServiceSlots {
  waits: number[] = [];
  override async acquire(): ReturnType<ServiceSlots['acquire']> {
    const started = performance.now();
    const held = await super.acquire();
    this.waits.push((performance.now() - started) / 1000);
    return held;
  }
}

function waitsOf(slots: readonly TimedSlots[]): string {
  return slots
    .map((s, i) => {
      const w = [...s.waits].sort((a, b) => a - b);
      s.waits = [];
      return `instance ${i + 1}: ${fmt(w.length, 0)} waits, p50 ${fmt(percentile(w, 50), 2)} s, p99 ${fmt(percentile(w, 99), 1)} s, max ${fmt(w[w.length - 1] ?? Number.NaN, 1)} s`;
    })
    .join('; ');
}

function sumReports(reports: readonly ArrivalTickReport[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const report of reports)
    for (const [key, value] of Object.entries(report)) if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  return sum;
}

export async function arrivalsSuite(): Promise<void> {
  const n = Number(process.env.BENCH_APPROVERS ?? 10_000);
  const latencyMs = latencyFrom(process.env.BENCH_LATENCY ?? '200ms');
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 20);
  const arrivals = Math.min(n, Number(process.env.BENCH_ARRIVALS ?? 200));
  const wantPostgres = (process.env.BENCH_STORE ?? 'sqlite') === 'postgres';
  const secondLateMs = Number(process.env.BENCH_SECOND_LATE_MS ?? 0);
  const ideal = (n * latencyMs) / 1000 / concurrency;
  console.log(
    `\n## Arrivals at scale: ${fmt(n, 0)} approvers (about ${PER_APPROVER * 0.7} pending each), 2 instances on one ${wantPostgres ? 'PostgreSQL' : 'SQLite'} store; ` +
      `reference service in its own process answering after ${latencyMs} ms; REMINDER_CONCURRENCY=${concurrency}; ` +
      `Slack stand-in answering after ${SLACK_MS} ms; ideal cycle ${fmt(n, 0)} × ${latencyMs} ms ÷ ${concurrency} = ${fmt(ideal, 0)} s`,
  );
  const setupStarted = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-arrivals-'));
  const schema = wantPostgres && (await postgresAvailable('arrivals benchmark on PostgreSQL')) ? await freshSchema() : undefined;
  if (wantPostgres && schema === undefined) console.log('no PostgreSQL: the store is a SQLite file');
  const interrupted = () => {
    console.log('\ninterrupted: dropping what this run made');
    rmSync(dir, { recursive: true, force: true });
    void (schema?.drop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  const reference = referenceData(n, dir);
  const databaseUrl = schema?.url ?? `sqlite:${join(dir, 'countersign.db')}`;
  const config = loadSlackConfig({
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    TOKEN_ENCRYPTION_KEY: KEY,
    DATABASE_URL: databaseUrl,
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-arrivals',
    COMMAND_SERVICE_URL: 'http://127.0.0.1:9/aveksa',
    COMMAND_SERVICE_TIME_ZONE: reference.zone,
    REMINDER_CONCURRENCY: String(concurrency),
  });
  // The app's clock: real time, moved on by the bench between phases so that every watch is due again.
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  {
    const store = await openStore(config, now);
    const at = new Date(Date.now() - 60_000);
    for (let i = 1; i <= n; i++)
      await store.setToken(
        { teamId: TEAM, userId: slackUser(i) },
        ['findApprovals'],
        new Secret(reference.tokens[i - 1] as string),
        'admin',
        at,
      );
    await store.close();
  }
  const service: ChildService = await startChildService(['--data', reference.file, '--latency', `${latencyMs}ms`]);
  console.log(
    `setup: ${fmt(n, 0)} linked approvers in ${schema ? 'PostgreSQL (a fresh schema)' : 'SQLite'}, the service up, in ${fmt((performance.now() - setupStarted) / 1000)} s`,
  );

  const storeCalls = new StoreCalls();
  const slack = new SlackStandIn();
  const logLines: string[] = [];
  const logger = createLogger({ level: 'info', now, write: (line) => logLines.push(line) });
  const metrics = new Metrics();
  const instances = await Promise.all(
    [1, 2].map(async (i) => {
      const store = storeCalls.wrap(await openStore(config, now));
      const serviceClient = createServiceClient({
        baseUrl: service.url,
        logger,
        onCall: (command, status, seconds) => metrics.serviceCall(command, status, seconds),
        timeouts: { totalMs: 30_000 },
        now: () => now().getTime(),
      });
      return { store, service: serviceClient, owner: `bench-instance-${i}` };
    }),
  );
  const slotsOf: TimedSlots[] = [];
  const schedulers = (intervalMs: number) =>
    instances.map(({ store, service: serviceClient, owner }, i) => {
      const deps = { store, service: serviceClient, credentials: storedTokens(store), logger, metrics, now, newId: randomIds() };
      const slots = new TimedSlots({ store, owner, limit: concurrency, now, logger });
      slotsOf[i] = slots;
      return new ArrivalScheduler({
        deps,
        outbox: slack.of(owner),
        timeZones: { lookup: async () => ZONE },
        owner,
        intervalMs,
        slots,
        serviceTimeZone: reference.zone,
        decisionActions: false,
      });
    });
  const pgWrites = schema ? await pgTableWrites(schema.url) : undefined;

  const rows: string[] = [];
  try {
    // Prime, then unchanged: one tick of each instance is one cycle (the interval outlasts it).
    const manual = schedulers(LONG_INTERVAL_MS);
    let finds = (await service.report()).calls.get('findApprovals') ?? 0;
    for (const phase of ['prime', 'unchanged'] as const) {
      if (phase === 'unchanged') offset += LONG_INTERVAL_MS;
      storeCalls.reset();
      slack.reset();
      const writesBefore = await pgWrites?.read();
      const started = performance.now();
      const cpu = process.cpuUsage();
      const calls = await serviceCallTime(metrics);
      const reports = await Promise.all(manual.map((s) => s.tick()));
      const seconds = (performance.now() - started) / 1000;
      console.log(`${phase}: ${cpuSince(cpu, seconds)}; ${await callTimeSince(metrics, calls)}`);
      const sum = sumReports(reports);
      const seen = await service.report();
      const phaseFinds = (seen.calls.get('findApprovals') ?? 0) - finds;
      finds = seen.calls.get('findApprovals') ?? 0;
      const checks = sum.checked ?? 0;
      const perCheck = checks > 0 ? phaseFinds / checks : Number.NaN;
      const phaseIdeal = (checks * perCheck * latencyMs) / 1000 / concurrency;
      console.log(
        `${phase}: ${fmt(checks, 0)} checks (${reports.map((r) => fmt(r.checked, 0)).join(' + ')} by instance) in ${fmt(seconds, 1)} s; ` +
          `ideal ${fmt(checks, 0)} × ${fmt(perCheck, 2)} calls × ${latencyMs} ms ÷ ${concurrency} = ${fmt(phaseIdeal, 1)} s: **${fmt((100 * seconds) / phaseIdeal, 1)} %** (goal ≤ 110 %)`,
      );
      console.log(
        `  the reports: ${Object.entries(sum)
          .map(([k, v]) => `${k} ${fmt(v, 0)}`)
          .join(', ')}`,
      );
      console.log(
        `  service: ${fmt(phaseFinds, 0)} findApprovals, ${fmt(perCheck, 3)} per check; at most ${seen.maxInFlight} in flight at once so far (bound ${concurrency})`,
      );
      console.log(`  waits for a service slot: ${waitsOf(slotsOf)}`);
      console.log(
        `  Slack: ${slack.total() === 0 ? 'no call' : [...slack.calls].map(([m, c]) => `${m} ${fmt(c, 0)}`).join(', ')} (${fmt(slack.total() / Math.max(1, checks), 3)} per check)`,
      );
      const byMethod = [...storeCalls.counts].sort((a, b) => b[1] - a[1]);
      const writes = byMethod.filter(([m]) => !READS.test(m) && !SLOTS.test(m));
      console.log(
        `  store calls per check: ${byMethod.map(([m, c]) => `${m} ${fmt(c / Math.max(1, checks), 3)}`).join(', ')}; ` +
          `writes but slots: ${writes.map(([m, c]) => `${m} ${fmt(c / Math.max(1, checks), 3)}`).join(', ') || 'none'}`,
      );
      if (pgWrites && writesBefore) {
        const after = await pgWrites.read();
        const delta = [...after].map(([t, w]) => [t, w - (writesBefore.get(t) ?? 0)] as const).filter(([, w]) => w > 0);
        console.log(
          `  PostgreSQL rows written per check, by table: ${delta.map(([t, w]) => `${t} ${fmt(w / Math.max(1, checks), 3)}`).join(', ') || 'none'}`,
        );
      }
      rows.push(
        `${phase}: ${fmt(seconds, 1)} s / ideal ${fmt(phaseIdeal, 1)} s; ${fmt(perCheck, 3)} calls per check; Slack ${fmt(slack.total(), 0)}`,
      );
    }

    for (const s of manual) await s.stop();
    // Arrivals: running as in production, the interval too short for the service to keep.
    offset += LONG_INTERVAL_MS;
    slack.reset();
    storeCalls.reset();
    const running = schedulers(SHORT_INTERVAL_MS);
    const db = openReferenceDb(reference.file);
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare(
      `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
         requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
         requested_at, due_at, completed_at)
       VALUES (?, 'Approve access', ?, ?, ?, 'requester-bench', 'Bench', 'Requester', 'Bench', 'Bench access', 'Entitlement', 'pending', ?, ?, NULL)`,
    );
    const made = new Map<string, number>();
    const started = performance.now();
    const cpu = process.cpuUsage();
    const calls = await serviceCallTime(metrics);
    // As after a restart: the second instance comes while the first holds the slots.
    running[0]?.start();
    if (secondLateMs > 0) await sleep(secondLateMs);
    running[1]?.start();
    const who = new Set<number>();
    while (who.size < arrivals) who.add(1 + Math.floor(Math.random() * n));
    const plan = [...who].map((approver) => ({ approver, atMs: Math.random() * (ideal / 2) * 1000 })).sort((a, b) => a.atMs - b.atMs);
    let k = 0;
    for (const { approver, atMs } of plan) {
      const wait = started + atMs - performance.now();
      if (wait > 0) await sleep(wait);
      const requestId = 9_000_000 + ++k;
      const id = `${requestId}:WPDS:1`;
      const nowDate = new Date();
      insert.run(
        id,
        requestId,
        `Add Access for Requester, Bench: arrival ${k}`,
        `approver-${approver}`,
        formatServiceTimestamp(nowDate, reference.zone),
        formatServiceTimestamp(new Date(nowDate.getTime() + 7 * 86_400_000), reference.zone),
      );
      made.set(id, performance.now());
    }
    const deadline = started + (ideal / 2 + 3 * ideal + 60) * 1000;
    while (performance.now() < deadline && [...made.keys()].some((id) => !slack.announced.has(id))) await sleep(500);
    const phaseSeconds = (performance.now() - started) / 1000;
    console.log(`arrivals: ${cpuSince(cpu, phaseSeconds)}; ${await callTimeSince(metrics, calls)}`);
    await Promise.all(running.map((s) => s.stop()));
    db.close();
    const byInstance = new Map<string, number[]>();
    const delays = [...made].flatMap(([id, at]) => {
      const first = slack.announced.get(id)?.[0];
      if (first === undefined) return [];
      const delay = (first.at - at) / 1000;
      byInstance.set(first.by, [...(byInstance.get(first.by) ?? []), delay]);
      return [delay];
    });
    delays.sort((a, b) => a - b);
    const twice = [...made.keys()].filter((id) => (slack.announced.get(id)?.length ?? 0) > 1).length;
    const seen = await service.report();
    const logged = logLines.filter((line) => /cycle/i.test(line));
    console.log(
      `arrivals${secondLateMs > 0 ? ` (the second instance started ${secondLateMs} ms after the first)` : ''}: ${fmt(made.size, 0)} made over ${fmt(ideal / 2, 0)} s, ${fmt(delays.length, 0)} messaged (${twice} more than once), in ${fmt(phaseSeconds, 0)} s; ` +
        `arrival → message p50 ${fmt(percentile(delays, 50), 1)} s, p90 ${fmt(percentile(delays, 90), 1)} s, max ${fmt(delays[delays.length - 1] ?? Number.NaN, 1)} s ` +
        `(goal: within one cycle, ${fmt(ideal, 0)} s ideal, plus Slack's ${SLACK_MS} ms)`,
    );
    console.log(
      `  by the instance that messaged: ${[...byInstance]
        .sort()
        .map(([by, d]) => {
          d.sort((a, b) => a - b);
          return `${by} ${fmt(d.length, 0)}, p50 ${fmt(percentile(d, 50), 1)} s, max ${fmt(d[d.length - 1] ?? Number.NaN, 1)} s`;
        })
        .join('; ')}`,
    );
    console.log(`  waits for a service slot: ${waitsOf(slotsOf)}`);
    const cycles = storeCalls.cycles();
    console.log(
      `  the stretched cycle (between two claims of one approver, ${fmt(cycles.length, 0)} approvers claimed twice): ` +
        `p50 ${fmt(percentile(cycles, 50), 1)} s, p90 ${fmt(percentile(cycles, 90), 1)} s, max ${fmt(cycles[cycles.length - 1] ?? Number.NaN, 1)} s ` +
        `(ideal ${fmt(ideal, 1)} s; the interval ${SHORT_INTERVAL_MS / 1000} s)`,
    );
    console.log(`  Slack: ${[...slack.calls].map(([m, c]) => `${m} ${fmt(c, 0)}`).join(', ') || 'no call'}`);
    console.log(
      `  service: at most ${seen.maxInFlight} in flight at once over the whole run (bound ${concurrency}); calls ${[...seen.calls].map(([c, x]) => `${c} ${fmt(x, 0)}`).join(', ')}`,
    );
    console.log(`  the log on cycles (${logged.length} lines): ${logged.slice(-4).join(' | ') || 'none'}`);
    const cycleMetric = (await metrics.registry.metrics())
      .split('\n')
      .filter((l) => /^countersign_arrival_(cycle_seconds|checks_total)/.test(l));
    console.log(`  metrics: ${cycleMetric.join(' | ') || 'none named arrival'}`);
    rows.push(
      `arrivals: p50 ${fmt(percentile(delays, 50), 1)} s, max ${fmt(delays[delays.length - 1] ?? Number.NaN, 1)} s; max in flight ${seen.maxInFlight}`,
    );
  } finally {
    process.off('SIGINT', interrupted);
    const logFile = join(ROOT, 'data', 'bench', `arrivals-log-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    writeFileSync(logFile, logLines.join('\n'));
    console.log(`the schedulers' log (info): ${fmt(logLines.length, 0)} lines in ${logFile}`);
    for (const instance of instances) {
      await instance.service.close();
      await instance.store.close();
    }
    await pgWrites?.close();
    await service.stop();
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`arrivals suite: ${fmt((performance.now() - setupStarted) / 60_000, 1)} min in all; ${rows.join('; ')}`);
}

/** The bench process's CPU (both schedulers, their stores, Slack's stand-in) over a phase: whether it could keep up. */
function cpuSince(start: NodeJS.CpuUsage, seconds: number): string {
  const used = process.cpuUsage(start);
  const cpu = (used.user + used.system) / 1e6;
  return `the schedulers' process used ${fmt(cpu, 1)} CPU-s in ${fmt(seconds, 1)} s (${fmt((100 * cpu) / seconds, 0)} % of a core)`;
}

/** findApprovals as the schedulers' client timed it (the service's latency, its own work and the way there and back): totals so far. */
async function serviceCallTime(metrics: Metrics): Promise<{ sum: number; count: number }> {
  const text = await metrics.registry.metrics();
  const total = { sum: 0, count: 0 };
  for (const m of text.matchAll(/^countersign_service_call_seconds_(sum|count)\{[^}]*command="findApprovals"[^}]*\} (\S+)$/gm))
    total[m[1] as 'sum' | 'count'] += Number(m[2]);
  return total;
}

async function callTimeSince(metrics: Metrics, since: { sum: number; count: number }): Promise<string> {
  const now = await serviceCallTime(metrics);
  const count = now.count - since.count;
  return `findApprovals took ${fmt((1000 * (now.sum - since.sum)) / Math.max(1, count), 1)} ms on average at the client (${fmt(count, 0)} calls)`;
}

/** Rows inserted, updated and deleted per table of the schema, as PostgreSQL counts them. */
async function pgTableWrites(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async read(): Promise<Map<string, number>> {
      // A busy backend sends its statistics on within 10 s of going idle (PGSTAT_IDLE_INTERVAL): this waits them out.
      await sleep(11_000);
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ relname: string; n: string }>(
        'SELECT relname, n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables WHERE schemaname = current_schema()',
      );
      return new Map(rows.map((r) => [r.relname, Number(r.n)]));
    },
    close: () => client.end(),
  };
}

/**
 * Digests at scale: N linked approvers whose reminders all fall at 09:00 in one zone, the real
 * app (its reminder scheduler, store, service client and Slack client, each instance in its own
 * process) against the reference service in its own process answering every call after a fixed
 * latency, and a Slack stand-in that enforces Slack's documented rate limits (slack-limits.ts).
 * The app's clock runs at real speed from a few seconds before 09:00, so every wait is real.
 *
 * Phases, each the next day's digests on the same PostgreSQL store (BENCH_PHASES):
 * - `1 open`, `2 open`: one instance, then two, with Slack's per-channel limit but no
 *   workspace-wide one: the service is what binds, and the last digest is measured against
 *   approvers × latency ÷ REMINDER_CONCURRENCY;
 * - `2 limited`: two instances under Slack's documented limits, workspace-wide included: Slack
 *   binds (approvers ÷ its rate), 429s come and must be honoured, and each digest sent once.
 *
 * BENCH_APPROVERS (10000), BENCH_LATENCY (200ms), BENCH_CONCURRENCY (REMINDER_CONCURRENCY, 8),
 * BENCH_PHASES ("1 open,2 open,2 limited"), BENCH_SLACK_POSTS_PER_MINUTE (600: the workspace
 * limit of the limited phases).
 */

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadSlackConfig } from '../src/config.js';
import { openReferenceDb } from '../src/reference-service/db.js';
import { loadBulkData } from '../src/reference-service/demo.js';
import { TokenRegistry } from '../src/reference-service/tokens.js';
import { nextOccurrence } from '../src/reminders/schedule.js';
import { ReminderScheduler } from '../src/reminders/scheduler.js';
import { createLogger } from '../src/runtime/logger.js';
import { Secret } from '../src/runtime/secret.js';
import { openStore } from '../src/store/index.js';
import { freshSchema, postgresAvailable } from '../test/helpers/postgres.js';
import { type ChildService, fmt, percentile, ROOT, startChildService } from './lib.js';
import { type AppProcess, startApp } from './slack.js';
import { DOCUMENTED_LIMITS, startLimitedSlack } from './slack-limits.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 9).toString('base64');
const TEAM = 'T0001';
const ZONE = 'Europe/Berlin';
const SCHEDULE = { days: 'daily' as const, minuteOfDay: 9 * 60, timeZone: ZONE };
/** How far ahead of the instances' start 09:00 is put: they are up and idle when it comes. */
const LEAD_MS = 10_000;

function latencyFrom(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new Error(`BENCH_LATENCY takes a duration like 200ms or 1s, not '${text}'`);
  return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

const slackUser = (i: number) => `UD${String(i).padStart(7, '0')}`;

/** The reference data: N approvers with 20 approvals each (due from three weeks ago to six weeks ahead), built once. */
function referenceData(n: number): { file: string; tokens: string[] } {
  const dir = join(ROOT, 'data', 'bench');
  const file = join(dir, `digests-${n}.db`);
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(file);
  const db = openReferenceDb(file);
  if (fresh) {
    const started = performance.now();
    loadBulkData(db, new Date(), n * 20, n);
    console.log(`built ${file} (${fmt(n * 20, 0)} approvals) in ${fmt((performance.now() - started) / 1000)} s (kept for later runs)`);
  }
  // A token of each approver's own, as each would link it; they last as long as the run.
  const registry = new TokenRegistry(db, () => new Date());
  const tokens: string[] = [];
  db.transaction(() => {
    for (let i = 1; i <= n; i++)
      tokens.push(registry.issue(`approver-${i}`, ['findApprovals'], { lifespanMs: 2 * 86_400_000, inactivityMs: null }));
  })();
  db.close();
  return { file, tokens };
}

interface Phase {
  instances: number;
  /** Slack's workspace-wide limit on chat.postMessage applies (the per-channel one always does). */
  limited: boolean;
  reminderAt: Date;
}

function phasesFrom(text: string): Array<Omit<Phase, 'reminderAt'>> {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)\s+(open|limited)\s*$/.exec(part);
    if (!m) throw new Error(`BENCH_PHASES takes phases like "1 open,2 limited", not '${part}'`);
    return { instances: Number(m[1]), limited: m[2] === 'limited' };
  });
}

export async function digestsSuite(): Promise<void> {
  const n = Number(process.env.BENCH_APPROVERS ?? 10_000);
  const latencyMs = latencyFrom(process.env.BENCH_LATENCY ?? '200ms');
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
  const planned = phasesFrom(process.env.BENCH_PHASES ?? '1 open,2 open,2 limited');
  const limits = {
    ...DOCUMENTED_LIMITS,
    ...(process.env.BENCH_SLACK_POSTS_PER_MINUTE ? { postsPerMinute: Number(process.env.BENCH_SLACK_POSTS_PER_MINUTE) } : {}),
  };
  console.log(
    `\n## Digests at scale: ${fmt(n, 0)} approvers, reminders at 09:00 ${ZONE}; reference service in its own process answering after ${latencyMs} ms; ` +
      `REMINDER_CONCURRENCY=${concurrency}${process.env.BENCH_CONCURRENCY ? '' : ' (the bench default; the app’s is 4)'}; ` +
      `Slack stand-in: chat.postMessage 1/s per channel (bursts of ${limits.channelBurst}), and in the limited phases ${limits.postsPerMinute}/min per workspace (bursts of ${limits.postBurst}); ` +
      `users.info ${limits.lookupsPerMinute}/min (bursts of ${limits.lookupBurst}); 429 with Retry-After past them`,
  );
  const setupStarted = performance.now();
  const { file, tokens } = referenceData(n);
  const usePostgres = await postgresAvailable('digests benchmark (two instances)');
  const schema = usePostgres ? await freshSchema() : undefined;
  // Ctrl-C stops the processes of this run (they share its process group); the schema is dropped here.
  const interrupted = () => {
    console.log('\ninterrupted: dropping the schema of this run');
    void (schema?.drop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-digests-'));
  const logDir = join(ROOT, 'data', 'bench', `digests-logs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(logDir, { recursive: true });
  const databaseUrl = schema?.url ?? `sqlite:${join(dir, 'countersign.db')}`;
  const baseEnv = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    TOKEN_ENCRYPTION_KEY: KEY,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    LOG_LEVEL: 'info',
    REMINDER_CONCURRENCY: String(concurrency),
  };
  const slack = await startLimitedSlack({ ...limits, postsPerMinute: 0 }, ZONE);

  // The store, as users who linked a token and chose 09:00 would leave it.
  const first = nextOccurrence(SCHEDULE, new Date());
  {
    const config = loadSlackConfig({
      ...baseEnv,
      SLACK_BOT_TOKEN: 'xoxb-0000-1111-digestsetup',
      SLACK_API_URL: slack.apiUrl,
      COMMAND_SERVICE_URL: 'http://127.0.0.1:9/aveksa',
    });
    const store = await openStore(config, () => new Date());
    const planner = new ReminderScheduler({
      store,
      service: undefined as never,
      credentials: undefined as never,
      logger: createLogger({ level: 'error' }),
      now: () => new Date(),
      timeZones: { lookup: async () => ZONE },
      outbox: undefined as never,
      owner: 'bench-setup',
      windowDays: config.remindWindowDays,
      serviceTimeZone: config.serviceTimeZone,
    });
    const before = new Date(first.getTime() - 60_000);
    for (let i = 1; i <= n; i++) {
      const who = { teamId: TEAM, userId: slackUser(i) };
      await store.setToken(who, ['findApprovals'], new Secret(tokens[i - 1] as string), 'admin', before);
      await store.setReminder({ ...who, ...SCHEDULE, ...planner.plan(who, SCHEDULE, before) });
    }
    await store.close();
  }
  console.log(
    `setup: ${fmt(n, 0)} tokens and reminders in ${usePostgres ? 'PostgreSQL (a fresh schema)' : 'SQLite (no PostgreSQL: one instance only)'} in ${fmt((performance.now() - setupStarted) / 1000)} s`,
  );

  const remindersDue = await reminderCounter(databaseUrl, schema !== undefined);
  const phases: Phase[] = [];
  let at = first;
  for (const phase of planned) {
    if (phase.instances > 1 && !usePostgres) {
      console.log(`${phase.instances} instances: skipped (they share a store only on PostgreSQL)`);
      continue;
    }
    phases.push({ ...phase, reminderAt: at });
    at = nextOccurrence(SCHEDULE, at);
  }
  const started = performance.now();
  try {
    for (const phase of phases) await runPhase(phase);
  } finally {
    process.off('SIGINT', interrupted);
    await remindersDue.close();
    await slack.close();
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `digests suite: ${fmt((performance.now() - setupStarted) / 60_000, 1)} min in all (phases ${fmt((performance.now() - started) / 60_000, 1)} min)`,
  );

  async function runPhase({ instances, limited, reminderAt }: Phase): Promise<void> {
    const phaseLimits = limited ? limits : { ...limits, postsPerMinute: 0 };
    slack.reset(phaseLimits);
    const service: ChildService = await startChildService(['--data', file, '--latency', `${latencyMs}ms`]);
    const apps: AppProcess[] = [];
    try {
      // 09:00 (app time) falls LEAD_MS after now (wall time), whichever day it is.
      const startWall = Date.now() + LEAD_MS;
      const startPerf = performance.now() + LEAD_MS;
      const offset = reminderAt.getTime() - startWall;
      const logs = Array.from({ length: instances }, (_, i) => join(logDir, `${instances}-instances-${i + 1}.log`));
      for (const [i, log] of logs.entries())
        apps.push(
          await startApp(
            'countersign',
            {
              ...baseEnv,
              // One token per instance, so that the stand-in can say which one honoured a 429.
              SLACK_BOT_TOKEN: `xoxb-0000-1111-instance${i + 1}`,
              SLACK_API_URL: slack.apiUrl,
              COMMAND_SERVICE_URL: service.url,
              BENCH_CLOCK_OFFSET_MS: String(offset),
            },
            log,
          ),
        );
      const deadline = performance.now() + LEAD_MS + Math.max(30 * 60_000, 3 * ((n * latencyMs) / concurrency));
      let lastSaid = performance.now();
      let left = n;
      while (performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 1000));
        left = await remindersDue.left(reminderAt);
        if (left === 0) break;
        if (performance.now() - lastSaid > 60_000) {
          lastSaid = performance.now();
          console.log(
            `  … ${fmt((performance.now() - startPerf) / 1000, 0)} s after 09:00: ${fmt(slack.posted.length, 0)} digests posted, ${fmt(left, 0)} reminders not yet handled`,
          );
        }
      }
      const seen = await service.report();
      const marked = await remindersDue.sent(reminderAt);
      const report = slack.report();
      const perUser = new Map<string, number>();
      for (const p of slack.posted) perUser.set(p.channel, (perUser.get(p.channel) ?? 0) + 1);
      const twice = [...perUser.values()].filter((c) => c > 1).length;
      const lost = marked - perUser.size;
      const times = slack.posted.map((p) => (p.at - startPerf) / 1000).sort((a, b) => a - b);
      const last = times[times.length - 1] ?? Number.NaN;
      const finds = seen.calls.get('findApprovals') ?? 0;
      const byInstance = new Map<string, number>();
      for (const p of slack.posted) byInstance.set(p.caller, (byInstance.get(p.caller) ?? 0) + 1);
      // The ideal: nothing can be faster than the service's calls at the allowed concurrency, nor than
      // Slack's workspace rate after its burst; the larger of the two is the floor for the last digest.
      const serviceBound = (n * latencyMs) / 1000 / concurrency;
      const slackBound =
        phaseLimits.postsPerMinute > 0 ? (Math.max(0, perUser.size - phaseLimits.postBurst) / phaseLimits.postsPerMinute) * 60 : 0;
      const ideal = Math.max(serviceBound, slackBound);
      console.log(
        `${instances} instance${instances > 1 ? 's' : ''}, ${limited ? `Slack's workspace limit (${phaseLimits.postsPerMinute}/min)` : 'no Slack workspace limit'}: ` +
          `${left === 0 ? 'every reminder handled' : `gave up with ${fmt(left, 0)} reminders not handled`}; ` +
          `last digest ${fmt(last, 0)} s (${fmt(last / 60, 1)} min) after 09:00; first ${fmt(times[0] ?? Number.NaN, 1)} s, half by ${fmt(percentile(times, 50), 0)} s, 90 % by ${fmt(percentile(times, 90), 0)} s`,
      );
      console.log(
        `  ideal ${fmt(ideal, 0)} s = the larger of the service, ${fmt(n, 0)} × ${latencyMs} ms ÷ ${concurrency} = ${fmt(serviceBound, 0)} s, ` +
          `and Slack, ${limited ? `(${fmt(perUser.size, 0)} digests − a burst of ${phaseLimits.postBurst}) ÷ ${phaseLimits.postsPerMinute}/min = ${fmt(slackBound, 0)} s` : 'no limit'}; ` +
          `last digest / ideal = ${fmt((100 * last) / ideal, 1)} % (goal ≤ 110 %)`,
      );
      console.log(
        `  digests: ${fmt(perUser.size, 0)} users got one, ${twice} got more than one, ${fmt(lost, 0)} marked sent but never posted, ${fmt(n - marked, 0)} had nothing due (no DM)` +
          (instances > 1 ? `; posted by instance: ${[...byInstance.values()].map((c) => fmt(c, 0)).join(' + ')}` : ''),
      );
      console.log(
        `  service: ${fmt(finds, 0)} findApprovals (${fmt(finds / n, 2)} per reminder), other calls ${
          [...seen.calls]
            .filter(([c]) => c !== 'findApprovals')
            .map(([c, k]) => `${c} ${k}`)
            .join(', ') || 'none'
        }; ` + `at most ${seen.maxInFlight} in flight at once (REMINDER_CONCURRENCY=${concurrency})`,
      );
      console.log(
        `  Slack: chat.postMessage ${fmt(slack.calls.get('chat.postMessage') ?? 0, 0)} calls, 429 ×${fmt(report.limited['chat.postMessage'] ?? 0, 0)} ` +
          `(retried no sooner than Retry-After ${fmt(report.honoured, 0)}, sooner ${report.early}, never retried ${report.neverRetried}; ` +
          `calls during a Retry-After ${report.callsDuringWait}; longest Retry-After ${report.maxRetryAfterS} s); ` +
          `users.info ${fmt(slack.calls.get('users.info') ?? 0, 0)} calls, 429 ×${fmt(report.limited['users.info'] ?? 0, 0)}`,
      );
      for (const app of apps) await app.stop();
      apps.length = 0;
      console.log(`  the app's log (info): ${logSummary(logs)}; in ${logDir}`);
    } finally {
      for (const app of apps) await app.stop();
      await service.stop();
    }
  }
}

/** What the instances logged at warn and above, by message, and how many lines in all. */
function logSummary(files: readonly string[]): string {
  const counts = new Map<string, number>();
  let lines = 0;
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue;
      lines++;
      try {
        const entry = JSON.parse(line) as { level?: string; msg?: string };
        if (entry.level === 'warn' || entry.level === 'error' || entry.level === 'fatal') {
          const key = `${entry.level}: ${entry.msg}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      } catch {
        counts.set(`(not JSON) ${line.slice(0, 80)}`, (counts.get(`(not JSON) ${line.slice(0, 80)}`) ?? 0) + 1);
      }
    }
  }
  const worst = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 6);
  return `${fmt(lines, 0)} lines; ${worst.length === 0 ? 'nothing at warn or above' : worst.map(([m, c]) => `${fmt(c, 0)}× “${m}”`).join(', ')}`;
}

/** Reads the store directly: how many of a day's reminders are still to be handled, and how many were marked sent. */
async function reminderCounter(databaseUrl: string, postgres: boolean) {
  if (postgres) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const count = async (sql: string, at: Date) => Number((await client.query(sql, [at.getTime()])).rows[0]?.n ?? 0);
    return {
      left: (at: Date) => count('SELECT count(*) AS n FROM reminders WHERE next_at <= $1', at),
      sent: (at: Date) => count('SELECT count(*) AS n FROM reminders WHERE sent_for = $1', at),
      close: () => client.end(),
    };
  }
  const { default: Database } = await import('#sqlite');
  const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
  const count = (sql: string, at: Date) => (db.prepare(sql).get(at.getTime()) as { n: number }).n;
  return {
    left: async (at: Date) => count('SELECT count(*) AS n FROM reminders WHERE next_at <= ?', at),
    sent: async (at: Date) => count('SELECT count(*) AS n FROM reminders WHERE sent_for = ?', at),
    close: async () => db.close(),
  };
}

/**
 * The composition root: configuration → logger, store, service client → Slack app. Everything
 * else receives what it needs from here. `startCountersign` is also what the end-to-end tests
 * start, with their own clock, Slack stand-in and reference service.
 */

import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WebClient } from '@slack/web-api';
import { RunWatcher, type WatcherOptions } from './collections/watcher.js';
import { type Config, ConfigError, loadConfig } from './config.js';
import { APPROVALS_USAGE } from './parse/approvals.js';
import { COLLECT_USAGE } from './parse/collect.js';
import { type PlaygroundUser, startPlayground } from './playground/server.js';
import { startReferenceService } from './reference-service/server.js';
import { ReminderScheduler, type SchedulerOptions } from './reminders/scheduler.js';
import { createLogger, type Logger } from './runtime/logger.js';
import { instrumentStore, Metrics } from './runtime/metrics.js';
import { Secret } from './runtime/secret.js';
import { createServiceClient, type ServiceClient, type ServiceTimeouts } from './service/index.js';
import { createSlackApp, type SlackApp } from './slack/app.js';
import { Background, type Deps, type TimeZones } from './slack/deps.js';
import { createResponder } from './slack/response-url.js';
import { slackTimeZones } from './slack/timezones.js';
import { createSlackApi } from './slack/web-api.js';
import { openStore, type ServiceCommandName, type Store } from './store/index.js';

export interface Overrides {
  logger?: Logger;
  now?: () => Date;
  /** Where the Command Service is, when not from the configuration (tests, local mode). */
  serviceUrl?: string;
  timeZones?: TimeZones;
  host?: string;
  serviceTimeouts?: Partial<ServiceTimeouts>;
  /** Scheduler settings (tests: no spread, short ticks). */
  reminders?: Partial<Pick<SchedulerOptions, 'spreadMs' | 'tickMs' | 'leaseMs' | 'retryMs' | 'giveUpAfterMs' | 'owner'>>;
  runWatch?: Partial<Pick<WatcherOptions, 'tickMs' | 'firstPollMs' | 'maxIntervalMs' | 'leaseMs' | 'owner'>>;
  /** Several apps in one process (tests) each keep their own. */
  metrics?: Metrics;
  /** Commands in flight past which new ones are turned away (2000). */
  maxInFlight?: number;
  /** False: reminders and run status only move when a test calls their tick(). */
  startScheduler?: boolean;
}

export interface Running {
  port: number | undefined;
  slack: SlackApp;
  deps: Deps;
  reminders: ReminderScheduler;
  runWatcher: RunWatcher;
  /** Graceful stop: /healthz 503, stop accepting, finish in-flight work, close the store. */
  shutdown(): Promise<void>;
}

export async function startCountersign(config: Config, overrides: Overrides = {}): Promise<Running> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const now = overrides.now ?? (() => new Date());
  const serviceUrl = overrides.serviceUrl ?? config.commandServiceUrl;
  if (serviceUrl === undefined) throw new ConfigError('COMMAND_SERVICE_URL', 'is required', 'https://igl.example.com/aveksa');
  if (config.slack.botToken === undefined || config.slack.signingSecret === undefined) {
    throw new ConfigError('SLACK_BOT_TOKEN', 'and SLACK_SIGNING_SECRET are required to run the Slack app', 'xoxb-1234-5678-abcdef');
  }
  const metrics = overrides.metrics ?? new Metrics();
  const store: Store = instrumentStore(await openStore(config), metrics);
  const service: ServiceClient = createServiceClient({
    baseUrl: serviceUrl,
    logger: logger.child({ component: 'service' }),
    onCall: (command, status, seconds) => metrics.serviceCall(command, status, seconds),
    ...(overrides.serviceTimeouts ? { timeouts: overrides.serviceTimeouts } : {}),
  });
  const background = new Background(logger, metrics);
  const timeZones =
    overrides.timeZones ??
    slackTimeZones(
      // Bounded: a time zone is worth one quick try, since without it the user's today is UTC's.
      new WebClient(config.slack.botToken.reveal(), {
        ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
        timeout: 2_000,
        retryConfig: { retries: 0 },
      }),
      logger,
      now,
    );
  const slackApi = createSlackApi(
    new WebClient(config.slack.botToken.reveal(), {
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      // On a 429 the client waits for Retry-After and tries again; a few tries, then the message is given up.
      retryConfig: { retries: 4, factor: 2, minTimeout: 1_000, maxTimeout: 30_000 },
    }),
    logger,
    now,
    metrics,
  );
  // This instance's name in the store's leases.
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const reminders = new ReminderScheduler({
    store,
    service,
    logger: logger.child({ component: 'reminders' }),
    now,
    timeZones,
    owner,
    windowDays: config.remindWindowDays,
    urlTemplate: config.approvalUrlTemplate,
    async sendDirectMessage(userId, message) {
      // A bot may post to a user id: Slack delivers it in the app's Messages tab.
      await slackApi.postMessage(userId, message);
    },
    ...overrides.reminders,
  });
  const runWatcher = new RunWatcher({
    store,
    service,
    slackApi,
    logger: logger.child({ component: 'run-status' }),
    now,
    owner,
    ...overrides.runWatch,
  });
  const deps: Deps = {
    service,
    store,
    logger,
    now,
    timeZones,
    newId: randomIds(),
    background,
    responder: createResponder({ onError: (error) => metrics.slackError('response_url', error) }),
    confirmationTtlMs: 15 * 60_000,
    reminders,
    approvalUrlTemplate: config.approvalUrlTemplate,
    slackApi,
    runWatch: runWatcher,
    collectPolicy: config.collect,
    metrics,
    commandsPerMinute: config.commandsPerMinute,
    maxInFlight: overrides.maxInFlight ?? 2000,
  };
  const slack = createSlackApp(deps, {
    botToken: config.slack.botToken,
    signingSecret: config.slack.signingSecret,
    ...(config.slack.appToken ? { appToken: config.slack.appToken } : {}),
    ...(config.slack.apiUrl ? { apiUrl: config.slack.apiUrl } : {}),
    port: config.port,
    ...(overrides.host ? { host: overrides.host } : {}),
  });
  const port = await slack.start();
  if (overrides.startScheduler !== false) {
    reminders.start();
    runWatcher.start();
  }
  logger.info({ mode: config.mode, port, service: new URL(serviceUrl).origin }, 'countersign is running');

  let stopping: Promise<void> | undefined;
  return {
    port,
    slack,
    deps,
    reminders,
    runWatcher,
    shutdown() {
      stopping ??= (async () => {
        slack.beginDraining();
        logger.info({ inFlight: background.size }, 'shutting down: no new requests, finishing in-flight work');
        await slack.stop();
        await reminders.stop();
        await runWatcher.stop();
        await background.drain();
        await deps.responder.close();
        await service.close();
        await store.close();
        logger.info({}, 'stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Unpredictable ids (confirmation ids are capabilities) from a buffer of random bytes filled 4 KB
 * at a time: a call to the CSPRNG for each id cost a few percent of the CPU under load.
 */
function randomIds(): () => string {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset + 12 > pool.length) {
      pool = randomBytes(4096);
      offset = 0;
    }
    offset += 12;
    return pool.subarray(offset - 12, offset).toString('base64url');
  };
}

export const LOCAL_USERS: readonly PlaygroundUser[] = [
  { id: 'U0DEMOADA', name: 'Ada Lovelace', role: 'approver', tz: 'Europe/London' },
  { id: 'U0DEMOOSCAR', name: 'Oscar Ops', role: 'ops engineer', tz: 'America/New_York' },
  { id: 'U0DEMOGRACE', name: 'Grace Hopper', role: 'approver and ops', tz: 'America/Los_Angeles' },
  { id: 'U0DEMONEW', name: 'Nadia New', role: 'no token linked', tz: 'Asia/Tokyo' },
];

/** Which demo token of the reference service each playground user gets (Nadia gets none). */
const LOCAL_LINKS: ReadonlyArray<[userId: string, demoToken: string, commands: ServiceCommandName[]]> = [
  ['U0DEMOADA', 'approver', ['findApprovals']],
  ['U0DEMOOSCAR', 'ops', ['collectEntitlements']],
  ['U0DEMOGRACE', 'approver+ops', ['findApprovals', 'collectEntitlements']],
];

const LOCAL_SUGGESTIONS = [
  '/approvals',
  '/approvals help',
  '/approvals completed sort:desc',
  '/approvals due-before:7d',
  '/approvals entitlement-name:"Domain Admins" state:all',
  '/collect help',
  '/collect AD Accounts',
  '/collect application:"Active Directory"',
  '/collect',
  '/collect AWS IAM force',
];

/**
 * Local mode: the reference Command Service with its demo data, the playground standing in for
 * Slack, and the real app between them, configured as for Slack except for where Slack is.
 */
export async function startLocal(
  config: Config,
  overrides: Overrides = {},
): Promise<{ url: string; running: Running; shutdown(): Promise<void> }> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const reference = await startReferenceService({ host: '127.0.0.1' });
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  const playground = await startPlayground({
    port: config.port,
    ...(overrides.host ? { host: overrides.host } : {}),
    signingSecret,
    botToken,
    users: LOCAL_USERS,
    teamId: LOCAL_TEAM,
    channel: { id: 'C0IDENTITYOPS', name: 'identity-ops' },
    suggestions: LOCAL_SUGGESTIONS,
    usage: { '/approvals': APPROVALS_USAGE.replace(/^\/approvals /, ''), '/collect': COLLECT_USAGE.replace(/^\/collect /, '') },
    logger: logger.child({ component: 'playground' }),
  });
  const appConfig: Config = {
    ...config,
    port: 0,
    slack: { botToken: new Secret(botToken), signingSecret: new Secret(signingSecret), appToken: undefined, apiUrl: playground.apiUrl },
  };
  const running = await startCountersign(appConfig, {
    // One user at a desk: a reminder set for 10:42 should come at 10:42, not spread over minutes.
    reminders: { spreadMs: 0, tickMs: 10_000 },
    ...overrides,
    logger,
    serviceUrl: reference.url,
    host: '127.0.0.1',
  });
  playground.setAppUrl(`http://127.0.0.1:${running.port}/slack/events`);
  // The reference service makes new demo tokens at each start; link them afresh.
  for (const [userId, label, commands] of LOCAL_LINKS) {
    const demo = reference.demoTokens.find((t) => t.label === label);
    if (demo) await running.deps.store.setToken({ teamId: LOCAL_TEAM, userId }, commands, new Secret(demo.token), 'admin', new Date());
  }
  return {
    url: playground.url,
    running,
    async shutdown() {
      await running.shutdown();
      await playground.close();
      await reference.close();
    },
  };
}

const LOCAL_TEAM = 'T0LOCAL';

async function run(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`countersign: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  // Listen for signals before starting, so a stop during start-up is not lost.
  const stop = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  if (config.mode === 'local') {
    const local = await startLocal(config);
    process.stdout.write(`\ncountersign is running in local mode. Open ${local.url}\n\n`);
    await stop;
    await local.shutdown();
    return 0;
  }
  const running = await startCountersign(config);
  await stop;
  await running.shutdown();
  return 0;
}

const isMain = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  // Exit explicitly: the Slack Web API client may still hold retry timers (an auth.test that
  // Slack has not answered), which would keep a stopped process alive until it is killed.
  run().then(
    (code) => process.exit(code),
    (error: unknown) => {
      const busy = (error as { code?: string }).code === 'EADDRINUSE';
      process.stderr.write(
        `countersign: ${(error as Error).message}${busy ? '. Set PORT to a free port, e.g. PORT=3001 npm start' : ''}\n`,
      );
      process.exit(1);
    },
  );
}

/**
 * The composition root: configuration → logger, store, service client, Slack adapter, background
 * workers. Everything else receives what it needs from here. `startCountersign` is also what the
 * end-to-end tests and local mode start, with their own clock, Slack stand-in and service.
 */

import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { storedTokens } from './accounts/credentials.js';
import { RunWatcher, type WatcherOptions } from './collections/watcher.js';
import { approvalPages, type Config, ConfigError, loadConfig, type SlackConfig } from './config.js';
import { startLocal } from './playground/local.js';
import { ReminderScheduler, type SchedulerOptions } from './reminders/scheduler.js';
import { Background } from './runtime/background.js';
import type { TimeZones } from './runtime/deps.js';
import { randomIds } from './runtime/ids.js';
import { createLogger, type Logger } from './runtime/logger.js';
import { countFailures, Metrics } from './runtime/metrics.js';
import { createServiceClient, type ServiceClient, type ServiceTimeouts } from './service/index.js';
import { createSlackApp, type SlackApp } from './slack/app.js';
import { createChat, slackClients } from './slack/chat.js';
import type { SlackDeps } from './slack/deps.js';
import { createResponder } from './slack/responder.js';
import { slackTimeZones } from './slack/timezones.js';
import { openStore, type Store } from './store/index.js';

export interface Overrides {
  logger?: Logger;
  now?: () => Date;
  timeZones?: TimeZones;
  host?: string;
  serviceTimeouts?: Partial<ServiceTimeouts>;
  /** Scheduler settings (tests: no spread, short ticks; local mode: on time). */
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
  deps: SlackDeps;
  reminders: ReminderScheduler;
  runWatcher: RunWatcher;
  /** Graceful stop: /healthz 503, stop accepting, finish in-flight work, close the store. */
  shutdown(): Promise<void>;
}

export type StartCountersign = (config: SlackConfig, overrides?: Overrides) => Promise<Running>;

export const startCountersign: StartCountersign = async (config, overrides = {}) => {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const now = overrides.now ?? (() => new Date());
  const metrics = overrides.metrics ?? new Metrics();
  const store: Store = countFailures(await openStore(config), (operation) => metrics.storeError(operation));
  const service: ServiceClient = createServiceClient({
    baseUrl: config.commandServiceUrl,
    logger: logger.child({ component: 'service' }),
    onCall: (command, status, seconds) => metrics.serviceCall(command, status, seconds),
    timeouts: { totalMs: config.serviceTimeoutMs, ...overrides.serviceTimeouts },
  });
  const clients = slackClients(config.slack);
  const timeZones = overrides.timeZones ?? slackTimeZones(clients.lookups, logger, now);
  const approvalLinks = approvalPages(config.approvalUrlTemplate);
  const chat = createChat(clients.messages, { logger, now, metrics, approvalLinks });
  // This instance's name in the store's leases.
  const owner = `${hostname()}:${process.pid}:${randomIds()()}`;
  const credentials = storedTokens(store);
  const reminders = new ReminderScheduler({
    store,
    service,
    credentials,
    logger: logger.child({ component: 'reminders' }),
    now,
    timeZones,
    owner,
    windowDays: config.remindWindowDays,
    outbox: chat,
    ...overrides.reminders,
  });
  const runWatcher = new RunWatcher({
    store,
    service,
    credentials,
    chat,
    logger: logger.child({ component: 'run-status' }),
    now,
    owner,
    ...overrides.runWatch,
  });
  const background = new Background(logger, metrics);
  const deps: SlackDeps = {
    service,
    credentials,
    store,
    logger,
    metrics,
    now,
    newId: randomIds(),
    timeZones,
    background,
    responder: createResponder({ onError: (error) => metrics.slackError('response_url', error) }),
    confirmationTtlMs: 15 * 60_000,
    reminders,
    approvalLinks,
    chat,
    firstPollMs: runWatcher.firstPollMs,
    collectPolicy: config.collect,
    commandsPerMinute: config.commandsPerMinute,
    maxInFlight: overrides.maxInFlight ?? 2000,
  };
  const slack = createSlackApp(deps, {
    botToken: config.slack.botToken,
    signingSecret: config.slack.signingSecret,
    appToken: config.mode === 'socket' ? config.slack.appToken : undefined,
    apiUrl: config.slack.apiUrl,
    port: config.port,
    host: overrides.host,
  });
  const port = await slack.start();
  if (overrides.startScheduler !== false) {
    reminders.start();
    runWatcher.start();
  }
  logger.info({ mode: config.mode, port, service: new URL(config.commandServiceUrl).origin }, 'countersign is running');

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
};

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
    const local = await startLocal(config, startCountersign);
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

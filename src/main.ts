/**
 * The composition root: configuration → logger, store, service client, Slack adapter, background
 * workers. Everything else receives what it needs from here. `startCountersign` is also what the
 * end-to-end tests and local mode start, with their own clock, Slack stand-in and service.
 */

import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { storedTokens, trustedApplication } from './accounts/credentials.js';
import { AppSession, type Backoff } from './accounts/trusted-app.js';
import { RunWatcher, type WatcherOptions } from './collections/watcher.js';
import { approvalPages, type Config, ConfigError, loadConfig, type SlackConfig } from './config.js';
import type { TimeZones } from './deps.js';
import { startLocal } from './playground/local.js';
import { ReminderScheduler, type SchedulerOptions } from './reminders/scheduler.js';
import { Background } from './runtime/background.js';
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
import { checkStoredKeys } from './store/key-check.js';

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
  /** How long a /collect waits for Slack to take its channel message before answering through the command (5 s). */
  announceWithinMs?: number;
  /** Trusted mode: how long a failed sign-in waits before the next (tests: to count attempts on a clock they move). */
  appSignInBackoff?: Partial<Backoff>;
}

export interface Running {
  port: number | undefined;
  slack: SlackApp;
  deps: SlackDeps;
  reminders: ReminderScheduler;
  runWatcher: RunWatcher;
  /**
   * Graceful stop: /healthz 503, stop accepting, finish in-flight work, close the store; bounded by
   * SHUTDOWN_TIMEOUT, after which the work still in flight is given up (and logged) and the rest closed.
   */
  shutdown(): Promise<void>;
  /** After shutdown(): the requests still being worked on when it ran out of time, and given up. */
  readonly abandoned: number;
}

export type StartCountersign = (config: SlackConfig, overrides?: Overrides) => Promise<Running>;

export const startCountersign: StartCountersign = async (config, overrides = {}) => {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const now = overrides.now ?? (() => new Date());
  const metrics = overrides.metrics ?? new Metrics();
  const opened = await openStore(config);
  try {
    // A wrong TOKEN_ENCRYPTION_KEY is refused here, once, rather than told to every user in turn.
    const warning = await checkStoredKeys(opened, config.tokenEncryptionKey);
    if (warning !== undefined) logger.warn({}, warning);
  } catch (error) {
    await opened.close();
    throw error;
  }
  const store: Store = countFailures(opened, (operation) => metrics.storeError(operation));
  const service: ServiceClient = createServiceClient({
    baseUrl: config.commandServiceUrl,
    logger: logger.child({ component: 'service' }),
    onCall: (command, status, seconds) => metrics.serviceCall(command, status, seconds),
    timeouts: { totalMs: config.serviceTimeoutMs, ...overrides.serviceTimeouts },
    now: () => now().getTime(),
  });
  const clients = slackClients(config.slack);
  const timeZones = overrides.timeZones ?? slackTimeZones(clients.lookups, logger, now);
  const approvalLinks = approvalPages(config.approvalUrlTemplate);
  const chat = createChat(clients.messages, {
    logger,
    now,
    metrics,
    approvalLinks,
    detailsOffered: () => service.offers('getApprovalDetails'),
    serviceTimeZone: config.serviceTimeZone,
  });
  // This instance's name in the store's leases.
  const owner = `${hostname()}:${process.pid}:${randomIds()()}`;
  const auth = config.serviceAuth;
  const credentials =
    auth.mode === 'trusted-app'
      ? trustedApplication({
          store,
          session: new AppSession({
            service,
            credentials: { clientId: auth.clientId, clientSecret: auth.clientSecret },
            maxAgeMs: auth.maxTokenAgeMs,
            now,
            logger: logger.child({ component: 'trusted-app' }),
            backoff: overrides.appSignInBackoff,
          }),
          now,
          logger,
        })
      : storedTokens(store);
  const reminders = new ReminderScheduler({
    store,
    service,
    credentials,
    logger: logger.child({ component: 'reminders' }),
    now,
    timeZones,
    owner,
    windowDays: config.remindWindowDays,
    serviceTimeZone: config.serviceTimeZone,
    concurrency: config.reminderConcurrency,
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
  const background = new CountedBackground(logger);
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
    serviceTimeZone: config.serviceTimeZone,
    approvalLinks,
    chat,
    firstPollMs: runWatcher.firstPollMs,
    announceWithinMs: overrides.announceWithinMs ?? 5_000,
    collectPolicy: config.collect,
    decisions: config.decisions,
    // Past any call and the reading that follows it: a hold whose call may still be under way is not raced.
    decisionHoldMs: 3 * config.serviceTimeoutMs + 30_000,
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
    metricsToken: config.metricsToken,
  });
  const port = await slack.start();
  if (overrides.startScheduler !== false) {
    reminders.start();
    runWatcher.start();
  }
  logger.info(
    { mode: config.mode, port, service: new URL(config.commandServiceUrl).origin, serviceAuth: auth.mode },
    'countersign is running',
  );

  let stopping: Promise<void> | undefined;
  let abandoned = 0;
  return {
    port,
    slack,
    deps,
    reminders,
    runWatcher,
    get abandoned() {
      return abandoned;
    },
    shutdown() {
      stopping ??= (async () => {
        logger.info({ inFlight: background.size }, 'shutting down: no new requests, finishing in-flight work');
        const waitingFor = new Set<string>();
        // Each part stops on its own: one that fails is logged, and the next is still stopped.
        const step = async (what: string, work: () => Promise<void>) => {
          waitingFor.add(what);
          try {
            await work();
          } catch (error) {
            logger.warn({ error, what }, 'could not stop cleanly');
          } finally {
            waitingFor.delete(what);
          }
        };
        // The listener stays open to the end, so that health checks hear 503 (draining) rather than a
        // closed port while the work already taken is finished.
        const graceful = (async () => {
          await step('taking new requests', () => slack.beginDraining());
          await step('the reminder scheduler', () => reminders.stop());
          await step('the run-status watcher', () => runWatcher.stop());
          await step('work in flight', () => background.drain());
          await step('the HTTP server', () => slack.stop());
        })();
        const finished = await within(config.shutdownTimeoutMs, graceful);
        abandoned = finished ? 0 : background.size;
        if (!finished) {
          logger.warn(
            { limitMs: config.shutdownTimeoutMs, inFlight: abandoned, kinds: background.kinds(), waitingFor: [...waitingFor] },
            'shutdown limit reached: abandoning the work still in flight',
          );
          slack.abandon();
        }
        // Closed together, within a moment: a client with a call that hangs (work just given up) never
        // finishes closing, and the exit that follows ends it anyway.
        const closing = [
          ['response_url client', () => deps.responder.close()],
          ['service client', () => service.close()],
          ['store', () => store.close()],
        ] as const;
        const left = await Promise.all(
          closing.map(async ([what, close]) => {
            const closed = await within(
              finished ? CLOSE_GRACE_MS : ABANDONED_CLOSE_GRACE_MS,
              close().catch((error: unknown) => logger.warn({ error, what }, 'could not close')),
            );
            return closed ? [] : [what];
          }),
        );
        if (left.flat().length > 0) logger.warn({ open: left.flat() }, 'not closed in time; left to the exit');
        logger.info({ abandoned }, 'stopped');
      })();
      return stopping;
    },
  };
};

/** How long the clients are given to close at the end of a stop; once work has been given up, only a moment. */
const CLOSE_GRACE_MS = 2_000;
const ABANDONED_CLOSE_GRACE_MS = 250;

/** Whether `work` settled within `ms` (a rejection counts as settled: it is the caller's to report). */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Background work counted by kind, so that a stop that runs out of time can say what it gave up. */
class CountedBackground extends Background {
  readonly #kinds = new Map<string, number>();

  protected override start(...[name, work, ...rest]: Parameters<Background['start']>): void {
    this.#kinds.set(name, (this.#kinds.get(name) ?? 0) + 1);
    const counted = async () => {
      try {
        await work();
      } finally {
        const left = (this.#kinds.get(name) ?? 1) - 1;
        if (left === 0) this.#kinds.delete(name);
        else this.#kinds.set(name, left);
      }
    };
    super.start(name, counted, ...rest);
  }

  kinds(): Record<string, number> {
    return Object.fromEntries(this.#kinds);
  }
}

/**
 * The last resort, for what escapes every handler. A rejected promise nobody awaited belongs to one
 * piece of work (a Slack API retry, a store call after its request ended): it is logged and the app
 * carries on serving everyone else. An uncaught exception was thrown out of an event callback, and
 * Node cannot say what state it left behind: it is logged and the app stops as on SIGTERM (bounded
 * by SHUTDOWN_TIMEOUT) and exits 1, so that the supervisor starts a clean one.
 */
export function installLastResort(target: NodeJS.EventEmitter, logger: Logger, onFatal: (error: unknown) => void): () => void {
  // The stack says where: code paths and names, never values.
  const stack = (e: unknown) => (e instanceof Error ? { stack: e.stack } : {});
  const rejection = (reason: unknown) =>
    logger.error({ error: reason, ...stack(reason) }, 'unhandled promise rejection (logged; the app carries on)');
  const exception = (error: unknown) => {
    logger.error({ error, ...stack(error) }, 'uncaught exception: stopping, since the process state cannot be trusted');
    onFatal(error);
  };
  target.on('unhandledRejection', rejection);
  target.on('uncaughtException', exception);
  return () => {
    target.off('unhandledRejection', rejection);
    target.off('uncaughtException', exception);
  };
}

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
  const logger = createLogger({ level: config.logLevel });
  // Listen for signals before starting, so a stop during start-up is not lost.
  let fatal = false;
  const stop = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
    installLastResort(process, logger, () => {
      fatal = true;
      resolve();
    });
  });
  if (config.mode === 'local') {
    const local = await startLocal(config, startCountersign, { logger });
    const how =
      config.serviceAuth.mode === 'trusted-app'
        ? 'countersign acts for each user as an application the service trusts'
        : "each user's own token";
    process.stdout.write(`\ncountersign is running in local mode (service calls: ${how}). Open ${local.url}\n\n`);
    await stop;
    await local.shutdown();
    return fatal ? 1 : 0;
  }
  const running = await startCountersign(config, { logger });
  await stop;
  await running.shutdown();
  // Work given up is not a clean stop: say so to the supervisor too.
  return fatal || running.abandoned > 0 ? 1 : 0;
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

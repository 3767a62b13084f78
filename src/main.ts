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
import { DecisionReconciler, type ReconcilerOptions } from './approvals/reconcile.js';
import { ArrivalScheduler, type ArrivalSchedulerOptions } from './arrivals/scheduler.js';
import { RunWatcher, type WatcherOptions } from './collections/watcher.js';
import { approvalPages, type Config, ConfigError, loadConfig, type SlackConfig } from './config.js';
import type { TimeZones } from './deps.js';
import { dataSentence, startLocal } from './playground/local.js';
import { ReminderScheduler, type SchedulerOptions } from './reminders/scheduler.js';
import { ServiceSlots } from './reminders/slots.js';
import { type Background, CountedBackground } from './runtime/background.js';
import { randomIds } from './runtime/ids.js';
import { createLogger, type Logger } from './runtime/logger.js';
import { countFailures, Metrics } from './runtime/metrics.js';
import { gracefulStop, type StopPlan } from './runtime/shutdown.js';
import { realTimer } from './runtime/timer.js';
import type { CredentialSource } from './service/credentials.js';
import { createServiceClient, type ServiceClient, type ServiceTimeouts } from './service/index.js';
import type { SlackDeps } from './slack/deps.js';
import { ShownMemory } from './slack/surfaces/shown.js';
import { createSlackApp, type SlackApp, type SlackAppOptions } from './slack/transport/app.js';
import { createChat, slackClients } from './slack/web-api/chat.js';
import { createResponder } from './slack/web-api/responder.js';
import { slackTimeZones } from './slack/web-api/timezones.js';
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
  /** The arrival scheduler (tests: ticked by hand, a short interval); `intervalMs` stands for NOTIFY_INTERVAL unless it is off. */
  arrivals?: Partial<Pick<ArrivalSchedulerOptions, 'tickMs' | 'leaseMs' | 'owner' | 'intervalMs'>>;
  /** The reconciler of decisions left unsettled (tests: ticked by hand, a short lease). */
  reconcile?: Partial<Pick<ReconcilerOptions, 'tickMs' | 'leaseMs' | 'giveUpAfterMs'>>;
  /** Several apps in one process (tests) each keep their own. */
  metrics?: Metrics;
  /** Commands in flight past which new ones are turned away (2000). */
  maxInFlight?: number;
  /** False: reminders, arrivals and run status only move when a test calls their tick(). */
  startScheduler?: boolean;
  /** How long a /collect waits for Slack to take its channel message before answering through the command (5 s). */
  announceWithinMs?: number;
  /** Socket Mode: how long a ping may go unanswered (5 s; tests that watch pings and reconnects use less). */
  socketPingTimeoutMs?: number;
  /** How long writes to one channel are spaced (Slack asks about one a second; tests that post a lot space them less). */
  perChannelMs?: number;
  /** Trusted mode: how long a failed sign-in waits before the next (tests: to count attempts on a clock they move). */
  appSignInBackoff?: Partial<Backoff>;
}

export interface Running {
  port: number | undefined;
  slack: SlackApp;
  deps: SlackDeps;
  reminders: ReminderScheduler;
  /** Undefined when NOTIFY_INTERVAL is off: no approver is checked. */
  arrivals: ArrivalScheduler | undefined;
  runWatcher: RunWatcher;
  decisionReconciler: DecisionReconciler;
  /**
   * Graceful stop: /healthz 503, stop accepting, finish in-flight work, close the store; bounded by
   * SHUTDOWN_TIMEOUT, after which the work still in flight is given up (and logged) and the rest closed.
   */
  shutdown(): Promise<void>;
  /** After shutdown(): the requests still being worked on when it ran out of time, and given up. */
  readonly abandoned: number;
}

export type StartCountersign = (config: SlackConfig, overrides?: Overrides) => Promise<Running>;

/**
 * The composition root, as a list: the store, the service client, the credentials people's calls
 * go through, the Slack side (clients, chat, the app), the background workers, and the stop.
 */
export const startCountersign: StartCountersign = async (config, overrides = {}) => {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const now = overrides.now ?? (() => new Date());
  const metrics = overrides.metrics ?? new Metrics();
  const base: Base = { config, overrides, logger, now, metrics };
  const store = await openCheckedStore(base);
  const service = serviceClientFor(base);
  const credentials = credentialsFor(base, store, service);
  const chatSide = slackChat(base, service);
  const workers = backgroundWorkers(base, { store, service, credentials, chat: chatSide.chat, timeZones: chatSide.timeZones });
  const background = new CountedBackground(logger);
  const lifecycle = { stopping: false };
  const deps = slackDeps(base, { store, service, credentials, background, lifecycle, ...chatSide, ...workers });
  const decisionReconciler = new DecisionReconciler({ deps, ...overrides.reconcile });
  const slack = createSlackApp(deps, slackAppOptions(config, overrides));
  const port = await slack.start();
  warnOfShortStop(base);
  if (overrides.startScheduler !== false) {
    workers.reminders.start();
    workers.arrivals?.start();
    workers.runWatcher.start();
    if (config.decisions !== undefined) decisionReconciler.start();
  }
  logger.info(
    { mode: config.mode, port, service: new URL(config.commandServiceUrl).origin, serviceAuth: config.serviceAuth.mode },
    'countersign is running',
  );
  const stopper = gracefulStop(shutdownSequence(base, { slack, ...workers, decisionReconciler, background, deps, lifecycle }));
  return {
    port,
    slack,
    deps,
    ...workers,
    decisionReconciler,
    get abandoned() {
      return stopper.abandoned;
    },
    shutdown: () => stopper.stop(),
  };
};

/**
 * The stop, in order: no new requests, the workers, the work in flight, the HTTP server; then the
 * clients. The listener stays open to the end, so that health checks hear 503 (draining) rather than
 * a closed port while the work already taken is finished.
 */
function shutdownSequence(
  { config, logger }: Base,
  parts: ReturnType<typeof backgroundWorkers> & {
    slack: SlackApp;
    background: CountedBackground;
    deps: SlackDeps;
    decisionReconciler: DecisionReconciler;
    lifecycle: { stopping: boolean };
  },
): StopPlan {
  const { slack, slots, reminders, arrivals, runWatcher, decisionReconciler, background, deps, lifecycle } = parts;
  return {
    logger,
    limitMs: config.shutdownTimeoutMs,
    steps: [
      [
        'taking new requests',
        () => {
          // From here no decision is sent; one sent already ends within its deadline, which this stop covers.
          lifecycle.stopping = true;
          return slack.beginDraining();
        },
      ],
      // First, so that digests and arrival checks waiting their turn at the service give up at once.
      ['the service slots', async () => slots.stop()],
      ['the reminder scheduler', () => reminders.stop()],
      ['the arrival scheduler', async () => arrivals?.stop()],
      ['the run-status watcher', () => runWatcher.stop()],
      ['the decision reconciler', () => decisionReconciler.stop()],
      ['work in flight', () => background.drain()],
      ['the HTTP server', () => slack.stop()],
    ],
    inFlight: background,
    abandon: () => slack.abandon(),
    closers: [
      ['response_url client', () => deps.responder.close()],
      ['service client', () => deps.service.close()],
      ['store', () => deps.store.close()],
    ],
  };
}

/** What a stop leaves for its other steps (the workers, the HTTP server) beside the decisions it waits for. */
const STOP_MARGIN_MS = 5_000;

/**
 * How long a decision may take from its call to its answer recorded: within SHUTDOWN_TIMEOUT, less
 * the margin, so that a stop waits for every decision sent before it began (half of it at least,
 * for a stop set very short).
 */
export function decisionDeadlineMs(config: Pick<SlackConfig, 'shutdownTimeoutMs'>): number {
  return Math.max(config.shutdownTimeoutMs - STOP_MARGIN_MS, Math.round(config.shutdownTimeoutMs / 2));
}

/** Says at start when SHUTDOWN_TIMEOUT leaves a decision less than one whole call to the service and a moment to read it after. */
function warnOfShortStop({ config, logger }: Base): void {
  if (config.decisions === undefined) return;
  const deadline = decisionDeadlineMs(config);
  const needs = config.serviceTimeoutMs + 2_000;
  if (deadline >= needs) return;
  logger.warn(
    { shutdownTimeoutMs: config.shutdownTimeoutMs, serviceTimeoutMs: config.serviceTimeoutMs, decisionDeadlineMs: deadline },
    `SHUTDOWN_TIMEOUT leaves a decision ${deadline} ms from its call to its answer, less than SERVICE_TIMEOUT and a moment to read the approval after (${needs} ms): on a slow service a decision may end as "outcome unknown" (read again later by the reconciler). Set SHUTDOWN_TIMEOUT to at least ${needs + STOP_MARGIN_MS} ms, or SERVICE_TIMEOUT lower.`,
  );
}

/** What every part of the composition is built from. */
interface Base {
  config: SlackConfig;
  overrides: Overrides;
  logger: Logger;
  now: () => Date;
  metrics: Metrics;
}

/** The store, its failures counted; a wrong TOKEN_ENCRYPTION_KEY is refused here, once, rather than told to every user in turn. */
async function openCheckedStore({ config, logger, metrics, now }: Base): Promise<Store> {
  const opened = await openStore(config, now);
  try {
    const warning = await checkStoredKeys(opened, config.tokenEncryptionKey);
    if (warning !== undefined) logger.warn({}, warning);
  } catch (error) {
    await opened.close();
    throw error;
  }
  return countFailures(opened, (operation) => metrics.storeError(operation));
}

function serviceClientFor({ config, overrides, logger, metrics, now }: Base): ServiceClient {
  return createServiceClient({
    baseUrl: config.commandServiceUrl,
    logger: logger.child({ component: 'service' }),
    onCall: (command, status, seconds) => metrics.serviceCall(command, status, seconds),
    timeouts: { totalMs: config.serviceTimeoutMs, ...overrides.serviceTimeouts },
    now: () => now().getTime(),
  });
}

/** How calls are made for people: each one's stored token, or the app signed in as a trusted application acting for them. */
function credentialsFor({ config, overrides, logger, now }: Base, store: Store, service: ServiceClient): CredentialSource {
  const auth = config.serviceAuth;
  if (auth.mode !== 'trusted-app') return storedTokens(store);
  const session = new AppSession({
    service,
    credentials: { clientId: auth.clientId, clientSecret: auth.clientSecret },
    maxAgeMs: auth.maxTokenAgeMs,
    now,
    logger: logger.child({ component: 'trusted-app' }),
    backoff: overrides.appSignInBackoff,
  });
  return trustedApplication({ store, session, now, logger });
}

/** Slack's Web API as the workers and listeners use it: people's zones, and the chat that posts and updates. */
function slackChat({ config, overrides, logger, now, metrics }: Base, service: ServiceClient) {
  const clients = slackClients(config.slack);
  const timeZones = overrides.timeZones ?? slackTimeZones(clients.lookups, logger, now);
  const approvalLinks = approvalPages(config.approvalUrlTemplate);
  const chat = createChat(clients.messages, {
    logger,
    now,
    metrics,
    approvalLinks,
    detailsOffered: () => service.offers('getApprovalDetails'),
    decisionsOffered: () => config.decisions !== undefined && service.offers('decision'),
    serviceTimeZone: config.serviceTimeZone,
    timeZones,
    ...(overrides.perChannelMs === undefined ? {} : { perChannelMs: overrides.perChannelMs }),
    timer: realTimer,
  });
  return { timeZones, approvalLinks, chat };
}

interface WorkerParts {
  store: Store;
  service: ServiceClient;
  credentials: CredentialSource;
  chat: ReturnType<typeof createChat>;
  timeZones: TimeZones;
}

/**
 * The reminder scheduler, the arrival scheduler and the run-status watcher, leasing their work under
 * this instance's name. Digests and arrival checks share one bound on the service (REMINDER_CONCURRENCY
 * calls in flight on every instance together).
 */
function backgroundWorkers({ config, overrides, logger, now, metrics }: Base, parts: WorkerParts) {
  const owner = `${hostname()}:${process.pid}:${randomIds()()}`;
  const { store, service, credentials, chat, timeZones } = parts;
  const slots = new ServiceSlots({
    store,
    owner: overrides.reminders?.owner ?? owner,
    limit: config.reminderConcurrency,
    now,
    logger: logger.child({ component: 'service-slots' }),
  });
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
    slots,
    outbox: chat,
    ...overrides.reminders,
  });
  const intervalMs = config.notifyIntervalMs === undefined ? undefined : (overrides.arrivals?.intervalMs ?? config.notifyIntervalMs);
  const arrivals =
    intervalMs === undefined
      ? undefined
      : new ArrivalScheduler({
          deps: { store, service, credentials, logger: logger.child({ component: 'arrivals' }), metrics, now, newId: randomIds() },
          outbox: chat,
          timeZones,
          owner,
          slots,
          serviceTimeZone: config.serviceTimeZone,
          decisionActions: config.decisions !== undefined,
          ...overrides.arrivals,
          intervalMs,
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
  return { slots, reminders, arrivals, runWatcher };
}

function slackDeps(
  { config, overrides, logger, now, metrics }: Base,
  parts: ReturnType<typeof slackChat> &
    ReturnType<typeof backgroundWorkers> & {
      store: Store;
      service: ServiceClient;
      credentials: CredentialSource;
      background: Background;
      lifecycle: { stopping: boolean };
    },
): SlackDeps {
  const { store, service, credentials, background, timeZones, approvalLinks, chat, reminders, arrivals, runWatcher, lifecycle } = parts;
  return {
    service,
    credentials,
    store,
    logger,
    metrics,
    now,
    newId: randomIds(),
    // Here from the start, though only a request's copy has one: V8 copies an object quickly
    // ({ ...deps, requestId }) only when the copy adds no key of its own (2 µs a request otherwise).
    requestId: undefined,
    timeZones,
    background,
    responder: createResponder({ onError: (error) => metrics.slackError('response_url', error) }),
    shown: new ShownMemory(now),
    confirmationTtlMs: 15 * 60_000,
    reminders,
    serviceTimeZone: config.serviceTimeZone,
    approvalLinks,
    chat,
    arrivals: chat,
    notifyIntervalMs: arrivals?.intervalMs,
    firstPollMs: runWatcher.firstPollMs,
    announceWithinMs: overrides.announceWithinMs ?? 5_000,
    collectPolicy: config.collect,
    decisions: config.decisions,
    // Past any call and the reading that follows it: a hold whose call may still be under way is not raced.
    decisionHoldMs: 3 * config.serviceTimeoutMs + 30_000,
    decisionDeadlineMs: decisionDeadlineMs(config),
    stopping: () => lifecycle.stopping,
    commandsPerMinute: config.commandsPerMinute,
    maxInFlight: overrides.maxInFlight ?? 2000,
  };
}

function slackAppOptions(config: SlackConfig, overrides: Overrides): SlackAppOptions {
  return {
    botToken: config.slack.botToken,
    signingSecret: config.slack.signingSecret,
    appToken: config.mode === 'socket' ? config.slack.appToken : undefined,
    apiUrl: config.slack.apiUrl,
    port: config.port,
    host: overrides.host,
    metricsToken: config.metricsToken,
    socketPingTimeoutMs: overrides.socketPingTimeoutMs,
  };
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
    process.stdout.write(
      `\ncountersign is running in local mode (service calls: ${how}). Open ${local.url}\n${dataSentence(local.data)}\n\n`,
    );
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

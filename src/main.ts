/**
 * The composition root: configuration → logger, store, service client → Slack app. Everything
 * else receives what it needs from here. `startCountersign` is also what the end-to-end tests
 * start, with their own clock, Slack stand-in and reference service.
 */

import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebClient } from '@slack/web-api';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createServiceClient, type ServiceClient, type ServiceTimeouts } from './service/index.js';
import { createSlackApp, type SlackApp } from './slack/app.js';
import { Background, type Deps, type TimeZones } from './slack/deps.js';
import { createResponder } from './slack/response-url.js';
import { slackTimeZones } from './slack/timezones.js';
import { openStore, type Store } from './store/index.js';

export interface Overrides {
  logger?: Logger;
  now?: () => Date;
  /** Where the Command Service is, when not from the configuration (tests, local mode). */
  serviceUrl?: string;
  timeZones?: TimeZones;
  host?: string;
  serviceTimeouts?: Partial<ServiceTimeouts>;
}

export interface Running {
  port: number | undefined;
  slack: SlackApp;
  deps: Deps;
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
  const store: Store = await openStore(config);
  const service: ServiceClient = createServiceClient({
    baseUrl: serviceUrl,
    logger: logger.child({ component: 'service' }),
    ...(overrides.serviceTimeouts ? { timeouts: overrides.serviceTimeouts } : {}),
  });
  const background = new Background(logger);
  const timeZones =
    overrides.timeZones ??
    slackTimeZones(
      new WebClient(config.slack.botToken.reveal(), config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      logger,
      now,
    );
  const deps: Deps = {
    service,
    store,
    logger,
    now,
    timeZones,
    newId: () => randomBytes(12).toString('base64url'),
    background,
    responder: createResponder(),
    confirmationTtlMs: 15 * 60_000,
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
  logger.info({ mode: config.mode, port, service: new URL(serviceUrl).origin }, 'countersign is running');

  let stopping: Promise<void> | undefined;
  return {
    port,
    slack,
    deps,
    shutdown() {
      stopping ??= (async () => {
        slack.beginDraining();
        logger.info({ inFlight: background.size }, 'shutting down: no new requests, finishing in-flight work');
        await slack.stop();
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
  if (config.mode === 'local') {
    process.stderr.write(
      [
        'countersign: no Slack credentials are set, and local mode (a browser playground) is not built yet.',
        'Set SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, COMMAND_SERVICE_URL and TOKEN_ENCRYPTION_KEY (see README.md),',
        'or run `npm start` to try the reference Command Service on its own.',
        '',
      ].join('\n'),
    );
    return 1;
  }
  // Listen for signals before starting, so a stop during start-up is not lost.
  const stop = new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
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
      process.stderr.write(`countersign: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}

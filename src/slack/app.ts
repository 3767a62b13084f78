/**
 * The Bolt App: HTTPReceiver on POST /slack/events (Slack-signed, 5-minute window) with GET
 * /healthz, or Socket Mode. One registration module wires each Slack surface to its handler.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../runtime/logger.js';
import type { Secret } from '../runtime/secret.js';
import type { SlackDeps } from './deps.js';
import { registerListeners } from './listeners/index.js';

export interface SlackAppOptions {
  botToken: Secret;
  signingSecret: Secret;
  /** Socket Mode when given. */
  appToken?: Secret;
  /** Slack Web API base (GovSlack, tests). */
  apiUrl?: string;
  port: number;
  host?: string;
}

export interface SlackApp {
  app: App;
  /** Starts listening; resolves with the HTTP port (HTTP mode) or undefined (Socket Mode). */
  start(): Promise<number | undefined>;
  /** /healthz answers 503 from now on, so that a load balancer stops sending traffic. */
  beginDraining(): void;
  stop(): Promise<void>;
}

export function createSlackApp(deps: SlackDeps, options: SlackAppOptions): SlackApp {
  let draining = false;
  const logger = boltLogger(deps.logger.child({ component: 'bolt' }));
  const clientOptions = options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl };
  let receiver: HTTPReceiver | SocketModeReceiver;
  if (options.appToken) {
    receiver = new SocketModeReceiver({ appToken: options.appToken.reveal(), logger });
  } else {
    receiver = new HTTPReceiver({
      signingSecret: options.signingSecret.reveal(),
      endpoints: '/slack/events',
      logger,
      customRoutes: [
        {
          path: '/metrics',
          method: ['GET'],
          handler: (_req, res) => {
            deps.metrics.registry.metrics().then(
              (text) => {
                res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
                res.end(text);
              },
              () => {
                res.writeHead(500);
                res.end();
              },
            );
          },
        },
        {
          path: '/healthz',
          method: ['GET'],
          handler: (_req, res) => {
            res.writeHead(draining ? 503 : 200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(draining ? { ok: false, draining: true } : { ok: true }));
          },
        },
      ],
    });
  }
  // No conversation store: nothing here uses it, and it costs a lookup on every request.
  const app = new App({ token: options.botToken.reveal(), receiver, logger, clientOptions, convoStore: false });
  registerListeners(app, deps);

  return {
    app,
    async start() {
      if (receiver instanceof SocketModeReceiver) {
        await app.start();
        return undefined;
      }
      const server = (await receiver.start(options.host ? { port: options.port, host: options.host } : options.port)) as Server;
      return (server.address() as AddressInfo).port;
    },
    beginDraining() {
      draining = true;
    },
    async stop() {
      await app.stop();
    },
  };
}

/** Bolt logs through ours, so its lines get the same format, level and redaction. */
function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const join = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => logger.debug({}, join(msg)),
    info: (...msg) => logger.info({}, join(msg)),
    warn: (...msg) => logger.warn({}, join(msg)),
    error: (...msg) => logger.error({}, join(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

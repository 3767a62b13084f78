/**
 * The Bolt App: our own receiver on POST /slack/events (size limit, Slack signature with its
 * 5-minute window, replays refused: receiver.ts), or Socket Mode; GET /healthz and GET /metrics on
 * PORT in both (probes.ts). One registration module wires each Slack surface to its handler.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../../runtime/logger.js';
import type { Secret } from '../../runtime/secret.js';
import type { SlackDeps } from '../deps.js';
import { SLACK_CALL_TIMEOUT_MS } from '../web-api/chat.js';
import { probeRoutes } from './probes.js';
import { SlackReceiver } from './receiver.js';
import { registerListeners } from './register.js';
import { ReplayGuard } from './replay.js';

export interface SlackAppOptions {
  botToken: Secret;
  signingSecret: Secret;
  /** Socket Mode when given. */
  appToken?: Secret | undefined;
  /** Slack Web API base (GovSlack, tests). */
  apiUrl?: string | undefined;
  port: number;
  host?: string | undefined;
  /** GET /metrics needs `Authorization: Bearer <it>`; unset: loopback only. */
  metricsToken?: Secret | undefined;
  /**
   * Socket Mode: how long a ping may go unanswered (5 s, the socket client's own). The client pings
   * three times as often, and waits this long times its failures before reconnecting.
   */
  socketPingTimeoutMs?: number | undefined;
}

export interface SlackApp {
  app: App;
  /** Starts listening; resolves with the HTTP port (in Socket Mode, the port of /healthz and /metrics). */
  start(): Promise<number>;
  /**
   * From now on /healthz answers 503 (a load balancer stops sending traffic) and no new event is
   * taken: HTTP events get 503, Socket Mode's WebSocket is closed. /healthz keeps answering until stop().
   */
  beginDraining(): Promise<void>;
  /** Closes the listener: once the work taken before draining is done. */
  stop(): Promise<void>;
  /** Cuts the connections still open: for a stop that has run out of time. */
  abandon(): void;
}

export function createSlackApp(deps: SlackDeps, options: SlackAppOptions): SlackApp {
  let draining = false;
  const logger = boltLogger(deps.logger.child({ component: 'bolt' }));
  // The client Bolt hands listeners (views.open, views.update…): each call has a deadline, as chat's do.
  const clientOptions = { timeout: SLACK_CALL_TIMEOUT_MS, ...(options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl }) };
  const routes = probeRoutes({
    store: deps.store,
    metrics: deps.metrics,
    logger: deps.logger.child({ component: 'probes' }),
    metricsToken: options.metricsToken,
    draining: () => draining,
  });
  let receiver: SlackReceiver | SocketModeReceiver;
  let probes: Server | undefined;
  if (options.appToken) {
    // At debug level the socket client logs every frame it receives whole, and a frame may carry a password
    // or token typed into the link modal: that line keeps its words and loses the frame.
    const received = 'Received a message on the WebSocket';
    const socketLogger: BoltLogger = {
      ...logger,
      debug: (...msg) =>
        logger.debug(...msg.map((m) => (typeof m === 'string' && m.startsWith(received) ? `${received} (not logged)` : m))),
    };
    receiver = new SocketModeReceiver({
      appToken: options.appToken.reveal(),
      logger: socketLogger,
      // apps.connections.open goes through the socket client's own Web API client, which must reach the
      // same Slack (GovSlack, tests). A copy: that client writes its own retry settings into what it is given.
      installerOptions: { clientOptions: { ...clientOptions } },
      ...(options.socketPingTimeoutMs === undefined ? {} : { clientPingTimeout: options.socketPingTimeoutMs }),
    });
    // Not Bolt's customRoutes server: it listens on every interface whatever the host, keeps the port it
    // got for PORT=0 private, has no listener for a listen error (a busy port would crash the process) and
    // is not awaited on stop. The same handlers on a server of our own have none of these problems.
    probes = createServer((req, res) => {
      const route = req.method === 'GET' ? routes.get(new URL(req.url ?? '/', 'http://localhost').pathname) : undefined;
      if (route === undefined) {
        res.writeHead(404);
        return void res.end();
      }
      route(req, res).catch((error: unknown) => {
        deps.logger.error({ error }, 'probe failed');
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  } else {
    receiver = new SlackReceiver({
      signingSecret: options.signingSecret,
      logger: deps.logger.child({ component: 'receiver' }),
      metrics: deps.metrics,
      replay: new ReplayGuard(deps.store, deps.logger.child({ component: 'replay' })),
      routes,
      port: options.port,
      host: options.host,
      // Signatures are judged on the app's clock, as every other time is.
      nowMs: () => deps.now().getTime(),
      draining: () => draining,
    });
  }
  // No conversation store: nothing here uses it, and it costs a lookup on every request.
  const app = new App({ token: options.botToken.reveal(), receiver, logger, clientOptions, convoStore: false });
  registerListeners(app, deps);

  return {
    app,
    async start() {
      if (probes !== undefined) {
        const server = probes;
        // Listen first: a busy port fails at once, before a WebSocket is opened that would then be left behind.
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(options.port, options.host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        try {
          await app.start();
        } catch (error) {
          await new Promise<void>((resolve) => server.close(() => resolve()));
          throw error;
        }
        return (server.address() as AddressInfo).port;
      }
      const server = (await receiver.start()) as Server;
      return (server.address() as AddressInfo).port;
    },
    async beginDraining() {
      draining = true;
      if (!(receiver instanceof SocketModeReceiver)) return;
      // Bolt's stop starts the close handshake and returns at once; no new event comes once the WebSocket is closed.
      const client = receiver.client;
      const disconnected = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
      await app.stop();
      await disconnected;
    },
    async stop() {
      if (!(receiver instanceof SocketModeReceiver)) return void (await app.stop());
      if (!draining) await this.beginDraining();
      const server = probes;
      if (server?.listening) await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
    abandon() {
      if (receiver instanceof SlackReceiver) receiver.closeAllConnections();
      probes?.closeAllConnections();
    },
  };
}

/** Bolt logs through ours, so its lines get the same format, level and redaction. */
function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  const join = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    // The Web API client logs each request's body at debug: a message's or a view's text, which
    // carries what users wrote (a decision's comment, a search's names). Only that it was sent is kept.
    debug: (...msg) => {
      const line = join(msg);
      logger.debug({}, line.startsWith('http request body:') ? 'http request body: (not logged: it holds what users wrote)' : line);
    },
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

/**
 * The Bolt App: HTTPReceiver on POST /slack/events (Slack-signed, 5-minute window), or Socket Mode;
 * GET /healthz and GET /metrics on PORT in both. One registration module wires each Slack surface to its handler.
 */

import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type { Logger } from '../logger.js';
import { OPEN_ACTION, PAGE_ACTIONS } from '../render/approvals.js';
import { CONFIRM_ACTIONS } from '../render/collect.js';
import { HOME_ACTIONS } from '../render/home.js';
import { LINK_CALLBACK, RELINK_ACTION } from '../render/link.js';
import { DIGEST_ACTIONS } from '../render/reminders.js';
import type { Secret } from '../secret.js';
import { confirmAction } from './actions/confirm.js';
import { pagingAction } from './actions/paging.js';
import { relinkAction } from './actions/relink.js';
import { approvalsCommand } from './commands/approvals.js';
import { collectCommand } from './commands/collect.js';
import type { Deps } from './deps.js';
import { homeOpened, homePageAction, homeUnlinkAction } from './events/home.js';
import { RateLimiter } from './rate-limit.js';
import { linkSubmission } from './views/link.js';

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
  /** Starts listening; resolves with the HTTP port (in Socket Mode, the port of /healthz and /metrics). */
  start(): Promise<number>;
  /** /healthz answers 503 from now on, so that a load balancer stops sending traffic. */
  beginDraining(): void;
  stop(): Promise<void>;
}

/** What a Slack request is, for logs and metrics: its type and the command, action, view or event it names. */
function describeRequest(body: Record<string, unknown>): { type: string; name: string; user: string | undefined } {
  const b = body as {
    command?: string;
    user_id?: string;
    user?: { id?: string };
    type?: string;
    actions?: Array<{ action_id?: string }>;
    view?: { callback_id?: string };
    event?: { type?: string; user?: string };
  };
  const user = b.user_id ?? b.user?.id ?? b.event?.user;
  if (b.command) return { type: 'command', name: b.command, user };
  if (b.type === 'block_actions') return { type: 'action', name: b.actions?.[0]?.action_id ?? 'unknown', user };
  if (b.type === 'view_submission' || b.type === 'view_closed') return { type: 'view', name: b.view?.callback_id ?? 'unknown', user };
  if (b.event) return { type: 'event', name: b.event.type ?? 'unknown', user };
  return { type: b.type ?? 'unknown', name: 'unknown', user };
}

export function registerListeners(app: App, deps: Deps): void {
  const limiter = new RateLimiter(deps.commandsPerMinute);
  // One middleware before every listener: every line logged while serving a request, after the
  // ack too, carries its id, user and name; the request is counted in the metrics once its work
  // has ended; and a user over the command limit is answered kindly at once, with nothing else done.
  app.use(async (args) => {
    const body = args.body as Record<string, unknown> & { command?: string; user_id?: string };
    const { type, name, user } = describeRequest(body);
    const fields = { request: deps.newId().slice(0, 12), ...(user ? { user } : {}), [type === 'command' ? 'slash' : type]: name };
    await deps.logger.withContext(fields, () =>
      deps.metrics.track(type, name, async () => {
        const ack = (args as unknown as { ack?: (r: unknown) => Promise<void> }).ack;
        if (body.command !== undefined && ack !== undefined && deps.background.size >= deps.maxInFlight) {
          deps.metrics.outcome('busy');
          deps.logger.warn({ inFlight: deps.background.size }, 'command turned away: too much work in flight');
          const text =
            'countersign is very busy right now and did not take this command, so that it can still answer the ones it has. Please try again in a minute.';
          return void (await ack({ response_type: 'ephemeral', text }));
        }
        if (body.command !== undefined && body.user_id !== undefined && ack !== undefined) {
          const waitMs = limiter.take(body.user_id, deps.now().getTime());
          if (waitMs > 0) {
            deps.metrics.outcome('rate_limited');
            deps.logger.info({ waitMs }, 'command refused: rate limit');
            const text = `Easy there: countersign takes up to ${deps.commandsPerMinute} commands a minute from one person, so that the Command Service is not swamped. Try again in ${Math.ceil(waitMs / 1000)} s.`;
            return void (await ack({ response_type: 'ephemeral', text }));
          }
        }
        await args.next();
      }),
    );
  });
  app.command('/approvals', approvalsCommand(deps));
  app.command('/collect', collectCommand(deps));
  app.action(PAGE_ACTIONS.next, pagingAction(deps));
  app.action(PAGE_ACTIONS.previous, pagingAction(deps));
  app.action(DIGEST_ACTIONS.fullList, pagingAction(deps, 'new'));
  // "Open" is a link: Slack opens the page itself and still sends the click, which only needs an ack.
  app.action(OPEN_ACTION, async ({ ack }) => {
    await ack();
  });
  app.action(CONFIRM_ACTIONS.run, confirmAction(deps, 'run'));
  app.action(CONFIRM_ACTIONS.cancel, confirmAction(deps, 'cancel'));
  app.action(RELINK_ACTION, relinkAction(deps));
  app.view(LINK_CALLBACK, linkSubmission(deps));
  app.event('app_home_opened', homeOpened(deps));
  for (const id of [HOME_ACTIONS.refresh, HOME_ACTIONS.next, HOME_ACTIONS.previous]) app.action(id, homePageAction(deps));
  app.action(HOME_ACTIONS.unlink, homeUnlinkAction(deps));
  app.error(async (error) => {
    deps.logger.error(
      { error: { name: error.name, message: error.message, code: (error as { code?: string }).code } },
      'unhandled Slack listener error',
    );
  });
}

export function createSlackApp(deps: Deps, options: SlackAppOptions): SlackApp {
  let draining = false;
  const logger = boltLogger(deps.logger.child({ component: 'bolt' }));
  const clientOptions = options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl };
  const routes = new Map<string, RequestListener>([
    [
      '/metrics',
      (_req, res) => {
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
    ],
    [
      '/healthz',
      (_req, res) => {
        res.writeHead(draining ? 503 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(draining ? { ok: false, draining: true } : { ok: true }));
      },
    ],
  ]);
  let receiver: HTTPReceiver | SocketModeReceiver;
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
    });
    // Not Bolt's customRoutes server: it listens on every interface whatever the host, keeps the port it
    // got for PORT=0 private, has no listener for a listen error (a busy port would crash the process) and
    // is not awaited on stop. The same handlers on a server of our own have none of these problems.
    probes = createServer((req, res) => {
      const route = req.method === 'GET' ? routes.get(new URL(req.url ?? '/', 'http://localhost').pathname) : undefined;
      if (route) return route(req, res);
      res.writeHead(404);
      res.end();
    });
  } else {
    receiver = new HTTPReceiver({
      signingSecret: options.signingSecret.reveal(),
      endpoints: '/slack/events',
      logger,
      customRoutes: [...routes].map(([path, handler]) => ({ path, method: ['GET'], handler })),
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
      const server = (await receiver.start(options.host ? { port: options.port, host: options.host } : options.port)) as Server;
      return (server.address() as AddressInfo).port;
    },
    beginDraining() {
      draining = true;
    },
    async stop() {
      if (!(receiver instanceof SocketModeReceiver)) return void (await app.stop());
      // Bolt's stop starts the close handshake and returns at once; stopped means the WebSocket is closed.
      const client = receiver.client;
      const disconnected = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
      await app.stop();
      const server = probes;
      await Promise.all([
        disconnected,
        server?.listening
          ? new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
          : undefined,
      ]);
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

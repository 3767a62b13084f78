/**
 * The local Slack stand-in (local mode): a page that looks like a channel, and the parts of Slack
 * the app talks to: the Web API methods it calls, response_url endpoints, and signed requests for
 * what the page's user types and clicks. The app is unchanged: it reaches this server only
 * through SLACK_API_URL, signed requests and response_url, exactly as it reaches Slack.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { request } from 'undici';
import type { Logger } from '../runtime/logger.js';
import { type Control, Interactions, type Surface } from './interactions.js';
import { playgroundPage } from './page.js';
import { type ResponseBody, respondTo, webApi } from './web-api.js';
import { type PlaygroundUser, Workspace } from './workspace.js';

export type { PlaygroundMessage, PlaygroundUser } from './workspace.js';

export interface PlaygroundOptions {
  port: number;
  host?: string | undefined;
  signingSecret: string;
  botToken: string;
  users: readonly PlaygroundUser[];
  teamId: string;
  channel: { id: string; name: string };
  /** Command suggestions for the message box. */
  suggestions: readonly string[];
  /** Each command's usage hint, shown while it is typed, as Slack shows the manifest's. */
  usage: Readonly<Record<string, string>>;
  /** What the page says of the data: whether it outlives a restart, and how to start afresh. */
  dataNote?: string | undefined;
  logger: Logger;
  /** The app's clock: message timestamps and signatures are on it. */
  now?: () => Date;
  /**
   * The page's "Make an approval arrive": a new pending approval for the service account this demo
   * user is linked as. Without it the page has no such control.
   */
  arrive?: ((userId: string) => Promise<ArrivalNote>) | undefined;
}

/** What the page says of an approval made to arrive: whether it did, and what comes next, in words. */
export interface ArrivalNote {
  arrived: boolean;
  said: string;
}

export interface Playground {
  url: string;
  apiUrl: string;
  setAppUrl(url: string): void;
  close(): Promise<void>;
}

/** The stand-in's parts, as the HTTP side routes to them. */
interface Parts {
  ws: Workspace;
  interactions: Interactions;
  options: PlaygroundOptions;
  page: string;
  /** The port it listens on, once it does: the Host check needs it. */
  port(): number;
}

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const ws = new Workspace(options);
  const interactions = new Interactions(ws, options.signingSecret);
  const page = playgroundPage({
    users: options.users,
    channel: options.channel,
    suggestions: options.suggestions,
    usage: options.usage,
    dataNote: options.dataNote,
    arrivals: options.arrive !== undefined,
  });
  let port = 0;
  const parts: Parts = { ws, interactions, options, page, port: () => port };
  const server: Server = createServer((req, res) => {
    handle(parts, req, res).catch((error: unknown) => {
      options.logger.error({ error, path: req.url?.split('?')[0] }, 'playground request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: (error as Error).message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  ws.base = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url: ws.base,
    apiUrl: `${ws.base}/api/`,
    setAppUrl(url) {
      interactions.appUrl = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Every request: refused unless same-origin and for this Host; then the page, its JSON, response_urls or the Web API. */
async function handle(parts: Parts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options } = parts;
  const url = new URL(req.url ?? '/', 'http://playground.invalid');
  const refused = refusal(req, url.pathname, parts.port(), options.host);
  if (refused !== undefined) {
    options.logger.warn({ host: req.headers.host, origin: req.headers.origin, path: url.pathname }, `playground refused: ${refused}`);
    return json(res, 403, { error: refused });
  }
  const body = await readBody(req);
  if (req.method === 'GET') return served(parts, url, res);
  if (req.method === 'POST' && url.pathname.startsWith('/playground/')) return fromPage(parts, url.pathname, body, res);
  const response = /^\/response\/([\w-]+)$/.exec(url.pathname);
  if (req.method === 'POST' && response) {
    const target = parts.ws.responseTarget(response[1] as string);
    if (!target) return json(res, 404, { ok: false, error: 'expired_url' });
    const problems = respondTo(parts.ws, target, JSON.parse(body) as ResponseBody);
    if (problems !== undefined)
      return json(res, 400, { ok: false, error: 'invalid_blocks', response_metadata: { messages: problems.slice(0, 10) } });
    res.writeHead(200, { 'content-type': 'text/plain' });
    return void res.end('ok');
  }
  const api = /^\/api\/([\w.]+)$/.exec(url.pathname);
  if (req.method === 'POST' && api) {
    if (req.headers.authorization !== `Bearer ${options.botToken}`) return json(res, 200, { ok: false, error: 'invalid_auth' });
    const params: Record<string, unknown> = String(req.headers['content-type']).includes('json')
      ? (JSON.parse(body || '{}') as Record<string, unknown>)
      : Object.fromEntries(new URLSearchParams(body));
    return json(res, 200, webApi(parts.ws, api[1] as string, params));
  }
  json(res, 404, { error: 'not found' });
}

/** GET: the page, what one user sees on it, and the app's health. */
async function served(parts: Parts, url: URL, res: ServerResponse): Promise<void> {
  if (url.pathname === '/') {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src * data:",
    });
    return void res.end(parts.page);
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204);
    return void res.end();
  }
  // The app's health, where a newcomer looks for it: on the address local mode printed. (Not /metrics:
  // asked from here it would always come from loopback, which is what lets it through without a token.)
  if (url.pathname === '/healthz') {
    const appUrl = parts.interactions.appUrl;
    if (!appUrl) return json(res, 503, { ok: false, error: 'the app is not running yet' });
    const probe = await request(new URL('/healthz', appUrl));
    res.writeHead(probe.statusCode, { 'content-type': String(probe.headers['content-type'] ?? 'text/plain') });
    return void res.end(await probe.body.text());
  }
  if (url.pathname === '/playground/state') return json(res, 200, parts.ws.seenBy(url.searchParams.get('user') ?? ''));
  json(res, 404, { error: 'not found' });
}

/** POST /playground/…: what the person at the page did, as one of the demo users. */
async function fromPage(parts: Parts, path: string, body: string, res: ServerResponse): Promise<void> {
  const { ws, interactions } = parts;
  const input = JSON.parse(body || '{}') as Record<string, unknown>;
  const userId = String(input.user ?? '');
  if (!ws.user(userId)) return json(res, 400, { error: 'unknown user' });
  switch (path) {
    case '/playground/command':
      return json(res, 200, await interactions.typed(userId, String(input.text ?? '')));
    case '/playground/action': {
      const surface: Surface =
        input.surface === 'modal'
          ? { kind: 'modal' }
          : input.surface === 'home'
            ? { kind: 'home' }
            : { kind: 'message', messageId: Number(input.messageId) };
      const control: Control =
        typeof input.selected === 'string'
          ? { type: 'static_select', selected: input.selected }
          : { type: 'button', value: input.value === undefined ? undefined : String(input.value) };
      return json(
        res,
        200,
        await interactions.clicked(userId, surface, String(input.actionId ?? ''), control, String(input.blockId ?? '')),
      );
    }
    case '/playground/submit':
      return json(res, 200, await interactions.submitted(userId, (input.values ?? {}) as Record<string, string>));
    case '/playground/home':
      return json(res, 200, await interactions.homeOpened(userId));
    case '/playground/arrive':
      if (parts.options.arrive === undefined) return json(res, 404, { error: 'not found' });
      return json(res, 200, await parts.options.arrive(userId));
    case '/playground/close':
      ws.closeTop(userId);
      return json(res, 200, {});
    default:
      return json(res, 404, { error: 'not found' });
  }
}

/**
 * Same origin only. The playground acts as any demo user and sees their private messages, so a
 * page on another site must neither post to it (Origin, or Referer when a browser sends no Origin)
 * nor read it by pointing a name of its own at this address (DNS rebinding: the Host is then that
 * name). A Host is ours when it names this port on localhost or an IP address: no other site's
 * name. Undefined when the request may go on, else why not.
 */
export function refusal(req: IncomingMessage, path: string, port: number, ownName?: string): string | undefined {
  const host = req.headers.host ?? '';
  let hostname: string;
  try {
    const parsed = new URL(`http://${host}`);
    if ((parsed.port || '80') !== String(port)) return 'the Host is not this playground';
    hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  } catch {
    return 'the Host is not this playground';
  }
  if (hostname !== 'localhost' && hostname !== ownName && isIP(hostname) === 0) return 'the Host is not this playground';
  // The page's own requests; the app's (Web API, response_url) carry a bot token or a capability URL, and no Origin.
  if (req.method !== 'POST' || !path.startsWith('/playground/')) return undefined;
  const self = `http://${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === self ? undefined : 'a request from another site';
  const referer = req.headers.referer;
  if (referer === undefined) return 'a request that says neither its Origin nor its Referer';
  try {
    return new URL(referer).origin === self ? undefined : 'a request from another site';
  } catch {
    return 'a request from another site';
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

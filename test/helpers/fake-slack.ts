/**
 * Slack's own servers, played on loopback: the Web API methods the app calls (auth.test,
 * users.info, chat.*) and response_url endpoints that record what the app sends. This is the
 * only mock in the end-to-end tests, at the edge of the machine.
 */

import { EventEmitter } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageProblems, viewProblems } from '../../src/render/validate.js';
import { eventually } from './eventually.js';
import { visible } from './visible.js';

export interface ResponseBody {
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  delete_original?: boolean;
  text?: string;
  blocks?: Array<Record<string, unknown>>;
}

export interface FakeSlack {
  url: string;
  apiUrl: string;
  /** Web API calls by method, bodies as sent (form-encoded). */
  /** Every Web API call, 429s included; `at` is when it arrived, on the stand-in's clock. */
  apiCalls: Array<{ method: string; body: string; at: number }>;
  /** A fresh response_url. */
  responseUrl(): { id: string; url: string };
  responses(id: string): ResponseBody[];
  waitForResponses(id: string, count: number, timeoutMs?: number): Promise<ResponseBody[]>;
  timeZones: Map<string, string>;
  /** Members of user groups, for usergroups.users.list. */
  userGroups: Map<string, string[]>;
  /** Channels where chat.postMessage answers not_in_channel (a private channel the bot is not in). */
  closedChannels: Set<string>;
  /** The next `times` calls of a Web API method answer 429 with this Retry-After (seconds), as Slack's rate limiter does. */
  rateLimit(method: string, retryAfterSeconds: number, times?: number): void;
  /** The DMs and channel messages the app posted with chat.postMessage. */
  posted(): Array<{ channel: string; text: string; blocks: Array<Record<string, unknown>>; at: number }>;
  /** Waits until chat.postMessage has been called `count` times in all. */
  waitForPosts(
    count: number,
    timeoutMs?: number,
  ): Promise<Array<{ channel: string; text: string; blocks: Array<Record<string, unknown>>; at: number }>>;
  /** What Slack would have refused (invalid_blocks), by method and reason: a harness fails on close when there is any. */
  refused: string[];
  /** The messages the app changed with chat.update, in order. */
  updates(): Array<{ channel: string; ts: string; text: string; blocks: Array<Record<string, unknown>> }>;
  /** The next `times` calls of a Web API method are never answered (Slack stalling); they end when the stand-in closes. */
  stall(method: string, times?: number): void;
  /** Answers a Web API method with this handler from now on, e.g. apps.connections.open for a Socket Mode stand-in. */
  handle(method: string, handler: ApiHandler): void;
  /** Requests received and not answered yet (stalled ones aside: they are never answered). */
  readonly inFlight: number;
  close(): Promise<void>;
}

/** The channel Slack answers a post with: a user's DM with the app (D…) for a user id, else the channel itself. */
export function dmChannel(channel: string): string {
  return /^[UW]/.test(channel) ? `D${channel.slice(1)}` : channel;
}

/** A Web API call as a handler sees it: the Authorization header too, since app-level tokens travel there. */
export type ApiHandler = (call: { params: URLSearchParams; authorization: string | undefined }) => Record<string, unknown>;

/** What Slack checks of a Web API call's message or view; nothing for other methods. */
function payloadProblems(method: string, params: URLSearchParams): string[] {
  const json = (key: string) => {
    const v = params.get(key);
    return v === null ? undefined : (JSON.parse(v) as unknown);
  };
  if (method === 'chat.postMessage' || method === 'chat.update')
    return messageProblems({ text: params.get('text') ?? undefined, blocks: json('blocks') });
  if (method === 'views.open' || method === 'views.update' || method === 'views.push' || method === 'views.publish')
    return viewProblems(json('view'));
  return [];
}

/** `now`: the clock Web API calls are stamped with (performance.now() unless a test moves its own). */
export async function startFakeSlack(options: { now?: () => number } = {}): Promise<FakeSlack> {
  const now = options.now ?? (() => performance.now());
  const refused: string[] = [];
  const responses = new Map<string, ResponseBody[]>();
  const apiCalls: Array<{ method: string; body: string; at: number }> = [];
  const events = new EventEmitter();
  const timeZones = new Map<string, string>();
  const userGroups = new Map<string, string[]>();
  const closedChannels = new Set<string>();
  const limits = new Map<string, { retryAfter: number; times: number }>();
  const stalls = new Map<string, number>();
  const posts: Array<{ channel: string; text: string; blocks: Array<Record<string, unknown>>; at: number }> = [];
  const updated: Array<{ channel: string; ts: string; text: string; blocks: Array<Record<string, unknown>> }> = [];
  const handlers = new Map<string, ApiHandler>();
  let next = 0;
  const unanswered = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    unanswered.add(res);
    res.on('close', () => unanswered.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://x');
      const response = /^\/response\/(\w+)$/.exec(url.pathname);
      if (response) {
        const id = response[1] as string;
        const list = responses.get(id) ?? [];
        const problems = messageProblems(JSON.parse(body));
        // Slack would refuse it; the test hears of it when the harness closes, with the reasons.
        if (problems.length > 0) {
          refused.push(`response_url: ${problems.join('; ')}`);
          res.writeHead(400, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ ok: false, error: 'invalid_blocks' }));
        }
        list.push(JSON.parse(body) as ResponseBody);
        responses.set(id, list);
        events.emit(id);
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('ok');
      }
      const api = /^\/api\/([\w.]+)$/.exec(url.pathname);
      if (api) {
        const method = api[1] as string;
        apiCalls.push({ method, body, at: now() });
        const params = new URLSearchParams(body);
        const problems = payloadProblems(method, params);
        if (problems.length > 0) {
          refused.push(`${method}: ${problems.join('; ')}`);
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ ok: false, error: 'invalid_blocks', response_metadata: { messages: problems } }));
        }
        const stalled = stalls.get(method) ?? 0;
        if (stalled > 0) {
          stalls.set(method, stalled - 1);
          unanswered.delete(res);
          return;
        }
        const limit = limits.get(method);
        if (limit && limit.times > 0) {
          limit.times--;
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limit.retryAfter) });
          return res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        }
        if (method === 'chat.postMessage' && closedChannels.has(params.get('channel') ?? '')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ ok: false, error: 'not_in_channel' }));
        }
        // Slack delivers a message posted to a user id in their DM with the app, and answers with that
        // DM's channel (D…); the DM is updated by it, never by the user id.
        if (method === 'chat.update' && /^[UW]/.test(params.get('channel') ?? '')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ ok: false, error: 'channel_not_found' }));
        }
        if (method === 'chat.update') {
          updated.push({
            channel: params.get('channel') ?? '',
            ts: params.get('ts') ?? '',
            text: params.get('text') ?? '',
            blocks: JSON.parse(params.get('blocks') ?? '[]') as Array<Record<string, unknown>>,
          });
        }
        if (method === 'chat.postMessage') {
          posts.push({
            channel: params.get('channel') ?? '',
            text: params.get('text') ?? '',
            blocks: JSON.parse(params.get('blocks') ?? '[]') as Array<Record<string, unknown>>,
            at: Date.now(),
          });
        }
        const handler = handlers.get(method);
        if (handler) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify(handler({ params, authorization: req.headers.authorization })));
        }
        const answer: Record<string, unknown> =
          method === 'auth.test'
            ? {
                ok: true,
                url: 'https://example.slack.com/',
                team: 'Example',
                user: 'countersign',
                team_id: 'T0001',
                user_id: 'UBOT',
                bot_id: 'BBOT',
              }
            : method === 'users.info'
              ? { ok: true, user: { id: params.get('user'), tz: timeZones.get(params.get('user') ?? '') ?? 'UTC' } }
              : method === 'views.open' || method === 'views.update' || method === 'views.push'
                ? { ok: true, view: { id: params.get('view_id') ?? `V${apiCalls.length}` } }
                : method === 'usergroups.users.list'
                  ? { ok: true, users: userGroups.get(params.get('usergroup') ?? '') ?? [] }
                  : method === 'chat.postMessage'
                    ? {
                        ok: true,
                        channel: dmChannel(params.get('channel') ?? ''),
                        ts: `1700000000.${String(posts.length).padStart(6, '0')}`,
                      }
                    : { ok: true };
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(answer));
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api/`,
    apiCalls,
    refused,
    timeZones,
    userGroups,
    closedChannels,
    rateLimit(method, retryAfter, times = 1) {
      limits.set(method, { retryAfter, times });
    },
    stall(method, times = 1) {
      stalls.set(method, times);
    },
    get inFlight() {
      return unanswered.size;
    },
    posted: () => posts,
    updates: () => updated,
    handle(method, handler) {
      handlers.set(method, handler);
    },
    waitForPosts(count, timeoutMs = 10_000) {
      return eventually(
        () => `${count} chat.postMessage calls, got ${posts.length}`,
        () => posts.length >= count && posts,
        timeoutMs,
      );
    },
    responseUrl() {
      next++;
      const id = `r${next}`;
      return { id, url: `${url}/response/${id}` };
    },
    responses: (id) => responses.get(id) ?? [],
    waitForResponses(id, count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const list = responses.get(id) ?? [];
          if (list.length >= count) {
            events.off(id, check);
            clearTimeout(timer);
            resolve(list);
          }
        };
        const timer = setTimeout(() => {
          events.off(id, check);
          reject(new Error(`expected ${count} responses on ${id}, got ${JSON.stringify(responses.get(id) ?? [])}`));
        }, timeoutMs);
        events.on(id, check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** All a person reads of a response: its fallback text, then its blocks as visible() writes them. */
export function textOf(body: ResponseBody | undefined): string {
  if (body === undefined) return '';
  return [body.text ?? '', visible(body.blocks)].join('\n');
}

/** The views the app sent with views.open / views.update, in order. */
export function viewsSent(
  slack: FakeSlack,
  method: 'views.open' | 'views.update' | 'views.push',
): Array<{ view: Record<string, unknown>; viewId: string | null; triggerId: string | null }> {
  return slack.apiCalls
    .filter((c) => c.method === method)
    .map((c) => {
      const p = new URLSearchParams(c.body);
      return {
        view: JSON.parse(p.get('view') ?? '{}') as Record<string, unknown>,
        viewId: p.get('view_id'),
        triggerId: p.get('trigger_id'),
      };
    });
}

export function buttonsOf(body: ResponseBody | undefined): Array<{ action_id: string; value?: string; text: string }> {
  const out: Array<{ action_id: string; value?: string; text: string }> = [];
  for (const block of body?.blocks ?? []) {
    if (block.type !== 'actions') continue;
    for (const el of block.elements as Array<{ type: string; action_id: string; value?: string; text: { text: string } }>) {
      // A select ("Details of…") is no button.
      if (el.type !== 'button') continue;
      out.push({ action_id: el.action_id, ...(el.value === undefined ? {} : { value: el.value }), text: el.text.text });
    }
  }
  return out;
}

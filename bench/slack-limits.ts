/**
 * A Slack stand-in that enforces Slack's documented rate limits on the methods a digest uses,
 * answering 429 with Retry-After past them, and keeps the record a benchmark needs: each
 * chat.postMessage that got through (by channel, by caller), each 429, and whether the caller
 * waited as Retry-After said before it tried again.
 *
 * What Slack documents, and how it is modelled (token buckets; the numbers are Slack's where it
 * gives one, and a stated reading where it does not):
 * - chat.postMessage, "Special" tier (https://docs.slack.dev/reference/methods/chat.postMessage):
 *   "It will generally allow an app to post 1 message per second to a specific channel. There
 *   are limits governing your app's relationship with the entire workspace above that, limiting
 *   posting to several hundred messages per minute. Generous burst behavior is also granted."
 *   Modelled as one bucket per channel (1 a second, bursts of `channelBurst`) and one per
 *   workspace (`postsPerMinute`, "several hundred": 600 unless told, bursts of `postBurst`).
 * - users.info, Tier 4 (https://docs.slack.dev/apis/web-api/rate-limits): "100+ per minute ...
 *   generous burst behavior": one bucket of `lookupsPerMinute` (100) with bursts of `lookupBurst`.
 * - past a limit: "HTTP 429 Too Many Requests ... and a Retry-After HTTP header containing the
 *   number of seconds until you can retry" (same page). Here: whole seconds until the bucket
 *   holds a token again, at least 1.
 * Each caller is told apart by its bot token (the benchmark gives each instance its own), so that
 * whether a 429 was honoured is judged per caller; the limits count all callers together, as
 * Slack counts one app in one workspace.
 */

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackLimits {
  /** chat.postMessage per workspace, per minute ("several hundred"). 0: no workspace limit. */
  postsPerMinute: number;
  postBurst: number;
  /** chat.postMessage to one channel: 1 a second, and this many at once. */
  channelBurst: number;
  /** users.info per minute (Tier 4, "100+"). 0: no limit. */
  lookupsPerMinute: number;
  lookupBurst: number;
}

export const DOCUMENTED_LIMITS: SlackLimits = {
  postsPerMinute: 600,
  postBurst: 100,
  channelBurst: 3,
  lookupsPerMinute: 100,
  lookupBurst: 100,
};

/** A token bucket: `wait` answers 0 when a call may go, or the milliseconds until one may; `take` spends a token. */
class Bucket {
  #tokens: number;
  #at: number;
  constructor(
    readonly perSecond: number,
    readonly capacity: number,
    now: number,
  ) {
    this.#tokens = capacity;
    this.#at = now;
  }
  wait(now: number): number {
    this.#tokens = Math.min(this.capacity, this.#tokens + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    return this.#tokens >= 1 ? 0 : ((1 - this.#tokens) / this.perSecond) * 1000;
  }
  take(): void {
    this.#tokens -= 1;
  }
}

export interface Posted {
  channel: string;
  caller: string;
  /** performance.now() when it arrived. */
  at: number;
}

interface Limited {
  method: string;
  channel: string;
  caller: string;
  at: number;
  retryAfterS: number;
  /** When the same caller next asked for the same channel (the retry), if it did. */
  retriedAt?: number;
}

export interface LimitReport {
  /** 429s answered, by method. */
  limited: Record<string, number>;
  /** chat.postMessage 429s whose retry (same caller, same channel) came no sooner than Retry-After. */
  honoured: number;
  /** …and those retried sooner. */
  early: number;
  /** …and those never retried: the message was given up. */
  neverRetried: number;
  /** Calls to a method from a caller that was still inside a Retry-After it had been given for it (after 50 ms in flight). */
  callsDuringWait: number;
  /** The longest Retry-After given, in seconds. */
  maxRetryAfterS: number;
}

export interface LimitedSlack {
  apiUrl: string;
  posted: readonly Posted[];
  /** Calls answered by method (429s included). */
  calls: Map<string, number>;
  report(): LimitReport;
  /** Forgets what was posted and limited; with limits, starts full buckets of them. */
  reset(limits?: SlackLimits): void;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Whatever arrives within this of a 429 was already on its way: not counted against the caller. */
const IN_FLIGHT_GRACE_MS = 50;

export async function startLimitedSlack(limits: SlackLimits, timeZone = 'Europe/Berlin'): Promise<LimitedSlack> {
  const start = performance.now();
  let workspacePosts: Bucket | undefined;
  let lookups: Bucket | undefined;
  let channelBurst = limits.channelBurst;
  const setLimits = (l: SlackLimits, now: number) => {
    workspacePosts = l.postsPerMinute > 0 ? new Bucket(l.postsPerMinute / 60, l.postBurst, now) : undefined;
    lookups = l.lookupsPerMinute > 0 ? new Bucket(l.lookupsPerMinute / 60, l.lookupBurst, now) : undefined;
    channelBurst = l.channelBurst;
  };
  setLimits(limits, start);
  const channels = new Map<string, Bucket>();
  let posted: Posted[] = [];
  let limited: Limited[] = [];
  const awaitingRetry = new Map<string, Limited>();
  /** The last 429 each caller got, by method: until when it was asked to wait. */
  const waits = new Map<string, { from: number; until: number }>();
  let callsDuringWait = 0;
  const calls = new Map<string, number>();

  const server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const now = performance.now();
      const method = /^\/api\/([\w.]+)$/.exec(req.url ?? '')?.[1] ?? '';
      calls.set(method, (calls.get(method) ?? 0) + 1);
      const params = new URLSearchParams(body);
      const caller = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '') || (params.get('token') ?? '');
      const channel = params.get('channel') ?? params.get('user') ?? '';
      const wait = waits.get(`${caller} ${method}`);
      if (wait !== undefined && now > wait.from + IN_FLIGHT_GRACE_MS && now < wait.until) callsDuringWait++;
      // The retry of a message that was limited: the same caller, the same method and channel.
      const key = `${caller} ${method} ${channel}`;
      const pending = awaitingRetry.get(key);
      if (pending !== undefined) {
        pending.retriedAt = now;
        awaitingRetry.delete(key);
      }
      const refuse = (ms: number) => {
        const retryAfterS = Math.max(1, Math.ceil(ms / 1000));
        const l: Limited = { method, channel, caller, at: now, retryAfterS };
        limited.push(l);
        awaitingRetry.set(key, l);
        waits.set(`${caller} ${method}`, { from: now, until: now + retryAfterS * 1000 });
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfterS) });
        res.end('{"ok":false,"error":"ratelimited"}');
      };
      const json = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (method === 'auth.test') return json({ ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0001' });
      if (method === 'users.info') {
        const ms = lookups?.wait(now) ?? 0;
        if (ms > 0) return refuse(ms);
        lookups?.take();
        return json({ ok: true, user: { id: channel, tz: timeZone } });
      }
      if (method === 'chat.postMessage') {
        let bucket = channels.get(channel);
        if (bucket === undefined) {
          bucket = new Bucket(1, channelBurst, now);
          channels.set(channel, bucket);
        }
        // A refused call spends nothing: Slack counts what it accepts.
        const ms = Math.max(bucket.wait(now), workspacePosts?.wait(now) ?? 0);
        if (ms > 0) return refuse(ms);
        bucket.take();
        workspacePosts?.take();
        posted.push({ channel, caller, at: now });
        return json({ ok: true, channel, ts: `${Math.floor(Date.now() / 1000)}.${String(posted.length).padStart(6, '0')}` });
      }
      return json({ ok: true });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${url}/api/`,
    get posted() {
      return posted;
    },
    calls,
    report() {
      const byMethod: Record<string, number> = {};
      let honoured = 0;
      let early = 0;
      let neverRetried = 0;
      let maxRetryAfterS = 0;
      for (const l of limited) {
        byMethod[l.method] = (byMethod[l.method] ?? 0) + 1;
        maxRetryAfterS = Math.max(maxRetryAfterS, l.retryAfterS);
        if (l.method !== 'chat.postMessage') continue;
        if (l.retriedAt === undefined) neverRetried++;
        else if (l.retriedAt - l.at >= l.retryAfterS * 1000 - 5) honoured++;
        else early++;
      }
      return { limited: byMethod, honoured, early, neverRetried, callsDuringWait, maxRetryAfterS };
    },
    reset(next) {
      if (next !== undefined) {
        setLimits(next, performance.now());
        channels.clear();
      }
      posted = [];
      limited = [];
      awaitingRetry.clear();
      callsDuringWait = 0;
      calls.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

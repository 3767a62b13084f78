/**
 * Answers through response_url. Bolt's own respond() goes through axios, which cost a fifth of
 * the app's CPU under load; this posts with undici over kept-alive connections. The URL is a
 * capability (anyone holding it may post for 30 minutes), so it is never logged.
 */

import type { RespondArguments } from '@slack/bolt';
import { Agent, type Dispatcher, request } from 'undici';

/** A message already written as the JSON body of its post (the /approvals page): sent as it is, not stringified again. */
export class PreparedBody {
  constructor(readonly json: string) {}
}

export type Respond = (message: RespondArguments | PreparedBody) => Promise<void>;

export interface Responder {
  to(responseUrl: string): Respond;
  close(): Promise<void>;
}

export class ResponseUrlError extends Error {
  constructor(readonly status: number) {
    super(`response_url answered ${status}`);
    this.name = 'ResponseUrlError';
  }
}

export function createResponder(
  options: { dispatcher?: Dispatcher; timeoutMs?: number; onError?: (error: string) => void } = {},
): Responder {
  const own = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRetryAfterS = 10;
  return {
    to(responseUrl) {
      return async (message) => {
        if (!/^https?:\/\//.test(responseUrl)) throw new TypeError('the request carried no usable response_url');
        const body = message instanceof PreparedBody ? message.json : JSON.stringify(message);
        for (let attempt = 1; ; attempt++) {
          let status: number;
          let retryAfter: string | undefined;
          try {
            const res = await request(responseUrl, {
              method: 'POST',
              dispatcher,
              headers: { 'content-type': 'application/json; charset=utf-8' },
              body,
              headersTimeout: timeoutMs,
              bodyTimeout: timeoutMs,
            });
            await res.body.dump();
            status = res.statusCode;
            retryAfter = res.headers['retry-after'] as string | undefined;
          } catch (error) {
            options.onError?.((error as { code?: string }).code ?? 'network');
            throw error;
          }
          if (status >= 200 && status < 300) return;
          options.onError?.(String(status));
          // Slack busy (429, 5xx): once more, after what it asks for (a few seconds at most). 404 and
          // other 4xx mean the URL is spent or expired: nothing will change.
          if (attempt > 1 || !(status === 429 || status >= 500)) throw new ResponseUrlError(status);
          const waitS = Math.min(Math.max(Number(retryAfter) || 1, 0), maxRetryAfterS);
          await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
        }
      };
    },
    async close() {
      if (own) await dispatcher.close();
    },
  };
}

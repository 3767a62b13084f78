/**
 * Answers through response_url. Bolt's own respond() goes through axios, which cost a fifth of
 * the app's CPU under load; this posts with undici over kept-alive connections. The URL is a
 * capability (anyone holding it may post for 30 minutes), so it is never logged.
 */

import type { RespondArguments } from '@slack/bolt';
import { Agent, type Dispatcher, request } from 'undici';

export type Respond = (message: RespondArguments) => Promise<void>;

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
  return {
    to(responseUrl) {
      return async (message) => {
        if (!/^https?:\/\//.test(responseUrl)) throw new TypeError('the request carried no usable response_url');
        let status: number;
        try {
          const res = await request(responseUrl, {
            method: 'POST',
            dispatcher,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body: JSON.stringify(message),
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
          });
          await res.body.dump();
          status = res.statusCode;
        } catch (error) {
          options.onError?.((error as { code?: string }).code ?? 'network');
          throw error;
        }
        if (status < 200 || status >= 300) {
          options.onError?.(String(status));
          throw new ResponseUrlError(status);
        }
      };
    },
    async close() {
      if (own) await dispatcher.close();
    },
  };
}

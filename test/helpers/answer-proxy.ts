/**
 * An HTTP proxy in front of the Command Service that answers one command its own way, as a gateway,
 * a load balancer or a misbehaving service may: a 200 `{}` for a call it never passed on, a 408 sent
 * after the service acted, the call passed on with another action. Everything else is forwarded as it
 * is, so the service behind stays the one truth a test reads.
 */

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OddAnswer {
  /** The command (`cmd`) this rule answers. */
  command: string;
  /** Passed on to the service first (its answer read and dropped), or not at all. */
  passOn: boolean;
  /** Passed on with these query parameters set instead (e.g. another action). */
  rewrite?: Record<string, string>;
  status: number;
  body: string;
  contentType?: string;
  /** Never answered (nor passed on): the caller's own deadline ends it. */
  hang?: boolean;
}

export interface AnswerProxy {
  /** The base URL to give the app: the service's path (`/aveksa`) on the proxy's port. */
  readonly url: string;
  /** The service's base URL; set once it has started. */
  target: string;
  /** The rule in force, or none: everything passed on as it is. */
  rule: OddAnswer | undefined;
  /** Several rules in force, one a command. */
  rules: OddAnswer[];
  /** Requests the rule answered. */
  readonly answered: number;
  close(): Promise<void>;
}

function forward(
  target: string,
  path: string,
  req: IncomingMessage,
  url: string,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; reason: string; body: Buffer }> {
  const base = new URL(target);
  const suffix = url.startsWith(path) ? url.slice(path.length) : url;
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: `${base.pathname}${suffix}`,
        headers: { ...req.headers, 'content-length': String(body.length) },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () =>
          resolve({
            status: answer.statusCode ?? 502,
            headers: answer.headers,
            reason: answer.statusMessage ?? '',
            body: Buffer.concat(chunks),
          }),
        );
        answer.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

export async function startAnswerProxy(path = '/aveksa'): Promise<AnswerProxy> {
  let answered = 0;
  const proxy = { target: '', rules: [] as OddAnswer[] };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        let url = req.url ?? '/';
        const query = new URL(url, 'http://proxy.invalid').searchParams;
        const rule = proxy.rules.find((r) => r.command === query.get('cmd'));
        if (rule === undefined) {
          const a = await forward(proxy.target, path, req, url, body);
          res.writeHead(a.status, a.reason, a.headers as Record<string, string>).end(a.body);
          return;
        }
        answered++;
        if (rule.hang) return;
        if (rule.passOn) {
          if (rule.rewrite) {
            for (const [k, v] of Object.entries(rule.rewrite)) query.set(k, v);
            url = `${url.split('?')[0]}?${query.toString()}`;
          }
          await forward(proxy.target, path, req, url, body);
        }
        res.writeHead(rule.status, { 'content-type': rule.contentType ?? 'application/json' }).end(rule.body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    get target() {
      return proxy.target;
    },
    set target(value: string) {
      proxy.target = value;
    },
    get rule() {
      return proxy.rules[0];
    },
    set rule(value: OddAnswer | undefined) {
      proxy.rules = value === undefined ? [] : [value];
    },
    get rules() {
      return proxy.rules;
    },
    set rules(value: OddAnswer[]) {
      proxy.rules = value;
    },
    get answered() {
      return answered;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

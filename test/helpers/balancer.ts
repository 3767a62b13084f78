/**
 * An HTTP load balancer in front of service nodes, as an operator might put one: it forwards each
 * request, path and query, headers and body as they are, to the node its routing picks. The test
 * sets the routing: `only(i)` sends everything to one node (a failover moves it), `roundRobin()`
 * sends each request to the next node, without sticky sessions.
 */

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  /** The base URL to give the app: the nodes' path (`/aveksa`) on the balancer's port. */
  readonly url: string;
  /** The nodes' base URLs, in order; set once they have started. */
  nodes: string[];
  only(index: number): void;
  roundRobin(): void;
  /** Requests forwarded to each node so far. */
  readonly forwarded: number[];
  close(): Promise<void>;
}

export async function startBalancer(path = '/aveksa'): Promise<Balancer> {
  let route: { kind: 'only'; index: number } | { kind: 'round-robin'; next: number } = { kind: 'only', index: 0 };
  const forwarded: number[] = [];
  const balancer = {
    nodes: [] as string[],
    forwarded,
  };
  const pick = (): number => {
    if (route.kind === 'only') return route.index;
    const index = route.next % balancer.nodes.length;
    route.next = index + 1;
    return index;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const index = pick();
    const target = balancer.nodes[index];
    if (target === undefined) {
      res.writeHead(503).end('no node');
      return;
    }
    forwarded[index] = (forwarded[index] ?? 0) + 1;
    const base = new URL(target);
    const suffix = (req.url ?? '/').startsWith(path) ? (req.url ?? '/').slice(path.length) : (req.url ?? '/');
    const upstream = httpRequest(
      { host: base.hostname, port: base.port, method: req.method, path: `${base.pathname}${suffix}`, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(balancer, {
    url: `http://127.0.0.1:${port}${path}`,
    only(index: number) {
      route = { kind: 'only', index };
    },
    roundRobin() {
      route = { kind: 'round-robin', next: 0 };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

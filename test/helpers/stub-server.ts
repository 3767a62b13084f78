import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's port: the same port on two requests means one kept-alive connection. */
  remotePort: number | undefined;
}

export interface StubServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback whose answers a test scripts, for the service behaviours the
 * reference service does not have (a hang, a reset, a truncated body, a Java stack trace).
 */
export async function startStubServer(handler: (req: IncomingMessage, res: ServerResponse, index: number) => void): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      });
      handler(req, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/aveksa`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendHtml(res: ServerResponse, status: number, message: string, queryString?: string): void {
  const q = queryString === undefined ? '' : `<p>Query String=${queryString}</p>`;
  res.writeHead(status, { 'content-type': 'text/html' });
  res.end(`<html><head><title>Error</title></head><body><h1>Error</h1><p>${message}</p>${q}</body></html>`);
}

export function sendBody(res: ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

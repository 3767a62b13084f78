/**
 * A large POST streamed from one small buffer, as an attacker would send it: the test never holds
 * the body, so whatever memory grows is the server's. It stops sending once the server answers.
 */

import { request } from 'node:http';

export interface StreamedPost {
  /** The server's status, or the socket error when it cut the connection before answering. */
  status: number | string;
  /** Bytes handed to the socket before the answer came (the kernel may not have delivered them all). */
  sent: number;
}

export function streamPost(
  url: string,
  options: { bytes: number; chunked?: boolean; headers?: Record<string, string>; chunkBytes?: number },
): Promise<StreamedPost> {
  const chunk = Buffer.alloc(options.chunkBytes ?? 64 * 1024, 'a');
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...options.headers };
  if (!options.chunked) headers['content-length'] = String(options.bytes);
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers });
    let sent = 0;
    let answered = false;
    let settled = false;
    const settle = (status: number | string) => {
      if (settled) return;
      settled = true;
      resolve({ status, sent });
      req.destroy();
    };
    req.on('response', (res) => {
      answered = true;
      res.resume();
      settle(res.statusCode ?? 'no status');
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) settle(error.code ?? error.message);
    });
    const write = () => {
      while (!answered && !settled && sent < options.bytes) {
        const piece = sent + chunk.length <= options.bytes ? chunk : chunk.subarray(0, options.bytes - sent);
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', write);
      }
      if (!answered && !settled) req.end();
    };
    write();
  });
}

/** Headers that look signed (a timestamp inside the window) but carry a signature that is wrong. */
export function plausibleHeaders(): Record<string, string> {
  return { 'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)), 'x-slack-signature': `v0=${'0'.repeat(64)}` };
}

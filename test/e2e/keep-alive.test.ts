/**
 * A refused request must not take the keep-alive connection down with it: behind a proxy that pools
 * its upstream connections, the next request on that connection may be anyone's, Slack's included.
 */

import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SIGNING_SECRET, sign, startHarness, TEAM } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ startScheduler: false });
  await h.link('UADA', 'approver');
});
afterAll(() => h.close());

/** What arrives on the socket, until `pattern` is in it. */
function until(socket: Socket, pattern: RegExp, seen: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(seen.text)) {
        socket.off('data', onData);
        socket.off('close', onClose);
        resolve(seen.text);
      }
    };
    const onData = (chunk: Buffer) => {
      seen.text += chunk.toString('latin1');
      check();
    };
    const onClose = () => reject(new Error(`the connection closed; it had said: ${seen.text}`));
    if (socket.destroyed) return onClose();
    socket.on('data', onData);
    socket.on('close', onClose);
    check();
  });
}

describe('a keep-alive connection', () => {
  it('serves a request that is still arriving a second after an early refusal on the same connection', async () => {
    const { port } = new URL(h.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const seen = { text: '' };
    try {
      // Refused before its body is read (no signature): the answer comes while the body is unread.
      socket.write('POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      await until(socket, /^HTTP\/1\.1 401[\s\S]*\r\n0\r\n\r\n/, seen);

      // Then a genuine command on the same connection, whose body takes longer than a second to arrive.
      const form = new URLSearchParams({
        team_id: TEAM,
        user_id: 'UADA',
        command: '/approvals',
        text: 'help',
        channel_id: 'C0OPS',
        response_url: h.slack.responseUrl().url,
        trigger_id: '1234.keepalive',
      }).toString();
      const headers = sign(form, SIGNING_SECRET, Math.floor(Date.now() / 1000));
      seen.text = '';
      socket.write(
        `POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(form)}\r\n` +
          `X-Slack-Request-Timestamp: ${headers['x-slack-request-timestamp']}\r\nX-Slack-Signature: ${headers['x-slack-signature']}\r\n\r\n` +
          form.slice(0, 20),
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      socket.write(form.slice(20));
      expect(await until(socket, /^HTTP\/1\.1 200/, seen)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  });
});

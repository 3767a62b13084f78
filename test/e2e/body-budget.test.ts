/**
 * Bodies are read before their signature can be checked, so anyone can make the app hold them. A
 * flood of large bodies that look signed (a current timestamp, any signature) must never turn away
 * Slack's own small requests: Slack does not retry a slash command or a click that got 503.
 */

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const KiB = 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ startScheduler: false });
  await h.link('UADA', 'approver');
});
afterAll(() => h.close());

/** A chunked POST that sends `bytes` and then waits, never ending its body; resolves once they are written. */
function holdOpen(url: string, bytes: number): Promise<{ close(): void; status(): number | undefined }> {
  const req = httpRequest(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-slack-signature': `v0=${'0'.repeat(64)}`,
    },
  });
  let status: number | undefined;
  req.on('response', (res) => {
    status = res.statusCode;
    res.resume();
  });
  req.on('error', () => undefined);
  return new Promise((resolve) => req.write(Buffer.alloc(bytes, 'a'), () => resolve({ close: () => req.destroy(), status: () => status })));
}

describe('the memory budget for bodies being read', () => {
  it('keeps room for Slack’s small signed requests while large unsigned bodies hold all they may', async () => {
    // 64 bodies of 1 MiB (the most one may have) held open: 64 MiB, all that bodies together were allowed before.
    const held = await Promise.all(Array.from({ length: 64 }, () => holdOpen(`${h.url}/slack/events`, 1024 * KiB)));
    try {
      await eventually('a held body turned away', () => held.some((r) => r.status() === 503));
      const sent = await h.command('UADA', '/approvals', 'page-size:2');
      expect(sent.status).toBe(200);
      expect(textOf((await h.slack.waitForResponses(sent.responseId, 1))[0])).toContain('Pending approvals');
      // It is the flood that was turned away: the part for large bodies is spent.
      expect(held.some((r) => r.status() === 503)).toBe(true);
    } finally {
      for (const r of held) r.close();
    }
  });
});

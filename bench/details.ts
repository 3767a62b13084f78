/**
 * Details: how long from a Details click to the views.update that carries the approval's details
 * and the first page of its items, against the reference service in its own process. The click
 * is signed and sent as Slack sends it; Slack's side answers views.open with a view id and notes
 * when each views.update arrives. Also the ack, and the loading view (views.open).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { Secret } from '../src/runtime/secret.js';
import { createServiceClient } from '../src/service/index.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { sign } from '../test/helpers/harness.js';
import { fmt, percentile, startChildService } from './lib.js';
import { startApp } from './slack.js';

const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
const KEY = Buffer.alloc(32, 4).toString('base64');
const USERS = Array.from({ length: 20 }, (_, i) => `UDETAIL${String(i).padStart(4, '0')}`);

/** Slack's side: views.open answers the view id V<n> for trigger t.<n>; each views.update's arrival is noted by view id. */
async function startViewSink() {
  const opened = new Map<number, number>();
  const updated = new Map<number, { at: number; details: boolean }>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      let body = '{"ok":true}';
      if (req.url?.includes('users.info')) body = '{"ok":true,"user":{"tz":"Europe/Berlin"}}';
      else if (req.url?.includes('auth.test')) body = '{"ok":true,"user_id":"UBOT","bot_id":"BBOT","team_id":"T0001"}';
      else if (req.url?.includes('views.open')) {
        const n = Number(/^t\.(\d+)$/.exec(params.get('trigger_id') ?? '')?.[1]);
        opened.set(n, at);
        body = JSON.stringify({ ok: true, view: { id: `V${n}` } });
      } else if (req.url?.includes('views.update')) {
        const n = Number(/^V(\d+)$/.exec(params.get('view_id') ?? '')?.[1]);
        updated.set(n, { at, details: (params.get('view') ?? '').includes('What the request asks for') });
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${url}/api/`,
    responseUrl: `${url}/response`,
    opened,
    updated,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function detailsSuite(): Promise<void> {
  const CLICKS = 500;
  const WARM_UP = 50;
  console.log(
    `\n## Details: click → views.update with the details (getApprovalDetails and getRequestItems together; app and reference service in their own processes; ${CLICKS} clicks after ${WARM_UP} to warm up)`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-details-'));
  const service = await startChildService();
  const sink = await startViewSink();
  try {
    const token = service.tokens.get('approver') ?? '';
    const store = new SqliteStore(join(dir, 'countersign.db'), new Secret(KEY));
    for (const user of USERS)
      await store.setToken({ teamId: 'T0001', userId: user }, ['findApprovals'], new Secret(token), 'admin', new Date());
    await store.close();
    const client = createServiceClient({ baseUrl: service.url });
    const ids = (await client.findApprovals({ 'page-size': 100, state: 'all' }, new Secret(token))).approvals.map((a) => a.workItemId);
    await client.close();

    const app = await startApp('countersign', {
      SLACK_BOT_TOKEN: 'xoxb-0000-1111-benchbench',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: sink.apiUrl,
      COMMAND_SERVICE_URL: service.url,
      TOKEN_ENCRYPTION_KEY: KEY,
      DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
      PORT: '0',
      LOG_LEVEL: 'error',
      COMMANDS_PER_MINUTE: '0',
    });
    const pool = new Pool(`http://127.0.0.1:${app.port}`, { connections: 16 });
    let n = 0;
    const click = async (): Promise<{ n: number; sent: number; ackMs: number }> => {
      const i = ++n;
      const payload = {
        type: 'block_actions',
        user: { id: USERS[i % USERS.length], team_id: 'T0001' },
        team: { id: 'T0001' },
        container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0BENCH', is_ephemeral: true },
        trigger_id: `t.${i}`,
        response_url: `${sink.responseUrl}/${i}`,
        actions: [
          { action_id: 'approval:details', block_id: 'b', type: 'button', value: JSON.stringify({ a: ids[i % ids.length], o: 'p' }) },
        ],
      };
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const sent = performance.now();
      const res = await pool.request({
        path: '/slack/events',
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body, SIGNING_SECRET, Math.floor(Date.now() / 1000)) },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      return { n: i, sent, ackMs: performance.now() - sent };
    };
    /** `inFlight` clicks at a time, each waiting for its details before the next. */
    const run = async (total: number, inFlight: number) => {
      const samples: Array<{ n: number; sent: number; ackMs: number }> = [];
      let left = total;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (left-- > 0) {
            const s = await click();
            samples.push(s);
            const deadline = performance.now() + 30_000;
            while (!sink.updated.has(s.n) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
          }
        }),
      );
      return samples;
    };
    await run(WARM_UP, 4);
    for (const inFlight of [1, 8]) {
      const samples = await run(CLICKS, inFlight);
      const sorted = (xs: number[]) => xs.sort((a, b) => a - b);
      const acks = sorted(samples.map((s) => s.ackMs));
      const opens = sorted(samples.flatMap((s) => (sink.opened.has(s.n) ? [(sink.opened.get(s.n) as number) - s.sent] : [])));
      const shown = samples.flatMap((s) => {
        const u = sink.updated.get(s.n);
        return u?.details ? [u.at - s.sent] : [];
      });
      const details = sorted(shown);
      console.log(
        `${inFlight} in flight: click → details p50 ${fmt(percentile(details, 50), 1)} ms, p99 ${fmt(percentile(details, 99), 1)} ms ` +
          `(${details.length} of ${samples.length} showed details); loading view p50 ${fmt(percentile(opens, 50), 1)} ms, p99 ${fmt(percentile(opens, 99), 1)} ms; ` +
          `ack p50 ${fmt(percentile(acks, 50), 2)} ms, p99 ${fmt(percentile(acks, 99), 2)} ms`,
      );
    }
    await pool.close();
    await app.stop();
  } finally {
    await sink.close();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Another process holding the SQLite file's write lock (the CLI linking a token, a key rotation, a
 * backup) must not freeze the app: better-sqlite3 is synchronous, and SQLite's own busy wait would
 * hold the event loop, so acks, health checks and users who need no store would all wait with it.
 * The app acks at once, /healthz answers, and the command is answered once the lock is gone.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from '#sqlite';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-lock-'));
const file = join(dir, 'countersign.db');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { DATABASE_URL: `sqlite:${file}` }, startScheduler: false });
  await h.link('UADA', 'approver');
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Holds the write lock as another process's transaction would, until the returned function is called. */
function holdWriteLock(): () => void {
  // A second connection: SQLite locks the file for it as for another process.
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  other.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(999_999, 0);
  return () => {
    other.exec('ROLLBACK');
    other.close();
  };
}

function signaturesStored(): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM slack_signatures_by_expiry').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('while another process holds the SQLite write lock', () => {
  it('acks a command at once, answers /healthz, and answers the command once the lock is gone, losing no write', async () => {
    const before = signaturesStored();
    const release = holdWriteLock();
    let released = false;
    try {
      const sent = await h.command('UADA', '/approvals', 'page-size:2');
      // Slack gives up at 3 s; before, the signature's write held the event loop for 5 s or more.
      expect(sent.status).toBe(200);
      expect(sent.ackMs).toBeLessThan(3000);

      const healthStarted = performance.now();
      const health = await request(`${h.url}/healthz`);
      await health.body.dump();
      expect(performance.now() - healthStarted).toBeLessThan(2500);
      expect([200, 503]).toContain(health.statusCode);

      // A user whose command needs no store is answered while the lock is held.
      const help = await h.command('UEVE', '/approvals', 'help');
      expect(help.ackMs).toBeLessThan(3000);
      expect(textOf((await h.slack.waitForResponses(help.responseId, 1, 2000))[0])).toContain('/approvals');

      setTimeout(() => {
        released = true;
        release();
      }, 1500);
      const [answer] = await h.slack.waitForResponses(sent.responseId, 1, 10_000);
      expect(textOf(answer)).toContain('Pending approvals');
      // The two requests' signatures reached the store once it was free: another instance refuses their replays too.
      await expect.poll(signaturesStored, { timeout: 5000 }).toBeGreaterThanOrEqual(before + 2);
    } finally {
      if (!released) release();
    }
  });
});

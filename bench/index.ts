/**
 * `npm run bench [-- <suite> …]`: prints figures, asserts nothing (speed is read, not tested).
 * Suites: client (service client vs a raw undici loop, same run: bench/client.ts), reference
 * (findApprovals latency over 1,000,000 approvals), floor (countersign against a minimal app doing
 * the same work: bench/floor.ts), slack (ack latency at 200 commands/s, own time per
 * /approvals), pipeline (the full pipeline at 200, 500 and 1000
 * commands/s for 30 s each against a bare Bolt app; BENCH_SECONDS and BENCH_RATES change that),
 * details (a Details click to the views.update carrying the approval's details, p50/p99),
 * memory (RSS and heap after GC idle, after 100,000 requests and at 200/s, with a leak check),
 * digests (10,000 approvers' 09:00 digests against a slow service and Slack's rate limits; about
 * half an hour, so it runs only when named), arrivals (10,000 approvers watched for new approvals by
 * two instances against a slow service: a few minutes, only when named), parsers (the client's readers on hostile bodies and error
 * pages at their limits, and a Details view from megabytes of text). With no suite named, all the others run.
 */

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { openReferenceDb } from '../src/reference-service/db.js';
import { loadBulkData } from '../src/reference-service/demo.js';
import { arrivalsSuite } from './arrivals.js';
import { clientSuite } from './client.js';
import { detailsSuite } from './details.js';
import { digestsSuite } from './digests.js';
import { floorSuite } from './floor.js';
import { fmt, median, percentile, ROOT, startChildService } from './lib.js';
import { memorySuite } from './memory.js';
import { parsersSuite } from './parsers.js';
import { pipelineSuite, slackSuite } from './slack.js';

const suites: Record<string, () => Promise<void>> = {
  client: clientSuite,
  reference: referenceSuite,
  slack: slackSuite,
  pipeline: pipelineSuite,
  details: detailsSuite,
  floor: floorSuite,
  memory: memorySuite,
  digests: digestsSuite,
  arrivals: arrivalsSuite,
  parsers: parsersSuite,
};
/** Run only when named: they take long. */
const ON_REQUEST = new Set(['digests', 'arrivals']);

async function referenceSuite(): Promise<void> {
  const TOTAL = 1_000_000;
  const APPROVERS = 1_000;
  const dir = join(ROOT, 'data', 'bench');
  const file = join(dir, `reference-${TOTAL}.db`);
  console.log(
    `\n## Reference service findApprovals over ${fmt(TOTAL, 0)} approvals (${APPROVERS} approvers; sequential requests over HTTP)`,
  );
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const started = performance.now();
    const db = openReferenceDb(file);
    loadBulkData(db, new Date(), TOTAL, APPROVERS);
    db.close();
    console.log(`built ${file} in ${fmt((performance.now() - started) / 1000)} s (kept for later runs)`);
  }
  const service = await startChildService(['--data', file]);
  try {
    const base = new URL(service.url);
    // The application token acts for any approver through auth-user-id, so one token reaches all 1,000.
    const token = service.tokens.get('trusted-app') ?? '';
    const pool = new Pool(base.origin, { connections: 1 });
    const queries: Array<[string, string]> = [
      ['default (pending, due asc, 20)', ''],
      ['sort=desc', '&sort=desc'],
      ['state=all, page 5 of 20', '&state=all&start-page=5'],
      ['state=completed, page-size 100', '&state=completed&page-size=100'],
      ['entitlement-name filter', '&entitlement-name=domain%20admins&state=all'],
      ['due-after + due-before', '&due-after=01-jan-2020&due-before=31-dec-2099'],
    ];
    const all: number[] = [];
    const rows: string[] = [];
    let sample = 0;
    for (const [label, extra] of queries) {
      const times: number[] = [];
      for (let i = 0; i < 300; i++) {
        const approver = `approver-${1 + ((i * 7919) % APPROVERS)}`;
        const path = `${base.pathname}/command.submit?cmd=findApprovals&format=json&auth-user-id=${approver}${extra}`;
        const started = performance.now();
        const res = await pool.request({ path, method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
        const body = await res.body.text();
        const ms = performance.now() - started;
        if (res.statusCode !== 200) throw new Error(`${res.statusCode}: ${body.slice(0, 200)}`);
        if (i >= 20) times.push(ms); // the first requests warm the page cache and the statement cache
        if (i === 20) sample = JSON.parse(body).findApprovals.NumApprovals;
      }
      times.sort((a, b) => a - b);
      all.push(...times);
      rows.push(
        `${label.padEnd(32)} median ${fmt(percentile(times, 50), 2)} ms  p99 ${fmt(percentile(times, 99), 2)} ms  (${sample} approvals per answer)`,
      );
    }
    for (const row of rows) console.log(row);
    console.log(
      `all queries: median ${fmt(median(all), 2)} ms (goal < 10 ms), p99 ${fmt(
        percentile(
          [...all].sort((a, b) => a - b),
          99,
        ),
        2,
      )} ms`,
    );
    await pool.close();
  } finally {
    await service.stop();
  }
}

const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = requested.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`unknown suite(s): ${unknown.join(', ')}; known: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
console.log(`countersign bench — node ${process.version}, ${new Date().toISOString()}`);
for (const name of requested.length > 0 ? requested : Object.keys(suites).filter((s) => !ON_REQUEST.has(s)))
  await (suites[name] as () => Promise<void>)();

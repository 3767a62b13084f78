/**
 * `npm run bench -- client`: the service client against a raw undici loop sending the exact same
 * request, each with 16 calls in flight to the reference service (in its own process). The client
 * is the compiled one, as the app runs it. Rounds are short and many, each a pair (raw and client,
 * in alternating order) so that the machine's drift between rounds falls on both sides alike; the
 * figure is the client's calls over the raw loop's, summed over all pairs, printed with the median
 * pair and each quarter's median (how steady the run was). CPU per call is this process's own, which
 * is where the client's work is. BENCH_CLIENT_ROUNDS (40) and BENCH_CLIENT_SECONDS (0.5) change the
 * rounds; BENCH_CLIENT_VERBOSE prints each pair.
 */

import { join } from 'node:path';
import { Pool } from 'undici';
import type { Secret as SecretType } from '../src/runtime/secret.js';
import type { createServiceClient as Create } from '../src/service/index.js';
import { buildTree } from './build.js';
import { fmt, median, ROOT, startChildService } from './lib.js';

const CONCURRENCY = 16;

/** `CONCURRENCY` callers back to back for `seconds`: calls a second, and this process's CPU per call. */
async function loop(seconds: number, once: () => Promise<void>): Promise<{ perSecond: number; cpuUs: number; errors: number }> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  let errors = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        try {
          await once();
          calls++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSecond: calls / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / calls, errors };
}

export async function clientSuite(): Promise<void> {
  const ROUNDS = Number(process.env.BENCH_CLIENT_ROUNDS ?? 40);
  const SECONDS = Number(process.env.BENCH_CLIENT_SECONDS ?? 0.5);
  console.log(
    `\n## Service client vs raw undici (reference service in its own process; ${CONCURRENCY} in flight; ${ROUNDS} pairs of ${SECONDS} s rounds, alternating order)`,
  );
  const build = buildTree(ROOT, 'floor-ours', ['bench/floor-app.ts', 'src/main.ts']);
  const { createServiceClient } = (await import(join(build, 'src', 'service', 'index.js'))) as { createServiceClient: typeof Create };
  const { Secret } = (await import(join(build, 'src', 'runtime', 'secret.js'))) as { Secret: typeof SecretType };
  const service = await startChildService();
  try {
    const token = service.tokens.get('approver') ?? '';
    const base = new URL(service.url);
    // The exact request the client sends, so the two loops differ only in the client's own work.
    const path = `${base.pathname}/command.submit?cmd=findApprovals&format=json&page-size=20`;
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
    const pool = new Pool(base.origin, { connections: 32 });
    const client = createServiceClient({ baseUrl: service.url });
    const secret = new Secret(token);
    const raw = async () => {
      const res = await pool.request({ path, method: 'GET', headers });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(text);
      JSON.parse(text);
    };
    const ours = async () => {
      await client.findApprovals({ 'page-size': 20 }, secret);
    };
    // Warm both paths (JIT, connections, the server's statement cache).
    await loop(2, raw);
    await loop(2, ours);
    const ratios: number[] = [];
    const rawCpu: number[] = [];
    const ourCpu: number[] = [];
    let rawCalls = 0;
    let ourCalls = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const rawFirst = round % 2 === 1;
      const first = await loop(SECONDS, rawFirst ? raw : ours);
      const second = await loop(SECONDS, rawFirst ? ours : raw);
      const [r, o] = rawFirst ? [first, second] : [second, first];
      ratios.push(o.perSecond / r.perSecond);
      rawCalls += r.perSecond;
      ourCalls += o.perSecond;
      rawCpu.push(r.cpuUs);
      ourCpu.push(o.cpuUs);
      if (process.env.BENCH_CLIENT_VERBOSE)
        console.log(
          `round ${String(round).padStart(2)} (${rawFirst ? 'raw first' : 'client first'}): raw undici ${fmt(r.perSecond, 0)} calls/s at ${fmt(r.cpuUs, 0)} µs CPU each, ` +
            `client ${fmt(o.perSecond, 0)} calls/s at ${fmt(o.cpuUs, 0)} µs CPU each${r.errors + o.errors ? ` (${r.errors + o.errors} errors)` : ''}: ${fmt(100 * (o.perSecond / r.perSecond))} %`,
        );
    }
    const held = ratios.filter((x) => x >= 0.9).length;
    // Each quarter of the pairs on its own: how steady the figure is within one run.
    const quarter = Math.ceil(ROUNDS / 4);
    const quarters = [0, 1, 2, 3].map((q) => fmt(100 * median(ratios.slice(q * quarter, (q + 1) * quarter)), 0));
    console.log(
      `client / raw = ${fmt((100 * ourCalls) / rawCalls)} % of the calls over all pairs; median pair ${fmt(100 * median(ratios))} %, by quarter of the run ${quarters.join(' / ')} %; ${held} of ${ROUNDS} pairs ≥ 90 % (goal ≥ 90 %)`,
    );
    console.log(`CPU per call in this process, median: raw undici ${fmt(median(rawCpu), 0)} µs, client ${fmt(median(ourCpu), 0)} µs`);
    await client.close();
    await pool.close();
  } finally {
    await service.stop();
  }
}

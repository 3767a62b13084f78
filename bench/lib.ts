/** Small helpers shared by the benchmarks: a child-process reference service, load loops, stats. */

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ChildService {
  url: string;
  tokens: Map<string, string>;
  child: ChildProcess;
  /** What the service saw so far (`countersign service` answers SIGUSR2): calls by command, the most in flight at once. */
  report(): Promise<{ calls: Map<string, number>; maxInFlight: number }>;
  stop(): Promise<void>;
}

/**
 * The reference service in its own process, as an operator runs it (`countersign service`), so
 * that the load generator and the server do not share an event loop.
 */
export async function startChildService(args: string[] = []): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'service', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Stop with Ctrl-C')) resolve(out);
    });
    child.on('exit', (code) => reject(new Error(`reference service exited with ${code}: ${out}`)));
  });
  const url = /listening on (\S+)/.exec(ready)?.[1] ?? '';
  const tokens = new Map<string, string>();
  for (const m of ready.matchAll(/^ {2}(\S+) +\S+ +(ws\S+)/gm)) tokens.set(m[1] as string, m[2] as string);
  return {
    url,
    tokens,
    child,
    report: () =>
      new Promise((resolve) => {
        let said = '';
        const onData = (c: Buffer) => {
          said += c.toString();
          const m = /Calls answered: \d+(?: \(([^)]*)\))?; at most (\d+) in flight at once\./.exec(said);
          if (!m) return;
          child.stdout?.off('data', onData);
          const calls = new Map<string, number>();
          for (const part of (m[1] ?? '').split(', ').filter(Boolean)) {
            const [command, n] = part.split(' ');
            calls.set(command as string, Number(n));
          }
          resolve({ calls, maxInFlight: Number(m[2]) });
        };
        child.stdout?.on('data', onData);
        child.kill('SIGUSR2');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
}

/** `concurrency` workers call `once` back to back for `seconds`. */
export async function closedLoop(concurrency: number, seconds: number, once: () => Promise<void>): Promise<LoadResult> {
  const deadline = performance.now() + seconds * 1000;
  let requests = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        try {
          await once();
          requests++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { requests, errors, seconds: elapsed, perSecond: requests / elapsed };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

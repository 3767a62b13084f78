import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The environment of a process a test starts: only what it is given, plus what makes it run on
 * the same clock and in the same zone as the test. A suite run under faketime (LD_PRELOAD and
 * FAKETIME*) or with TZ set must not start children on the real clock: they would refuse the
 * test's signatures as stale and count days from another date.
 */
export function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const [name, value] of Object.entries(process.env))
    if (name === 'TZ' || name === 'LD_PRELOAD' || name.startsWith('FAKETIME') || name === 'DONT_FAKE_MONOTONIC') inherited[name] = value;
  return { ...inherited, ...env };
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of the pattern, or rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Runs the CLI from source (through tsx), as `countersign …` would run from dist. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Spawned {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; stdout: ${out}; stderr: ${err}`)), timeoutMs);
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            clearTimeout(timer);
            child.stdout?.off('data', check);
            resolve(m);
          }
        };
        child.stdout?.on('data', check);
        child.on('exit', () => {
          clearTimeout(timer);
          reject(new Error(`exited before ${pattern}; stdout: ${out}; stderr: ${err}`));
        });
        check();
      });
    },
  };
}

export interface SpawnedApp {
  child: ChildProcess;
  port: number;
  /** Log lines (JSON) the app wrote to stderr so far. */
  logs(): Array<Record<string, unknown> & { msg?: string }>;
  stderr(): string;
  exited: Promise<number | null>;
}

/**
 * Runs src/main.ts as operators run it (configured by `env` alone), and resolves once it logs
 * that it is running, with its port. Rejects with its stderr when it exits first.
 */
export async function spawnApp(env: Record<string, string>, options: { preload?: string; timeoutMs?: number } = {}): Promise<SpawnedApp> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const preload = options.preload === undefined ? [] : ['--import', options.preload];
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'src/main.ts'], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout?.resume();
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs = () =>
    err
      .split('\n')
      .filter((l) => l.startsWith('{') && l.endsWith('}'))
      .map((l) => JSON.parse(l) as Record<string, unknown> & { msg?: string });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind a failed test.
      child.kill('SIGKILL');
      reject(new Error(`the app did not start: ${err}`));
    }, timeoutMs);
    const look = () => {
      const running = logs().find((l) => l.msg === 'countersign is running');
      if (typeof running?.port === 'number') {
        clearTimeout(timer);
        resolve(running.port);
      }
    };
    child.stderr?.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code}) before it was running: ${err}`));
    });
  });
  return { child, port, logs, stderr: () => err, exited };
}

/** Starts a new peak of resident memory for the process (Linux: VmHWM is reset by writing 5 to clear_refs); false where it cannot. */
export function resetPeakMemory(pid: number | undefined): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak and current resident memory of a process, in MiB (Linux); undefined elsewhere. */
export function memoryOf(pid: number | undefined): { peakMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
    return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

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
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
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

/**
 * The admin CLI run in this process, as `countersign …` runs it, with the test's clock, zone, input
 * and environment (nothing of the machine's): seconds faster than a process per call, and on the
 * same clock as the test. A few smoke tests still start the real process (test/cli.test.ts).
 */

import { Readable } from 'node:stream';
import { runCli } from '../../src/admin/cli.js';
import type { CliIo } from '../../src/admin/io.js';

export interface CliRun {
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of the pattern, or rejects once the run ends without it. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** As the process's signals would: SIGTERM and SIGINT stop `service`, SIGUSR2 asks it for its figures. */
  signal(name: 'SIGTERM' | 'SIGINT' | 'SIGUSR2'): void;
  /** The exit code. */
  exited: Promise<number>;
}

export interface CliOptions {
  now?: () => Date;
  timeZone?: string;
}

export function cli(args: string[], env: NodeJS.ProcessEnv = {}, input = '', options: CliOptions = {}): CliRun {
  let out = '';
  let err = '';
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const reports = new Set<() => void>();
  const waiting = new Set<() => void>();
  const said = () => {
    for (const check of waiting) check();
  };
  const io: CliIo = {
    env,
    stdin: Readable.from([Buffer.from(input)]),
    stdout: {
      write(text: string) {
        out += text;
        said();
        return true;
      },
    },
    stderr: {
      write(text: string) {
        err += text;
        return true;
      },
    },
    now: options.now ?? (() => new Date()),
    timeZone: options.timeZone ?? 'UTC',
    untilStopped: () => stopped,
    onReport(report) {
      reports.add(report);
      return () => reports.delete(report);
    },
  };
  let ended = false;
  const exited = runCli(args, io).finally(() => {
    ended = true;
    said();
  });
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    signal(name) {
      if (name === 'SIGUSR2') for (const report of reports) report();
      else stop();
    },
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            waiting.delete(check);
            resolve(m);
          } else if (ended) {
            waiting.delete(check);
            reject(new Error(`ended before ${pattern}; stdout: ${out}; stderr: ${err}`));
          }
        };
        waiting.add(check);
        check();
      });
    },
  };
}

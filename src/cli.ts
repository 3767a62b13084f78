#!/usr/bin/env node

/** The admin CLI's process: its arguments, streams, clock, zone and signals, handed to runCli. */

import { runCli } from './admin/cli.js';
import { printable } from './admin/output.js';

runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  terminal: process.stdin.isTTY ? process.stderr : undefined,
  stdout: process.stdout,
  stderr: process.stderr,
  now: () => new Date(),
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  untilStopped: () =>
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
  onReport(report) {
    process.on('SIGUSR2', report);
    return () => process.off('SIGUSR2', report);
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`countersign: ${printable((error as Error).message)}\n`);
    process.exitCode = 1;
  },
);

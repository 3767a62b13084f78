#!/usr/bin/env node
/**
 * The admin CLI (`countersign …`). Exit codes: 0 done, 1 failed, 2 wrong usage. Messages go to
 * stderr, results to stdout, so that scripts can pipe the output.
 */

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_RUN_TIMINGS } from './reference-service/commands.js';
import { openReferenceDb } from './reference-service/db.js';
import { loadBulkData, loadDemoData } from './reference-service/demo.js';
import { type DemoToken, startReferenceService } from './reference-service/server.js';

const USAGE = `Usage: countersign <command> [options]

Commands:
  service [--port N] [--host H] [--data demo|<file.db>] [--approvals N]
      Run the reference Command Service alone. --data demo (the default) keeps a fresh
      demo data set in memory; a file path keeps the data in that SQLite file (created and
      filled with demo data when new; with --approvals N, N generated approvals as well).
  help
      Show this text.

Examples:
  countersign service --port 4000
  countersign service --data ./data/reference.db --approvals 1000000
`;

class UsageError extends Error {}

export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'service':
        return await serviceCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`countersign: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`countersign: ${(error as Error).message}\n`);
    return 1;
  }
}

function positiveInt(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not '${value}'`);
  return n;
}

async function serviceCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: 'demo' },
      approvals: { type: 'string' },
    },
  });
  const port = positiveInt(values.port, '--port', 0, 65_535) ?? 4000;
  const approvals = positiveInt(values.approvals, '--approvals', 1, 50_000_000);
  const inMemory = values.data === 'demo';
  if (inMemory && approvals !== undefined)
    throw new UsageError('--approvals needs --data <file.db>: a large data set is built once and kept');

  let db: ReturnType<typeof openReferenceDb> | undefined;
  if (!inMemory) {
    const isNew = !existsSync(values.data);
    db = openReferenceDb(values.data);
    const empty = (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n === 0;
    if (isNew || empty) {
      const started = Date.now();
      process.stderr.write(`Filling ${values.data} with ${approvals === undefined ? 'the demo data set' : `${approvals} approvals`}…\n`);
      if (approvals === undefined) loadDemoData(db, new Date());
      else loadBulkData(db, new Date(), approvals);
      process.stderr.write(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
    }
  }

  const service = await startReferenceService({ db, port, host: values.host });
  // Listen for signals before saying "listening": a supervisor may stop us the moment it reads that line.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  const count = (sql: string) => (service.db.prepare(sql).get() as { n: number }).n;
  process.stdout.write(
    [
      `Reference Command Service listening on ${service.url}`,
      `  ${count('SELECT count(*) AS n FROM approvals')} approvals, ${count('SELECT count(*) AS n FROM collectors')} collectors; ` +
        `runs stay New ${DEFAULT_RUN_TIMINGS.queuedMs / 1000} s, then Running ${DEFAULT_RUN_TIMINGS.runningMs / 1000} s.`,
      '',
      'Demo tokens (valid 24 hours):',
      ...formatTokens(service.demoTokens),
      '',
      'Demo logins (loginUser): ada.lovelace, grace.hopper, oscar.ops with password "demo";',
      '  katherine.johnson with password "demo" and authsource corp-ldap.',
      '',
      'Try:',
      `  curl -H "Authorization: Bearer $TOKEN" '${service.url}/command.submit?cmd=findApprovals&format=json&page-size=2'`,
      '',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );

  await stopped;
  await service.close();
  db?.close();
  process.stderr.write('Reference Command Service stopped.\n');
  return 0;
}

function formatTokens(tokens: readonly DemoToken[]): string[] {
  const width = (f: (t: DemoToken) => string) => Math.max(...tokens.map((t) => f(t).length));
  const w1 = width((t) => t.label);
  const w2 = width((t) => t.userId);
  return tokens.map((t) => `  ${t.label.padEnd(w1)}  ${t.userId.padEnd(w2)}  ${t.token}  (${t.note})`);
}

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`countersign: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);

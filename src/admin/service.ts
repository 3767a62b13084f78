/** `countersign service`: the reference Command Service alone, for trying countersign against it or for a test bed. */

import { existsSync } from 'node:fs';
import { DEFAULT_RUN_TIMINGS } from '../reference-service/commands.js';
import { openReferenceDb } from '../reference-service/db.js';
import { loadBulkData, loadDemoData } from '../reference-service/demo.js';
import { type DemoToken, newTrustedApp, startReferenceService } from '../reference-service/server.js';
import { latencyMs, parseOptions, positiveInt } from './args.js';
import { type CliIo, UsageError } from './io.js';
import { printable } from './output.js';

export async function serviceCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions('service', args, {
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    data: { type: 'string', default: 'demo' },
    approvals: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    disable: { type: 'string' },
    latency: { type: 'string' },
  });
  const port = positiveInt(values.port, '--port', 0, 65_535) ?? 4000;
  const delayMs = latencyMs(values.latency) ?? 0;
  // A test service's made-up credentials: on the command line, unlike anything countersign itself holds.
  const made = newTrustedApp();
  const trustedApp = { clientId: values['client-id'] ?? made.clientId, clientSecret: values['client-secret'] ?? made.clientSecret };
  for (const [flag, value] of [
    ['--client-id', trustedApp.clientId],
    ['--client-secret', trustedApp.clientSecret],
  ] as const) {
    if (!/^[\x21-\x7e]{1,256}$/.test(value)) throw new UsageError(`${flag} takes 1 to 256 visible characters, without spaces`);
  }
  const disabled = values.disable === undefined ? [] : values.disable.split(',').map((c) => c.trim());
  if (disabled.some((c) => !/^[A-Za-z]{1,64}$/.test(c)))
    throw new UsageError('--disable takes command names separated by commas, e.g. --disable getApprovalDetails,getRequestItems');
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
      const started = performance.now();
      io.stderr.write(`Filling ${values.data} with ${approvals === undefined ? 'the demo data set' : `${approvals} approvals`}…\n`);
      if (approvals === undefined) loadDemoData(db, io.now());
      else loadBulkData(db, io.now(), approvals);
      io.stderr.write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
    }
  }

  // Listened for before saying "listening": a supervisor may stop us the moment it reads that line.
  const stopped = io.untilStopped();
  let service: Awaited<ReturnType<typeof startReferenceService>>;
  try {
    service = await startReferenceService({
      db,
      port,
      host: values.host,
      trustedApp,
      quirks: { disabledCommands: disabled },
      delayMs,
      now: io.now,
    });
  } catch (error) {
    db?.close();
    const why = listenProblem((error as { code?: string }).code, port, values.host);
    if (why === undefined) throw error;
    io.stderr.write(`countersign: ${printable(why)}\n`);
    return 1;
  }
  const report = () => {
    const byCommand = [...service.calls].map(([command, n]) => `${command} ${n}`).join(', ');
    const total = [...service.calls.values()].reduce((a, b) => a + b, 0);
    return `Calls answered: ${total}${total > 0 ? ` (${byCommand})` : ''}; at most ${service.load.maxInFlight} in flight at once.\n`;
  };
  // For whoever watches a run under load (a benchmark): what the server itself saw, so far.
  const stopReporting = io.onReport(() => io.stdout.write(report()));
  const count = (sql: string) => (service.db.prepare(sql).get() as { n: number }).n;
  io.stdout.write(
    [
      `Reference Command Service listening on ${service.url}`,
      `  ${count('SELECT count(*) AS n FROM approvals')} approvals, ${count('SELECT count(*) AS n FROM collectors')} collectors; ` +
        `runs stay New ${DEFAULT_RUN_TIMINGS.queuedMs / 1000} s, then Running ${DEFAULT_RUN_TIMINGS.runningMs / 1000} s.`,
      `  Its times are written in ${service.timeZone}: give countersign COMMAND_SERVICE_TIME_ZONE=${service.timeZone}.`,
      ...(disabled.length > 0 ? [`  Switched off: ${disabled.join(', ')} (404 with the command's name as the reason phrase).`] : []),
      ...(delayMs > 0 ? [`  Every call waits ${delayMs} ms before it is answered (--latency).`] : []),
      '',
      'Demo tokens (valid 24 hours):',
      ...formatTokens(service.demoTokens),
      '',
      'Demo logins (loginUser): ada.lovelace, grace.hopper, oscar.ops with password "demo";',
      '  katherine.johnson with password "demo" and authsource corp-ldap.',
      '',
      'Trusted application (loginTrustedApp; its tokens act for the user named by auth-user-id):',
      `  COMMAND_SERVICE_CLIENT_ID=${service.trustedApp.clientId}`,
      `  COMMAND_SERVICE_CLIENT_SECRET=${service.trustedApp.clientSecret}`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer $TOKEN" '${service.url}/command.submit?cmd=findApprovals&format=json&page-size=2'`,
      '',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );

  await stopped;
  stopReporting();
  await service.close();
  db?.close();
  io.stderr.write(`Reference Command Service stopped. ${report()}`);
  return 0;
}

/** Why the service could not listen there, and what to do, for the errors a person can act on; undefined for others. */
function listenProblem(code: string | undefined, port: number, host: string): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (another countersign service, or another program). Stop that, or give another port: countersign service --port ${port === 65_535 ? 4000 : port + 1}`;
    case 'EACCES':
      return `this user may not listen on port ${port} on ${host} (ports below 1024 need privileges). Give another port: countersign service --port 4000`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine. Give one of its own with --host, such as --host 127.0.0.1`;
    default:
      return undefined;
  }
}

function formatTokens(tokens: readonly DemoToken[]): string[] {
  const width = (f: (t: DemoToken) => string) => Math.max(...tokens.map((t) => f(t).length));
  const w1 = width((t) => t.label);
  const w2 = width((t) => t.userId);
  return tokens.map((t) => `  ${t.label.padEnd(w1)}  ${t.userId.padEnd(w2)}  ${t.token}  (${t.note})`);
}

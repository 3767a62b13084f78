/**
 * One app instance as its own process, for the several-instances tests: the real app, configured
 * by the environment like main.ts, with the background jobs ticking fast enough for a test to
 * watch them. Prints {"port":N} once listening; SIGTERM stops it as main.ts does.
 */

import { loadSlackConfig } from '../../src/config.js';
import { startCountersign } from '../../src/main.js';

const running = await startCountersign(loadSlackConfig(process.env), {
  host: '127.0.0.1',
  reminders: { tickMs: 200, spreadMs: 0 },
  runWatch: { tickMs: 200, firstPollMs: 300, maxIntervalMs: 500 },
});
process.stdout.write(`${JSON.stringify({ port: running.port })}\n`);
process.once('SIGTERM', () => {
  running.shutdown().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});

/**
 * One app under load, in its own process: `countersign` (the real app, as main.ts starts it) or
 * `bare` (a Bolt app with the same receiver that only acks), so both are measured alike.
 * Prints "READY <port>" when listening.
 */

import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { loadSlackConfig } from '../src/config.js';
import { startCountersign } from '../src/main.js';
import { createLogger } from '../src/runtime/logger.js';

const kind = process.argv[2];
const config = loadSlackConfig(process.env);
let stop: () => Promise<void>;
if (kind === 'bare') {
  const receiver = new HTTPReceiver({ signingSecret: config.slack.signingSecret.reveal(), logLevel: LogLevel.ERROR });
  const app = new App({
    token: config.slack.botToken.reveal(),
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: config.slack.apiUrl ?? '' },
  });
  app.command(/.*/, async ({ ack }) => ack());
  const server = (await receiver.start(0)) as import('node:http').Server;
  process.stdout.write(`READY ${(server.address() as import('node:net').AddressInfo).port}\n`);
  stop = async () => {
    await app.stop();
  };
} else {
  // BENCH_MAX_IN_FLIGHT: the closed-loop rounds measure the cost of every command, so nothing may be shed there.
  const maxInFlight = process.env.BENCH_MAX_IN_FLIGHT ? Number(process.env.BENCH_MAX_IN_FLIGHT) : undefined;
  // BENCH_CLOCK_OFFSET_MS: the app's clock runs at real speed from another instant (the digests
  // benchmark puts 09:00 a few seconds ahead), so that waits (the service's, Slack's) stay real.
  const offset = Number(process.env.BENCH_CLOCK_OFFSET_MS ?? 0);
  const running = await startCountersign(config, {
    logger: createLogger({ level: config.logLevel }),
    host: '127.0.0.1',
    ...(maxInFlight ? { maxInFlight } : {}),
    ...(offset !== 0 ? { now: () => new Date(Date.now() + offset) } : {}),
  });
  process.stdout.write(`READY ${running.port}\n`);
  stop = () => running.shutdown();
}
// The bench asks for this process's CPU time, to compare the apps' own cost per command.
process.on('SIGUSR2', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(`CPU ${user + system} RSS ${process.memoryUsage().rss} MAXRSS ${process.resourceUsage().maxRSS * 1024}\n`);
});
process.once('SIGTERM', () => {
  void stop().then(() => process.exit(0));
});

/**
 * "Nothing happened" in an end-to-end test: what the app did not do is known once the work it took
 * has ended, not after a guess at how long it would take. Waits until every app's work after the
 * ack (its Background) has ended and Slack's stand-in has answered every request it received;
 * anything the app was going to send for what it took has been sent by then.
 */

import type { Running } from '../../src/main.js';
import { eventually } from './eventually.js';
import type { FakeSlack } from './fake-slack.js';

type Apps = { slack: FakeSlack } & ({ app: Running } | { apps: readonly Running[] });

export async function settled(parts: Apps, timeoutMs = 10_000): Promise<void> {
  const apps = 'app' in parts ? [parts.app] : parts.apps;
  const busy = () => apps.reduce((n, app) => n + app.deps.background.size, 0);
  await eventually(
    () => `the apps' work to end (${busy()} tasks running, ${parts.slack.inFlight} requests to Slack unanswered)`,
    async () => {
      await Promise.all(apps.map((app) => app.deps.background.drain()));
      // A request Slack's stand-in has just answered may still be on its way back: a turn for it.
      await new Promise((resolve) => setImmediate(resolve));
      return busy() === 0 && parts.slack.inFlight === 0;
    },
    timeoutMs,
  );
}

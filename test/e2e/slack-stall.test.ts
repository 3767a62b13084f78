/**
 * Slack stalling: a chat.postMessage that is never answered must not hold a /collect for ever. The
 * collection has started in the service, so the starter (and the channel) hear of it through the
 * command's response_url, with the run ids, and the runs are followed from the store (a restart
 * picks them up) even though the channel message never came.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

const clock = new TestClock('2026-11-22T12:00:00Z');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, runTimings: { queuedMs: 1_000, runningMs: 5_000 } },
    env: { COLLECT_COOLDOWN: '0' },
    startScheduler: false,
    announceWithinMs: 300,
  });
  await h.link('UOSCAR', 'ops');
});
afterAll(() => h.close());

describe('when Slack does not answer chat.postMessage', () => {
  it('tells the starter through the command, with the run ids, and follows the runs from the store, across a restart', async () => {
    h.slack.stall('chat.postMessage');
    const sent = await h.command('UOSCAR', '/collect', 'Salesforce Users', { channelId: 'C0OPS' });
    expect(sent.ackMs).toBeLessThan(3000);
    const [answer] = await h.slack.waitForResponses(sent.responseId, 1, 5000);
    expect(answer?.response_type).toBe('in_channel');
    expect(textOf(answer)).toMatch(/<@UOSCAR> started 1 collection .*Salesforce Users \(run \d+\)/s);
    expect(textOf(answer)).toContain('Slack did not take the live message in time');

    // The watch was stored before the post: a new process follows the runs.
    await h.restart();
    const before = h.service.calls.get('getRunStatus') ?? 0;
    clock.advance(10_000);
    expect((await h.app.runWatcher.tick()).polled).toBe(1);
    expect(h.service.calls.get('getRunStatus') ?? 0).toBeGreaterThan(before);
  });
});

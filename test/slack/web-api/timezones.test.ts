import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, silentLogger } from '../../../src/runtime/logger.js';
import { Secret } from '../../../src/runtime/secret.js';
import { slackClients } from '../../../src/slack/web-api/chat.js';
import { slackTimeZones } from '../../../src/slack/web-api/timezones.js';
import { TestClock } from '../../helpers/clock.js';
import { type FakeSlack, startFakeSlack } from '../../helpers/fake-slack.js';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack.close();
});

const lookupsOf = () => slack.apiCalls.filter((c) => c.method === 'users.info').length;

describe('slackTimeZones', () => {
  it('reads a zone once and serves it from the cache', async () => {
    slack.timeZones.set('UONE', 'Asia/Tokyo');
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const zones = slackTimeZones(
      slackClients({ botToken: new Secret('xoxb-0000-1111-zones'), signingSecret: new Secret('x'), apiUrl: slack.apiUrl }).lookups,
      silentLogger,
      clock.now,
    );
    const before = lookupsOf();
    expect(await zones.lookup('UONE')).toBe('Asia/Tokyo');
    expect(await zones.lookup('UONE')).toBe('Asia/Tokyo');
    expect(lookupsOf() - before).toBe(1);
  });

  it('on a 429 answers at once without a zone, and asks Slack nothing more until Retry-After has passed', async () => {
    slack.timeZones.set('UTWO', 'America/Chicago');
    slack.timeZones.set('UTHREE', 'Europe/Paris');
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const clients = slackClients({ botToken: new Secret('xoxb-0000-1111-zones'), signingSecret: new Secret('x'), apiUrl: slack.apiUrl });
    const zones = slackTimeZones(clients.lookups, silentLogger, clock.now);
    slack.rateLimit('users.info', 30);
    const before = lookupsOf();
    // Waiting out 30 s for a zone would hold a digest (or a command's "today") that long; the caller
    // has a fallback (the reminder's stored zone, or UTC), so the answer is "not known" at once.
    const first = await Promise.race([
      zones.lookup('UTWO'),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000).unref()),
    ]);
    expect(first).toBeUndefined();
    expect(lookupsOf() - before).toBe(1);
    // Slack asked for 30 s of quiet: nobody's zone is asked for meanwhile.
    clock.advance(29_000);
    expect(await zones.lookup('UTHREE')).toBeUndefined();
    expect(lookupsOf() - before).toBe(1);
    clock.advance(1_000);
    expect(await zones.lookup('UTHREE')).toBe('Europe/Paris');
    expect(await zones.lookup('UTWO')).toBe('America/Chicago');
    expect(lookupsOf() - before).toBe(3);
  });

  it('says it is rate limited once a minute, with how many times, not at every 429 of a burst', async () => {
    const clock = new TestClock('2026-11-23T08:00:00Z');
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', write: (line) => lines.push(line) });
    const clients = slackClients({ botToken: new Secret('xoxb-0000-1111-zones'), signingSecret: new Secret('x'), apiUrl: slack.apiUrl });
    const zones = slackTimeZones(clients.lookups, logger, clock.now);
    for (let i = 0; i < 5; i++) {
      slack.rateLimit('users.info', 2);
      expect(await zones.lookup(`UBURST${i}`)).toBeUndefined();
      clock.advance(2_000);
    }
    expect(lines).toHaveLength(1);
    clock.advance(60_000);
    slack.rateLimit('users.info', 2);
    await zones.lookup('UBURSTX');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] as string)).toMatchObject({ level: 'warn', timesSinceLastSaid: 5, retryAfterSeconds: 2 });
  });
});

import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArrivalMessage, ArrivalState } from '../../../src/arrivals/ports.js';
import type { CollectStatus } from '../../../src/collections/runs.js';
import { silentLogger } from '../../../src/runtime/logger.js';
import { Metrics } from '../../../src/runtime/metrics.js';
import { Secret } from '../../../src/runtime/secret.js';
import { createChat, slackClients } from '../../../src/slack/web-api/chat.js';
import { slackTimeZones } from '../../../src/slack/web-api/timezones.js';
import { eventually } from '../../helpers/eventually.js';
import { type FakeSlack, startFakeSlack } from '../../helpers/fake-slack.js';
import { ManualTimer } from '../../helpers/timer.js';

function fakeClient(fail?: string, timer = new ManualTimer()) {
  const calls: Array<{ method: string; channel: string; at: number }> = [];
  const record = (method: string) => async (args: { channel: string }) => {
    calls.push({ method, channel: args.channel, at: timer.now() });
    if (fail) throw Object.assign(new Error(`An API error occurred: ${fail}`), { data: { error: fail } });
    return { ok: true, ts: '1.1' };
  };
  const client = {
    chat: { postMessage: record('chat.postMessage'), update: record('chat.update') },
    usergroups: { users: { list: async () => ({ ok: true, users: ['U1'] }) } },
  } as unknown as WebClient;
  return { client, calls };
}

const STATUS: CollectStatus = {
  userId: 'U1',
  query: { name: 'AD Accounts' },
  runs: [{ runId: '7', collector: 'AD Accounts', state: 'Running' }],
  startedAt: new Date('2026-11-22T10:00:00Z'),
  now: new Date('2026-11-22T10:01:00Z'),
  live: { kind: 'watching', checkedAt: new Date('2026-11-22T10:01:00Z') },
};

const chatWith = (client: WebClient, metrics: Metrics, perChannelMs = 0, timer = new ManualTimer()) =>
  createChat(client, { logger: silentLogger, now: () => new Date(), metrics, approvalLinks: undefined, perChannelMs, timer });

describe('createChat', () => {
  it('writes to one channel at most once a second, other channels at once', async () => {
    const timer = new ManualTimer();
    const { client, calls } = fakeClient(undefined, timer);
    const chat = chatWith(client, new Metrics({ defaultMetrics: false }), 200, timer);
    const started = timer.now();
    await timer.run(
      Promise.all([
        chat.postStatus('C1', STATUS),
        chat.updateStatus('C1', '1.1', STATUS),
        chat.postStatus('C1', STATUS),
        chat.postStatus('C2', STATUS),
      ]),
    );
    const c1 = calls.filter((c) => c.channel === 'C1').map((c) => c.at - started);
    expect(c1).toHaveLength(3);
    expect(c1[1] as number).toBeGreaterThanOrEqual(190);
    expect(c1[2] as number).toBeGreaterThanOrEqual(390);
    expect((calls.find((c) => c.channel === 'C2')?.at ?? 0) - started).toBeLessThan(100);
  });

  it('counts failures by method and Slack error, and admits nobody by a group Slack will not list', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const { client } = fakeClient('channel_not_found');
    const chat = chatWith(client, metrics);
    await expect(chat.postStatus('C9', STATUS)).rejects.toThrow('channel_not_found');
    expect(await metrics.registry.metrics()).toContain(
      'countersign_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"} 1',
    );
    const broken = {
      chat: {},
      usergroups: { users: { list: async () => Promise.reject(new Error('missing_scope')) } },
    } as unknown as WebClient;
    expect(await chatWith(broken, metrics).userGroupMembers('S1')).toEqual([]);
  });

  it('says a message is gone when Slack says it cannot be updated again, and passes other failures on', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    for (const gone of ['message_not_found', 'channel_not_found', 'is_archived', 'cant_update_message', 'not_in_channel'])
      expect(await chatWith(fakeClient(gone).client, metrics).updateStatus('C1', '1.1', STATUS)).toBe('gone');
    await expect(chatWith(fakeClient('ratelimited').client, metrics).updateStatus('C1', '1.1', STATUS)).rejects.toThrow('ratelimited');
    expect(await chatWith(fakeClient().client, metrics).updateStatus('C1', '1.1', STATUS)).toBe('updated');
  });
});

describe('createChat after a 429', () => {
  it('sends messages of that method one at a time for a while, not all at once when Retry-After ends', async () => {
    let inFlight = 0;
    const seen: Array<{ inFlight: number; limitedBefore: boolean }> = [];
    let limited = false;
    const client = {
      chat: {
        postMessage: async () => {
          inFlight++;
          seen.push({ inFlight, limitedBefore: limited });
          await new Promise((resolve) => setTimeout(resolve, 20));
          inFlight--;
          if (!limited) {
            limited = true;
            throw Object.assign(new Error('rate limited'), { code: 'slack_webapi_rate_limited_error', retryAfter: 1 });
          }
          return { ok: true, ts: '1.1' };
        },
      },
    } as unknown as WebClient;
    const timer = new ManualTimer();
    const chat = chatWith(client, new Metrics({ defaultMetrics: false }), 0, timer);
    const first = chat.relink('U0', 'expired');
    await eventually('the first message sent', () => seen.length > 0);
    // Five more while the first is out: they go at once (nothing was refused yet)...
    const before = Array.from({ length: 5 }, (_, i) => chat.relink(`UB${i}`, 'expired'));
    await timer.run(Promise.all([first, ...before]));
    expect(Math.max(...seen.filter((s) => !s.limitedBefore).map((s) => s.inFlight))).toBeGreaterThan(1);
    // ...and after the 429 (and its second of quiet), one at a time.
    const after = Array.from({ length: 6 }, (_, i) => chat.relink(`UA${i}`, 'expired'));
    await timer.run(Promise.all(after));
    expect(seen.filter((s) => s.limitedBefore).every((s) => s.inFlight === 1)).toBe(true);
    expect(seen.filter((s) => s.limitedBefore).length).toBeGreaterThanOrEqual(6);
  });
});

describe('createChat against Slack’s rate limits (a real WebClient, a stand-in Slack)', () => {
  // Retry-After is waited out on this clock, and the stand-in stamps calls with it: seconds of it cost no time.
  const timer = new ManualTimer();
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack({ now: timer.now });
  });
  afterAll(async () => {
    await slack.close();
  });
  const chat = () =>
    createChat(
      slackClients({ botToken: new Secret('xoxb-0000-1111-ratelimits'), signingSecret: new Secret('x'), apiUrl: slack.apiUrl }).messages,
      {
        logger: silentLogger,
        now: () => new Date(),
        metrics: new Metrics({ defaultMetrics: false }),
        approvalLinks: undefined,
        perChannelMs: 0,
        timer,
      },
    );
  const postsTo = (channel: string) =>
    slack.apiCalls.filter((c) => c.method === 'chat.postMessage' && new URLSearchParams(c.body).get('channel') === channel);

  it('keeps trying a message Slack keeps refusing with 429 (it was not posted, so trying again cannot post it twice)', async () => {
    // Five 429s in a row: more than the client's own retries, which used to give the digest up.
    slack.rateLimit('chat.postMessage', 1, 5);
    const started = timer.now();
    await timer.run(chat().relink('UPATIENT', 'expired'));
    const calls = postsTo('UPATIENT');
    expect(calls).toHaveLength(6);
    expect(slack.posted().filter((p) => p.channel === 'UPATIENT')).toHaveLength(1);
    // Each retry came no sooner than the Retry-After before it.
    for (let i = 1; i < calls.length; i++) expect((calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect(timer.now() - started).toBeGreaterThanOrEqual(4_950);
  });

  it('after a 429, sends no message at all until its Retry-After has passed, then sends them all', async () => {
    const c = chat();
    slack.rateLimit('chat.postMessage', 2, 1);
    const first = c.relink('UFIRST', 'expired');
    await eventually('the first message refused, waiting out its Retry-After', () => timer.sleeping === 1);
    const others = ['USECOND', 'UTHIRD'].map((u) => c.relink(u, 'expired'));
    // Both wait too; the clock moves only once they do.
    await eventually('the other two waiting', () => timer.sleeping === 3);
    await timer.run(Promise.all([first, ...others]));
    const limitedAt = postsTo('UFIRST')[0]?.at ?? 0;
    for (const u of ['USECOND', 'UTHIRD']) {
      expect(postsTo(u)).toHaveLength(1);
      expect((postsTo(u)[0]?.at ?? 0) - limitedAt).toBeGreaterThanOrEqual(1_990);
    }
    expect(postsTo('UFIRST')).toHaveLength(2);
  });
});

describe('createChat as the arrivals’ outbox (a real WebClient, a stand-in Slack)', () => {
  const timer = new ManualTimer();
  let slack: FakeSlack;
  beforeAll(async () => {
    slack = await startFakeSlack({ now: timer.now });
    slack.timeZones.set('UARRIVE', 'America/New_York');
  });
  afterAll(async () => {
    await slack.close();
  });
  const chat = () => {
    const client = slackClients({ botToken: new Secret('xoxb-0000-1111-arrivals'), signingSecret: new Secret('x'), apiUrl: slack.apiUrl });
    return createChat(client.messages, {
      logger: silentLogger,
      now: () => new Date('2026-11-23T13:30:00Z'),
      metrics: new Metrics({ defaultMetrics: false }),
      approvalLinks: undefined,
      detailsOffered: () => true,
      decisionsOffered: () => true,
      serviceTimeZone: 'Europe/London',
      timeZones: slackTimeZones(client.lookups, silentLogger, () => new Date('2026-11-23T13:30:00Z')),
      perChannelMs: 0,
      timer,
    });
  };
  const message = (state: ArrivalState): ArrivalMessage => ({
    userId: 'UARRIVE',
    entries: [
      {
        approval: {
          approvalId: '10198:WPDS:1',
          workItemName: 'Step',
          requestName: 'Request',
          requestedBy: 'Jane',
          dueDate: '2026-11-24 17:00:00.0',
        },
        state,
      },
    ],
    more: 0,
    afterQuiet: false,
  });

  it('posts to the user and redraws the DM by the channel Slack answered (D…), never by the user id', async () => {
    const c = chat();
    const sent = await timer.run(c.announce(message({ kind: 'waiting', actions: ['Accepted'] })));
    expect(sent.channel).toBe('DARRIVE');
    const post = slack.posted().find((p) => p.channel === 'UARRIVE');
    expect(sent.ts).not.toBe('');
    // Written in the reader's zone, found by users.info.
    expect(post?.text).toContain('Due Tue 24 Nov 2026, 12:00 New York time');
    expect(JSON.stringify(post?.blocks)).toContain('Decide: Accepted');
    const decided = message({ kind: 'decided', action: 'Accepted', by: 'UARRIVE', at: new Date('2026-11-23T13:35:00Z') });
    expect(await timer.run(c.redraw(sent.channel, sent.ts, decided))).toBe('updated');
    const update = slack.updates().at(-1);
    expect(update).toMatchObject({ channel: 'DARRIVE', ts: sent.ts });
    expect(JSON.stringify(update?.blocks)).not.toContain('Decide: Accepted');
    expect(update?.text).toContain('Accepted by you');
    // Slack cannot update a DM by the user id: had the outbox kept it, the redraw would find the message gone.
    expect(await timer.run(c.redraw('UARRIVE', sent.ts, decided))).toBe('gone');
  });

  it('says a DM is gone when Slack can no longer update it', async () => {
    slack.handle('chat.update', () => ({ ok: false, error: 'message_not_found' }));
    expect(await timer.run(chat().redraw('DARRIVE', '1.1', message({ kind: 'gone', at: new Date('2026-11-23T13:35:00Z') })))).toBe('gone');
  });

  it('sends the first check’s one line to the user', async () => {
    await timer.run(chat().alreadyWaiting('UARRIVE', 3));
    expect(slack.posted().at(-1)).toMatchObject({ channel: 'UARRIVE' });
    expect(slack.posted().at(-1)?.text).toContain('3 approvals already wait for you');
  });
});

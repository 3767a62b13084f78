import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import type { CollectStatus } from '../../src/collections/runs.js';
import { silentLogger } from '../../src/runtime/logger.js';
import { Metrics } from '../../src/runtime/metrics.js';
import { createChat } from '../../src/slack/chat.js';

function fakeClient(fail?: string) {
  const calls: Array<{ method: string; channel: string; at: number }> = [];
  const record = (method: string) => async (args: { channel: string }) => {
    calls.push({ method, channel: args.channel, at: performance.now() });
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

const chatWith = (client: WebClient, metrics: Metrics, perChannelMs = 0) =>
  createChat(client, { logger: silentLogger, now: () => new Date(), metrics, approvalLinks: undefined, perChannelMs });

describe('createChat', () => {
  it('writes to one channel at most once a second, other channels at once', async () => {
    const { client, calls } = fakeClient();
    const chat = chatWith(client, new Metrics({ defaultMetrics: false }), 200);
    const started = performance.now();
    await Promise.all([
      chat.postStatus('C1', STATUS),
      chat.updateStatus('C1', '1.1', STATUS),
      chat.postStatus('C1', STATUS),
      chat.postStatus('C2', STATUS),
    ]);
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

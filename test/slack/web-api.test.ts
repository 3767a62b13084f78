import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/runtime/logger.js';
import { Metrics } from '../../src/runtime/metrics.js';
import { createSlackApi } from '../../src/slack/web-api.js';

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

describe('createSlackApi', () => {
  it('writes to one channel at most once a second, other channels at once', async () => {
    const { client, calls } = fakeClient();
    const api = createSlackApi(client, silentLogger, () => new Date(), new Metrics({ defaultMetrics: false }), { perChannelMs: 200 });
    const m = { text: 'x', blocks: [] };
    const started = performance.now();
    await Promise.all([api.postMessage('C1', m), api.updateMessage('C1', '1.1', m), api.postMessage('C1', m), api.postMessage('C2', m)]);
    const c1 = calls.filter((c) => c.channel === 'C1').map((c) => c.at - started);
    expect(c1).toHaveLength(3);
    expect(c1[1] as number).toBeGreaterThanOrEqual(190);
    expect(c1[2] as number).toBeGreaterThanOrEqual(390);
    expect((calls.find((c) => c.channel === 'C2')?.at ?? 0) - started).toBeLessThan(100);
  });

  it('counts failures by method and Slack error, and admits nobody by a group Slack will not list', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const { client } = fakeClient('channel_not_found');
    const api = createSlackApi(client, silentLogger, () => new Date(), metrics, { perChannelMs: 0 });
    await expect(api.postMessage('C9', { text: 'x', blocks: [] })).rejects.toThrow('channel_not_found');
    expect(await metrics.registry.metrics()).toContain(
      'countersign_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"} 1',
    );
    const broken = {
      chat: {},
      usergroups: { users: { list: async () => Promise.reject(new Error('missing_scope')) } },
    } as unknown as WebClient;
    expect(await createSlackApi(broken, silentLogger, () => new Date(), metrics).userGroupMembers('S1')).toEqual([]);
  });
});

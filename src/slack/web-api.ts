/**
 * The Slack Web API calls made outside a request (reminders, live run status), through one
 * WebClient: it waits out 429s as their Retry-After says. User-group members are cached briefly,
 * so that an allow-list by group costs one call per group every few minutes, not one per command.
 */

import type { WebClient } from '@slack/web-api';
import type { Message } from '../render/blocks.js';
import type { Logger } from '../runtime/logger.js';
import type { Metrics } from '../runtime/metrics.js';
import type { SlackApi } from './deps.js';

export function createSlackApi(
  client: WebClient,
  logger: Logger,
  now: () => Date,
  metrics: Metrics,
  options: { groupTtlMs?: number; perChannelMs?: number } = {},
): SlackApi {
  const groupTtlMs = options.groupTtlMs ?? 5 * 60_000;
  const perChannelMs = options.perChannelMs ?? 1_000;
  const groups = new Map<string, { members: readonly string[]; until: number }>();
  /** When each channel may next be written to: Slack allows about one message a second per channel. */
  const nextFree = new Map<string, number>();
  const paced = async <T>(channel: string, call: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const slot = Math.max(at, nextFree.get(channel) ?? 0);
    nextFree.set(channel, slot + perChannelMs);
    if (nextFree.size > 10_000) for (const [c, t] of nextFree) if (t < at) nextFree.delete(c);
    if (slot > at) await new Promise((resolve) => setTimeout(resolve, slot - at));
    return call();
  };
  /** Counts a failed call by method and Slack's error code, and passes the error on. */
  const counted = async <T>(method: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      metrics.slackError(
        method,
        (error as { data?: { error?: string }; code?: string }).data?.error ?? (error as { code?: string }).code ?? 'error',
      );
      throw error;
    }
  };
  return {
    async postMessage(channel: string, message: Message) {
      const res = await paced(channel, () =>
        counted('chat.postMessage', () => client.chat.postMessage({ channel, text: message.text, blocks: message.blocks })),
      );
      return { ts: String(res.ts ?? '') };
    },
    async updateMessage(channel: string, ts: string, message: Message) {
      await paced(channel, () =>
        counted('chat.update', () => client.chat.update({ channel, ts, text: message.text, blocks: message.blocks })),
      );
    },
    async userGroupMembers(groupId: string) {
      const hit = groups.get(groupId);
      if (hit && hit.until > now().getTime()) return hit.members;
      try {
        const res = await counted('usergroups.users.list', () => client.usergroups.users.list({ usergroup: groupId }));
        const members = res.users ?? [];
        groups.set(groupId, { members, until: now().getTime() + groupTtlMs });
        return members;
      } catch (error) {
        // Closed, not open: without the list nobody is let in by this group.
        logger.warn({ group: groupId, error: (error as Error).message }, 'usergroups.users.list failed; the group admits nobody for now');
        return [];
      }
    },
  };
}

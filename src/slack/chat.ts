/**
 * What the app says outside a request (a collection's channel message and its updates, the DM
 * when runs abort, reminder digests), rendered here and sent through one WebClient, which waits
 * out 429s as their Retry-After says. Writes to one channel are paced to one a second, as Slack
 * asks. User-group members are cached briefly, so that an allow-list by group costs one call per
 * group every few minutes, not one per command.
 */

import { WebClient } from '@slack/web-api';
import type { CollectChat } from '../collections/ports.js';
import type { SlackCredentials } from '../config.js';
import type { ReminderOutbox } from '../reminders/scheduler.js';
import type { ApprovalLinks } from '../render/approvals.js';
import type { Message } from '../render/blocks.js';
import { renderCollectFailedDm, renderCollectStatus } from '../render/collect.js';
import { renderDigest, renderReminderRelink } from '../render/reminders.js';
import type { Logger } from '../runtime/logger.js';
import type { Metrics } from '../runtime/metrics.js';

/** Slack errors that mean the message cannot be updated again. */
const MESSAGE_GONE = /message_not_found|channel_not_found|is_archived|cant_update_message|not_in_channel/;

/**
 * The two Web API clients, from one set of options: a quick one for lookups (a time zone is worth
 * one short try: without it the user's today is UTC's), and a patient one for messages.
 */
export function slackClients(credentials: SlackCredentials): { lookups: WebClient; messages: WebClient } {
  const base = credentials.apiUrl === undefined ? {} : { slackApiUrl: credentials.apiUrl };
  const token = credentials.botToken.reveal();
  return {
    // A 429 is answered at once (rejectRateLimitedCalls), not waited out: see slackTimeZones.
    lookups: new WebClient(token, { ...base, timeout: 2_000, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true }),
    // On a 429 the client waits for Retry-After and tries again; a few tries, then the message is given up.
    messages: new WebClient(token, { ...base, retryConfig: { retries: 4, factor: 2, minTimeout: 1_000, maxTimeout: 30_000 } }),
  };
}

export interface ChatOptions {
  logger: Logger;
  now: () => Date;
  metrics: Metrics;
  approvalLinks: ApprovalLinks | undefined;
  /** Whether digests offer Details: while the service offers getApprovalDetails. */
  detailsOffered?: () => boolean;
  groupTtlMs?: number;
  perChannelMs?: number;
}

export function createChat(client: WebClient, options: ChatOptions): CollectChat & ReminderOutbox {
  const { logger, now, metrics } = options;
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
  /** A bot may post to a user id: Slack delivers it in the app's Messages tab. */
  const post = async (channel: string, message: Message) => {
    const res = await paced(channel, () =>
      counted('chat.postMessage', () => client.chat.postMessage({ channel, text: message.text, blocks: message.blocks })),
    );
    return { ts: String(res.ts ?? '') };
  };
  return {
    postStatus: (channel, status) => post(channel, renderCollectStatus(status)),
    async updateStatus(channel, ts, status) {
      const message = renderCollectStatus(status);
      try {
        await paced(channel, () =>
          counted('chat.update', () => client.chat.update({ channel, ts, text: message.text, blocks: message.blocks })),
        );
        return 'updated';
      } catch (error) {
        if (MESSAGE_GONE.test((error as Error).message)) return 'gone';
        throw error;
      }
    },
    async tellAborted(userId, report) {
      await post(userId, renderCollectFailedDm(report));
    },
    async digest(userId, digest) {
      await post(userId, renderDigest(digest, options.approvalLinks, options.detailsOffered?.() ?? false));
    },
    async relink(userId, reason) {
      await post(userId, renderReminderRelink(reason));
    },
    async userGroupMembers(groupId) {
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

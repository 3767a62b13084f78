/**
 * What the app says outside a request (a collection's channel message and its updates, the DM
 * when runs abort, reminder digests), rendered here and sent through one WebClient. Writes to one
 * channel are paced to one a second, as Slack asks. A 429 is waited out here, as its Retry-After
 * says, for every message of that method, not only the refused one (Slack: wait "before calling
 * the method again with any token"), then calls go one at a time for a while (SlackPacing), and the
 * refused message is tried again for as long as Slack keeps refusing it, up to
 * RATE_LIMIT_PATIENCE_MS: a 429 means it was not posted, so trying again cannot post it twice, and
 * 10,000 digests at 09:00 meet many. User-group members are cached briefly, so that an allow-list
 * by group costs one call per group every few minutes, not one per command.
 */

import { WebClient } from '@slack/web-api';
import type { ArrivalOutbox } from '../../arrivals/ports.js';
import type { CollectChat } from '../../collections/ports.js';
import type { SlackCredentials } from '../../config.js';
import type { TimeZones } from '../../deps.js';
import type { ReminderOutbox } from '../../reminders/scheduler.js';
import type { ApprovalLinks } from '../../render/approvals.js';
import { renderAlreadyWaiting, renderArrivals } from '../../render/arrivals.js';
import type { Message } from '../../render/blocks.js';
import { renderCollectFailedDm, renderCollectStatus } from '../../render/collect.js';
import { renderDigest, renderReminderRelink } from '../../render/reminders.js';
import { type Logger, SaidOncePerMinute } from '../../runtime/logger.js';
import type { Metrics } from '../../runtime/metrics.js';
import type { Timer } from '../../runtime/timer.js';
import { timeFrame } from '../../time/frame.js';
import { SlackPacing } from './slack-pacing.js';

/** How long a message is tried again while Slack answers 429; past it, it is given up. */
export const RATE_LIMIT_PATIENCE_MS = 15 * 60_000;

/**
 * Every Web API call has a deadline: a call Slack never answers would otherwise hold what waits on
 * it (a /collect task, a digest) for ever. Slack answers in well under a second; a call that takes
 * this long is given up (and, for messages, tried again by the client's retry policy).
 */
export const SLACK_CALL_TIMEOUT_MS = 10_000;

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
    // A 429 comes back at once (createChat waits it out); other failures (the network) are tried a few times.
    messages: new WebClient(token, {
      ...base,
      timeout: SLACK_CALL_TIMEOUT_MS,
      retryConfig: { retries: 4, factor: 2, minTimeout: 1_000, maxTimeout: 30_000 },
      rejectRateLimitedCalls: true,
    }),
  };
}

export interface ChatOptions {
  logger: Logger;
  now: () => Date;
  metrics: Metrics;
  approvalLinks: ApprovalLinks | undefined;
  /** Whether digests offer Details: while the service offers getApprovalDetails. */
  detailsOffered?: () => boolean;
  /** Whether arrival messages offer decision buttons: while DECISION_REQUEST is set and the service does not refuse it. */
  decisionsOffered?: () => boolean;
  /** COMMAND_SERVICE_TIME_ZONE: runs' lengths on the real clock, and due dates in each reader's zone. */
  serviceTimeZone?: string | undefined;
  /** Users' zones: an arrival message writes due dates in its reader's (UTC when not given or not known). */
  timeZones?: TimeZones;
  groupTtlMs?: number;
  perChannelMs?: number;
  /** What the pacing and the waits after a 429 wait on (realTimer; tests move their own). */
  timer: Timer;
}

export function createChat(client: WebClient, options: ChatOptions): CollectChat & ReminderOutbox & ArrivalOutbox {
  const { logger, now, metrics, timer } = options;
  const groupTtlMs = options.groupTtlMs ?? 5 * 60_000;
  const perChannelMs = options.perChannelMs ?? 1_000;
  const groups = new Map<string, { members: readonly string[]; until: number }>();
  /** When each channel may next be written to: Slack allows about one message a second per channel. */
  const nextFree = new Map<string, number>();
  const paced = async <T>(channel: string, call: () => Promise<T>): Promise<T> => {
    const at = timer.now();
    const slot = Math.max(at, nextFree.get(channel) ?? 0);
    nextFree.set(channel, slot + perChannelMs);
    if (nextFree.size > 10_000) for (const [c, t] of nextFree) if (t < at) nextFree.delete(c);
    if (slot > at) await timer.sleep(slot - at);
    return call();
  };
  const gates = new Map<string, SlackPacing>();
  const limitedSaid = new SaidOncePerMinute();
  /**
   * Counts a failed call by method and Slack's error code (a 429 as slack_webapi_rate_limited_error),
   * waits out Retry-After (SlackPacing) and tries again, and passes any other error on.
   */
  const counted = async <T>(method: string, call: () => Promise<T>, patienceMs = RATE_LIMIT_PATIENCE_MS): Promise<T> => {
    const giveUpAt = timer.now() + patienceMs;
    let gate = gates.get(method);
    if (gate === undefined) {
      gate = new SlackPacing(timer);
      gates.set(method, gate);
    }
    for (;;) {
      await gate.enter();
      try {
        return await call();
      } catch (error) {
        const e = error as { data?: { error?: string }; code?: string; retryAfter?: number };
        metrics.slackError(method, e.data?.error ?? e.code ?? 'error');
        if (e.code !== 'slack_webapi_rate_limited_error') throw error;
        const until = gate.limited(e.retryAfter ?? 1);
        if (until > giveUpAt) throw error;
        // A burst meets a 429 every second or so.
        const times = limitedSaid.count(until);
        if (times !== undefined) {
          logger.info(
            { method, retryAfterSeconds: e.retryAfter, timesSinceLastSaid: times },
            'Slack rate limited; waiting as Retry-After says',
          );
        }
      } finally {
        gate.leave();
      }
    }
  };
  /** A bot may post to a user id: Slack delivers it in the app's Messages tab, and answers with the DM's own channel (D…). */
  const post = async (channel: string, message: Message) => {
    const res = await paced(channel, () =>
      counted('chat.postMessage', () => client.chat.postMessage({ channel, text: message.text, blocks: message.blocks })),
    );
    return { ts: String(res.ts ?? ''), channel: typeof res.channel === 'string' && res.channel !== '' ? res.channel : undefined };
  };
  const update = async (channel: string, ts: string, message: Message): Promise<'updated' | 'gone'> => {
    try {
      await paced(channel, () =>
        counted('chat.update', () => client.chat.update({ channel, ts, text: message.text, blocks: message.blocks })),
      );
      return 'updated';
    } catch (error) {
      if (MESSAGE_GONE.test((error as Error).message)) return 'gone';
      throw error;
    }
  };
  /** An arrival message as its reader reads it: due dates in their zone, the buttons the installation offers now. */
  const arrivalMessage = async (message: Parameters<ArrivalOutbox['announce']>[0]) => {
    const zone = await options.timeZones?.lookup(message.userId);
    return renderArrivals(message, {
      frame: timeFrame(now(), zone, options.serviceTimeZone),
      details: options.detailsOffered?.() ?? false,
      decisions: options.decisionsOffered?.() ?? false,
      approvalLinks: options.approvalLinks,
    });
  };
  return {
    postStatus: async (channel, status) => ({ ts: (await post(channel, renderCollectStatus(status, options.serviceTimeZone))).ts }),
    updateStatus: (channel, ts, status) => update(channel, ts, renderCollectStatus(status, options.serviceTimeZone)),
    async announce(message) {
      const posted = await post(message.userId, await arrivalMessage(message));
      // chat.update takes the DM's channel, not the user id it was posted to.
      if (posted.channel === undefined)
        logger.warn({ user: message.userId }, 'chat.postMessage answered without a channel; the arrival message cannot be redrawn');
      return { channel: posted.channel ?? message.userId, ts: posted.ts };
    },
    async redraw(channel, ts, message) {
      return update(channel, ts, await arrivalMessage(message));
    },
    async alreadyWaiting(userId, count) {
      await post(userId, renderAlreadyWaiting(count));
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
        // A command waits on this: a 429 is not waited out (the group admits nobody for now).
        const res = await counted('usergroups.users.list', () => client.usergroups.users.list({ usergroup: groupId }), 0);
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

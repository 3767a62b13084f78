/** What collections need beyond the common deps: the policy, and a way to speak in the channel. */

import type { CollectPolicy } from '../config.js';
import type { Deps } from '../deps.js';
import type { CollectQuery, Principal } from '../domain/index.js';
import type { AbortReport, CollectStatus } from './runs.js';

/** The chat platform as collections use it; the adapter renders and sends. */
export interface CollectChat {
  /** Posts a collection's status in its channel as the bot; rejects when the bot may not post there. */
  postStatus(channelId: string, status: CollectStatus): Promise<{ ts: string }>;
  /** 'gone': the message can never be updated again (deleted, channel archived), so following it is pointless. */
  updateStatus(channelId: string, ts: string, status: CollectStatus): Promise<'updated' | 'gone'>;
  /** A direct message to the starter when runs aborted. */
  tellAborted(userId: string, report: AbortReport): Promise<void>;
  /** Members of a user group; none when the platform will not say (so the group admits nobody). */
  userGroupMembers(groupId: string): Promise<readonly string[]>;
}

export interface CollectDeps extends Deps {
  collectPolicy: CollectPolicy;
  chat: CollectChat;
  /** How long a confirmation stays valid. */
  confirmationTtlMs: number;
  /** How soon the run-status watcher first looks at a new collection. */
  firstPollMs: number;
  /**
   * How long a start waits for the channel message to be posted before it answers the starter
   * through the command instead: the runs have started, and they must hear of it within Slack's patience.
   */
  announceWithinMs: number;
}

/** One request to start a collection, whichever way it came (typed, confirmed, "Start anyway", replayed after linking). */
export interface CollectionRequest {
  who: Principal;
  channelId: string;
  query: CollectQuery;
  /** "Start anyway" on a cooldown notice. */
  overrideCooldown?: boolean | undefined;
  /** The attempt a confirmation was asked for: its click completes that line of the audit trail rather than adding one. */
  attemptId?: string | undefined;
}

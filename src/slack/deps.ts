/**
 * What every Slack handler needs, built once in main.ts and passed in: no module singletons, so
 * tests build the same objects with a fixed clock, a throwaway store and the reference service.
 */

import type { CollectPolicy } from '../config.js';
import type { ReminderSchedule } from '../reminders/schedule.js';
import type { Message } from '../render/blocks.js';
import type { Logger } from '../runtime/logger.js';
import type { Metrics } from '../runtime/metrics.js';
import type { ServiceClient } from '../service/index.js';
import type { Principal, Store } from '../store/index.js';
import type { Responder } from './response-url.js';

export interface TimeZones {
  /** The user's IANA zone from their Slack profile; undefined when Slack does not say. */
  lookup(userId: string): Promise<string | undefined>;
}

/** Slack's Web API as the app uses it outside a request's own client. */
export interface SlackApi {
  postMessage(channel: string, message: Message): Promise<{ ts: string }>;
  updateMessage(channel: string, ts: string, message: Message): Promise<void>;
  /** Members of a Slack user group; none when Slack will not say. */
  userGroupMembers(groupId: string): Promise<readonly string[]>;
}

/** What handlers need of the reminder scheduler: its window, and when a new reminder would fire. */
export interface ReminderPlanner {
  readonly windowDays: number;
  plan(who: Principal, schedule: ReminderSchedule, after: Date): { nextAt: Date; dueAt: Date };
}

export interface Deps {
  service: ServiceClient;
  store: Store;
  logger: Logger;
  now: () => Date;
  timeZones: TimeZones;
  /** Unpredictable ids (confirmations, log references). */
  newId: () => string;
  /** Work that runs after the ack; tracked so that shutdown can wait for it. */
  background: Background;
  /** Posts answers to a request's response_url. */
  responder: Responder;
  /** How long a /collect confirmation stays valid. */
  confirmationTtlMs: number;
  reminders: ReminderPlanner;
  /** APPROVAL_URL_TEMPLATE: "Open" buttons on approvals when set. */
  approvalUrlTemplate: string | undefined;
  slackApi: SlackApi;
  /** The run-status watcher: how soon it first looks at a new collection. */
  runWatch: { readonly firstPollMs: number };
  /** Who may start collections, the cooldown, how long runs are watched. */
  collectPolicy: CollectPolicy;
  metrics: Metrics;
  /** Slash commands one user may send per minute (on this instance). */
  commandsPerMinute: number;
  /**
   * Commands still being worked on past which new ones are turned away at once: beyond it the
   * instance only builds a backlog (answers a minute late, memory without bound), while another
   * instance, or a moment later, would do better.
   */
  maxInFlight: number;
}

/** Runs work after the ack, catches what escapes, and lets shutdown wait for all of it. */
export class Background {
  readonly #running = new Set<Promise<void>>();
  readonly #logger: Logger;
  readonly #metrics: Metrics | undefined;

  constructor(logger: Logger, metrics?: Metrics) {
    this.#logger = logger;
    this.#metrics = metrics;
  }

  /**
   * `answer` is called with any error that escapes `work`, so that the user hears of it too
   * (a store that went away, say); if answering fails as well, the log is all that is left.
   */
  run(name: string, work: () => Promise<void>, answer?: (error: unknown) => Promise<void>): void {
    // The request this work belongs to is counted in the metrics only when the work has ended.
    const release = this.#metrics?.hold();
    let failed = false;
    const task = work()
      .catch(async (error: unknown) => {
        failed = true;
        this.#logger.error({ task: name, error }, 'background task failed');
        if (answer)
          await answer(error).catch((again: unknown) => this.#logger.error({ task: name, error: again }, 'could not tell the user either'));
      })
      .finally(() => {
        this.#running.delete(task);
        release?.(failed);
      });
    this.#running.add(task);
  }

  get size(): number {
    return this.#running.size;
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}

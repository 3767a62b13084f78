/**
 * Live run status: every instance polls the watches that have come due (leased from the store,
 * so each is polled by one instance at a time, and a restart loses nothing), asks getRunStatus
 * with the starter's own token, and updates the channel's message in place. Polling starts
 * quickly and backs off; it stops when every run has ended, when the time limit passes, or at
 * once when the service has no getRunStatus for us.
 */

import type { Logger } from '../runtime/logger.js';
import { eachLimited, Ticker } from '../runtime/ticker.js';
import type { CredentialSource } from '../service/credentials.js';
import { isServiceError } from '../service/errors.js';
import type { ServiceClient } from '../service/index.js';
import type { RunWatch, Store, WatchedRun } from '../store/index.js';
import { collectorKey } from './coverage.js';
import type { CollectChat } from './ports.js';
import { type LiveStatus, runEnded, summarizeRuns } from './runs.js';

export interface WatcherOptions {
  store: Store;
  service: ServiceClient;
  credentials: CredentialSource;
  chat: CollectChat;
  logger: Logger;
  now: () => Date;
  owner: string;
  tickMs?: number;
  /** The first poll comes this soon after the start; each next one 1.5× later, up to maxIntervalMs. */
  firstPollMs?: number;
  maxIntervalMs?: number;
  leaseMs?: number;
  concurrency?: number;
  batch?: number;
}

export interface WatchReport {
  polled: number;
  updated: number;
  finished: number;
  stopped: number;
}

/** Refresh the elapsed times at least this often while nothing changes. */
const REFRESH_MS = 60_000;

export class RunWatcher {
  readonly #o: Required<WatcherOptions>;
  readonly #ticker: Ticker<WatchReport>;
  /** When this instance last updated each message: enough to refresh elapsed times now and then. */
  readonly #lastUpdate = new Map<string, number>();

  constructor(options: WatcherOptions) {
    this.#o = { tickMs: 2_000, firstPollMs: 3_000, maxIntervalMs: 60_000, leaseMs: 60_000, concurrency: 4, batch: 50, ...options };
    this.#ticker = new Ticker(this.#o.tickMs, () => this.#tick());
  }

  get firstPollMs(): number {
    return this.#o.firstPollMs;
  }

  start(): void {
    this.#ticker.start();
  }

  async stop(): Promise<void> {
    await this.#ticker.stop();
  }

  tick(): Promise<WatchReport> {
    return this.#ticker.tick();
  }

  async #tick(): Promise<WatchReport> {
    const report: WatchReport = { polled: 0, updated: 0, finished: 0, stopped: 0 };
    const now = this.#o.now();
    let due: RunWatch[];
    try {
      due = await this.#o.store.claimDueWatches(now, this.#o.owner, new Date(now.getTime() + this.#o.leaseMs), this.#o.batch);
    } catch (error) {
      this.#o.logger.error({ error: (error as Error).message }, 'run status: could not read the store; trying again next tick');
      return report;
    }
    await eachLimited(due, this.#o.concurrency, async (watch) => {
      report.polled++;
      try {
        const outcome = await this.#poll(watch);
        if (outcome !== 'unchanged') report[outcome]++;
      } catch (error) {
        this.#o.logger.error({ attempt: watch.attemptId, error: (error as Error).message }, 'run status poll failed');
        // Let it go at the usual pace rather than hammering a store or Slack that is failing.
        await this.#o.store.saveWatch(this.#next(watch, this.#o.now()), this.#o.owner).catch(() => undefined);
      }
    });
    return report;
  }

  #next(watch: RunWatch, now: Date): RunWatch {
    return {
      ...watch,
      nextPollAt: new Date(now.getTime() + watch.intervalMs),
      intervalMs: Math.min(Math.round(watch.intervalMs * 1.5), this.#o.maxIntervalMs),
    };
  }

  async #poll(watch: RunWatch): Promise<'updated' | 'finished' | 'stopped' | 'unchanged'> {
    const { store, logger } = this.#o;
    const now = this.#o.now();
    if (now >= watch.deadline) {
      return this.#finish(watch, { kind: 'timeout', limitMs: watch.deadline.getTime() - watch.startedAt.getTime() }, 'timeout');
    }
    const linked = await this.#o.credentials.credentialsFor({ teamId: watch.teamId, userId: watch.userId }, 'collectEntitlements');
    if (linked === undefined) {
      return this.#finish(watch, { kind: 'off', reason: 'unlinked' }, 'no-token');
    }

    let changed = false;
    let unavailable: string | undefined;
    const runs: WatchedRun[] = [];
    for (const run of watch.runs) {
      if (runEnded(run) || unavailable !== undefined) {
        runs.push(run);
        continue;
      }
      try {
        const status = await linked.call((token, options) => this.#o.service.getRunStatus(run.runId, token, options));
        const next: WatchedRun = {
          ...run,
          state: status.state === 'Unknown' ? run.state : status.state,
          startTime: status.startTime || run.startTime,
          completedTime: status.completedTime || run.completedTime,
        };
        if (runEnded(next) && next.endedAt === undefined) next.endedAt = now.getTime();
        if (next.state !== run.state) changed = true;
        if (next.state === 'Aborted' && run.state !== 'Aborted') await this.#releaseAborted(watch, next);
        runs.push(next);
      } catch (error) {
        runs.push(run);
        // Passing troubles, not about this run: countersign's own sign-in (trusted mode) waits out its back-off meanwhile.
        if (isServiceError(error) && (error.kind === 'service-unavailable' || error.kind === 'app-sign-in')) continue;
        // 404 (no such command, or it does not know the run), 401 (the token may not ask), or an answer we cannot read.
        const status = isServiceError(error) ? error.status : undefined;
        unavailable = `getRunStatus answered ${status ?? (isServiceError(error) ? error.kind : 'with an error')}`;
        logger.info({ attempt: watch.attemptId, run: run.runId, reason: unavailable }, 'run status not available; no more polling');
      }
    }
    const updated = { ...watch, runs };
    if (unavailable !== undefined) return this.#finish(updated, { kind: 'unavailable', why: unavailable }, 'unavailable');
    if (runs.every(runEnded)) {
      if (runs.every((r) => r.state === 'Aborted')) await this.#releaseAll(watch);
      return this.#finish(updated, { kind: 'finished' }, 'finished');
    }

    const stale = now.getTime() - (this.#lastUpdate.get(watch.attemptId) ?? 0) >= REFRESH_MS;
    if (changed || stale) {
      const gone = await this.#show(updated, { kind: 'watching', checkedAt: now });
      if (gone) return this.#finish(updated, undefined, 'message-gone');
    }
    await store.saveWatch(this.#next(updated, now), this.#o.owner);
    return changed ? 'updated' : 'unchanged';
  }

  /**
   * The cooldown is there so that a source is not loaded twice; an aborted run did not do the work,
   * so its collector may start again at once. Only a cooldown this start still holds goes back (one
   * conditional DELETE, whichever instance polls): one taken over since by "Start anyway" stays.
   * A failure here fails the poll, which comes again with the run still unseen as aborted.
   */
  async #releaseAborted(watch: RunWatch, run: WatchedRun): Promise<void> {
    if (run.collector === undefined || run.collector === '') return;
    await this.#o.store.releaseCooldown(watch.teamId, collectorKey(run.collector), watch.attemptId);
    this.#o.logger.info({ attempt: watch.attemptId, run: run.runId }, 'run aborted: its collector may start again');
  }

  /** Every run aborted: the whole start's cooldown goes back too (the target asked for, runs of unnamed collectors). */
  async #releaseAll(watch: RunWatch): Promise<void> {
    const released = await this.#o.store.releaseCooldownsOf(watch.teamId, watch.attemptId);
    if (released > 0) this.#o.logger.info({ attempt: watch.attemptId, released }, 'every run aborted: the collection may start again');
  }

  /** Updates the channel's message; true when it can never be updated again. */
  async #show(watch: RunWatch, live: LiveStatus): Promise<boolean> {
    // No channel message (the bot may not post there, or Slack has not taken it): nothing to update.
    if (watch.messageTs === '') return false;
    const now = this.#o.now();
    const status = { userId: watch.userId, query: watch.query, runs: watch.runs, startedAt: watch.startedAt, now, live };
    try {
      if ((await this.#o.chat.updateStatus(watch.channelId, watch.messageTs, status)) === 'gone') {
        this.#o.logger.warn({ attempt: watch.attemptId }, 'the message is gone; no more updates');
        return true;
      }
      this.#lastUpdate.set(watch.attemptId, now.getTime());
    } catch (error) {
      this.#o.logger.warn({ attempt: watch.attemptId, error: (error as Error).message }, 'chat.update failed');
    }
    return false;
  }

  async #finish(watch: RunWatch, live: LiveStatus | undefined, note: string): Promise<'finished' | 'stopped'> {
    const now = this.#o.now();
    if (live !== undefined) await this.#show(watch, live);
    this.#lastUpdate.delete(watch.attemptId);
    const saved = await this.#o.store.saveWatch({ ...watch, doneAt: now, note }, this.#o.owner);
    const { aborted, ended } = summarizeRuns(watch.runs);
    this.#o.logger.info(
      { attempt: watch.attemptId, note, runs: watch.runs.map((r) => `${r.runId}:${r.state ?? '?'}`) },
      'stopped following runs',
    );
    if (saved && note === 'finished' && ended && aborted > 0) {
      await this.#o.chat
        .tellAborted(watch.userId, { channelId: watch.channelId, query: watch.query, runs: watch.runs })
        .catch((error: unknown) =>
          this.#o.logger.warn({ user: watch.userId, error: (error as Error).message }, 'could not DM the starter'),
        );
    }
    return note === 'finished' ? 'finished' : 'stopped';
  }
}

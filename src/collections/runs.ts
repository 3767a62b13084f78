/** A started collection as the channel sees it: its runs, how each stands, and whether it is still followed. */

import type { CollectQuery } from '../service/index.js';
import type { WatchedRun } from '../store/index.js';

/** Where live status stands: shown under the runs. */
export type LiveStatus =
  | { kind: 'watching'; checkedAt: Date }
  | { kind: 'finished' }
  /** The service cannot tell us (no getRunStatus, a 401, an unreadable answer); `why` is its answer. */
  | { kind: 'unavailable'; why: string }
  | { kind: 'timeout'; limitMs: number }
  /**
   * No live message: the bot may not post in the channel, Slack did not take the message in time
   * (`slack-slow`), or the starter unlinked their account.
   */
  | { kind: 'off'; reason: 'not-in-channel' | 'slack-slow' | 'unlinked' };

export interface CollectStatus {
  /** The starter. */
  userId: string;
  query: CollectQuery;
  runs: readonly WatchedRun[];
  startedAt: Date;
  now: Date;
  live: LiveStatus | undefined;
}

/** What the starter is told when runs ended badly. */
export interface AbortReport {
  channelId: string;
  query: CollectQuery;
  runs: readonly WatchedRun[];
}

const ENDED = new Set(['Completed', 'Aborted']);

export function runEnded(run: WatchedRun): boolean {
  return run.state !== undefined && ENDED.has(run.state);
}

export function summarizeRuns(runs: readonly WatchedRun[]): { completed: number; aborted: number; ended: boolean } {
  const completed = runs.filter((r) => r.state === 'Completed').length;
  const aborted = runs.filter((r) => r.state === 'Aborted').length;
  return { completed, aborted, ended: runs.length > 0 && runs.every(runEnded) };
}

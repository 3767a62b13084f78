/**
 * What a start does, decided from data alone: the cooldown keys it takes, what it starts once those
 * claims have been answered (all of it, the rest by name, or nothing), what is said when nothing
 * matched, which runs' collectors it must claim after the service answered, and whether a failed
 * start may have started runs. Pure: the policy, the catalog and coverage, and the holders in; the
 * plan out. The claims and the calls are start-execution.ts's, the trail start-record.ts's.
 */

import { collectCommandText } from '../parse/collect.js';
import { nearest } from '../parse/suggest.js';
import { isServiceError } from '../service/errors.js';
import type { CollectionRun, CollectQuery } from '../service/index.js';
import type { WatchedRun } from '../store/index.js';
import { type Catalog, type Coverage, collectorKey, fold, forceMisspelt } from './coverage.js';
import { cooldownTarget } from './policy.js';

export interface CooldownHolder {
  userId: string;
  channelId: string;
  at: Date;
}

/** A collector (or, when it is not known which, the whole target) started a moment ago, and by whom. */
export interface Held {
  collector: string | undefined;
  holder: CooldownHolder;
}

/** One cooldown a start takes: a collector's, or (collector undefined) the whole target's. */
export interface CooldownKey {
  key: string;
  collector: string | undefined;
}

/** With the cooldown off, nothing is known to be covered and nothing is claimed. */
export const NO_COVERAGE: Coverage = { collectors: [], exact: false };

/** The cooldown keys a start takes: one per collector it is known to cover, and the target itself (its coverage may have grown since). */
export function cooldownKeys(query: CollectQuery, coverage: Coverage): CooldownKey[] {
  const keys: CooldownKey[] = coverage.collectors.map((c) => ({ key: collectorKey(c), collector: c }));
  if (query.name === undefined) keys.push({ key: cooldownTarget(query), collector: undefined });
  return keys;
}

export type StartPlan =
  /** Held by the cooldown, and nothing of the target can start: `query` as the service named it, and whether the rest is unknown. */
  | { kind: 'held'; query: CollectQuery; unknownRest: boolean }
  /** What to ask the service to start, one call each: the query as asked, or the collectors of it not held, by name. */
  | { kind: 'start'; asked: readonly CollectQuery[] };

/**
 * What starts once the claims are answered. Some of a whole application, or of everything, was
 * started a moment ago: when the last start of the same target said exactly which collectors it
 * covers, the others start by name; otherwise none do.
 */
export function planStart(query: CollectQuery, coverage: Coverage, held: readonly Held[]): StartPlan {
  if (held.length === 0) return { kind: 'start', asked: [query] };
  const rest =
    coverage.exact && query.name === undefined && held.every((h) => h.collector !== undefined)
      ? coverage.collectors.filter((c) => !held.some((h) => h.collector === c))
      : [];
  if (rest.length === 0) return { kind: 'held', query: canonical(query, coverage), unknownRest: unknownRest(query, coverage, held) };
  return { kind: 'start', asked: rest.map((name) => ({ ...query, name })) };
}

/**
 * Part of a name-less target is held, and the last start of that target did not say which collectors
 * it covers: the others cannot be started by name, so nothing starts.
 */
export function unknownRest(query: CollectQuery, coverage: Coverage, held: readonly Held[]): boolean {
  return query.name === undefined && !coverage.exact && held.length > 0 && held.every((h) => h.collector !== undefined);
}

/** The query with a collector's name as the service first named it, for every message about it. */
export function canonical(query: CollectQuery, coverage: Coverage): CollectQuery {
  return query.name === undefined ? query : { ...query, name: coverage.collectors[0] ?? query.name };
}

/**
 * A start the service answered with no runs: the collectors earlier runs here reported, to choose
 * from; the one nearest to the name asked for; and the command meant, when the last word looks like
 * a misspelt force (then no nearest name: the name was right).
 */
export function nothingMatched(
  query: CollectQuery,
  catalog: Catalog,
): { known: readonly string[]; meant: string | undefined; retry: string | undefined } {
  const known = [...catalog.names.values()].sort((a, b) => a.localeCompare(b));
  const forced = forceMisspelt(query, catalog);
  const retry = forced === undefined ? undefined : collectCommandText(forced);
  const meant = query.name === undefined || retry !== undefined ? undefined : nearest(fold(query.name), known.map(fold));
  return { known, meant: meant === undefined ? undefined : catalog.names.get(meant), retry };
}

/**
 * The collectors the service ran that this start did not claim beforehand (it did not know they were
 * covered): their cooldown starts now too. `collector` is the name to tell the asker, should one turn
 * out to have been started a moment ago.
 */
export function unclaimedRuns(found: readonly CollectionRun[], taken: readonly string[], catalog: Catalog): CooldownKey[] {
  const keys: CooldownKey[] = [];
  for (const run of found) {
    if (!run.collector) continue;
    const key = collectorKey(run.collector);
    if (taken.includes(key) || keys.some((k) => k.key === key)) continue;
    keys.push({ key, collector: catalog.names.get(fold(run.collector)) ?? run.collector });
  }
  return keys;
}

/** The runs as the watch and the trail keep them. */
export function watchedRuns(found: readonly CollectionRun[]): WatchedRun[] {
  return found.map((r) => ({ runId: r.runId, collector: r.collector ?? undefined, state: undefined }));
}

/** The collectors named in a list of holders, for the trail. */
export function heldNames(list: readonly Held[]): string[] {
  return list.map((h) => h.collector).filter((c): c is string => c !== undefined);
}

/**
 * Whether a start that failed may still have started runs: one the service answered, or whose
 * request reached it (a timeout, say), keeps its cooldown. 'network' means the request never
 * reached the service: nothing started.
 */
export function maybeStarted(error: unknown, answered: boolean): boolean {
  return answered || (isServiceError(error) && error.kind === 'service-unavailable' && error.reason !== 'network');
}

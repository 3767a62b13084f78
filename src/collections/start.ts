/**
 * Starting a collection, the one way every path takes (typed command, confirmation, "Start
 * anyway", replay after linking): who may, where, not twice within the cooldown, with the
 * starter's own token; then the channel's message (which the watcher keeps up to date) and an
 * audit record of how it went, whatever happened.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import { collectCommandText } from '../parse/collect.js';
import { nearest } from '../parse/suggest.js';
import { isServiceError } from '../service/errors.js';
import type { CollectionRun, CollectQuery } from '../service/index.js';
import type { AttemptReason, CollectStep, Principal, WatchedRun } from '../store/index.js';
import { type Catalog, type Coverage, catalogOf, collectorKey, coverageOf, fold, forceMisspelt } from './coverage.js';
import { type CollectRefusal, checkCollect, cooldownTarget, mayOverride, needsGroupLookup } from './policy.js';
import type { CollectDeps } from './ports.js';
import type { CollectStatus } from './runs.js';

export interface CollectionRequest {
  who: Principal;
  channelId: string;
  query: CollectQuery;
  /** "Start anyway" on a cooldown notice. */
  overrideCooldown?: boolean | undefined;
  /** The attempt a confirmation was asked for: its click completes that line of the audit trail rather than adding one. */
  attemptId?: string | undefined;
}

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

export type StartOutcome =
  | { kind: 'refused'; refusal: CollectRefusal }
  | { kind: 'not-linked' }
  /**
   * `query` names collectors as the service first named them, not as typed. `unknownRest`: part of
   * the target is held, and which other collectors it covers is not known, so none could start by name.
   */
  | {
      kind: 'cooldown';
      query: CollectQuery;
      held: readonly Held[];
      cooldownMs: number;
      overrideId: string | undefined;
      unknownRest: boolean;
    }
  /**
   * `known`: collectors earlier runs here reported, to choose from; `meant`: the one nearest to the
   * name asked for; `retry`: the command meant, when the last word looks like a misspelt force.
   */
  | { kind: 'nothing-matched'; query: CollectQuery; known: readonly string[]; meant: string | undefined; retry: string | undefined }
  /**
   * `posted`: the channel has the bot's message, which the watcher follows; otherwise the adapter
   * must show it. `leftOut`: collectors of the target that were started a moment ago, so not again.
   * `ranAgain`: collectors started a moment ago that the service ran again, not known beforehand to
   * be covered (the service names a run's collector, never its application).
   */
  | {
      kind: 'started';
      status: CollectStatus;
      posted: boolean;
      leftOut: readonly Held[];
      ranAgain: readonly Held[];
      cooldownMs: number;
    }
  | { kind: 'failed'; error: unknown };

/** Why this user may not start this collection here; undefined when they may. */
async function collectRefusal(deps: CollectDeps, req: CollectionRequest): Promise<CollectRefusal | undefined> {
  const policy = deps.collectPolicy;
  const userGroups: string[] = [];
  if (needsGroupLookup(policy, req.who.userId)) {
    for (const group of policy.allowedUserGroups) {
      if ((await deps.chat.userGroupMembers(group)).includes(req.who.userId)) {
        userGroups.push(group);
        break;
      }
    }
  }
  return checkCollect(policy, { userId: req.who.userId, channelId: req.channelId, force: req.query.force === true, userGroups });
}

function refusalReason(refusal: CollectRefusal): AttemptReason {
  switch (refusal.kind) {
    case 'channel':
      return { kind: 'channel', allowedChannels: [...refusal.allowedChannels] };
    case 'user':
      return { kind: 'user' };
    case 'force':
      return { kind: 'force' };
  }
}

/** Appends one step of this request's attempt to the audit trail: who, where, what, and the step's own fields. */
export function recordStep(
  deps: CollectDeps,
  req: Pick<CollectionRequest, 'who' | 'channelId' | 'query'>,
  attemptId: string,
  step: CollectStep,
  at = deps.now(),
): Promise<void> {
  return deps.store.recordCollectStep({
    ...step,
    attemptId,
    at,
    teamId: req.who.teamId,
    channelId: req.channelId,
    userId: req.who.userId,
    query: req.query,
  });
}

/**
 * When this user may not start this collection here, the refusal, recorded in the log and the audit
 * trail. Asked before offering a confirmation as well as before starting.
 */
export async function refusalFor(
  deps: CollectDeps,
  req: CollectionRequest,
  attemptId = deps.newId(),
  at = deps.now(),
): Promise<CollectRefusal | undefined> {
  const refusal = await collectRefusal(deps, req);
  if (refusal === undefined) return undefined;
  deps.logger.info({ user: req.who.userId, channel: req.channelId, refusal: refusal.kind }, 'collection refused');
  await recordStep(deps, req, attemptId, { step: 'refused', reason: refusalReason(refusal) }, at);
  return refusal;
}

/**
 * Part of a name-less target is held, and the last start of that target did not say which collectors
 * it covers: the others cannot be started by name, so nothing starts.
 */
export function unknownRest(query: CollectQuery, coverage: Coverage, held: readonly Held[]): boolean {
  return query.name === undefined && !coverage.exact && held.length > 0 && held.every((h) => h.collector !== undefined);
}

/**
 * Why a start was turned away by the cooldown: who started what held it, when, and whether "Start
 * anyway" was offered; the collector too where it is part of a bigger target asked for.
 */
export function cooldownReason(query: CollectQuery, held: readonly Held[], offered: boolean): AttemptReason {
  const first = held.find((h) => h.collector === undefined) ?? (held[0] as Held);
  const collector = query.name === undefined ? first.collector : undefined;
  return {
    kind: 'cooldown',
    userId: first.holder.userId,
    at: first.holder.at,
    offered,
    ...(collector === undefined ? {} : { collector }),
  };
}

/** What the trail knows of the collectors this team's collections covered. */
export async function catalogFor(deps: CollectDeps, teamId: string): Promise<Catalog> {
  return catalogOf(await deps.store.listCollectAttempts({ teamId, limit: CATALOG_DEPTH }));
}

/** How far back the trail is read to learn the collectors: enough for any team's usual set. */
const CATALOG_DEPTH = 500;

/** The cooldown keys a start takes: one per collector it is known to cover, and the target itself (its coverage may have grown since). */
function cooldownKeys(query: CollectQuery, coverage: Coverage): Array<{ key: string; collector: string | undefined }> {
  const keys: Array<{ key: string; collector: string | undefined }> = coverage.collectors.map((c) => ({
    key: collectorKey(c),
    collector: c,
  }));
  if (query.name === undefined) keys.push({ key: cooldownTarget(query), collector: undefined });
  return keys;
}

/** Who holds the cooldown of any of these keys now, without taking any: for asking one question rather than two. */
export async function heldNow(deps: CollectDeps, req: CollectionRequest, coverage: Coverage): Promise<Held[]> {
  const { cooldownMs } = deps.collectPolicy;
  if (cooldownMs <= 0) return [];
  const held: Held[] = [];
  for (const { key, collector } of cooldownKeys(req.query, coverage)) {
    const holder = await deps.store.peekCooldown(req.who.teamId, key, deps.now(), cooldownMs);
    if (holder) held.push({ collector, holder });
  }
  return held;
}

/** The query with a collector's name as the service first named it, for every message about it. */
export function canonical(query: CollectQuery, coverage: Coverage): CollectQuery {
  return query.name === undefined ? query : { ...query, name: coverage.collectors[0] ?? query.name };
}

export async function startCollection(deps: CollectDeps, req: CollectionRequest): Promise<StartOutcome> {
  const { who, query, channelId } = req;
  const attemptId = req.attemptId ?? deps.newId();
  const at = deps.now();
  const record = (step: CollectStep) => recordStep(deps, req, attemptId, step);
  const { cooldownMs } = deps.collectPolicy;
  /** Cooldown keys this attempt took: given back together when it started nothing for certain. */
  const taken: string[] = [];
  const release = () => Promise.all(taken.map((key) => deps.store.releaseCooldown(who.teamId, key, attemptId).catch(() => undefined)));
  const take = async (key: string, override: boolean) => {
    const claim = await deps.store.claimCooldown({
      teamId: who.teamId,
      target: key,
      userId: who.userId,
      channelId,
      attemptId,
      at,
      // Overriding takes the cooldown whoever holds it, and starts a new one.
      cooldownMs: override ? 0 : cooldownMs,
    });
    if (claim.claimed) taken.push(key);
    return claim;
  };
  /** The service answered a start: whatever fails after that, the runs are going. */
  let started = false;
  try {
    const refusal = await refusalFor(deps, req, attemptId, at);
    if (refusal) return { kind: 'refused', refusal };
    const linked = await deps.credentials.credentialsFor(who, 'collectEntitlements');
    if (linked === undefined) {
      await record({ step: 'refused', reason: { kind: 'not-linked' } });
      return { kind: 'not-linked' };
    }
    const catalog = await catalogFor(deps, who.teamId);
    const coverage = cooldownMs > 0 ? coverageOf(query, catalog) : { collectors: [], exact: false };
    const held: Held[] = [];
    if (cooldownMs > 0) {
      const override = req.overrideCooldown === true && mayOverride(deps.collectPolicy, who.userId);
      for (const { key, collector } of cooldownKeys(query, coverage)) {
        const claim = await take(key, override);
        if (!claim.claimed) held.push({ collector, holder: claim.holder });
      }
    }
    // Some of a whole application, or of everything, was started a moment ago: when the last start of the same
    // target said exactly which collectors it covers, the others start by name; otherwise none do.
    const rest =
      held.length > 0 && coverage.exact && query.name === undefined && held.every((h) => h.collector !== undefined)
        ? coverage.collectors.filter((c) => !held.some((h) => h.collector === c))
        : [];
    if (held.length > 0 && rest.length === 0) {
      await release();
      const overrideId = mayOverride(deps.collectPolicy, who.userId) ? await createConfirmation(deps, req, true, attemptId) : undefined;
      await record({ step: 'refused', reason: cooldownReason(query, held, overrideId !== undefined) });
      return {
        kind: 'cooldown',
        query: canonical(query, coverage),
        held,
        cooldownMs,
        overrideId,
        unknownRest: unknownRest(query, coverage, held),
      };
    }

    const asked = rest.length > 0 ? rest.map((name) => ({ ...query, name })) : [query];
    // Recorded before the service is asked: a start the process dies during still shows in the trail.
    await record({ step: 'sent' });
    const found: CollectionRun[] = [];
    for (const one of asked) {
      const result = await linked.call((token, options) => deps.service.collectEntitlements(one, token, options));
      started ||= result.runs.length > 0;
      found.push(...result.runs);
    }
    await noteSuccess(deps, who, 'collectEntitlements');
    deps.logger.info(
      {
        user: who.userId,
        team: who.teamId,
        channel: channelId,
        query,
        runs: found,
        leftOut: held.map((h) => h.collector),
        attempt: attemptId,
      },
      found.length > 0 ? 'collection started' : 'no collector matched; nothing started',
    );
    if (found.length === 0) {
      await release();
      await record({ step: 'answered', runs: [], leftOut: [], ranAgain: [] });
      const known = [...catalog.names.values()].sort((a, b) => a.localeCompare(b));
      const forced = forceMisspelt(query, catalog);
      const retry = forced === undefined ? undefined : collectCommandText(forced);
      const meant = query.name === undefined || retry !== undefined ? undefined : nearest(fold(query.name), known.map(fold));
      return { kind: 'nothing-matched', query, known, meant: meant === undefined ? undefined : catalog.names.get(meant), retry };
    }
    // Collectors the start ran that were not known to be covered: their cooldown starts now too. One
    // started a moment ago has just run again (nothing could have told): the asker hears it.
    const ranAgain: Held[] = [];
    if (cooldownMs > 0) {
      for (const run of found) {
        const key = run.collector ? collectorKey(run.collector) : undefined;
        if (run.collector === null || key === undefined || taken.includes(key)) continue;
        const claim = await take(key, false);
        if (claim.claimed) continue;
        ranAgain.push({ collector: catalog.names.get(fold(run.collector)) ?? run.collector, holder: claim.holder });
        await take(key, true);
      }
    }
    const runs: WatchedRun[] = found.map((r) => ({ runId: r.runId, collector: r.collector ?? undefined, state: undefined }));
    const names = (list: readonly Held[]) => list.map((h) => h.collector).filter((c): c is string => c !== undefined);
    await record({ step: 'answered', runs, leftOut: names(held), ranAgain: names(ranAgain) });
    const announced = await announce(deps, req, attemptId, at, runs);
    return { ...announced, leftOut: held, ranAgain, cooldownMs };
  } catch (error) {
    // A start that reached the service (a timeout, or a store failure after it answered) keeps the cooldown: it may be running.
    // 'network' means the request never reached the service: nothing started, so the cooldown goes back.
    const maybeStarted = started || (isServiceError(error) && error.kind === 'service-unavailable' && error.reason !== 'network');
    if (!maybeStarted) await release();
    const reason: AttemptReason = isServiceError(error)
      ? { kind: 'service', error: error.kind, message: (error.serviceMessage ?? error.message).slice(0, 500) }
      : { kind: 'internal' };
    await record({ step: 'failed', reason, maybeStarted }).catch((e: unknown) =>
      deps.logger.error({ attempt: attemptId, error: (e as Error).message }, 'could not record the collection attempt'),
    );
    await noteFailure(deps, who, 'collectEntitlements', error);
    return { kind: 'failed', error };
  }
}

/**
 * A confirmation of this request, for its asker alone: one click starts it, once. With
 * `overrideCooldown`, it is the "Start anyway" of a cooldown notice. `attemptId` is the audit line
 * the question was recorded on, which the click completes.
 */
export async function createConfirmation(
  deps: CollectDeps,
  req: CollectionRequest,
  overrideCooldown = false,
  attemptId?: string,
): Promise<string> {
  const id = deps.newId();
  const now = deps.now();
  const payload = { query: req.query, ...(overrideCooldown ? { overrideCooldown } : {}), ...(attemptId ? { attemptId } : {}) };
  await deps.store.createConfirmation({
    id,
    teamId: req.who.teamId,
    channelId: req.channelId,
    userId: req.who.userId,
    payload: JSON.stringify(payload),
    createdAt: now,
    expiresAt: new Date(now.getTime() + deps.confirmationTtlMs),
  });
  return id;
}

/**
 * Posts the runs to the channel as the bot, so that the message can be updated as they go, and
 * asks the watcher to follow them. The watch is stored first: whatever happens to the post (Slack
 * slow or down, a restart), the runs are followed, their cooldown goes back if they abort, and the
 * starter hears of an abort. Where the bot may not post (a private channel it was not invited to),
 * or Slack does not take the message within announceWithinMs, the outcome says so and the adapter
 * answers through the command instead; a message Slack takes late is still followed.
 */
async function announce(
  deps: CollectDeps,
  req: CollectionRequest,
  attemptId: string,
  at: Date,
  runs: WatchedRun[],
): Promise<{ kind: 'started'; status: CollectStatus; posted: boolean }> {
  const base = { userId: req.who.userId, query: req.query, runs, startedAt: at, now: at };
  const watched = await deps.store
    .createWatch({
      attemptId,
      teamId: req.who.teamId,
      userId: req.who.userId,
      channelId: req.channelId,
      messageTs: '',
      query: req.query,
      runs,
      startedAt: at,
      deadline: new Date(at.getTime() + deps.collectPolicy.watchLimitMs),
      nextPollAt: new Date(at.getTime() + deps.firstPollMs),
      intervalMs: deps.firstPollMs,
      doneAt: undefined,
      note: undefined,
    })
    .then(
      () => true,
      (error: unknown) => {
        // The runs did start; the channel still hears of them, only the message will not move on by itself.
        deps.logger.error(
          { attempt: attemptId, error: (error as Error).message },
          'could not record the watch; the message will not update',
        );
        return false;
      },
    );
  const follow = (ts: string) =>
    watched
      ? deps.store
          .setWatchMessage(attemptId, ts)
          .catch((error: unknown) =>
            deps.logger.error(
              { attempt: attemptId, error: (error as Error).message },
              'could not record the channel message; it will not update',
            ),
          )
      : Promise.resolve();
  const posting = deps.chat.postStatus(req.channelId, { ...base, live: { kind: 'watching', checkedAt: at } });
  const posted = await within(deps.announceWithinMs, posting).catch((error: unknown) => {
    deps.logger.info(
      { channel: req.channelId, error: (error as Error).message },
      'could not post as the bot; answering through the command',
    );
    return 'refused' as const;
  });
  if (posted === 'refused') return { kind: 'started', status: { ...base, live: { kind: 'off', reason: 'not-in-channel' } }, posted: false };
  if (posted === 'late') {
    deps.logger.warn(
      { channel: req.channelId, attempt: attemptId, waitedMs: deps.announceWithinMs },
      'Slack did not take the channel message in time; answering through the command',
    );
    posting.then(({ ts }) => follow(ts)).catch(() => undefined);
    return { kind: 'started', status: { ...base, live: { kind: 'off', reason: 'slack-slow' } }, posted: false };
  }
  await follow(posted.ts);
  const live = watched ? { kind: 'watching' as const, checkedAt: at } : undefined;
  return { kind: 'started', status: { ...base, live }, posted: true };
}

/** The work's result, or 'late' when it has not settled within `ms` (it goes on; a rejection within `ms` is passed on). */
async function within<T>(ms: number, work: Promise<T>): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

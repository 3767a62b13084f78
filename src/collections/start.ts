/**
 * Starting a collection, the one way every path takes (typed command, confirmation, "Start
 * anyway", replay after linking): who may, where, not twice within the cooldown, with the
 * starter's own token; then the channel's message (which the watcher keeps up to date) and an
 * audit record of how it went, whatever happened.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import type { CollectQuery } from '../service/index.js';
import type { CollectStep } from '../store/index.js';
import { type Catalog, type Coverage, catalogOf, coverageOf } from './coverage.js';
import { type CollectRefusal, checkCollect, mayOverride, needsGroupLookup } from './policy.js';
import type { CollectDeps, CollectionRequest } from './ports.js';
import type { CollectStatus } from './runs.js';
import { announce, CooldownClaims, startRuns } from './start-execution.js';
import {
  cooldownKeys,
  type Held,
  heldNames,
  maybeStarted,
  NO_COVERAGE,
  nothingMatched,
  planStart,
  unclaimedRuns,
  watchedRuns,
} from './start-plan.js';
import { cooldownReason, failureReason, recordStep, refusalReason } from './start-record.js';

export type { CollectionRequest } from './ports.js';

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

/** What the trail knows of the collectors this team's collections covered. */
export async function catalogFor(deps: CollectDeps, teamId: string): Promise<Catalog> {
  return catalogOf(await deps.store.listCollectAttempts({ teamId, limit: CATALOG_DEPTH }));
}

/** How far back the trail is read to learn the collectors: enough for any team's usual set. */
const CATALOG_DEPTH = 500;

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

/**
 * Starts a collection: who may (refusalFor), linked, the cooldown's claims, then the plan
 * (start-plan.ts) carried out (start-execution.ts), each step in the audit trail as it happens.
 */
export async function startCollection(deps: CollectDeps, req: CollectionRequest): Promise<StartOutcome> {
  const { who, query } = req;
  const attemptId = req.attemptId ?? deps.newId();
  const at = deps.now();
  const record = (step: CollectStep) => recordStep(deps, req, attemptId, step);
  const { cooldownMs } = deps.collectPolicy;
  const claims = new CooldownClaims(deps, req, attemptId, at);
  /** The service answered a start: whatever fails after that, the runs are going. */
  let answered = false;
  try {
    const refusal = await refusalFor(deps, req, attemptId, at);
    if (refusal) return { kind: 'refused', refusal };
    const linked = await deps.credentials.credentialsFor(who, 'collectEntitlements');
    if (linked === undefined) {
      await record({ step: 'refused', reason: { kind: 'not-linked' } });
      return { kind: 'not-linked' };
    }
    const catalog = await catalogFor(deps, who.teamId);
    const coverage = cooldownMs > 0 ? coverageOf(query, catalog) : NO_COVERAGE;
    const override = req.overrideCooldown === true && mayOverride(deps.collectPolicy, who.userId);
    const held = cooldownMs > 0 ? await claims.claim(cooldownKeys(query, coverage), override) : [];
    const plan = planStart(query, coverage, held);
    if (plan.kind === 'held') {
      await claims.release();
      const overrideId = mayOverride(deps.collectPolicy, who.userId) ? await createConfirmation(deps, req, true, attemptId) : undefined;
      await record({ step: 'refused', reason: cooldownReason(query, held, overrideId !== undefined) });
      return { kind: 'cooldown', query: plan.query, held, cooldownMs, overrideId, unknownRest: plan.unknownRest };
    }
    // Recorded before the service is asked: a start the process dies during still shows in the trail.
    await record({ step: 'sent' });
    const found = await startRuns(deps, linked, plan.asked, () => {
      answered = true;
    });
    await noteSuccess(deps, who, 'collectEntitlements');
    const leftOut = heldNames(held);
    deps.logger.info(
      { user: who.userId, team: who.teamId, channel: req.channelId, query, runs: found, leftOut, attempt: attemptId },
      found.length > 0 ? 'collection started' : 'no collector matched; nothing started',
    );
    if (found.length === 0) {
      await claims.release();
      await record({ step: 'answered', runs: [], leftOut: [], ranAgain: [] });
      return { kind: 'nothing-matched', query, ...nothingMatched(query, catalog) };
    }
    const ranAgain = cooldownMs > 0 ? await claims.claimRan(unclaimedRuns(found, claims.taken, catalog)) : [];
    const runs = watchedRuns(found);
    await record({ step: 'answered', runs, leftOut, ranAgain: heldNames(ranAgain) });
    const announced = await announce(deps, req, attemptId, at, runs);
    return { ...announced, leftOut: held, ranAgain, cooldownMs };
  } catch (error) {
    // A start that may have reached the service keeps the cooldown: it may be running.
    const started = maybeStarted(error, answered);
    if (!started) await claims.release();
    await record({ step: 'failed', reason: failureReason(error), maybeStarted: started }).catch((e: unknown) =>
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

/**
 * Starting a collection, the one way every path takes (typed command, confirmation, "Start
 * anyway", replay after linking): who may, where, not twice within the cooldown, with the
 * starter's own token; then the channel's message (which the watcher keeps up to date) and an
 * audit record of how it went, whatever happened.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import { isServiceError } from '../service/errors.js';
import type { CollectQuery } from '../service/index.js';
import type { CollectOutcome, Principal, WatchedRun } from '../store/index.js';
import { type CollectRefusal, checkCollect, cooldownTarget, mayOverride, needsGroupLookup } from './policy.js';
import type { CollectDeps } from './ports.js';
import type { CollectStatus } from './runs.js';

export interface CollectionRequest {
  who: Principal;
  channelId: string;
  query: CollectQuery;
  /** "Start anyway" on a cooldown notice. */
  overrideCooldown?: boolean | undefined;
}

export interface CooldownHolder {
  userId: string;
  channelId: string;
  at: Date;
}

export type StartOutcome =
  | { kind: 'refused'; refusal: CollectRefusal }
  | { kind: 'not-linked' }
  | { kind: 'cooldown'; query: CollectQuery; holder: CooldownHolder; cooldownMs: number; overrideId: string | undefined }
  | { kind: 'nothing-matched'; query: CollectQuery }
  /** `posted`: the channel has the bot's message, which the watcher follows; otherwise the adapter must show it. */
  | { kind: 'started'; status: CollectStatus; posted: boolean }
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

function describeRefusal(refusal: CollectRefusal): string {
  switch (refusal.kind) {
    case 'channel':
      return `not an allowed channel (allowed: ${refusal.allowedChannels.join(', ')})`;
    case 'user':
      return 'not an allowed user';
    case 'force':
      return 'may not force';
  }
}

/** One row of the audit trail for this request: who, where, what, and how it ended. */
export function recordAttempt(
  deps: CollectDeps,
  req: CollectionRequest,
  outcome: CollectOutcome,
  detail?: string,
  runs: WatchedRun[] = [],
  id = deps.newId(),
  at = deps.now(),
): Promise<void> {
  return deps.store.recordCollectAttempt({
    id,
    at,
    teamId: req.who.teamId,
    channelId: req.channelId,
    userId: req.who.userId,
    query: req.query,
    outcome,
    detail,
    runs,
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
  await recordAttempt(deps, req, 'refused', describeRefusal(refusal), [], attemptId, at);
  return refusal;
}

export async function startCollection(deps: CollectDeps, req: CollectionRequest): Promise<StartOutcome> {
  const { who, query, channelId } = req;
  const attemptId = deps.newId();
  const at = deps.now();
  const record = (outcome: CollectOutcome, detail?: string, runs: WatchedRun[] = []) =>
    recordAttempt(deps, req, outcome, detail, runs, attemptId, at);
  const target = cooldownTarget(query);
  let holdsCooldown = false;
  /** The service answered the start: whatever fails after that, the runs are going. */
  let started = false;
  try {
    const refusal = await refusalFor(deps, req, attemptId, at);
    if (refusal) return { kind: 'refused', refusal };
    const linked = await deps.credentials.credentialsFor(who, 'collectEntitlements');
    if (linked === undefined) {
      await record('refused', 'not linked');
      return { kind: 'not-linked' };
    }
    const { cooldownMs } = deps.collectPolicy;
    if (cooldownMs > 0) {
      const override = req.overrideCooldown === true && mayOverride(deps.collectPolicy, who.userId);
      const claim = await deps.store.claimCooldown({
        teamId: who.teamId,
        target,
        userId: who.userId,
        channelId,
        attemptId,
        at,
        // Overriding takes the cooldown whoever holds it, and starts a new one.
        cooldownMs: override ? 0 : cooldownMs,
      });
      if (!claim.claimed) {
        const overrideId = mayOverride(deps.collectPolicy, who.userId) ? await createConfirmation(deps, req, true) : undefined;
        await record('refused', `cooldown: started by ${claim.holder.userId} at ${claim.holder.at.toISOString()}`);
        return { kind: 'cooldown', query, holder: claim.holder, cooldownMs, overrideId };
      }
      holdsCooldown = true;
    }

    const result = await linked.call((token, options) => deps.service.collectEntitlements(query, token, options));
    started = result.runs.length > 0;
    await noteSuccess(deps, who, 'collectEntitlements');
    deps.logger.info(
      { user: who.userId, team: who.teamId, channel: channelId, query, runs: result.runs, attempt: attemptId },
      result.runs.length > 0 ? 'collection started' : 'no collector matched; nothing started',
    );
    if (result.runs.length === 0) {
      if (holdsCooldown) await deps.store.releaseCooldown(who.teamId, target, attemptId);
      await record('nothing-matched');
      return { kind: 'nothing-matched', query };
    }
    const runs: WatchedRun[] = result.runs.map((r) => ({ runId: r.runId, collector: r.collector ?? undefined, state: undefined }));
    await record('started', undefined, runs);
    return await announce(deps, req, attemptId, at, runs);
  } catch (error) {
    // A start that reached the service (a timeout, or a store failure after it answered) keeps the cooldown: it may be running.
    // 'network' means the request never reached the service: nothing started, so the cooldown goes back.
    const maybeStarted = started || (isServiceError(error) && error.kind === 'service-unavailable' && error.reason !== 'network');
    if (holdsCooldown && !maybeStarted) await deps.store.releaseCooldown(who.teamId, target, attemptId).catch(() => undefined);
    const detail = isServiceError(error) ? `${error.kind}: ${error.serviceMessage ?? error.message}` : 'internal error';
    await record('failed', detail.slice(0, 500)).catch((e: unknown) =>
      deps.logger.error({ attempt: attemptId, error: (e as Error).message }, 'could not record the collection attempt'),
    );
    await noteFailure(deps, who, 'collectEntitlements', error);
    return { kind: 'failed', error };
  }
}

/**
 * A confirmation of this request, for its asker alone: one click starts it, once. With
 * `overrideCooldown`, it is the "Start anyway" of a cooldown notice.
 */
export async function createConfirmation(deps: CollectDeps, req: CollectionRequest, overrideCooldown = false): Promise<string> {
  const id = deps.newId();
  const now = deps.now();
  const payload = overrideCooldown ? { query: req.query, overrideCooldown } : { query: req.query };
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
 * asks the watcher to follow them. Where the bot may not post (a private channel it was not
 * invited to), the outcome says so and the adapter answers through the command instead.
 */
async function announce(deps: CollectDeps, req: CollectionRequest, attemptId: string, at: Date, runs: WatchedRun[]): Promise<StartOutcome> {
  const base = { userId: req.who.userId, query: req.query, runs, startedAt: at, now: at };
  let ts: string;
  try {
    ({ ts } = await deps.chat.postStatus(req.channelId, { ...base, live: { kind: 'watching', checkedAt: at } }));
  } catch (error) {
    deps.logger.info(
      { channel: req.channelId, error: (error as Error).message },
      'could not post as the bot; answering through the command',
    );
    return { kind: 'started', status: { ...base, live: { kind: 'off', reason: 'not-in-channel' } }, posted: false };
  }
  const watched = await deps.store
    .createWatch({
      attemptId,
      teamId: req.who.teamId,
      userId: req.who.userId,
      channelId: req.channelId,
      messageTs: ts,
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
        // The runs did start and the channel has its message; it will only not move on by itself.
        deps.logger.error(
          { attempt: attemptId, error: (error as Error).message },
          'could not record the watch; the message will not update',
        );
        return false;
      },
    );
  const live = watched ? { kind: 'watching' as const, checkedAt: at } : undefined;
  return { kind: 'started', status: { ...base, live }, posted: true };
}

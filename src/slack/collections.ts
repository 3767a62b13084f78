/**
 * Starting a collection, the one way every path takes (typed command, confirmation, "Start
 * anyway", replay after linking): who may, where, not twice within the cooldown, with the
 * starter's own token; then the channel's message (which the watcher keeps up to date) and an
 * audit record of how it went, whatever happened.
 */

import { type CollectRefusal, checkCollect, cooldownTarget, mayOverride, needsGroupLookup } from '../collections/policy.js';
import { renderCollectRefused, renderCollectStatus, renderCooldown, renderNoCollectorMatched } from '../render/collect.js';
import { renderNotLinked } from '../render/errors.js';
import { encodeRelink } from '../render/link.js';
import { type CollectQuery, isServiceError } from '../service/index.js';
import type { CollectOutcome, Principal, WatchedRun } from '../store/index.js';
import type { Deps } from './deps.js';
import { reportFailure } from './failures.js';
import { ephemeral, inChannel } from './respond.js';
import type { Respond } from './response-url.js';

export interface CollectionRequest {
  who: Principal;
  channelId: string;
  query: CollectQuery;
  /** "Start anyway" on a cooldown notice. */
  overrideCooldown?: boolean;
}

/** What a confirmation stores: the query, and whether it is a "Start anyway". */
export interface ConfirmationPayload {
  query: CollectQuery;
  overrideCooldown?: boolean;
}

/** Why this user may not start this collection here; undefined when they may. */
async function collectRefusal(deps: Deps, req: CollectionRequest): Promise<CollectRefusal | undefined> {
  const policy = deps.collectPolicy;
  const userGroups: string[] = [];
  if (needsGroupLookup(policy, req.who.userId)) {
    for (const group of policy.allowedUserGroups) {
      if ((await deps.slackApi.userGroupMembers(group)).includes(req.who.userId)) {
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

export async function startCollection(
  deps: Deps,
  req: CollectionRequest,
  respond: Respond,
  onDone?: (outcome: 'started' | 'nothing' | 'failed') => Promise<void>,
): Promise<void> {
  const { who, query, channelId } = req;
  const attemptId = deps.newId();
  const at = deps.now();
  const ctx = {
    ...who,
    slash: '/collect' as const,
    command: 'collectEntitlements' as const,
    reference: attemptId,
    relink: encodeRelink({ kind: 'collect', query }),
  };
  const record = (outcome: CollectOutcome, detail?: string, runs: WatchedRun[] = []) =>
    recordAttempt(deps, req, outcome, detail, runs, attemptId, at);
  const target = cooldownTarget(query);
  let holdsCooldown = false;
  try {
    if (await refuseIfNotAllowed(deps, req, respond, attemptId, at)) return void (await onDone?.('failed'));
    const linked = await deps.store.getToken(who, 'collectEntitlements');
    if (linked === undefined) {
      deps.metrics.outcome('not_linked');
      await record('refused', 'not linked');
      await respond(ephemeral(renderNotLinked(ctx)));
      return void (await onDone?.('failed'));
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
        deps.metrics.outcome('cooldown');
        const overrideId = mayOverride(deps.collectPolicy, who.userId) ? await createConfirmationFor(deps, req, true) : undefined;
        await record('refused', `cooldown: started by ${claim.holder.userId} at ${claim.holder.at.toISOString()}`);
        await respond(ephemeral(renderCooldown({ query, holder: claim.holder, cooldownMs, overrideId })));
        return void (await onDone?.('failed'));
      }
      holdsCooldown = true;
    }

    const result = await deps.service.collectEntitlements(query, linked.token);
    await deps.store.recordOutcome(who, 'collectEntitlements', 'ok', deps.now());
    deps.logger.info(
      { user: who.userId, team: who.teamId, channel: channelId, query, runs: result.runs, attempt: attemptId },
      'collection started',
    );
    if (result.runs.length === 0) {
      if (holdsCooldown) await deps.store.releaseCooldown(who.teamId, target, attemptId);
      await record('nothing-matched');
      await respond(ephemeral(renderNoCollectorMatched(query)));
      return void (await onDone?.('nothing'));
    }
    const runs: WatchedRun[] = result.runs.map((r) => ({ runId: r.runId, collector: r.collector ?? undefined, state: undefined }));
    await record('started', undefined, runs);
    await announce(deps, req, attemptId, at, runs, respond);
    await onDone?.('started');
  } catch (error) {
    // A start that may have reached the service (a timeout) keeps the cooldown: it may be running.
    const maybeStarted = isServiceError(error) && error.kind === 'service-unavailable';
    if (holdsCooldown && !maybeStarted) await deps.store.releaseCooldown(who.teamId, target, attemptId).catch(() => undefined);
    const detail = isServiceError(error) ? `${error.kind}: ${error.serviceMessage ?? error.message}` : 'internal error';
    await record('failed', detail.slice(0, 500)).catch((e: unknown) =>
      deps.logger.error({ attempt: attemptId, error: (e as Error).message }, 'could not record the collection attempt'),
    );
    await reportFailure(deps, error, ctx, respond);
    await onDone?.('failed');
  }
}

/** One row of the audit trail for this request: who, where, what, and how it ended. */
export function recordAttempt(
  deps: Deps,
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
 * When this user may not start this collection here, says why (to them, in the log, the metrics and
 * the audit trail) and returns true. Called before asking to confirm as well as before starting.
 */
export async function refuseIfNotAllowed(
  deps: Deps,
  req: CollectionRequest,
  respond: Respond,
  attemptId = deps.newId(),
  at = deps.now(),
): Promise<boolean> {
  const refusal = await collectRefusal(deps, req);
  if (refusal === undefined) return false;
  deps.logger.info({ user: req.who.userId, channel: req.channelId, refusal: refusal.kind }, 'collection refused');
  deps.metrics.outcome('refused');
  await recordAttempt(deps, req, 'refused', describeRefusal(refusal), [], attemptId, at);
  await respond(ephemeral(renderCollectRefused(refusal)));
  return true;
}

/**
 * A confirmation of this request, for its asker alone: one click starts it, once. With
 * `overrideCooldown`, it is the "Start anyway" of a cooldown notice.
 */
export async function createConfirmationFor(deps: Deps, req: CollectionRequest, overrideCooldown = false): Promise<string> {
  const id = deps.newId();
  const now = deps.now();
  const payload: ConfirmationPayload = overrideCooldown ? { query: req.query, overrideCooldown } : { query: req.query };
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
 * Posts the runs to the channel as the bot, so that the message can be updated as they go. Where
 * the bot may not post (a private channel it was not invited to), the answer goes through the
 * command's response_url instead, without live status, and says how to get it.
 */
async function announce(
  deps: Deps,
  req: CollectionRequest,
  attemptId: string,
  at: Date,
  runs: WatchedRun[],
  respond: Respond,
): Promise<void> {
  const base = { userId: req.who.userId, query: req.query, runs, startedAt: at, now: at };
  try {
    const { ts } = await deps.slackApi.postMessage(
      req.channelId,
      renderCollectStatus({ ...base, live: { kind: 'watching', checkedAt: at } }),
    );
    const firstPoll = new Date(at.getTime() + deps.runWatch.firstPollMs);
    await deps.store.createWatch({
      attemptId,
      teamId: req.who.teamId,
      userId: req.who.userId,
      channelId: req.channelId,
      messageTs: ts,
      query: req.query,
      runs,
      startedAt: at,
      deadline: new Date(at.getTime() + deps.collectPolicy.watchLimitMs),
      nextPollAt: firstPoll,
      intervalMs: deps.runWatch.firstPollMs,
      doneAt: undefined,
      note: undefined,
    });
  } catch (error) {
    deps.logger.info(
      { channel: req.channelId, error: (error as Error).message },
      'could not post as the bot; answering through response_url',
    );
    const why = 'No live status here: invite countersign to this channel (`/invite @countersign`) to see the runs update.';
    await respond(inChannel(renderCollectStatus({ ...base, live: { kind: 'off', why } })));
  }
}

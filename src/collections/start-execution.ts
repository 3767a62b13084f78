/**
 * Carrying out a start's plan: the cooldown claims of one attempt (given back together when it
 * started nothing for certain), the calls to the service, and the channel's message with the watch
 * that keeps it up to date. What to claim and what to start are start-plan.ts's.
 */

import type { Credentials } from '../service/credentials.js';
import type { CollectionRun, CollectQuery } from '../service/index.js';
import type { CooldownClaim, WatchedRun } from '../store/index.js';
import type { CollectDeps, CollectionRequest } from './ports.js';
import type { CollectStatus } from './runs.js';
import type { CooldownKey, Held } from './start-plan.js';

/** The cooldowns one attempt claims, in its name, at the moment it began. */
export class CooldownClaims {
  /** Keys this attempt holds. */
  readonly taken: string[] = [];
  readonly #deps: CollectDeps;
  readonly #req: CollectionRequest;
  readonly #attemptId: string;
  readonly #at: Date;

  constructor(deps: CollectDeps, req: CollectionRequest, attemptId: string, at: Date) {
    this.#deps = deps;
    this.#req = req;
    this.#attemptId = attemptId;
    this.#at = at;
  }

  /** Claims each key; overriding takes the cooldown whoever holds it, and starts a new one. Returns the keys others hold. */
  async claim(keys: readonly CooldownKey[], override: boolean): Promise<Held[]> {
    const held: Held[] = [];
    for (const { key, collector } of keys) {
      const claim = await this.#take(key, override);
      if (!claim.claimed) held.push({ collector, holder: claim.holder });
    }
    return held;
  }

  /**
   * Claims the collectors a start ran without knowing beforehand that it covered them. One started a
   * moment ago has just run again (nothing could have told): it is returned, and its cooldown starts
   * again in this attempt's name.
   */
  async claimRan(keys: readonly CooldownKey[]): Promise<Held[]> {
    const ranAgain: Held[] = [];
    for (const { key, collector } of keys) {
      const claim = await this.#take(key, false);
      if (claim.claimed) continue;
      ranAgain.push({ collector, holder: claim.holder });
      await this.#take(key, true);
    }
    return ranAgain;
  }

  /** Gives back every key this attempt holds; a key that cannot be given back lapses with its cooldown. */
  async release(): Promise<void> {
    const { store } = this.#deps;
    await Promise.all(this.taken.map((key) => store.releaseCooldown(this.#req.who.teamId, key, this.#attemptId).catch(() => undefined)));
  }

  async #take(key: string, override: boolean): Promise<CooldownClaim> {
    const { who, channelId } = this.#req;
    const claim = await this.#deps.store.claimCooldown({
      teamId: who.teamId,
      target: key,
      userId: who.userId,
      channelId,
      attemptId: this.#attemptId,
      at: this.#at,
      cooldownMs: override ? 0 : this.#deps.collectPolicy.cooldownMs,
    });
    if (claim.claimed) this.taken.push(key);
    return claim;
  }
}

/**
 * Asks the service to start each query in turn, with the starter's credentials. `answered` is told
 * as soon as one answer has runs: whatever fails after that, those runs are going.
 */
export async function startRuns(
  deps: CollectDeps,
  linked: Credentials,
  asked: readonly CollectQuery[],
  answered: () => void,
): Promise<CollectionRun[]> {
  const found: CollectionRun[] = [];
  for (const one of asked) {
    const result = await linked.call((token, options) => deps.service.collectEntitlements(one, token, options));
    if (result.runs.length > 0) answered();
    found.push(...result.runs);
  }
  return found;
}

/**
 * Posts the runs to the channel as the bot, so that the message can be updated as they go, and
 * asks the watcher to follow them. The watch is stored first: whatever happens to the post (Slack
 * slow or down, a restart), the runs are followed, their cooldown goes back if they abort, and the
 * starter hears of an abort. Where the bot may not post (a private channel it was not invited to),
 * or Slack does not take the message within announceWithinMs, the outcome says so and the adapter
 * answers through the command instead; a message Slack takes late is still followed.
 */
export async function announce(
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

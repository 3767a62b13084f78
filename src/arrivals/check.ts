/**
 * The check of one approver: their pending list read with their credentials, compared with what
 * the store remembers of it. An approval never on it before arrives; the first check (after
 * linking, a relink that ended a pause, or switching on) primes instead; arrivals in quiet hours
 * are held and sent as one message when they end; one that left the list has its DM redrawn, with
 * who decided it from Slack when a decision's hold says so.
 *
 * A list that did not change costs one findApprovals (more only when it fills a page), no Slack
 * call and no store write: the claim that leased the watch moved its next check on already. The
 * zone is asked of Slack only when something is to be sent and quiet hours are set.
 *
 * At most once: what a DM will list is recorded (under the lease, each approval once) before the
 * DM is handed to Slack; a crash in between loses that DM rather than sending it twice.
 */

import type { Deps, TimeZones } from '../deps.js';
import type { RelinkReason, ReminderOutbox } from '../reminders/scheduler.js';
import { type HeldSlot, SlotsStoppedError } from '../reminders/slots.js';
import { type Credentials, LinkOutdatedError, RefusedForUserError } from '../service/credentials.js';
import { isServiceError } from '../service/errors.js';
import type { Approval } from '../service/index.js';
import type { ArrivalCheckChanges, ArrivalWatch, KeptArrival, KeptSummary, Principal } from '../store/index.js';
import { decidedBy } from './decided.js';
import { inQuietHours, messageOf } from './message.js';
import { ARRIVALS_LISTED, type ArrivalEntry, type ArrivalOutbox } from './ports.js';

/** The most a page holds: a list that fits in one costs one call. */
export const PAGE_SIZE = 100;
/**
 * Pages read at most: an approver with more than this many pending approvals has the rest left
 * out (none of them announced, none of those remembered taken for gone) rather than costing the
 * service more calls every interval.
 */
export const MAX_PAGES = 10;

export interface CheckDeps extends Pick<Deps, 'store' | 'service' | 'credentials' | 'logger' | 'now' | 'newId'> {
  timeZones: TimeZones;
  outbox: ArrivalOutbox & ReminderOutbox;
  /** This instance's name in leases. */
  owner: string;
  /** The service's calls, bounded on every instance together (shared with the digests). */
  slots: { acquire(): Promise<HeldSlot> };
  serviceTimeZone: string | undefined;
  /** DECISION_REQUEST is set: the approvals a DM lists get their decision buttons from getApprovalDetails. */
  decisionActions: boolean;
}

export type CheckOutcome =
  | 'unchanged'
  | 'primed'
  | 'changed'
  | 'relinkAsked'
  /** Not linked any more, or refused with the relink message told already: parked until they link. */
  | 'parked'
  /** Another instance holds the watch now: nothing written, nothing sent. */
  | 'lost'
  | 'retried'
  | 'failed';

export interface CheckResult {
  outcome: CheckOutcome;
  serviceCalls: number;
  /** Approvals announced, DMs posted, DMs redrawn, approvals held for quiet hours. */
  announced: number;
  messages: number;
  redrawn: number;
  held: number;
}

function relinkReason(error: unknown): RelinkReason {
  if (error instanceof LinkOutdatedError) return 'outdated';
  if (error instanceof RefusedForUserError) return 'refused';
  return 'expired';
}

function summaryOf(a: Approval): KeptSummary {
  const requestedBy = a.fields.RequestedByName;
  return {
    approvalId: a.workItemId,
    workItemName: a.workItemName,
    requestName: a.requestName,
    requestedBy: typeof requestedBy === 'string' || typeof requestedBy === 'number' ? String(requestedBy) : '',
    dueDate: a.dueDate,
  };
}

export async function checkApprover(deps: CheckDeps, watch: ArrivalWatch): Promise<CheckResult> {
  const result: CheckResult = { outcome: 'unchanged', serviceCalls: 0, announced: 0, messages: 0, redrawn: 0, held: 0 };
  const done = (outcome: CheckOutcome): CheckResult => Object.assign(result, { outcome });
  const { store, owner } = deps;
  const who: Principal = { teamId: watch.teamId, userId: watch.userId };
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  // Unlinked (logged out, or removed by an admin): silence until they link again, which wakes it.
  if (linked === undefined) return done((await store.pauseArrivalWatch(who.userId, owner, watch.nextAt)) ? 'parked' : 'lost');

  const kept = await store.arrivalItems(who.userId);
  let listed: { approvals: Approval[]; complete: boolean };
  try {
    listed = await readList(deps, linked, result);
  } catch (error) {
    if (error instanceof SlotsStoppedError) return done('retried');
    if (isServiceError(error) && error.kind === 'invalid-token') return done(await askToRelink(deps, watch, linked, error));
    if (
      isServiceError(error) &&
      (error.kind === 'service-unavailable' || error.kind === 'unexpected-response' || error.kind === 'app-sign-in')
    ) {
      deps.logger.warn(
        { user: who.userId, kind: error.kind, error: error.message },
        'arrivals: service not answering; checked again next interval',
      );
      return done('retried');
    }
    throw error;
  }

  const now = deps.now();
  const pending = new Map(listed.approvals.map((a) => [a.workItemId, a]));
  const known = new Map(kept.map((k) => [k.approvalId, k]));
  const fresh = listed.approvals.filter((a) => !known.has(a.workItemId));
  const back = kept.filter((k) => k.goneAt !== undefined && pending.has(k.approvalId)).map((k) => k.approvalId);
  // A list cut short says nothing of what is not on it.
  const gone = listed.complete ? kept.filter((k) => k.goneAt === undefined && !pending.has(k.approvalId)) : [];
  const held = kept.filter((k) => k.status === 'held' && k.goneAt === undefined && pending.has(k.approvalId));

  if (watch.prime) return prime(deps, watch, { fresh, back, gone, count: pending.size }, result);
  if (fresh.length === 0 && back.length === 0 && gone.length === 0 && held.length === 0) return done('unchanged');

  const quiet = (fresh.length > 0 || held.length > 0) && watch.quiet !== undefined && (await quietNow(deps, watch, now));
  // Still quiet, and nothing new since: what is held waits, and nothing is written.
  if (quiet && fresh.length === 0 && back.length === 0 && gone.length === 0) return done('unchanged');
  const changes: ArrivalCheckChanges = { primed: false, add: [], back, gone: await goneWith(deps, gone) };
  if (quiet) {
    changes.add = fresh.map((a) => ({ status: 'held' as const, summary: summaryOf(a) }));
    result.held = fresh.length;
  } else if (fresh.length > 0 || held.length > 0) {
    // What waited for the quiet hours to end comes first: it arrived first.
    const summaries = [...held.map((k) => k.summary), ...fresh.map(summaryOf)];
    const actions = await actionsFor(deps, linked, summaries.slice(0, ARRIVALS_LISTED), result);
    changes.announce = {
      messageId: deps.newId(),
      teamId: who.teamId,
      approvals: summaries.map((summary, i) => ({ summary, actions: actions[i] ?? [] })),
      listed: ARRIVALS_LISTED,
      afterQuiet: held.length > 0,
    };
  }
  const saved = await store.saveArrivalCheck(who.userId, owner, now, changes);
  if (saved === undefined) return done('lost');
  await announce(deps, who, changes, saved.announced, result);
  await redraw(deps, gone, result);
  return done('changed');
}

/** The pending list, page after page while pages come full, holding one service slot for them all and only for them. */
async function readList(deps: CheckDeps, linked: Credentials, result: CheckResult): Promise<{ approvals: Approval[]; complete: boolean }> {
  const slot = await deps.slots.acquire();
  try {
    const approvals: Approval[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const query = { state: 'pending' as const, 'page-size': PAGE_SIZE, ...(page === 1 ? {} : { 'start-page': page }) };
      result.serviceCalls++;
      // Not noted on the link when it works: a check that changed nothing writes nothing.
      const found = await linked.call((token, options) => deps.service.findApprovals(query, token, options), 'not-command-only');
      approvals.push(...found.approvals);
      if (found.approvals.length < PAGE_SIZE) return { approvals, complete: true };
    }
    return { approvals, complete: false };
  } finally {
    await slot.release();
  }
}

/** The token was refused: parked until they link again, and told once for this link, whichever of digests and arrivals meets it first. */
async function askToRelink(deps: CheckDeps, watch: ArrivalWatch, linked: Credentials, error: unknown): Promise<CheckOutcome> {
  const { store, owner } = deps;
  const who = { teamId: watch.teamId, userId: watch.userId };
  const now = deps.now();
  if (linked.kind === 'trusted-app') await store.recordIdentityOutcome(who, 'rejected', now);
  else await store.recordOutcome(who, 'findApprovals', 'rejected', now);
  if (!(await store.pauseArrivalWatch(who.userId, owner, watch.nextAt))) return 'lost';
  if (!(await store.claimRelinkNotice(who, linked.linkedAt, now))) return 'parked';
  await deps.outbox.relink(who.userId, relinkReason(error));
  return 'relinkAsked';
}

async function quietNow(deps: CheckDeps, watch: ArrivalWatch, now: Date): Promise<boolean> {
  // Read at each check that has something to send, as the digests do: someone who travels is quiet where they are.
  const zone = (await deps.timeZones.lookup(watch.userId)) ?? deps.serviceTimeZone ?? 'UTC';
  return inQuietHours(watch.quiet, now, zone);
}

async function goneWith(deps: CheckDeps, gone: readonly KeptArrival[]): Promise<ArrivalCheckChanges['gone']> {
  if (gone.length === 0) return [];
  // Decided from Slack (by this approver or another): its DM says who decided what and when, not only "gone".
  const holds = await deps.store.decisionHolds(gone.map((k) => k.approvalId));
  return Promise.all(
    gone.map(async (k) => ({ approvalId: k.approvalId, decided: k.decided ?? (await decidedBy(deps.store, holds.get(k.approvalId))) })),
  );
}

/** The first check: what is there is recorded, never announced; at most one line says how many wait. */
async function prime(
  deps: CheckDeps,
  watch: ArrivalWatch,
  seen: { fresh: Approval[]; back: string[]; gone: KeptArrival[]; count: number },
  result: CheckResult,
): Promise<CheckResult> {
  const changes: ArrivalCheckChanges = {
    primed: true,
    add: seen.fresh.map((a) => ({ status: 'primed' as const, summary: summaryOf(a) })),
    back: seen.back,
    gone: await goneWith(deps, seen.gone),
  };
  if ((await deps.store.saveArrivalCheck(watch.userId, deps.owner, deps.now(), changes)) === undefined)
    return Object.assign(result, { outcome: 'lost' as const });
  result.outcome = 'primed';
  try {
    if (seen.count > 0) await deps.outbox.alreadyWaiting(watch.userId, seen.count);
  } catch (error) {
    deps.logger.error(
      { user: watch.userId, error: (error as Error).message },
      'arrivals: Slack did not take the line of what already waits',
    );
    result.outcome = 'failed';
  }
  await redraw(deps, seen.gone, result);
  return result;
}

/**
 * The decision buttons of each approval a DM lists, as getApprovalDetails offers them now; none
 * (Details only) where decisions are not made in chat, where its items are decided one by one,
 * or where the service could not say. Each call holds a service slot of its own.
 */
async function actionsFor(deps: CheckDeps, linked: Credentials, listed: readonly KeptSummary[], result: CheckResult): Promise<string[][]> {
  if (!deps.decisionActions || !deps.service.offers('getApprovalDetails')) return listed.map(() => []);
  const actions: string[][] = [];
  for (const summary of listed) {
    let slot: HeldSlot;
    try {
      slot = await deps.slots.acquire();
    } catch {
      actions.push([]);
      continue;
    }
    try {
      result.serviceCalls++;
      const details = await linked.call((token, options) => deps.service.getApprovalDetails(summary.approvalId, token, options), 'none');
      actions.push(details.lineItemApprovalEnabled === true ? [] : details.actions);
    } catch (error) {
      deps.logger.warn(
        { approvalId: summary.approvalId, error: (error as Error).message },
        'arrivals: no decision buttons for an approval',
      );
      actions.push([]);
    } finally {
      await slot.release();
    }
  }
  return actions;
}

async function announce(
  deps: CheckDeps,
  who: Principal,
  changes: ArrivalCheckChanges,
  announced: readonly string[],
  result: CheckResult,
): Promise<void> {
  const m = changes.announce;
  if (m === undefined || announced.length === 0) return;
  const byId = new Map(m.approvals.map((a) => [a.summary.approvalId, a]));
  const entries: ArrivalEntry[] = announced.slice(0, m.listed).map((id) => {
    const a = byId.get(id) as (typeof m.approvals)[number];
    return { approval: a.summary, state: { kind: 'waiting', actions: a.actions } };
  });
  result.announced = announced.length;
  try {
    const posted = await deps.outbox.announce({
      userId: who.userId,
      entries,
      more: announced.length - entries.length,
      afterQuiet: m.afterQuiet,
    });
    result.messages = 1;
    await deps.store.setArrivalMessage(m.messageId, posted.channel, posted.ts);
  } catch (error) {
    deps.logger.error({ user: who.userId, error: (error as Error).message }, 'arrivals: Slack did not take the DM');
    result.outcome = 'failed';
  }
}

/** The DMs listing approvals that left the list, redrawn as the store now says (gone, or decided from Slack). */
async function redraw(deps: CheckDeps, gone: readonly KeptArrival[], result: CheckResult): Promise<void> {
  const ids = [...new Set(gone.flatMap((k) => (k.messageId === undefined ? [] : [k.messageId])))];
  if (ids.length === 0) return;
  const goneIds = new Set(gone.map((k) => k.approvalId));
  for (const kept of await deps.store.arrivalMessages(ids)) {
    // Only a DM that lists one of them by name shows it: one counted in "more" changes nothing on it.
    if (kept.channel === undefined || kept.ts === undefined || !kept.entries.some((e) => goneIds.has(e.approvalId))) continue;
    try {
      if ((await deps.outbox.redraw(kept.channel, kept.ts, messageOf(kept))) === 'gone') await deps.store.forgetArrivalMessage(kept.id);
      result.redrawn++;
    } catch (error) {
      deps.logger.warn({ user: kept.userId, error: (error as Error).message }, 'arrivals: could not redraw a DM');
    }
  }
}

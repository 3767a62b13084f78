/**
 * The reminder scheduler: every instance runs one; the store's leases make sure each digest is
 * taken by one of them. A digest is fetched with the user's credentials, sent as a DM, and the
 * reminder moved to its next occurrence. Crashing before the DM is handed to Slack means another
 * instance takes it over when the lease runs out; after that point it is never sent twice.
 *
 * Calls to the service are bounded by `concurrency` on all instances together (ServiceSlots): a
 * digest holds a slot for its service call alone, so that Slack (its latency, rate limits, 429
 * waits), the store and the zone lookup never hold the service back. While reminders are due they
 * are taken one after another, not once per tick.
 */

import { setMaxListeners } from 'node:events';
import { DUE_FETCH, type DueGroups, fetchByDue } from '../approvals/due.js';
import type { TimeZones } from '../deps.js';
import { DEFAULT_PAGE_SIZE } from '../parse/approvals.js';
import { serviceDateFilter } from '../parse/dates.js';
import type { Logger } from '../runtime/logger.js';
import { leasedWorkers, Ticker } from '../runtime/ticker.js';
import { type CredentialSource, LinkOutdatedError, RefusedForUserError } from '../service/credentials.js';
import { isServiceError } from '../service/errors.js';
import type { ApprovalQuery, ServiceClient } from '../service/index.js';
import type { Principal, Reminder, ReminderRelease, Store } from '../store/index.js';
import { timeFrame } from '../time/frame.js';
import { buildDigest, type Digest } from './digest.js';
import type { ReminderPlanner } from './remind.js';
import { nextOccurrence, reminderPaused, spreadDelayMs } from './schedule.js';
import { type HeldSlot, ServiceSlots, SlotsStoppedError } from './slots.js';

/**
 * Why a digest could not be fetched, for the one message that asks the user to link: their token
 * was refused, they are not linked, their token from before the trusted mode expired (link once
 * more, the new way), or the service refused to act for their identity (trusted mode).
 */
export type RelinkReason = 'expired' | 'not-linked' | 'outdated' | 'refused';

/** Where digests go: the adapter renders them and sends a direct message. */
export interface ReminderOutbox {
  /** Rate limits (429 Retry-After) are the sender's to honour. */
  digest(userId: string, digest: Digest): Promise<void>;
  /** Sent once when the token is refused or missing; then silence until the user links again. */
  relink(userId: string, reason: RelinkReason): Promise<void>;
}

function relinkReason(error: unknown): RelinkReason {
  if (error instanceof LinkOutdatedError) return 'outdated';
  if (error instanceof RefusedForUserError) return 'refused';
  return 'expired';
}

export interface SchedulerOptions {
  store: Store;
  service: ServiceClient;
  credentials: CredentialSource;
  logger: Logger;
  now: () => Date;
  timeZones: TimeZones;
  outbox: ReminderOutbox;
  /** This instance's name in leases. */
  owner: string;
  windowDays: number;
  /** COMMAND_SERVICE_TIME_ZONE: the zone the service writes its times in; undefined when not known. */
  serviceTimeZone: string | undefined;
  /** How often the store is asked for due reminders when none were (while some are, they are taken one after another). */
  tickMs?: number;
  /**
   * Each user's digest is due at a fixed delay within this after their time, the same every day:
   * those who chose the same minute are taken in the same order each day. The service is
   * protected by `concurrency`, not by this: a long delay would only make digests late.
   */
  spreadMs?: number;
  /** How long a taken reminder is held before another instance may take it over. */
  leaseMs?: number;
  /** After a failure that may pass (the service down), try again this much later… */
  retryMs?: number;
  /** …until the digest is this late, then skip to the next occurrence: a 09:00 digest at 17:00 helps no one. */
  giveUpAfterMs?: number;
  /** Digests' calls to the service in flight at once, on all instances sharing the store (REMINDER_CONCURRENCY). */
  concurrency?: number;
  /**
   * Digests this instance works on at once: more than `concurrency`, so that while some wait for
   * Slack, the zone lookup or the store (each a round trip that may take as long as the service
   * call), others use the service. Four times `concurrency` unless set.
   */
  workers?: number;
  /** How long a service slot is leased (renewed while held): how soon the slots of an instance that died come free. */
  slotLeaseMs?: number;
  /**
   * The service slots, when shared with others (the arrivals' checks): REMINDER_CONCURRENCY then
   * bounds them all together, and their owner stops them. Made from `concurrency` when not given.
   */
  slots?: ServiceSlots;
}

export interface TickReport {
  taken: number;
  sent: number;
  quiet: number;
  relinkAsked: number;
  retried: number;
  skipped: number;
  failed: number;
}

export class ReminderScheduler implements ReminderPlanner {
  readonly #o: Required<Omit<SchedulerOptions, 'slots'>>;
  readonly #ticker: Ticker<TickReport>;
  readonly #slots: ServiceSlots;
  /**
   * Cancels the service calls of digests under way when the scheduler stops: a service that hangs
   * would otherwise hold the stop for SERVICE_TIMEOUT. Nothing is sent before the answer, so such a
   * reminder goes back as it was, for whichever instance comes next.
   */
  readonly #stopping = new AbortController();

  readonly #ownSlots: boolean;

  constructor({ slots, ...options }: SchedulerOptions) {
    // One signal for every call under way (a worker each, up to four times the bound): not a leak.
    setMaxListeners(0, this.#stopping.signal);
    // REMINDER_CONCURRENCY's default, for a scheduler built without configuration (tests).
    const concurrency = slots?.limit ?? options.concurrency ?? 4;
    this.#o = {
      tickMs: 5_000,
      spreadMs: 1_000,
      leaseMs: 5 * 60_000,
      retryMs: 10 * 60_000,
      giveUpAfterMs: 4 * 3_600_000,
      workers: 4 * concurrency,
      slotLeaseMs: 60_000,
      ...options,
      concurrency,
    };
    this.#ticker = new Ticker(this.#o.tickMs, () => this.#tick());
    this.#ownSlots = slots === undefined;
    this.#slots =
      slots ??
      new ServiceSlots({
        store: this.#o.store,
        owner: this.#o.owner,
        limit: concurrency,
        now: this.#o.now,
        logger: this.#o.logger,
        leaseMs: this.#o.slotLeaseMs,
      });
  }

  get windowDays(): number {
    return this.#o.windowDays;
  }

  /** When a reminder set now would first fire, and when this instance would take it up. */
  plan(who: Principal, schedule: Parameters<typeof nextOccurrence>[0], after: Date): { nextAt: Date; dueAt: Date } {
    const nextAt = nextOccurrence(schedule, after);
    return { nextAt, dueAt: new Date(nextAt.getTime() + spreadDelayMs(`${who.teamId}:${who.userId}`, this.#o.spreadMs)) };
  }

  start(): void {
    this.#ticker.start();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    if (this.#ownSlots) this.#slots.stop();
    await this.#ticker.stop();
  }

  /** Takes every reminder that is due and handles it. Ticks do not overlap: a second call waits for the first. */
  tick(): Promise<TickReport> {
    return this.#ticker.tick();
  }

  async #tick(): Promise<TickReport> {
    const report: TickReport = { taken: 0, sent: 0, quiet: 0, relinkAsked: 0, retried: 0, skipped: 0, failed: 0 };
    const started = performance.now();
    let progressAt = started;
    // Each worker takes one due reminder at a time. A digest waiting its turn at the service keeps
    // its reminder: the leases this instance holds are renewed while the tick runs, so none runs
    // out under a long queue (and an instance that dies lets its reminders go when they do).
    const crew = {
      workers: this.#o.workers,
      renewMs: this.#o.leaseMs / 3,
      renew: () => {
        const until = new Date(this.#o.now().getTime() + this.#o.leaseMs);
        void this.#o.store.renewReminderLeases(this.#o.owner, until).catch((error: unknown) => {
          this.#o.logger.warn({ error: (error as Error).message }, 'reminders: could not renew their leases');
        });
      },
      stopped: () => this.#ticker.stopped,
    };
    await leasedWorkers(crew, async (found): Promise<boolean> => {
      let r: Reminder | undefined;
      try {
        const now = this.#o.now();
        [r] = await this.#o.store.claimDueReminders(now, this.#o.owner, new Date(now.getTime() + this.#o.leaseMs), 1);
      } catch (error) {
        this.#o.logger.error({ error: (error as Error).message }, 'reminders: could not read the store; trying again next tick');
        report.failed++;
        return false;
      }
      if (r === undefined) return false;
      report.taken++;
      found();
      let outcome: Exclude<keyof TickReport, 'taken'>;
      try {
        outcome = await this.#handle(r);
      } catch (error) {
        this.#o.logger.error({ user: r.userId, team: r.teamId, error: (error as Error).message }, 'reminder failed');
        outcome = 'failed';
      }
      report[outcome]++;
      if (performance.now() - progressAt > 60_000) {
        progressAt = performance.now();
        this.#o.logger.info({ ...report, seconds: Math.round((progressAt - started) / 1000) }, 'reminders: still handling');
      }
      return true;
    });
    if (report.taken > 0) this.#o.logger.info({ ...report }, 'reminders handled');
    return report;
  }

  /**
   * Everything but the service call is done without a service slot: the zone, the credentials and
   * the checks before it, the store and Slack after it. The slot is held for the call alone.
   */
  async #handle(r: Reminder): Promise<Exclude<keyof TickReport, 'taken'>> {
    const { store, logger } = this.#o;
    const now = this.#o.now();
    const who: Principal = { teamId: r.teamId, userId: r.userId };
    // The zone is read again each time: someone who travels gets 09:00 where they are.
    const timeZone = (await this.#o.timeZones.lookup(r.userId)) ?? r.timeZone;
    const schedule = { days: r.days, minuteOfDay: r.minuteOfDay, timeZone };
    const onward = (pausedAt?: Date | null): ReminderRelease => ({
      ...this.plan(who, schedule, new Date(Math.max(now.getTime(), r.nextAt.getTime()))),
      timeZone,
      ...(pausedAt === undefined ? {} : { pausedAt }),
    });
    const release = (next: ReminderRelease) => store.releaseReminder(who, this.#o.owner, r.nextAt, next);

    if (r.sentFor?.getTime() === r.nextAt.getTime()) {
      // Sent by a taker that died before moving it on.
      await release(onward());
      return 'skipped';
    }
    if (now.getTime() - r.nextAt.getTime() > this.#o.giveUpAfterMs) {
      logger.warn({ user: r.userId, due: r.nextAt.toISOString() }, 'reminder skipped: too late to be useful');
      await release(onward());
      return 'skipped';
    }

    const linked = await this.#o.credentials.credentialsFor(who, 'findApprovals');
    if (reminderPaused(r, linked)) {
      await release(onward());
      return 'quiet';
    }
    if (linked === undefined) return this.#askToRelink(r, who, 'not-linked', () => release(onward(now)));

    const frame = timeFrame(now, timeZone, this.#o.serviceTimeZone);
    // Within the window: today and its other days, as `/approvals due-before:3d` reads it.
    const dueBefore = serviceDateFilter(`${this.#o.windowDays}d`, 'before', frame);
    const query = {
      state: 'pending' as const,
      sort: 'asc' as const,
      'page-size': DUE_FETCH,
      ...(dueBefore === undefined ? {} : { 'due-before': dueBefore }),
    };
    let slot: HeldSlot;
    try {
      slot = await this.#slots.acquire();
    } catch (error) {
      // Stopping (or the store not answering): the reminder goes back as it was, for whoever comes next.
      await release({ nextAt: r.nextAt, dueAt: r.dueAt, timeZone: r.timeZone });
      if (error instanceof SlotsStoppedError) return 'retried';
      throw error;
    }
    let groups: DueGroups;
    try {
      try {
        // One call, or two when the first is all overdue: the slot is held for both, and only for them.
        const find = async (q: ApprovalQuery) =>
          (await linked.call((token, options) => this.#o.service.findApprovals(q, token, { ...options, signal: this.#stopping.signal })))
            .approvals;
        groups = await fetchByDue(find, query, frame, this.#o.windowDays);
      } finally {
        await slot.release();
      }
      await store.recordOutcome(who, 'findApprovals', 'ok', now);
    } catch (error) {
      if (this.#stopping.signal.aborted) {
        // Cancelled by the stop: as it was, due now, for whoever comes next.
        await release({ nextAt: r.nextAt, dueAt: r.dueAt, timeZone: r.timeZone });
        return 'retried';
      }
      if (isServiceError(error) && error.kind === 'invalid-token') {
        await store.recordOutcome(who, 'findApprovals', 'rejected', now);
        return this.#askToRelink(r, who, relinkReason(error), () => release(onward(now)), linked.linkedAt);
      }
      // countersign's own sign-in failing (trusted mode) is not the user's to fix: tried again later, like an outage.
      if (
        isServiceError(error) &&
        (error.kind === 'service-unavailable' || error.kind === 'unexpected-response' || error.kind === 'app-sign-in')
      ) {
        logger.warn({ user: r.userId, kind: error.kind, error: error.message }, 'reminder: service not answering; will try again');
        await release({ nextAt: r.nextAt, dueAt: new Date(now.getTime() + this.#o.retryMs), timeZone });
        return 'retried';
      }
      logger.error({ user: r.userId, error: (error as Error).message }, 'reminder: the service refused the digest query');
      await release(onward());
      return 'failed';
    }

    const digest = buildDigest({
      groups,
      frame,
      windowDays: this.#o.windowDays,
      schedule,
      fullList: { userId: r.userId, query: { ...query, 'page-size': DEFAULT_PAGE_SIZE } },
    });
    const resume = r.pausedAt !== undefined ? null : undefined;
    if (digest === undefined) {
      await release(onward(resume));
      return 'quiet';
    }
    const sent = await this.#send(r, who, () => this.#o.outbox.digest(r.userId, digest));
    await release(onward(resume));
    return sent === 'told' ? 'sent' : sent;
  }

  /**
   * `linkedAt`: the link whose token was refused. The message is told once for it, whichever of the
   * digests and the arrivals meets the refusal first (a user without a link at all has no arrivals).
   */
  async #askToRelink(
    r: Reminder,
    who: Principal,
    reason: RelinkReason,
    pause: () => Promise<boolean>,
    linkedAt?: Date,
  ): Promise<'relinkAsked' | 'quiet' | 'skipped' | 'failed'> {
    const outcome = await this.#send(r, who, async () => {
      if (linkedAt !== undefined && !(await this.#o.store.claimRelinkNotice(who, linkedAt, this.#o.now()))) return 'told';
      await this.#o.outbox.relink(r.userId, reason);
    });
    await pause();
    if (outcome === 'told') return 'quiet';
    return outcome === 'sent' ? 'relinkAsked' : outcome;
  }

  /** Marks the digest as sent, then hands it to Slack: at most once, whatever happens after. */
  async #send(
    r: Reminder,
    who: Principal,
    deliver: () => Promise<'told' | undefined> | Promise<void>,
  ): Promise<'sent' | 'told' | 'skipped' | 'failed'> {
    if (!(await this.#o.store.markReminderSending(who, this.#o.owner, r.nextAt))) return 'skipped';
    try {
      return (await deliver()) === 'told' ? 'told' : 'sent';
    } catch (error) {
      this.#o.logger.error({ user: r.userId, error: (error as Error).message }, 'reminder: Slack did not take the DM');
      return 'failed';
    }
  }
}

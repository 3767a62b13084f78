/**
 * The arrival scheduler: every instance runs one; the store's leases make sure each approver is
 * checked by one of them at a time. A claim leases one watch and moves its next check on by the
 * interval in one statement, so a check that finds nothing new writes nothing more.
 *
 * Calls to the service share the digests' bound (ServiceSlots, REMINDER_CONCURRENCY on every
 * instance together): a check holds a slot for its service calls alone. When the service cannot
 * keep the interval for every approver, the bound holds and the cycle stretches: watches are taken
 * later than due, and how much later says how long a cycle takes (the metrics and the log say it).
 */

import { setMaxListeners } from 'node:events';
import type { Deps, TimeZones } from '../deps.js';
import type { ReminderOutbox } from '../reminders/scheduler.js';
import { type HeldSlot, type ServiceSlots, SlotsStoppedError } from '../reminders/slots.js';
import { leasedWorkers, Ticker } from '../runtime/ticker.js';
import type { ArrivalWatch } from '../store/index.js';
import { type CheckDeps, type CheckOutcome, type CheckResult, checkApprover } from './check.js';
import type { ArrivalOutbox } from './ports.js';

export interface ArrivalSchedulerOptions {
  deps: Pick<Deps, 'store' | 'service' | 'credentials' | 'logger' | 'metrics' | 'now' | 'newId'>;
  outbox: ArrivalOutbox & ReminderOutbox;
  timeZones: TimeZones;
  /** This instance's name in leases. */
  owner: string;
  /** NOTIFY_INTERVAL: how often each approver's list is checked. */
  intervalMs: number;
  /** The service slots the digests use: REMINDER_CONCURRENCY bounds both together. */
  slots: ServiceSlots;
  serviceTimeZone: string | undefined;
  /** DECISION_REQUEST is set: announced approvals get their actions from getApprovalDetails. */
  decisionActions: boolean;
  /** How often the store is asked for due watches when none were (while some are, they are taken one after another). */
  tickMs?: number;
  /** How long a taken watch is held before another instance may take it over; renewed while its check is under way. */
  leaseMs?: number;
  /** Checks this instance works on at once: more than the slots, so that while some wait for Slack or the store, others use the service. */
  workers?: number;
  /** Approvals gone from a list this long are forgotten (and announced again should they ever come back). */
  keepGoneMs?: number;
}

export interface ArrivalTickReport {
  checked: number;
  unchanged: number;
  /** Approvals announced, in `messages` DMs. */
  announced: number;
  messages: number;
  redrawn: number;
  held: number;
  primed: number;
  relinkAsked: number;
  retried: number;
  failed: number;
  serviceCalls: number;
  ms: number;
}

const emptyReport = (): ArrivalTickReport => ({
  checked: 0,
  unchanged: 0,
  announced: 0,
  messages: 0,
  redrawn: 0,
  held: 0,
  primed: 0,
  relinkAsked: 0,
  retried: 0,
  failed: 0,
  serviceCalls: 0,
  ms: 0,
});

/** How often pruning runs, at most, on each instance: it is housekeeping. */
const PRUNE_EVERY_MS = 3_600_000;

export class ArrivalScheduler {
  readonly #o: Required<ArrivalSchedulerOptions>;
  readonly #ticker: Ticker<ArrivalTickReport>;
  readonly #checkDeps: CheckDeps;
  /** Cancels the calls of checks under way when the scheduler stops. */
  readonly #stopping = new AbortController();
  /** Approvers whose check is under way here: their leases are renewed while it lasts. */
  readonly #underWay = new Set<string>();
  #prunedAt = Number.NEGATIVE_INFINITY;
  #loggedAt = Number.NEGATIVE_INFINITY;
  /** How late the latest check was taken, past its due time: the cycle's length is the interval plus this. */
  #lateMs = 0;

  constructor(options: ArrivalSchedulerOptions) {
    // One signal for every call under way (a worker each, up to four times the bound): not a leak.
    setMaxListeners(0, this.#stopping.signal);
    this.#o = {
      tickMs: 5_000,
      // Within the interval: a lease outliving it would hold the approver's next check back.
      leaseMs: Math.min(2 * 60_000, options.intervalMs),
      workers: 4 * options.slots.limit,
      keepGoneMs: 30 * 86_400_000,
      ...options,
    };
    this.#ticker = new Ticker(this.#o.tickMs, () => this.#tick());
    const { deps, outbox, timeZones, owner, slots, serviceTimeZone, decisionActions } = this.#o;
    this.#checkDeps = { ...deps, outbox, timeZones, owner, slots, serviceTimeZone, decisionActions, signal: this.#stopping.signal };
  }

  get intervalMs(): number {
    return this.#o.intervalMs;
  }

  /** The latest cycle's length as this instance saw it: the interval, stretched by how late checks are taken. */
  get cycleMs(): number {
    return this.#o.intervalMs + this.#lateMs;
  }

  start(): void {
    this.#ticker.start();
  }

  /** The shared slots are stopped by their owner (the composition root), not here: the digests use them too. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#ticker.stop();
  }

  /** Checks every watch due now, then resolves. Ticks do not overlap: a second call waits for the first. */
  tick(): Promise<ArrivalTickReport> {
    return this.#ticker.tick();
  }

  async #tick(): Promise<ArrivalTickReport> {
    const { deps, owner } = this.#o;
    const report = emptyReport();
    const started = performance.now();
    const crew = {
      workers: this.#o.workers,
      renewMs: this.#o.leaseMs / 3,
      renew: () => this.#renew(),
      stopped: () => this.#ticker.stopped,
    };
    await leasedWorkers(crew, async (found): Promise<boolean> => {
      let watch: ArrivalWatch | undefined;
      // A service slot is taken before an approver is claimed: an instance the others leave no slot
      // claims nobody (they take its share), rather than leasing approvers whose checks then wait
      // for as long as the service stays slow. Whether one is due is read first, so that an idle
      // tick writes nothing (no slot taken and given back, no claim).
      let slot: HeldSlot | undefined;
      try {
        if (!(await deps.store.arrivalWatchDue(deps.now()))) return false;
        slot = await this.#o.slots.acquire();
      } catch (error) {
        if (!(error instanceof SlotsStoppedError)) {
          deps.logger.error({ error: (error as Error).message }, 'arrivals: could not read the store; trying again next tick');
          report.failed++;
        }
        return false;
      }
      try {
        const now = deps.now();
        [watch] = await deps.store.claimDueArrivalWatches(
          now,
          owner,
          new Date(now.getTime() + this.#o.leaseMs),
          new Date(now.getTime() + this.#o.intervalMs),
          1,
        );
        if (watch !== undefined) this.#lateMs = Math.max(0, now.getTime() - watch.dueAt.getTime());
      } catch (error) {
        deps.logger.error({ error: (error as Error).message }, 'arrivals: could not read the store; trying again next tick');
        report.failed++;
        await slot.release();
        return false;
      }
      if (watch === undefined) {
        await slot.release();
        return false;
      }
      found();
      this.#underWay.add(watch.userId);
      let outcome: CheckResult;
      try {
        outcome = await checkApprover(
          slot === undefined ? this.#checkDeps : { ...this.#checkDeps, slots: heldFirst(slot, this.#o.slots) },
          watch,
        );
      } catch (error) {
        deps.logger.error({ user: watch.userId, error: (error as Error).message }, 'arrivals: check failed');
        outcome = { outcome: 'failed', serviceCalls: 0, announced: 0, messages: 0, redrawn: 0, held: 0 };
      } finally {
        this.#underWay.delete(watch.userId);
        // Given back here when the check made no call (unlinked, parked); a second give-back does nothing.
        await slot.release();
      }
      this.#count(report, outcome);
      // While the service cannot keep the interval, due watches never run out and the tick never
      // ends: the cycle's length is told as it goes, or it would go untold exactly when it matters.
      deps.metrics.arrivalCycle(this.cycleMs / 1000);
      report.ms = Math.round(performance.now() - started);
      if (report.ms >= this.#o.intervalMs) this.#log(report);
      return true;
    });
    report.ms = Math.round(performance.now() - started);
    deps.metrics.arrivalCycle(this.cycleMs / 1000);
    this.#log(report);
    await this.#prune();
    return report;
  }

  #count(report: ArrivalTickReport, r: CheckResult): void {
    report.checked++;
    report.serviceCalls += r.serviceCalls;
    report.announced += r.announced;
    report.messages += r.messages;
    report.redrawn += r.redrawn;
    report.held += r.held;
    const counted: Partial<Record<CheckOutcome, keyof ArrivalTickReport>> = {
      unchanged: 'unchanged',
      primed: 'primed',
      relinkAsked: 'relinkAsked',
      retried: 'retried',
      failed: 'failed',
    };
    const field = counted[r.outcome];
    if (field !== undefined) report[field]++;
    this.#o.deps.metrics.arrivalCheck(r.outcome, r.serviceCalls);
  }

  #renew(): void {
    const { deps, owner } = this.#o;
    const until = new Date(deps.now().getTime() + this.#o.leaseMs);
    void deps.store.renewArrivalLeases(owner, [...this.#underWay], until).catch((error: unknown) => {
      deps.logger.warn({ error: (error as Error).message }, 'arrivals: could not renew their leases');
    });
  }

  /** The cycle's length, once an interval at most: what an operator sizing the service needs, without a line per tick. */
  #log(report: ArrivalTickReport): void {
    const at = performance.now();
    if (report.checked === 0 || at - this.#loggedAt < this.#o.intervalMs) return;
    this.#loggedAt = at;
    this.#o.deps.logger.info({ ...report, cycleSeconds: Math.round(this.cycleMs / 100) / 10 }, 'arrivals checked');
  }

  async #prune(): Promise<void> {
    const { deps } = this.#o;
    const now = deps.now().getTime();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    try {
      await deps.store.pruneArrivals(new Date(now - this.#o.keepGoneMs));
    } catch (error) {
      deps.logger.warn({ error: (error as Error).message }, 'arrivals: could not forget approvals gone long ago');
    }
  }
}

/** The slot a worker took before its claim, for the check's first call; any further call takes its own. */
function heldFirst(slot: HeldSlot, slots: ServiceSlots): { acquire(): Promise<HeldSlot> } {
  let given = false;
  return {
    acquire: async () => {
      if (given) return slots.acquire();
      given = true;
      return slot;
    },
  };
}

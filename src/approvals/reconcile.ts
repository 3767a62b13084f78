/**
 * Decisions that nothing settled: sent, and then no answer said how they went (a timeout, a process
 * killed after the call, a 2xx after which the service still showed the approval waiting). Once the
 * call can no longer land (its hold has run out) the service is read once more, with the approver's
 * own credentials while they still work, and the trail gets what it shows, marked as found afterwards.
 * Nothing is claimed from it: completed as the action sent may be another approver's doing. The hold
 * is then given back.
 */

import type { Deps } from '../deps.js';
import { Ticker } from '../runtime/ticker.js';
import { isServiceError } from '../service/errors.js';
import type { ApprovalDetails } from '../service/index.js';
import type { DecisionFound, DecisionHold } from '../store/index.js';
import { errorFields, readDetails, seenOf } from './decision-run.js';

export interface OpenHold {
  approvalId: string;
  hold: DecisionHold;
}

/** What was read of the approval: its details, or why it could not be (`transient`: the service may answer later). */
export type Reading = { read: ApprovalDetails } | { unreadable: string; transient: boolean };

/** Records what became of a decision no answer settled, under that decision's own id and user. */
export async function recordFound(deps: Deps, open: OpenHold, reading: Reading, by: DecisionFound['by']): Promise<void> {
  const { approvalId, hold } = open;
  const record = await deps.store.decisionRecord(hold.decisionId);
  const sent = record?.steps.some((s) => s.step === 'sent') ?? false;
  const found: DecisionFound = !sent
    ? { found: 'not-sent', by }
    : 'read' in reading
      ? { found: reading.read.completedDate === '' ? 'pending' : 'completed', seen: seenOf(reading.read), by }
      : { found: 'unreadable', why: reading.unreadable, by };
  await deps.store.recordDecisionStep({
    step: 'reconciled',
    ...found,
    decisionId: hold.decisionId,
    approvalId,
    action: hold.action,
    at: deps.now(),
    teamId: hold.teamId,
    userId: hold.userId,
    requestId: deps.requestId,
  });
}

/** Reads the approval as its approver, while their link works. */
async function readAsApprover(deps: Deps, open: OpenHold): Promise<Reading> {
  const who = { teamId: open.hold.teamId, userId: open.hold.userId };
  let linked: Awaited<ReturnType<Deps['credentials']['credentialsFor']>>;
  try {
    linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  } catch (error) {
    return { unreadable: `countersign's store: ${(error as Error).message}`, transient: true };
  }
  if (linked === undefined) return { unreadable: 'their account is no longer linked', transient: false };
  try {
    // Noted nowhere: a refusal here says nothing new of their link that their own next command would not.
    return { read: await readDetails(deps, linked, open.approvalId, undefined, 'none') };
  } catch (error) {
    const fields = errorFields(error);
    const transient = !isServiceError(error) || error.kind === 'service-unavailable' || error.kind === 'unexpected-response';
    return { unreadable: `${fields.error}${fields.message ? `: ${fields.message}` : ''}`.slice(0, 300), transient };
  }
}

export interface ReconcilerOptions {
  deps: Deps;
  /** How often expired holds are looked for (a minute). */
  tickMs?: number;
  /** How long one instance keeps a hold while it reads it: others leave it alone meanwhile. */
  leaseMs?: number;
  /** Past this age (from the hold's start), a service that still cannot be read is given up on: the trail says unreadable. */
  giveUpAfterMs?: number;
  /** Holds looked at in one pass. */
  batch?: number;
}

/**
 * Reconciles expired holds, on every instance: each is taken for a while (so one instance reads it)
 * and read as its approver; a service that does not answer is tried again next time, until it is
 * given up on.
 */
export class DecisionReconciler {
  readonly #o: Required<ReconcilerOptions>;
  readonly #ticker: Ticker<number>;

  constructor(options: ReconcilerOptions) {
    this.#o = { tickMs: 60_000, leaseMs: 60_000, giveUpAfterMs: 24 * 3600_000, batch: 50, ...options };
    this.#ticker = new Ticker(this.#o.tickMs, () => this.#pass());
  }

  start(): void {
    this.#ticker.start();
  }

  stop(): Promise<void> {
    return this.#ticker.stop();
  }

  /** One pass now: how many decisions were settled by it. */
  tick(): Promise<number> {
    return this.#ticker.tick();
  }

  async #pass(): Promise<number> {
    const { deps, leaseMs, batch } = this.#o;
    const log = deps.logger;
    let settled = 0;
    let open: OpenHold[];
    try {
      open = await deps.store.expiredDecisionHolds(deps.now(), batch);
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'could not look for decisions to reconcile');
      return 0;
    }
    for (const hold of open) {
      if (this.#ticker.stopped) break;
      const now = deps.now();
      try {
        if (!(await deps.store.takeExpiredDecision(hold.approvalId, hold.hold.decisionId, now, new Date(now.getTime() + leaseMs))))
          continue;
        if (await this.#reconcile(hold, now)) settled++;
      } catch (error) {
        log.error({ error: (error as Error).message, decision: hold.hold.decisionId }, 'could not reconcile a decision');
      }
    }
    return settled;
  }

  async #reconcile(open: OpenHold, now: Date): Promise<boolean> {
    const { deps, giveUpAfterMs } = this.#o;
    const log = deps.logger.child({ approval: open.approvalId, decision: open.hold.decisionId });
    const reading = await readAsApprover(deps, open);
    const givingUp = now.getTime() - open.hold.at.getTime() >= giveUpAfterMs;
    if ('unreadable' in reading && reading.transient && !givingUp) {
      log.info({ why: reading.unreadable }, 'a decision left unsettled could not be read; trying again later');
      return false;
    }
    await recordFound(deps, open, reading, 'reconciler');
    await deps.store.releaseDecision(open.approvalId, open.hold.decisionId);
    log.info(
      { found: 'read' in reading ? (reading.read.completedDate ? 'completed' : 'pending') : 'unreadable' },
      'a decision left unsettled is reconciled',
    );
    return true;
  }
}

/**
 * A decision from Slack, done: every arrival DM that lists the approval (any approver's: it may
 * have reached several) is redrawn with who decided what and when, so that no button in one acts
 * on an approval no longer waiting. The decision is done whatever happens here, so a failure is
 * logged, not thrown at the decision: the next check redraws the DM as gone anyway.
 */

import type { Deps } from '../deps.js';
import type { ArrivalDecided, DecisionHold, Store } from '../store/index.js';
import { messageOf } from './message.js';
import type { ArrivalOutbox } from './ports.js';

/** Who decided what and when, from the decision's hold (done), or the audit where the hold does not say when. */
export async function decidedBy(store: Pick<Store, 'decisionRecord'>, hold: DecisionHold | undefined): Promise<ArrivalDecided | undefined> {
  if (hold === undefined || hold.state !== 'done') return undefined;
  const at = hold.settledAt ?? (await store.decisionRecord(hold.decisionId))?.lastAt ?? hold.at;
  return { action: hold.action, by: hold.userId, at };
}

export async function afterDecision(deps: Pick<Deps, 'store' | 'logger'> & { arrivals: ArrivalOutbox }, approvalId: string): Promise<void> {
  const { store, logger } = deps;
  try {
    const decided = await decidedBy(store, (await store.decisionHolds([approvalId])).get(approvalId));
    if (decided === undefined) return;
    const listing = await store.decideArrival(approvalId, decided);
    await Promise.all(
      listing.map(async (kept) => {
        if (kept.channel === undefined || kept.ts === undefined) return;
        try {
          if ((await deps.arrivals.redraw(kept.channel, kept.ts, messageOf(kept))) === 'gone') await store.forgetArrivalMessage(kept.id);
        } catch (error) {
          logger.warn(
            { user: kept.userId, approvalId, error: (error as Error).message },
            'arrivals: could not redraw a DM after a decision',
          );
        }
      }),
    );
  } catch (error) {
    logger.warn({ approvalId, error: (error as Error).message }, 'arrivals: could not note a decision on the DMs that list it');
  }
}

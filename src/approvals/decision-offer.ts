/**
 * What deciding from chat offers, before anything is decided: whether it is on at all, which actions
 * an approval's Details offers and what their confirmation asks, and which approvals of a list were
 * decided from chat already. Reads only: the decision itself is decide.ts's.
 */

import type { DecisionsConfig } from '../config.js';
import type { Deps } from '../deps.js';
import type { Approval, ApprovalDetails } from '../service/index.js';
import type { DecisionHold } from '../store/index.js';

export interface DecisionOfferDeps extends Deps {
  /** DECISION_REQUEST and its companions; undefined: decisions stay in the service. */
  decisions: DecisionsConfig | undefined;
}

/** Whether decisions are offered at all: configured, and not found switched off at the service. */
export function decisionsOffered(deps: Pick<DecisionOfferDeps, 'decisions' | 'service'>): boolean {
  return deps.decisions !== undefined && deps.service.offers('decision');
}

/** Whether an action needs a comment (DECISION_COMMENT_REQUIRED). */
export function commentRequired(deps: Pick<DecisionOfferDeps, 'decisions'>, action: string): boolean {
  return deps.decisions?.commentRequired.includes(action.toLowerCase()) === true;
}

export type CommentAsked = 'required' | 'optional' | 'none';

/** What the confirmation asks of the approver: a comment it needs, one they may give, or none the call would send. */
export function commentAsked(deps: Pick<DecisionOfferDeps, 'decisions'>, action: string): CommentAsked {
  if (deps.decisions?.carriesComment === false) return 'none';
  return commentRequired(deps, action) ? 'required' : 'optional';
}

/** What the Details modal offers for deciding an approval. */
export type DecisionOffer =
  /** Decisions are not configured or not offered, or there is nothing to decide: the words alone, as before. */
  | { kind: 'off' }
  | { kind: 'actions'; actions: readonly string[] }
  /** Its items are decided one by one in the service: Open only. */
  | { kind: 'line-items' }
  /** Decided from chat already (by this user or another): not offered again. */
  | { kind: 'decided'; hold: DecisionHold }
  /** A decision is being sent, or was sent without an answer, until `hold.until`. */
  | { kind: 'held'; hold: DecisionHold }
  /** The user may see it, but it is not on their own pending list: not theirs to decide. */
  | { kind: 'not-theirs' };

/** What the Details modal offers for these details, as the service lists them now and the store knows of them. */
export async function decisionOffer(deps: DecisionOfferDeps, details: ApprovalDetails): Promise<DecisionOffer> {
  if (!decisionsOffered(deps)) return { kind: 'off' };
  const id = details.workItemId;
  const hold = await deps.store.decisionHolds([id]).then(
    (holds) => holds.get(id),
    (error: unknown) => {
      // Without the store nothing can be claimed, so nothing is offered; the details still show.
      deps.logger.warn({ approval: id, error: (error as Error).message }, 'could not read the decisions held; none offered');
      return 'unknown' as const;
    },
  );
  if (hold === 'unknown') return { kind: 'off' };
  if (hold?.state === 'done') return { kind: 'decided', hold };
  if (details.completedDate !== '' || details.actions.length === 0) return { kind: 'off' };
  if (hold !== undefined && hold.until.getTime() > deps.now().getTime()) return { kind: 'held', hold };
  if (details.lineItemApprovalEnabled === true) return { kind: 'line-items' };
  return { kind: 'actions', actions: details.actions };
}

/** The approvals of a list that were decided from chat, by id: shown as decided, and not offered again. */
export async function decidedAmong(deps: DecisionOfferDeps, approvals: readonly Approval[]): Promise<Map<string, DecisionHold>> {
  if (deps.decisions === undefined || approvals.length === 0) return new Map();
  try {
    const holds = await deps.store.decisionHolds([...new Set(approvals.map((a) => a.workItemId))]);
    return new Map([...holds].filter(([, h]) => h.state === 'done'));
  } catch (error) {
    deps.logger.warn({ error: (error as Error).message }, 'could not read the decisions made; the list shows none');
    return new Map();
  }
}

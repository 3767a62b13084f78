/**
 * One decision under way: who decides which approval as what, and the few things every step of it
 * does alike (record a step of the audit trail, give the approval back, settle the hold, refuse).
 * Shared by the steps of deciding (decision-check.ts, decision-answer.ts) and by reconciling.
 */

import { createHash } from 'node:crypto';
import type { DecisionsConfig } from '../config.js';
import type { Deps } from '../deps.js';
import type { Credentials } from '../service/credentials.js';
import { type AnyServiceError, isServiceError } from '../service/errors.js';
import type { ApprovalDetails, DecisionAnswer } from '../service/index.js';
import type { DecisionHold, DecisionRefusal, DecisionStep, Principal, SeenState } from '../store/index.js';

export interface DecideDeps extends Deps {
  /** DECISION_REQUEST and its companions; undefined: decisions stay in the service. */
  decisions: DecisionsConfig | undefined;
  /**
   * How long a hold keeps others off while its call is under way, and after a call whose outcome is
   * unknown: longer than any call can take (SERVICE_TIMEOUT), so a late answer is not raced.
   */
  decisionHoldMs: number;
  /**
   * How long a decision may take from the moment it is sent to its answer read and recorded: within
   * SHUTDOWN_TIMEOUT, so that a stop waits for it (main.ts says at start when it cannot).
   */
  decisionDeadlineMs: number;
  /** True once countersign began to stop: a decision not sent by then is not sent. */
  stopping: () => boolean;
}

export interface DecisionRequest {
  approvalId: string;
  action: string;
  /** From the click that asked: every step of this decision carries it. */
  decisionId: string;
}

/**
 * A decision's id, made when its action is chosen: a fresh value, and a tag of it with who chose it
 * and for which approval. A submission whose id is not tagged for its own user and approval (another's
 * confirmation submitted as one's own, metadata mixed up) is given one that is, so that one decision's
 * trail never holds another user's steps, however the submissions arrive. The tag needs no key: a
 * user can only make ids that are tagged for themselves.
 */
export function newDecisionId(newId: () => string, who: Principal, approvalId: string): string {
  const fresh = newId();
  return `${fresh}${decisionTag(who, approvalId, fresh)}`;
}

/** The decision id to record a submission under: the one it carries when that is its own, else a new one. */
export function ownDecisionId(newId: () => string, who: Principal, approvalId: string, carried: string): string {
  const fresh = carried.slice(0, -TAG_CHARS);
  if (fresh !== '' && carried.slice(-TAG_CHARS) === decisionTag(who, approvalId, fresh)) return carried;
  return newDecisionId(newId, who, approvalId);
}

/** The tag ends the id (its last characters, of the id's own alphabet, so that the wire's check of ids takes it). */
const TAG_CHARS = 12;

function decisionTag(who: Principal, approvalId: string, fresh: string): string {
  return createHash('sha256').update(`${who.teamId}\n${who.userId}\n${approvalId}\n${fresh}`).digest('base64url').slice(0, TAG_CHARS);
}

/** Why the service did not take a decision it was sent. */
export type NotDoneWhy =
  /** 412 "could not be retrieved": decided meanwhile, reassigned or withdrawn, or never theirs. */
  | 'not-visible'
  /** Another refusal of the call (412 naming the action, another 4xx). */
  | 'rejected'
  /** The service does not let this user run the decision's command (401 "not valid for the command"). */
  | 'not-permitted'
  /** The decision's command is switched off (404 named after it): decisions stop being offered. */
  | 'not-offered';

export type DecideOutcome =
  | { kind: 'off' }
  | { kind: 'bad-comment'; problem: string }
  | { kind: 'not-linked' }
  /** Turned away before anything was sent: the approval's details when they were read. */
  | { kind: 'refused'; refusal: DecisionRefusal; details?: ApprovalDetails | undefined }
  /** This very decision is under way or done already (the same submission again): nothing new to say or do. */
  | { kind: 'duplicate'; hold: DecisionHold }
  /**
   * The service answered, and then showed the approval completed as the action sent: `details`, as it
   * shows it now (what the modal and the list redraw from), `hold`, the hold it leaves. `recorded`:
   * false when the store would not take it (the reconciler records it later; the words say so).
   */
  | { kind: 'done'; action: string; at: Date; details: ApprovalDetails; hold: DecisionHold; recorded: boolean }
  | { kind: 'not-done'; why: NotDoneWhy; error: AnyServiceError }
  /**
   * Sent, and nothing shows how it went: `error`, why no answer said; or `answer`, the 2xx after which
   * the service did not show it completed as sent. `details`: what the service shows now, when it
   * answered. `sameAction`: it shows the approval completed as the very action sent; even then
   * nothing is claimed, since another approver may have taken that action meanwhile and the service
   * names who in words countersign cannot match to a Slack user. `retryAt`: when it may be decided
   * here again.
   */
  | ({ kind: 'unknown'; details?: ApprovalDetails | undefined; retryAt: Date; sameAction: boolean } & (
      | { error: unknown }
      | { answer: DecisionAnswer }
    ))
  /** Nothing was decided: the check before sending failed, or the call never reached the service (`error` says which). */
  | { kind: 'failed'; error: unknown };

/** A decision as it is worked on, with the comment as checked. */
export class DecisionRun {
  readonly log: Deps['logger'];
  /** When the hold was last renewed: it gives way decisionHoldMs after, which is when it may be decided again. */
  heldFrom: Date;

  constructor(
    readonly deps: DecideDeps,
    readonly who: Principal,
    readonly request: DecisionRequest & { comment: string },
  ) {
    this.log = deps.logger.child({ approval: request.approvalId, action: request.action, decision: request.decisionId });
    this.heldFrom = deps.now();
  }

  step(s: DecisionStep): Promise<void> {
    const { decisionId, approvalId, action } = this.request;
    return this.deps.store.recordDecisionStep({
      ...s,
      decisionId,
      approvalId,
      action,
      at: this.deps.now(),
      teamId: this.who.teamId,
      userId: this.who.userId,
      requestId: this.deps.requestId,
    });
  }

  /** A step after the call was sent: a failure to record it is logged (and said), never taken for the service's answer. */
  record(s: DecisionStep): Promise<boolean> {
    return this.step(s).then(
      () => true,
      (error: unknown) => {
        this.log.error({ error: (error as Error).message, step: s.step }, 'could not record the service’s answer in the audit trail');
        return false;
      },
    );
  }

  /** Turned away before anything was sent, with what they had typed. */
  async refuse(
    refusal: DecisionRefusal,
    details?: ApprovalDetails,
  ): Promise<{ kind: 'refused'; refusal: DecisionRefusal; details?: ApprovalDetails | undefined }> {
    this.log.info({ refusal: refusal.kind }, 'decision refused before sending');
    await this.step({ step: 'refused', reason: refusal, comment: this.request.comment });
    return { kind: 'refused', refusal, details };
  }

  /** Gives the approval back (nothing was sent, or the service said no); a failure to is logged: the hold frees itself in time. */
  release(): Promise<void> {
    return this.deps.store
      .releaseDecision(this.request.approvalId, this.request.decisionId)
      .catch((error: unknown) =>
        this.log.error({ error: (error as Error).message }, 'could not give the approval back; it frees itself in time'),
      );
  }

  /** Settles the hold; one that is no longer this decision's (it gave way, another took it) is told to the log. */
  async settle(state: 'done' | 'unsettled', at: Date, until: Date): Promise<boolean> {
    try {
      if (await this.deps.store.settleDecision(this.request.approvalId, this.request.decisionId, state, at, until)) return true;
      this.log.warn({ state }, 'the hold on the approval was no longer this decision’s when it was settled');
    } catch (error) {
      this.log.error({ error: (error as Error).message }, 'could not record how the decision stands');
    }
    return false;
  }

  /** The hold a settled decision leaves, as the store now has it. */
  holdOf(state: DecisionHold['state'], at: Date, until: Date): DecisionHold {
    const { decisionId, action } = this.request;
    return { decisionId, teamId: this.who.teamId, userId: this.who.userId, action, state, at: this.heldFrom, until, settledAt: at };
  }
}

export function seenOf(d: ApprovalDetails): SeenState {
  return {
    pending: d.completedDate === '' && d.actions.length > 0,
    state: d.state,
    completedDate: d.completedDate,
    completedBy: d.completedByName,
  };
}

export function errorFields(error: unknown): { error: string; message: string } {
  return isServiceError(error)
    ? { error: error.kind, message: (error.serviceMessage ?? error.message).slice(0, 500) }
    : { error: 'internal', message: 'countersign failed inside' };
}

export function readDetails(
  deps: Deps,
  linked: Credentials,
  approvalId: string,
  signal?: AbortSignal,
  note: 'not-command-only' | 'none' = 'not-command-only',
): Promise<ApprovalDetails> {
  return linked.call((token, options) => deps.service.getApprovalDetails(approvalId, token, { ...options, signal }), note);
}

/** Whether the approval is on the user's own pending list: findApprovals narrowed to its id, as the service allows. */
export async function onOwnPendingList(deps: Deps, linked: Credentials, approvalId: string): Promise<boolean> {
  const page = await linked.call(
    (token, options) => deps.service.findApprovals({ 'approval-id': approvalId, state: 'pending' }, token, options),
    'not-command-only',
  );
  return page.approvals.some((a) => a.workItemId === approvalId);
}

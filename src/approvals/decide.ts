/**
 * Deciding an approval from chat, with the operator's call (DECISION_REQUEST), exactly once.
 *
 * The approval is claimed in the store before anything is sent, so a double click, a modal
 * submitted twice, a retry from Slack or a second instance sends nothing more. Then the service is
 * asked again, with the approver's own credentials, whether it is theirs, still waiting, and has
 * the chosen action now (the action is never taken from what a button or a view carried). The call
 * is sent once and never again by itself: it is not idempotent. When its outcome cannot be known
 * (a timeout, a connection lost), the service is read again and the approver told what it shows;
 * the hold then gives way after a while, so that nobody is locked out, and whoever tries again is
 * checked against the service first. Every step is a row of the audit trail.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import type { DecisionsConfig } from '../config.js';
import type { Deps } from '../deps.js';
import { checkComment } from '../parse/decision.js';
import type { Credentials } from '../service/credentials.js';
import { type AnyServiceError, isServiceError } from '../service/errors.js';
import type { Approval, ApprovalDetails } from '../service/index.js';
import type { DecisionHold, DecisionRefusal, DecisionResult, DecisionStep, Principal, SeenState } from '../store/index.js';

export interface DecideDeps extends Deps {
  /** DECISION_REQUEST and its companions; undefined: decisions stay in the service. */
  decisions: DecisionsConfig | undefined;
  /**
   * How long a hold keeps others off while its call is under way, and after a call whose outcome is
   * unknown: longer than any call can take (SERVICE_TIMEOUT), so a late answer is not raced.
   */
  decisionHoldMs: number;
}

/** Whether decisions are offered at all: configured, and not found switched off at the service. */
export function decisionsOffered(deps: Pick<DecideDeps, 'decisions' | 'service'>): boolean {
  return deps.decisions !== undefined && deps.service.offers('decision');
}

/** Whether an action needs a comment (DECISION_COMMENT_REQUIRED). */
export function commentRequired(deps: Pick<DecideDeps, 'decisions'>, action: string): boolean {
  return deps.decisions?.commentRequired.includes(action.toLowerCase()) === true;
}

/** What the confirmation asks of the approver: a comment it needs, one they may give, or none the call would send. */
export function commentAsked(deps: Pick<DecideDeps, 'decisions'>, action: string): CommentAsked {
  if (deps.decisions?.carriesComment === false) return 'none';
  return commentRequired(deps, action) ? 'required' : 'optional';
}

export type CommentAsked = 'required' | 'optional' | 'none';

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
export async function decisionOffer(deps: DecideDeps, details: ApprovalDetails): Promise<DecisionOffer> {
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
export async function decidedAmong(deps: DecideDeps, approvals: readonly Approval[]): Promise<Map<string, DecisionHold>> {
  if (deps.decisions === undefined || approvals.length === 0) return new Map();
  try {
    const holds = await deps.store.decisionHolds([...new Set(approvals.map((a) => a.workItemId))]);
    return new Map([...holds].filter(([, h]) => h.state === 'done'));
  } catch (error) {
    deps.logger.warn({ error: (error as Error).message }, 'could not read the decisions made; the list shows none');
    return new Map();
  }
}

export interface DecisionRequest {
  approvalId: string;
  action: string;
  /** From the click that asked: every step of this decision carries it. */
  decisionId: string;
}

/** The approver chose an action and was shown its confirmation: the first step of the decision. */
export async function recordAsked(deps: DecideDeps, who: Principal, request: DecisionRequest): Promise<void> {
  await deps.store.recordDecisionStep({
    ...request,
    step: 'asked',
    at: deps.now(),
    teamId: who.teamId,
    userId: who.userId,
    requestId: deps.requestId,
  });
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
  /** The service took it; `details`, what it shows now (when it answered). */
  | { kind: 'done'; action: string; at: Date; details?: ApprovalDetails | undefined }
  | { kind: 'not-done'; why: NotDoneWhy; error: AnyServiceError }
  /**
   * Sent, and no answer said how it went (`error`: why). `details`: what the service shows now, when
   * it answered. `sameAction`: it shows the approval completed as the very action sent; even then
   * nothing is claimed, since another approver may have taken that action meanwhile and the service
   * names who in words countersign cannot match to a Slack user. `retryAt`: when it may be decided
   * here again.
   */
  | { kind: 'unknown'; error: unknown; details?: ApprovalDetails | undefined; retryAt: Date; sameAction: boolean }
  /** Nothing was decided: the check before sending failed, or the call never reached the service (`error` says which). */
  | { kind: 'failed'; error: unknown };

function seenOf(d: ApprovalDetails): SeenState {
  return {
    pending: d.completedDate === '' && d.actions.length > 0,
    state: d.state,
    completedDate: d.completedDate,
    completedBy: d.completedByName,
  };
}

function errorFields(error: unknown): { error: string; message: string } {
  return isServiceError(error)
    ? { error: error.kind, message: (error.serviceMessage ?? error.message).slice(0, 500) }
    : { error: 'internal', message: 'countersign failed inside' };
}

/** Whether a failed call may have reached the service: then its outcome is unknown, and it is never sent again by itself. */
function outcomeUnknown(error: unknown): boolean {
  if (!isServiceError(error)) return true;
  if (error.kind === 'service-unavailable') return error.reason !== 'network';
  return error.kind === 'unexpected-response';
}

function whyNotDone(error: AnyServiceError): NotDoneWhy | 'token' {
  // The trusted mode's own token refused again after a new sign-in: nobody's decision was looked at,
  // and the words are the translator's ("the service is refusing countersign's own sign-in").
  if (error.kind === 'app-sign-in') return 'token';
  if (error.kind === 'not-visible') return 'not-visible';
  if (error.kind === 'not-offered') return 'not-offered';
  if (error.kind === 'invalid-token') return error.commandOnly ? 'not-permitted' : 'token';
  return 'rejected';
}

export async function decide(deps: DecideDeps, who: Principal, request: DecisionRequest & { comment: string }): Promise<DecideOutcome> {
  const config = deps.decisions;
  if (config === undefined) return { kind: 'off' };
  const { approvalId, action, decisionId } = request;
  const log = deps.logger.child({ approval: approvalId, action, decision: decisionId });
  const step = (s: DecisionStep) =>
    deps.store.recordDecisionStep({
      ...s,
      decisionId,
      approvalId,
      action,
      at: deps.now(),
      teamId: who.teamId,
      userId: who.userId,
      requestId: deps.requestId,
    });
  const refuse = async (refusal: DecisionRefusal, details?: ApprovalDetails): Promise<DecideOutcome> => {
    log.info({ refusal: refusal.kind }, 'decision refused before sending');
    await step({ step: 'refused', reason: refusal });
    return { kind: 'refused', refusal, details };
  };

  const checked = checkComment(request.comment, action, config.commentRequired);
  if (!checked.ok) return { kind: 'bad-comment', problem: checked.problem };
  const comment = checked.comment;
  if (!deps.service.offers('decision')) return refuse({ kind: 'not-offered', command: config.call.command });
  const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
  if (linked === undefined) return refuse({ kind: 'not-linked' });

  const at = deps.now();
  const claim = await deps.store.claimDecision({
    approvalId,
    decisionId,
    teamId: who.teamId,
    userId: who.userId,
    action,
    at,
    until: new Date(at.getTime() + deps.decisionHoldMs),
  });
  if (!claim.claimed) {
    const h = claim.holder;
    if (h.decisionId === decisionId) {
      log.info({ state: h.state }, 'the same decision submitted again: nothing more sent');
      return { kind: 'duplicate', hold: h };
    }
    if (h.state === 'done') return refuse({ kind: 'already-decided', userId: h.userId, action: h.action, at: h.settledAt ?? h.at });
    return refuse({ kind: 'held', userId: h.userId, action: h.action, state: h.state, until: h.until });
  }

  // The approval is this decision's now: every way out gives it back or settles it.
  const release = () =>
    deps.store
      .releaseDecision(approvalId, decisionId)
      .catch((error: unknown) =>
        log.error({ error: (error as Error).message }, 'could not give the approval back; it frees itself in time'),
      );
  let sending = false;
  // When the hold was last renewed: it gives way decisionHoldMs after, which is when it may be decided again.
  let heldFrom = at;
  try {
    await step({ step: 'confirmed', comment });
    let details: ApprovalDetails;
    try {
      details = await readDetails(deps, linked, approvalId);
    } catch (error) {
      await release();
      return checkFailed(error);
    }
    if (details.completedDate !== '' || details.actions.length === 0) {
      await release();
      return refuse({ kind: 'not-pending', state: details.state, by: details.completedByName }, details);
    }
    if (details.lineItemApprovalEnabled === true) {
      await release();
      return refuse({ kind: 'line-items' }, details);
    }
    // Exactly as listed: "rejected" is not "Rejected" to a workflow.
    if (!details.actions.includes(action)) {
      await release();
      return refuse({ kind: 'action-not-listed', listed: [...details.actions] }, details);
    }
    // Seeing an approval is not being its approver: only one on the user's own pending list is theirs to decide.
    let theirs: boolean;
    try {
      theirs = await onOwnPendingList(deps, linked, approvalId);
    } catch (error) {
      await release();
      return checkFailed(error);
    }
    if (!theirs) {
      await release();
      return refuse({ kind: 'not-theirs' }, details);
    }
    // The token to send it with, had before it is marked sent: a sign-in that fails has sent nothing.
    try {
      await linked.ready();
    } catch (error) {
      await release();
      log.warn({ error: errorFields(error).error }, 'could not get the token to send the decision with; nothing sent');
      await step({ step: 'refused', reason: { kind: 'sign-in-failed', ...errorFields(error) } });
      return { kind: 'failed', error };
    }
    // The checks may have been slow enough for the hold to give way: it is kept for the call only if
    // it is still this decision's, and otherwise nothing is sent (another may be sending its own).
    const sendAt = deps.now();
    if (!(await deps.store.extendDecision(approvalId, decisionId, new Date(sendAt.getTime() + deps.decisionHoldMs)))) {
      log.warn({}, 'the hold on the approval gave way while it was checked; nothing sent');
      return refuse({ kind: 'hold-lost' }, details);
    }

    heldFrom = sendAt;
    await step({ step: 'sent' });
    sending = true;
    log.info({ command: config.call.command, method: config.call.method, commentChars: comment.length }, 'sending the decision');
    try {
      await linked.call(
        (token, options) => deps.service.decide(config.call, { id: approvalId, action, comment }, token, options),
        'not-command-only',
        { beforeResend: () => step({ step: 'resent' }) },
      );
    } catch (error) {
      return await afterFailure(deps, who, linked, { approvalId, decisionId, action }, error, step, release);
    }
    sending = false;
    const doneAt = deps.now();
    log.info({}, 'decision taken by the service');
    await noteSuccess(deps, who, 'findApprovals');
    // The service took it: whatever fails from here on is told to the log, never to the approver as a failure.
    await settle(deps, log, { approvalId, decisionId }, 'done', doneAt, doneAt);
    const after = await readDetails(deps, linked, approvalId).catch(() => undefined);
    await step({ step: 'answered', result: 'done', seen: after && seenOf(after) }).catch((error: unknown) =>
      log.error({ error: (error as Error).message }, 'could not record the service’s answer in the audit trail'),
    );
    return { kind: 'done', action, at: doneAt, details: after };
  } catch (error) {
    // Nothing was sent: give the approval back. Once sending, the hold stays until it gives way.
    if (!sending) await release();
    log.error({ error: (error as Error).message, sending }, 'deciding failed');
    return sending
      ? { kind: 'unknown', error, retryAt: new Date(heldFrom.getTime() + deps.decisionHoldMs), sameAction: false }
      : { kind: 'failed', error };
  }

  /** The check before sending failed: nothing was sent, and the words say what the service refused. */
  async function checkFailed(error: unknown): Promise<DecideOutcome> {
    if (isServiceError(error) && error.kind === 'not-visible') return refuse({ kind: 'not-visible' });
    if (isServiceError(error) && error.kind === 'not-offered') return refuse({ kind: 'not-offered', command: error.command });
    // Refused this approval, or this command, alone: the user's link still works for the rest, and is not marked.
    if (refusedThisAlone(error)) return refuse({ kind: 'not-allowed' });
    await noteFailure(deps, who, 'findApprovals', error);
    await step({ step: 'refused', reason: { kind: 'check-failed', ...errorFields(error) } });
    return { kind: 'failed', error };
  }
}

/** A 403 (for this one approval), or a 401 that refuses the command alone: not a refusal of the user's token. */
function refusedThisAlone(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  if (error.kind === 'invalid-token') return error.commandOnly;
  return error.kind === 'not-found' && error.status === 403;
}

/** Whether the approval is on the user's own pending list: findApprovals narrowed to its id, as the service allows. */
export async function onOwnPendingList(deps: DecideDeps, linked: Credentials, approvalId: string): Promise<boolean> {
  const page = await linked.call(
    (token, options) => deps.service.findApprovals({ 'approval-id': approvalId, state: 'pending' }, token, options),
    'not-command-only',
  );
  return page.approvals.some((a) => a.workItemId === approvalId);
}

/** Settles the hold; one that is no longer this decision's (it gave way, another took it) is told to the log. */
async function settle(
  deps: DecideDeps,
  log: Deps['logger'],
  hold: { approvalId: string; decisionId: string },
  state: 'done' | 'unsettled',
  at: Date,
  until: Date,
): Promise<void> {
  try {
    if (!(await deps.store.settleDecision(hold.approvalId, hold.decisionId, state, at, until)))
      log.warn({ state }, 'the hold on the approval was no longer this decision’s when it was settled');
  } catch (error) {
    log.error({ error: (error as Error).message }, 'could not record how the decision stands');
  }
}

function readDetails(deps: DecideDeps, linked: Credentials, approvalId: string): Promise<ApprovalDetails> {
  return linked.call((token, options) => deps.service.getApprovalDetails(approvalId, token, options), 'not-command-only');
}

/** The call failed: refused (the approval given back), never sent (given back), or its outcome unknown (the service read again). */
async function afterFailure(
  deps: DecideDeps,
  who: Principal,
  linked: Credentials,
  request: DecisionRequest,
  error: unknown,
  step: (s: DecisionStep) => Promise<void>,
  release: () => Promise<void>,
): Promise<DecideOutcome> {
  const { approvalId, decisionId } = request;
  const log = deps.logger.child({ approval: approvalId, decision: decisionId });
  const fields = errorFields(error);
  if (!outcomeUnknown(error) && isServiceError(error)) {
    await release();
    const never = error.kind === 'service-unavailable';
    const answer: DecisionResult = never ? { result: 'not-sent', ...fields } : { result: 'refused', ...fields, status: error.status };
    await step({ step: 'answered', ...answer }).catch((e: unknown) =>
      log.error({ error: (e as Error).message }, 'could not record the answer in the audit trail'),
    );
    if (!(error.kind === 'invalid-token' && error.commandOnly)) await noteFailure(deps, who, 'findApprovals', error);
    log.info(
      { error: error.kind, status: error.status },
      never ? 'the decision never reached the service' : 'the service refused the decision',
    );
    const why = whyNotDone(error);
    return never || why === 'token' ? { kind: 'failed', error } : { kind: 'not-done', why, error };
  }
  // It may have landed. Never sent again by itself: the service is asked what it shows now.
  log.warn({ error: fields.error }, 'no answer that says how the decision went; reading the approval again');
  const now = deps.now();
  const retryAt = new Date(now.getTime() + deps.decisionHoldMs);
  let details: ApprovalDetails | undefined;
  try {
    details = await readDetails(deps, linked, approvalId);
  } catch (again) {
    log.warn({ error: errorFields(again).error }, 'the approval could not be read again either');
  }
  const seen = details && seenOf(details);
  if (details !== undefined && details.completedDate !== '') {
    // Completed, even as the very action sent, may be another approver's doing: nothing is claimed
    // for this decision (no "by you", the trail says unknown with what the service shows), and since
    // a fresh check refuses any new decision on it, the hold is given back now.
    await release();
    await step({ step: 'answered', result: 'unknown', ...fields, seen }).catch((e: unknown) =>
      log.error({ error: (e as Error).message }, 'could not record the answer in the audit trail'),
    );
    return { kind: 'unknown', error, details, retryAt: now, sameAction: details.state === request.action };
  }
  // Still waiting, or not readable: the call may yet land, so the hold stays until it cannot, then gives way.
  await settle(deps, log, request, 'unsettled', now, retryAt);
  await step({ step: 'answered', result: 'unknown', ...fields, seen }).catch((e: unknown) =>
    log.error({ error: (e as Error).message }, 'could not record the answer in the audit trail'),
  );
  return { kind: 'unknown', error, details, retryAt, sameAction: false };
}

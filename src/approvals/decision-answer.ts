/**
 * The decision sent, once, and what came of it, as the service shows it afterwards. No answer makes a
 * decision done by itself: a 2xx is read again, and only an approval the service then shows completed
 * as the action sent is done. An answer that says the call was refused (401, 403, 412, a 404 naming
 * the command, a 429) decided nothing; any other (a timeout, a 408, a 5xx, a connection lost, an
 * answer that cannot be read) may have landed: the service is read again, and the hold stays until the
 * call cannot land any more, after which the reconciler reads it once more.
 */

import { noteFailure, noteSuccess } from '../accounts/usage.js';
import type { DecisionsConfig } from '../config.js';
import type { Credentials } from '../service/credentials.js';
import { type AnyServiceError, isServiceError } from '../service/errors.js';
import type { ApprovalDetails, DecisionAnswer } from '../service/index.js';
import type { DecisionResult } from '../store/index.js';
import { type DecideOutcome, type DecisionRun, errorFields, type NotDoneWhy, readDetails, seenOf } from './decision-run.js';

/** Sends the decision (its 'sent' step recorded already) and reads what came of it. */
export async function sendAndRead(run: DecisionRun, config: DecisionsConfig, linked: Credentials): Promise<DecideOutcome> {
  const { deps, request } = run;
  const { approvalId, action, comment } = request;
  // The call and the reading after it end within the decision's deadline, which a stop waits for.
  const signal = AbortSignal.timeout(deps.decisionDeadlineMs);
  run.log.info({ command: config.call.command, method: config.call.method, commentChars: comment.length }, 'sending the decision');
  let answer: DecisionAnswer;
  try {
    answer = await linked.call(
      (token, options) => deps.service.decide(config.call, { id: approvalId, action, comment }, token, { ...options, signal }),
      'not-command-only',
      { beforeResend: () => run.step({ step: 'resent' }) },
    );
  } catch (error) {
    if (nothingDone(error, config.call.command)) return notDone(run, error as AnyServiceError, config.call.command);
    run.log.warn({ error: errorFields(error).error }, 'no answer that says how the decision went; reading the approval again');
    return unknown(run, { error }, await readAgain(run, linked, signal));
  }
  await noteSuccess(deps, run.who, 'findApprovals');
  const after = await readAgain(run, linked, signal);
  // Done is what the service shows: completed as the very action sent, after an answer that stated no failure.
  if (after !== undefined && after.completedDate !== '' && after.state === action && answer.saysError === undefined)
    return done(run, answer, after);
  run.log.warn(
    {
      status: answer.status,
      saysError: answer.saysError !== undefined,
      shows: after === undefined ? 'nothing' : after.completedDate ? after.state : 'waiting',
    },
    'the service answered the decision, but does not show it taken',
  );
  return unknown(run, { answer }, after);
}

function readAgain(run: DecisionRun, linked: Credentials, signal: AbortSignal): Promise<ApprovalDetails | undefined> {
  return readDetails(run.deps, linked, run.request.approvalId, signal).catch((error: unknown) => {
    run.log.warn({ error: errorFields(error).error }, 'the approval could not be read after the decision');
    return undefined;
  });
}

async function done(run: DecisionRun, answer: DecisionAnswer, after: ApprovalDetails): Promise<DecideOutcome> {
  const at = run.deps.now();
  run.log.info({ status: answer.status }, 'decision taken by the service');
  // The service took it: whatever fails from here on is told to the log and in the words, never as a failure of the decision.
  const settled = await run.settle('done', at, at);
  const recorded = await run.record({ step: 'answered', result: 'done', status: answer.status, seen: seenOf(after) });
  return { kind: 'done', action: run.request.action, at, details: after, hold: run.holdOf('done', at, at), recorded: settled && recorded };
}

/**
 * Whether an answer says that nothing was decided: the call was refused before the service ran it,
 * it never left, or what failed was not the decision's own call (the trusted mode's new sign-in after
 * the service refused an expired token: the call was refused, and not sent again).
 */
function nothingDone(error: unknown, command: string): boolean {
  if (!isServiceError(error)) return false;
  if (error.command !== command) return true;
  switch (error.kind) {
    case 'invalid-token':
    case 'app-sign-in':
    case 'not-visible':
    case 'missing-parameter':
    case 'invalid-parameter':
    case 'not-offered':
      return true;
    case 'service-unavailable':
      return error.reason === 'network' || error.reason === 'busy';
    case 'not-found':
      return error.status === 403;
    default:
      return false;
  }
}

/** Whether the call never reached the service: no connection, a command remembered switched off, a value refused before sending. */
function neverSent(error: AnyServiceError, command: string): boolean {
  if (error.command !== command) return false;
  if (error.kind === 'service-unavailable') return error.reason === 'network';
  if (error.kind === 'not-offered') return error.remembered;
  return error.status === undefined;
}

function whyNotDone(error: AnyServiceError): NotDoneWhy | 'token' {
  // countersign's own sign-in refused (the trusted mode): nobody's decision was looked at, and the
  // words are the translator's ("the service is refusing countersign's own sign-in").
  if (error.kind === 'app-sign-in') return 'token';
  if (error.kind === 'not-visible') return 'not-visible';
  if (error.kind === 'not-offered') return 'not-offered';
  if (error.kind === 'invalid-token') return error.commandOnly ? 'not-permitted' : 'token';
  return 'rejected';
}

/** Refused, or never sent: the approval given back, the trail told which. */
async function notDone(run: DecisionRun, e: AnyServiceError, command: string): Promise<DecideOutcome> {
  await run.release();
  const never = neverSent(e, command);
  // The trusted mode: the call was refused as sent with an expired token, and the new sign-in failed.
  const signIn = e.command !== command;
  const fields = errorFields(e);
  const answer: DecisionResult = never
    ? { result: 'not-sent', ...fields }
    : signIn
      ? {
          ...fields,
          result: 'refused',
          message: `the token was refused as expired, and signing in again failed: ${fields.message}`.slice(0, 500),
        }
      : { result: 'refused', ...fields, status: e.status };
  await run.record({ step: 'answered', ...answer });
  if (!(e.kind === 'invalid-token' && e.commandOnly)) await noteFailure(run.deps, run.who, 'findApprovals', e);
  run.log.info({ error: e.kind, status: e.status }, never ? 'the decision never reached the service' : 'the service refused the decision');
  const why = whyNotDone(e);
  return never || signIn || why === 'token' ? { kind: 'failed', error: e } : { kind: 'not-done', why, error: e };
}

/**
 * It may have landed, or it answered and the service does not show it taken: nothing is claimed. An
 * approval the service shows completed is given back (a fresh check refuses any new decision on it);
 * one still waiting, or unreadable, stays held until the call cannot land, then is read again.
 */
async function unknown(
  run: DecisionRun,
  cause: { error: unknown } | { answer: DecisionAnswer },
  details: ApprovalDetails | undefined,
): Promise<DecideOutcome> {
  const { deps, request } = run;
  const now = deps.now();
  const seen = details && seenOf(details);
  const fields =
    'error' in cause
      ? errorFields(cause.error)
      : { error: 'not-shown', message: cause.answer.saysError ?? '', status: cause.answer.status, says: cause.answer.saysError };
  const completed = details !== undefined && details.completedDate !== '';
  const retryAt = completed ? now : new Date(now.getTime() + deps.decisionHoldMs);
  if (completed) await run.release();
  else await run.settle('unsettled', now, retryAt);
  await run.record({ step: 'answered', result: 'unknown', ...fields, seen });
  return {
    kind: 'unknown',
    ...cause,
    details,
    retryAt,
    sameAction: completed && details.state === request.action,
  };
}

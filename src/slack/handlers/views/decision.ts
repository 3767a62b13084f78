/**
 * A decision's confirmation, submitted. The comment is checked at once (a problem is shown under the
 * field, and nothing is sent); otherwise the ack turns the modal into "Sending…" and the use case
 * does the rest after it: the claim, the check with the service, the call, once. Then the modal says
 * what came of it, the Details modal underneath shows the approval as it now stands, and the list the
 * approval was on (the /approvals message, Home) is shown again in place with it decided.
 */

import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { type DecideOutcome, decide } from '../../../approvals/decide.js';
import { decidedAmong } from '../../../approvals/decision-offer.js';
import { searchApprovals } from '../../../approvals/search.js';
import { checkComment, type DecisionState, decodeDecisionState } from '../../../parse/decision.js';
import {
  COMMENT_FIELD,
  decisionFailureView,
  decisionOutcomeView,
  decisionProgressView,
  decisionUnshownView,
} from '../../../render/decision.js';
import { refreshTarget } from '../../../render/details.js';
import { translateFailure } from '../../../render/errors.js';
import { isServiceError } from '../../../service/errors.js';
import type { Approval, ApprovalDetails } from '../../../service/schemas.js';
import { type Principal, StoreUnavailableError } from '../../../store/index.js';
import type { TimeFrame } from '../../../time/frame.js';
import type { SlackDeps } from '../../deps.js';
import { showDetails, showKnownDetails } from '../../surfaces/details.js';
import { publishHome } from '../../surfaces/home.js';
import { answerApprovals } from '../../surfaces/list.js';
import { clockOf, principalOf } from '../../transport/payload.js';

const OUT_OF_DATE = 'This form is out of date: close it and open the approval again to decide it.';

export function decisionSubmission(deps: SlackDeps) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const state = decodeDecisionState(view.private_metadata);
    const raw = view.state.values[COMMENT_FIELD.block]?.[COMMENT_FIELD.action]?.value ?? '';
    if (state === undefined) return void (await ack({ response_action: 'errors', errors: { [COMMENT_FIELD.block]: OUT_OF_DATE } }));
    const checked = checkComment(raw, state.action, deps.decisions?.commentRequired ?? []);
    // Refused in the modal, where it was typed: nothing claimed, nothing sent.
    if (!checked.ok) return void (await ack({ response_action: 'errors', errors: { [COMMENT_FIELD.block]: checked.problem } }));
    await ack({ response_action: 'update', view: decisionProgressView(state, checked.comment) });
    const who = principalOf(body);
    const viewId = body.view.id;
    deps.background.run(
      'decision',
      async () => {
        const outcome = await decide(deps, who, {
          approvalId: state.details.approvalId,
          action: state.action,
          comment: checked.comment,
          decisionId: state.decisionId,
        });
        deps.metrics.outcome(`decision_${outcome.kind.replace('-', '_')}`);
        // The service's times in the approver's own zone, as everywhere else.
        const { frame } = await clockOf(deps, who.userId);
        await updateDecision(deps, client as WebClient, viewId, state, outcomeView(deps, who, state, outcome, frame, checked.comment));
        await afterwards(deps, client as WebClient, who, state, outcome);
      },
      async (error: unknown) => {
        deps.logger.error({ error, user: who.userId }, 'deciding failed');
        await updateDecision(deps, client as WebClient, viewId, state, failureView(deps, who, state, error));
      },
    );
  };
}

function outcomeView(
  deps: SlackDeps,
  who: Principal,
  state: DecisionState,
  outcome: DecideOutcome,
  frame: TimeFrame,
  comment: string,
): View {
  if (outcome.kind === 'failed') return failureView(deps, who, state, outcome.error);
  // Checked before the ack as the use case checks it: the use case's own refusal cannot differ.
  if (outcome.kind === 'bad-comment') return failureView(deps, who, state, new Error(`comment refused after the ack: ${outcome.problem}`));
  if (outcome.kind === 'unknown')
    deps.logger.warn(
      {
        approval: state.details.approvalId,
        error: 'answer' in outcome ? `answered ${outcome.answer.status}` : isServiceError(outcome.error) ? outcome.error.kind : 'internal',
      },
      'decision outcome unknown',
    );
  return decisionOutcomeView({ state, outcome, readerId: who.userId, frame, approvalLinks: deps.approvalLinks, comment });
}

/** What went wrong before anything was decided, worded by the translator (nothing was sent, or it never arrived). */
function failureView(deps: SlackDeps, who: Principal, state: DecisionState, error: unknown): View {
  const translated = translateFailure(error, {
    ...who,
    slash: '/approvals',
    command: 'findApprovals',
    reference: deps.newId(),
    linkMode: deps.credentials.mode,
  });
  const kind = isServiceError(error) ? error.kind : undefined;
  deps.metrics.outcome(kind ?? (error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal'));
  deps.logger[translated.log.level](
    { ...translated.log.detail, user: who.userId, team: who.teamId, surface: 'decision', approval: state.details.approvalId },
    translated.log.event,
  );
  return decisionFailureView(state, translated.message, deps.approvalLinks);
}

function slackErrorOf(error: unknown): string | undefined {
  const data = (error as { data?: { error?: unknown } } | null)?.data;
  return typeof data?.error === 'string' ? data.error : undefined;
}

/** Puts the outcome in the modal; one the approver closed meanwhile is no failure, any other refusal is replaced by our own words. */
async function updateDecision(deps: SlackDeps, client: WebClient, viewId: string, state: DecisionState, view: View): Promise<void> {
  try {
    await client.views.update({ view_id: viewId, view });
  } catch (error) {
    const slackError = slackErrorOf(error);
    if (slackError === 'not_found') return void deps.logger.info({ slackError }, 'decision modal closed before its update');
    const reference = deps.newId();
    deps.logger.error(
      { slackError, error: (error as Error).message, approval: state.details.approvalId, reference },
      'Slack refused the decision view',
    );
    await client.views
      .update({ view_id: viewId, view: decisionUnshownView(state, reference, deps.approvalLinks) })
      .catch((again: unknown) =>
        deps.logger.warn({ error: (again as Error).message, reference }, 'views.update of the decision failed again'),
      );
  }
}

/** Whether the service has it decided now, as far as this outcome tells. */
function decidedNow(outcome: DecideOutcome): boolean {
  if (outcome.kind === 'done') return true;
  if (outcome.kind === 'unknown') return outcome.details !== undefined && outcome.details.completedDate !== '';
  return outcome.kind === 'refused' && (outcome.refusal.kind === 'already-decided' || outcome.refusal.kind === 'not-pending');
}

function detailsOf(outcome: DecideOutcome): ApprovalDetails | undefined {
  return outcome.kind === 'done' || outcome.kind === 'unknown' || outcome.kind === 'refused' ? outcome.details : undefined;
}

/**
 * The Details modal underneath, and the list the approval was on, as they now stand: drawn from what
 * the decision read of the approval, and what this instance drew of them, so that no more is asked of
 * the service (only what it does not have: another instance drew it, or it is old).
 */
async function afterwards(deps: SlackDeps, client: WebClient, who: Principal, state: DecisionState, outcome: DecideOutcome): Promise<void> {
  const quietly = (what: string) => (error: unknown) =>
    deps.logger.warn({ error: (error as Error).message, what }, 'could not show the decision there');
  if (outcome.kind === 'off' || outcome.kind === 'bad-comment' || outcome.kind === 'duplicate') return;
  const known = detailsOf(outcome);
  if (state.parentViewId !== undefined)
    await (known === undefined
      ? showDetails(deps, client, state.parentViewId, who, state.details)
      : showKnownDetails(deps, client, state.parentViewId, who, state.details, known)
    ).catch(quietly('the details underneath'));
  if (!decidedNow(outcome)) return;
  const id = state.details.approvalId;
  const hold =
    outcome.kind === 'done'
      ? outcome.hold
      : await deps.store
          .decisionHolds([id])
          .then((holds) => holds.get(id))
          .catch(() => undefined);
  // Only a decision made from chat is marked so; one the service shows made elsewhere appears as the service lists it.
  if (hold?.state !== 'done') return;
  const approval: Approval = {
    workItemId: id,
    workItemName: known?.workItemName || state.about.step,
    requestName: known?.requestName || state.about.requestName,
    dueDate: known?.dueDate ?? '',
    completedDate: known?.completedDate ?? '',
    fields: { RequestedByName: known?.requestedByName || state.about.requestedBy },
  };
  const target = refreshTarget(state.details, who.userId);
  if (target === 'home') await publishHome(deps, client, who, { approval, hold }).catch(quietly('Home'));
  const url = state.details.responseUrl;
  if (target === 'page' && state.details.origin.kind === 'page' && state.details.origin.query && url) {
    const query = state.details.origin.query;
    const { frame } = await clockOf(deps, who.userId);
    const shown = deps.shown.page(url);
    const outcomeNow =
      shown === undefined
        ? await searchApprovals(deps, who, query)
        : { kind: 'page' as const, query: shown.query, approvals: shown.approvals, decided: await decidedAmong(deps, shown.approvals) };
    await answerApprovals(
      deps,
      who,
      query,
      outcomeNow,
      frame,
      { respond: deps.responder.to(url), how: 'replace', url },
      { approval, hold },
    ).catch(quietly('the list'));
  }
}

/**
 * An action's button in the Details modal. The approval is checked first (approvals/choose.ts: at
 * no cost to the service when the Details were drawn moments ago, with one read when they may be
 * out of date), so that a stale button is refused at the click, before a comment is written; then
 * the confirmation is pushed over the modal, naming the approval, the request, who asked and the
 * action, with a comment field. The click's trigger lasts 3 seconds: a check that has not answered
 * within PUSH_WITHIN_MS pushes "Checking…" instead, which becomes the confirmation, or the refusal,
 * once it has. Nothing is sent to the service here; the choice is a step of the audit trail, and
 * what is sent is decided when it is confirmed.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { type ChoiceCheck, checkChoice } from '../../../approvals/choose.js';
import { recordAsked, startDecision } from '../../../approvals/decide.js';
import { commentAsked } from '../../../approvals/decision-offer.js';
import { type DecisionChoice, type DecisionState, decodeDecisionChoice } from '../../../parse/decision.js';
import { type DetailsState, decodeDetailsMetadata } from '../../../parse/details.js';
import { decisionCheckingView, decisionConfirmView, decisionFailureView, decisionRefusedAtClickView } from '../../../render/decision.js';
import { detailsNoticeView } from '../../../render/details.js';
import { translateFailure } from '../../../render/errors.js';
import { md, oneLine, richMessage } from '../../../render/rich.js';
import { isServiceError } from '../../../service/errors.js';
import type { Principal } from '../../../store/index.js';
import type { SlackDeps } from '../../deps.js';
import { redrawArrivals } from '../../surfaces/arrivals.js';
import { showDetails, updateDetails } from '../../surfaces/details.js';
import { ephemeral } from '../../surfaces/messages.js';
import { principalOf } from '../../transport/payload.js';

type Args = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

/**
 * How long the check may take before something is pushed: what is left of the trigger's 3 seconds
 * after Slack's delivery and the ack, less the push's own round trip.
 */
export const PUSH_WITHIN_MS = 1_200;

export function decisionChooseAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: Args): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const view = body.view;
    const choice = decodeDecisionChoice(action.value);
    // A button in a message (an arrival's) carries its approval; it opens the confirmation, as one in Details pushes it.
    if (view === undefined && choice?.approvalId !== undefined)
      return chooseFromMessage(deps, client, body, who, { ...choice, approvalId: choice.approvalId });
    const details = decodeDetailsMetadata(view?.private_metadata);
    if (view?.id === undefined || details === undefined || choice === undefined) {
      deps.logger.warn({ user: who.userId }, 'unreadable decision control');
      if (view?.id !== undefined && details !== undefined)
        await updateDetails(
          deps,
          client,
          view.id,
          detailsNoticeView(details, [
            md(
              'This button no longer works (it may come from an older version of countersign). Type `/approvals show <id>` to open the approval again.',
            ),
          ]),
          details,
        );
      return;
    }
    const state: DecisionState = {
      decisionId: startDecision(deps, who, details.approvalId),
      action: choice.action,
      parentViewId: view.id,
      details,
      about: { requestName: choice.requestName, requestedBy: choice.requestedBy, step: choice.step },
    };
    const viewId = view.id;
    await choose(deps, client, who, state, choice, {
      verb: 'views.push',
      show: (shown) => client.views.push({ trigger_id: body.trigger_id, view: shown }),
      cannot: (said) =>
        updateDetails(
          deps,
          client,
          viewId,
          detailsNoticeView(details, [
            ['The confirmation could not be opened (Slack said: ', said, '). Nothing was sent; open the approval again to decide it.'],
          ]),
          details,
        ),
    });
  };
}

/**
 * A decision button in a message: no modal underneath, so the confirmation is opened with the click's
 * trigger (not pushed), and the click always asks the service first (a message may be clicked hours
 * after it was drawn). Submitted, it takes the one path every decision takes.
 */
async function chooseFromMessage(
  deps: SlackDeps,
  client: WebClient,
  body: BlockButtonAction,
  who: Principal,
  choice: DecisionChoice & { approvalId: string },
): Promise<void> {
  const responseUrl = typeof body.response_url === 'string' ? body.response_url : undefined;
  const details: DetailsState = { approvalId: choice.approvalId, origin: { kind: 'digest' }, page: 1, responseUrl };
  const state: DecisionState = {
    decisionId: startDecision(deps, who, choice.approvalId),
    action: choice.action,
    parentViewId: undefined,
    details,
    about: { requestName: choice.requestName, requestedBy: choice.requestedBy, step: choice.step },
  };
  await choose(
    deps,
    client,
    who,
    state,
    { ...choice, shownAt: undefined },
    {
      verb: 'views.open',
      show: (shown) => client.views.open({ trigger_id: body.trigger_id, view: shown }),
      cannot: async (said) => {
        if (responseUrl === undefined) return;
        await deps.responder
          .to(responseUrl)(
            ephemeral(
              richMessage([
                ['The confirmation could not be opened (Slack said: ', said, '). Nothing was sent; click the button again to decide it.'],
              ]),
            ),
          )
          .catch((error: unknown) => deps.logger.warn({ error: (error as Error).message }, 'could not say the confirmation failed'));
      },
    },
  );
}

/** How a confirmation is shown where the click was: pushed over Details, or opened over a message. */
interface Shower {
  verb: 'views.push' | 'views.open';
  show(view: View): Promise<{ view?: { id?: string } }>;
  /** Slack would not show it: say so where the click was. */
  cannot(said: string): Promise<void>;
}

async function choose(deps: SlackDeps, client: WebClient, who: Principal, state: DecisionState, choice: DecisionChoice, shower: Shower) {
  const { approvalId } = state.details;
  const checking = checkChoice(deps, who, { approvalId, action: choice.action, shownAt: choice.shownAt }).catch(
    (error: unknown): ChoiceCheck => ({ kind: 'unchecked', error }),
  );
  const early = await within(checking, PUSH_WITHIN_MS);
  let shownId: string | undefined;
  try {
    // First: the trigger is good for 3 seconds only.
    const shown = await shower.show(early === undefined ? decisionCheckingView(state) : answerView(deps, who, state, early));
    shownId = shown.view?.id;
  } catch (error) {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, `${shower.verb} of the decision failed`);
    await shower.cannot(oneLine((error as Error).message, 200));
    return;
  }
  const check = early ?? (await checking);
  if (early === undefined && shownId === undefined)
    deps.logger.warn({ user: who.userId }, `${shower.verb} answered without a view id; the check cannot be shown`);
  if (early === undefined && shownId !== undefined)
    await client.views
      .update({ view_id: shownId, view: answerView(deps, who, state, check) })
      .catch((error: unknown) => deps.logger.warn({ error: (error as Error).message }, 'views.update of the decision check failed'));
  await afterCheck(deps, client, who, state, check);
}

/** The check's answer, or undefined when it has not come within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the click opens: the confirmation when the approval is (or may be) still offered for the action, else why not. */
function answerView(deps: SlackDeps, who: Principal, state: DecisionState, check: ChoiceCheck): View {
  switch (check.kind) {
    case 'offered':
    case 'unchecked':
      return decisionConfirmView(state, commentAsked(deps, state.action));
    case 'refused':
      return decisionRefusedAtClickView(state, check.refusal, who.userId, deps.approvalLinks);
    case 'failed': {
      const translated = translateFailure(check.error, {
        ...who,
        slash: '/approvals',
        command: 'findApprovals',
        reference: deps.newId(),
        linkMode: deps.credentials.mode,
      });
      deps.logger[translated.log.level](
        { ...translated.log.detail, user: who.userId, surface: 'decision-check', approval: state.details.approvalId },
        translated.log.event,
      );
      return decisionFailureView(state, translated.message, deps.approvalLinks);
    }
  }
}

/**
 * A confirmation shown is the decision's first step in the audit trail. A refusal at the click is
 * not a decision (no comment was asked for): it is logged, and the Details underneath, which
 * offered a button it should not have, are drawn again as the approval stands now.
 */
async function afterCheck(deps: SlackDeps, client: WebClient, who: Principal, state: DecisionState, check: ChoiceCheck): Promise<void> {
  const { approvalId } = state.details;
  if (check.kind === 'offered' || check.kind === 'unchecked') {
    if (check.kind === 'unchecked')
      deps.logger.warn(
        { approval: approvalId, error: (check.error as Error).message },
        'could not check the decision at the click; Confirm checks it',
      );
    deps.background.run('decision asked', () =>
      recordAsked(deps, who, { approvalId, action: state.action, decisionId: state.decisionId }).catch((error: unknown) =>
        deps.logger.error({ error: (error as Error).message, decision: state.decisionId }, 'could not record the decision asked'),
      ),
    );
    return;
  }
  deps.metrics.outcome(check.kind === 'refused' ? 'decision_click_refused' : 'decision_click_failed');
  deps.logger.info(
    {
      approval: approvalId,
      action: state.action,
      ...(check.kind === 'refused'
        ? { refusal: check.refusal.kind }
        : { error: isServiceError(check.error) ? check.error.kind : 'internal' }),
    },
    'decision refused at the click; nothing asked',
  );
  if (check.kind === 'refused' && state.parentViewId !== undefined)
    await showDetails(deps, client, state.parentViewId, who, state.details).catch((error: unknown) =>
      deps.logger.warn({ error: (error as Error).message }, 'could not draw the details again after a refused click'),
    );
  // A button in an arrival message offered it: the messages that list it are drawn again as it now stands.
  if (check.kind === 'refused' && state.parentViewId === undefined) redrawArrivals(deps, approvalId);
}

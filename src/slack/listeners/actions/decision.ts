/**
 * An action's button in the Details modal: its confirmation is pushed over the modal at once (the
 * click's trigger lasts 3 seconds), naming the approval, the request, who asked and the action,
 * with a comment field. Nothing is sent to the service here; the choice is a step of the audit
 * trail, and what is sent is decided when it is confirmed.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { recordAsked, startDecision } from '../../../approvals/decide.js';
import { commentAsked } from '../../../approvals/decision-offer.js';
import { decodeDecisionChoice } from '../../../parse/decision.js';
import { decodeDetailsMetadata } from '../../../parse/details.js';
import { decisionConfirmView } from '../../../render/decision.js';
import { detailsNoticeView } from '../../../render/details.js';
import { md, oneLine } from '../../../render/rich.js';
import type { SlackDeps } from '../../deps.js';
import { updateDetails } from '../../details-modal.js';
import { principalOf } from '../../payload.js';

type Args = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

export function decisionChooseAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: Args): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const view = body.view;
    const details = decodeDetailsMetadata(view?.private_metadata);
    const choice = decodeDecisionChoice(action.value);
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
    const decisionId = startDecision(deps, who, details.approvalId);
    const state = {
      decisionId,
      action: choice.action,
      parentViewId: view.id,
      details,
      about: { requestName: choice.requestName, requestedBy: choice.requestedBy, step: choice.step },
    };
    try {
      // First: the trigger is good for 3 seconds only.
      await client.views.push({ trigger_id: body.trigger_id, view: decisionConfirmView(state, commentAsked(deps, choice.action)) });
    } catch (error) {
      deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.push of the decision failed');
      const said = oneLine((error as Error).message, 200);
      await updateDetails(
        deps,
        client,
        view.id,
        detailsNoticeView(details, [
          ['The confirmation could not be opened (Slack said: ', said, '). Nothing was sent; open the approval again to decide it.'],
        ]),
        details,
      );
      return;
    }
    deps.background.run('decision asked', () =>
      recordAsked(deps, who, { approvalId: details.approvalId, action: choice.action, decisionId }).catch((error: unknown) =>
        deps.logger.error({ error: (error as Error).message, decision: decisionId }, 'could not record the decision asked'),
      ),
    );
  };
}

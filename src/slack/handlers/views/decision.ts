/**
 * A decision's confirmation, submitted. The comment is checked at once (a problem is shown under the
 * field, and nothing is sent); otherwise the ack turns the modal into "Sending…" and the use case
 * does the rest after it: the claim, the check with the service, the call, once. Then the decision
 * surface says what came of it, and draws the Details underneath and the list again.
 */

import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { decide } from '../../../approvals/decide.js';
import { checkComment, decodeDecisionState } from '../../../parse/decision.js';
import { COMMENT_FIELD, decisionProgressView } from '../../../render/decision.js';
import type { SlackDeps } from '../../deps.js';
import { showDecided, showDecisionFailed } from '../../surfaces/decision.js';
import { principalOf } from '../../transport/payload.js';

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
        const request = {
          approvalId: state.details.approvalId,
          action: state.action,
          comment: checked.comment,
          decisionId: state.decisionId,
        };
        const outcome = await decide(deps, who, request);
        await showDecided(deps, client as WebClient, viewId, who, state, outcome, checked.comment);
      },
      (error: unknown) => showDecisionFailed(deps, client as WebClient, viewId, who, state, error),
    );
  };
}

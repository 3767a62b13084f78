/**
 * Next / Previous on an /approvals page, and a digest's "Open the full list". The button carries
 * the asker and the query; the query is re-validated as if typed, and only the clicker's own
 * credentials are ever used, so a forwarded or forged click cannot page someone else's approvals.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { searchApprovals } from '../../../approvals/search.js';
import { decodePageState } from '../../../parse/buttons.js';
import { renderNotYours, renderUnreadableButton } from '../../../render/errors.js';
import type { SlackDeps } from '../../deps.js';
import { answerEscaped } from '../../surfaces/answer.js';
import { answerApprovals } from '../../surfaces/list.js';
import { ephemeral } from '../../surfaces/messages.js';
import { clockOf, principalOf } from '../../transport/payload.js';

/** `replace`: Next / Previous, in place of the page. `new`: the digest's list, as a message of its own, so the digest stays. */
export function pagingAction(deps: SlackDeps, how: 'replace' | 'new' = 'replace') {
  return async ({ ack, body, action }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(body.response_url);
    const who = principalOf(body);
    deps.background.run(
      'approvals paging',
      async () => {
        const state = decodePageState(action.value);
        if (state === undefined) {
          deps.logger.warn({ user: who.userId, action: action.action_id }, 'unreadable paging button');
          return void (await respond(ephemeral(renderUnreadableButton('/approvals'))));
        }
        if (state.user !== who.userId) {
          deps.logger.info({ user: who.userId, owner: state.user }, 'paging refused: not the asker');
          return void (await respond(ephemeral(renderNotYours(state.user, how === 'replace' ? 'page' : 'full-list'))));
        }
        const { frame } = await clockOf(deps, who.userId);
        const outcome = await searchApprovals(deps, who, state.query);
        await answerApprovals(deps, who, state.query, outcome, frame, { respond, how: how === 'replace' ? 'replace' : 'ephemeral' });
      },
      answerEscaped(deps, who, '/approvals', respond),
    );
  };
}

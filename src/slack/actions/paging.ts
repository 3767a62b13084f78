/**
 * Next / Previous on an /approvals page. The button carries the asker and the query; the query
 * is re-validated as if typed, and only the asker's own token is ever used, so a forwarded or
 * forged click cannot page someone else's approvals.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { revalidateApprovalQuery } from '../../parse/approvals.js';
import { decodePageState } from '../../render/approvals.js';
import { renderNotYours, renderUnreadableButton } from '../../render/errors.js';
import { showApprovals } from '../commands/approvals.js';
import { principalOf, todayOf } from '../context.js';
import type { Deps } from '../deps.js';
import { answerWith } from '../failures.js';
import { ephemeral } from '../respond.js';

/**
 * `replace`: Next / Previous, in place of the page. `new`: a digest's "Open the full list", as a
 * message of its own, so that the digest stays where it was.
 */
export function pagingAction(deps: Deps, how: 'replace' | 'new' = 'replace') {
  return async ({ ack, body, action }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(body.response_url);
    const who = principalOf(body);
    deps.background.run(
      'approvals paging',
      async () => {
        const state = decodePageState(action.value);
        const query = state === undefined ? undefined : revalidateApprovalQuery(state.query);
        if (state === undefined || query === undefined) {
          deps.logger.warn({ user: who.userId, action: action.action_id }, 'unreadable paging button');
          return void (await respond(ephemeral(renderUnreadableButton('/approvals'))));
        }
        if (state.user !== who.userId) {
          deps.logger.info({ user: who.userId, owner: state.user }, 'paging refused: not the asker');
          return void (await respond(ephemeral(renderNotYours(state.user, '/approvals'))));
        }
        await showApprovals(deps, who, query, await todayOf(deps, who.userId), respond, how === 'replace' ? 'replace' : 'ephemeral');
      },
      answerWith(deps, who, '/approvals', respond),
    );
  };
}

/** Refresh, Next, Previous and Unlink on the App Home tab. */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { forgetAccount } from '../../../accounts/forget.js';
import type { SlackDeps } from '../../deps.js';
import { publishHome } from '../../home-view.js';
import { principalOf } from '../../payload.js';

/** The button's value is the page to show. */
export function homePageAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const page = /^\d{1,4}$/.test(action.value ?? '') ? Number(action.value) : 1;
    deps.background.run('app home page', () => publishHome(deps, client, principalOf(body), page));
  };
}

/** Slack has already asked "are you sure?": forget the tokens, then show the tab again. */
export function homeUnlinkAction(deps: SlackDeps) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    deps.background.run('app home unlink', async () => {
      await forgetAccount(deps, who);
      await publishHome(deps, client, who, 1);
    });
  };
}

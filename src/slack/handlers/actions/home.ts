/** Refresh and Unlink on the App Home tab (and Next and Previous, from views published before Home showed groups). */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { forgetAccount } from '../../../accounts/forget.js';
import type { SlackDeps } from '../../deps.js';
import { publishHome } from '../../surfaces/home.js';
import { principalOf } from '../../transport/payload.js';

/** The tab again, as it is now: Home has no pages, so an old view's Next or Previous does the same. */
export function homePageAction(deps: SlackDeps) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    deps.background.run('app home page', () => publishHome(deps, client, principalOf(body)));
  };
}

/** Slack has already asked "are you sure?": forget the tokens, then show the tab again. */
export function homeUnlinkAction(deps: SlackDeps) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    deps.background.run('app home unlink', async () => {
      await forgetAccount(deps, who);
      await publishHome(deps, client, who);
    });
  };
}

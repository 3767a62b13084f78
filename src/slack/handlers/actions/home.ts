/** Refresh, Unlink and the arrival messages' switch on the App Home tab (and Next and Previous, from views published before Home showed groups). */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { forgetAccount } from '../../../accounts/forget.js';
import { changeNotify } from '../../../arrivals/settings.js';
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

/**
 * The arrival messages' switch: the button says what it switches to, so a click on an old view
 * (another device, a tab left open) does what it said, not the opposite of what is set now.
 */
export function homeNotifyAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    deps.background.run('app home notify', async () => {
      if (deps.notifyIntervalMs !== undefined && (action.value === 'on' || action.value === 'off'))
        await changeNotify(deps, who, { enabled: action.value === 'on' });
      await publishHome(deps, client, who);
    });
  };
}

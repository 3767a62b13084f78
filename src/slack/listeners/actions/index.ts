import type { App } from '@slack/bolt';
import { OPEN_ACTION, PAGE_ACTIONS } from '../../../render/approvals.js';
import { CONFIRM_ACTIONS } from '../../../render/collect.js';
import { DETAILS_ACTIONS } from '../../../render/details-controls.js';
import { HOME_ACTIONS } from '../../../render/home.js';
import { RELINK_ACTION } from '../../../render/link.js';
import { DIGEST_ACTIONS } from '../../../render/reminders.js';
import type { SlackDeps } from '../../deps.js';
import { confirmAction } from './confirm.js';
import { detailsButtonAction, detailsPageAction, detailsRefreshAction, detailsRelinkAction, detailsSelectAction } from './details.js';
import { homePageAction, homeUnlinkAction } from './home.js';
import { pagingAction } from './paging.js';
import { relinkAction } from './relink.js';

export function registerActions(app: App, deps: SlackDeps): void {
  app.action(PAGE_ACTIONS.next, pagingAction(deps));
  app.action(PAGE_ACTIONS.previous, pagingAction(deps));
  app.action(DIGEST_ACTIONS.fullList, pagingAction(deps, 'new'));
  // "Open" is a link: Slack opens the page itself and still sends the click, which only needs an ack.
  app.action(OPEN_ACTION, async ({ ack }) => {
    await ack();
  });
  app.action(CONFIRM_ACTIONS.run, confirmAction(deps, 'run'));
  app.action(CONFIRM_ACTIONS.cancel, confirmAction(deps, 'cancel'));
  app.action(RELINK_ACTION, relinkAction(deps));
  for (const id of [HOME_ACTIONS.refresh, HOME_ACTIONS.next, HOME_ACTIONS.previous]) app.action(id, homePageAction(deps));
  app.action(HOME_ACTIONS.unlink, homeUnlinkAction(deps));
  app.action(DETAILS_ACTIONS.open, detailsButtonAction(deps));
  app.action(DETAILS_ACTIONS.select, detailsSelectAction(deps));
  for (const id of [DETAILS_ACTIONS.next, DETAILS_ACTIONS.previous, DETAILS_ACTIONS.retry]) app.action(id, detailsPageAction(deps));
  app.action(DETAILS_ACTIONS.refresh, detailsRefreshAction(deps));
  app.action(DETAILS_ACTIONS.relink, detailsRelinkAction(deps));
}

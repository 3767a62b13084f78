import type { App } from '@slack/bolt';
import { OPEN_ACTION, PAGE_ACTIONS } from '../../../render/approvals.js';
import { CONFIRM_ACTIONS } from '../../../render/collect.js';
import { DETAILS_ACTIONS } from '../../../render/details-controls.js';
import { HOME_ACTIONS } from '../../../render/home.js';
import { RELINK_ACTION } from '../../../render/link.js';
import { DIGEST_ACTIONS } from '../../../render/reminders.js';
import type { SlackDeps } from '../../deps.js';
import { perRequest } from '../middleware.js';
import { confirmAction } from './confirm.js';
import { detailsButtonAction, detailsPageAction, detailsRefreshAction, detailsRelinkAction, detailsSelectAction } from './details.js';
import { homePageAction, homeUnlinkAction } from './home.js';
import { pagingAction } from './paging.js';
import { relinkAction } from './relink.js';

export function registerActions(app: App, deps: SlackDeps): void {
  app.action(PAGE_ACTIONS.next, perRequest(deps, pagingAction));
  app.action(PAGE_ACTIONS.previous, perRequest(deps, pagingAction));
  app.action(
    DIGEST_ACTIONS.fullList,
    perRequest(deps, (d) => pagingAction(d, 'new')),
  );
  // "Open" is a link: Slack opens the page itself and still sends the click, which only needs an ack.
  app.action(OPEN_ACTION, async ({ ack }) => {
    await ack();
  });
  app.action(
    CONFIRM_ACTIONS.run,
    perRequest(deps, (d) => confirmAction(d, 'run')),
  );
  app.action(
    CONFIRM_ACTIONS.cancel,
    perRequest(deps, (d) => confirmAction(d, 'cancel')),
  );
  app.action(RELINK_ACTION, perRequest(deps, relinkAction));
  for (const id of [HOME_ACTIONS.refresh, HOME_ACTIONS.next, HOME_ACTIONS.previous]) app.action(id, perRequest(deps, homePageAction));
  app.action(HOME_ACTIONS.unlink, perRequest(deps, homeUnlinkAction));
  app.action(DETAILS_ACTIONS.open, perRequest(deps, detailsButtonAction));
  app.action(DETAILS_ACTIONS.select, perRequest(deps, detailsSelectAction));
  for (const id of [DETAILS_ACTIONS.next, DETAILS_ACTIONS.previous, DETAILS_ACTIONS.retry])
    app.action(id, perRequest(deps, detailsPageAction));
  app.action(DETAILS_ACTIONS.refresh, perRequest(deps, detailsRefreshAction));
  app.action(DETAILS_ACTIONS.relink, perRequest(deps, detailsRelinkAction));
}

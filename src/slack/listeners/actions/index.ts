import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { OPEN_ACTION, PAGE_ACTIONS } from '../../../render/approvals.js';
import { CONFIRM_ACTIONS } from '../../../render/collect.js';
import { DETAILS_ACTIONS } from '../../../render/details-controls.js';
import { HOME_ACTIONS } from '../../../render/home.js';
import { RELINK_ACTION } from '../../../render/link.js';
import { DIGEST_ACTIONS } from '../../../render/reminders.js';
import type { SlackDeps } from '../../deps.js';
import type { Handlers, Listener } from '../routes.js';
import { confirmAction } from './confirm.js';
import { detailsButtonAction, detailsPageAction, detailsRefreshAction, detailsRelinkAction, detailsSelectAction } from './details.js';
import { homePageAction, homeUnlinkAction } from './home.js';
import { pagingAction } from './paging.js';
import { relinkAction } from './relink.js';

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Each action id and the listener it reaches; each listener names the kind of element it is for (a button, a select). */
export function actionRoutes(): Handlers {
  const routes: Handlers = new Map();
  const on = (ids: readonly string[], make: Listener) => {
    for (const id of ids) routes.set(id, make);
  };
  on([PAGE_ACTIONS.next, PAGE_ACTIONS.previous], pagingAction);
  on([DIGEST_ACTIONS.fullList], (deps: SlackDeps) => pagingAction(deps, 'new'));
  // "Open" is a link: Slack opens the page itself and still sends the click, which only needs an ack.
  on([OPEN_ACTION], () => async ({ ack }: ActionArgs) => {
    await ack();
  });
  on([CONFIRM_ACTIONS.run], (deps: SlackDeps) => confirmAction(deps, 'run'));
  on([CONFIRM_ACTIONS.cancel], (deps: SlackDeps) => confirmAction(deps, 'cancel'));
  on([RELINK_ACTION], relinkAction);
  on([HOME_ACTIONS.refresh, HOME_ACTIONS.next, HOME_ACTIONS.previous], homePageAction);
  on([HOME_ACTIONS.unlink], homeUnlinkAction);
  on([DETAILS_ACTIONS.open], detailsButtonAction);
  on([DETAILS_ACTIONS.select], detailsSelectAction);
  on([DETAILS_ACTIONS.next, DETAILS_ACTIONS.previous, DETAILS_ACTIONS.retry], detailsPageAction);
  on([DETAILS_ACTIONS.refresh], detailsRefreshAction);
  on([DETAILS_ACTIONS.relink], detailsRelinkAction);
  return routes;
}

import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { OPEN_ACTION, PAGE_ACTIONS } from '../../../render/approvals.js';
import { CONFIRM_ACTIONS } from '../../../render/collect.js';
import { DECISION_ACTIONS } from '../../../render/decision.js';
import { DETAILS_ACTIONS } from '../../../render/details-controls.js';
import { HOME_ACTIONS } from '../../../render/home.js';
import { LINK_WAY_ACTION, RELINK_ACTION } from '../../../render/link.js';
import { DIGEST_ACTIONS } from '../../../render/reminders.js';
import type { SlackDeps } from '../../deps.js';
import { type Route, routeByName } from '../../transport/routes.js';
import { confirmAction } from './confirm.js';
import { decisionChooseAction } from './decision.js';
import { detailsButtonAction, detailsPageAction, detailsRefreshAction, detailsRelinkAction, detailsSelectAction } from './details.js';
import { homeNotifyAction, homePageAction, homeUnlinkAction } from './home.js';
import { linkWayAction } from './link-way.js';
import { pagingAction } from './paging.js';
import { relinkAction } from './relink.js';

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
type Make = (deps: SlackDeps) => (args: ActionArgs) => Promise<void>;

/** Each action id and the handler it reaches. */
function actionRoutes(): ReadonlyMap<string, Make> {
  const routes = new Map<string, Make>();
  // Each handler names the kind of element it is for (a button, a select): the id says which it is.
  const on = (ids: readonly string[], make: (deps: SlackDeps) => (args: never) => Promise<void>) => {
    for (const id of ids) routes.set(id, make as unknown as Make);
  };
  on([PAGE_ACTIONS.next, PAGE_ACTIONS.previous, PAGE_ACTIONS.first], pagingAction);
  on([DIGEST_ACTIONS.fullList], (deps) => pagingAction(deps, 'new'));
  // "Open" is a link: Slack opens the page itself and still sends the click, which only needs an ack.
  on([OPEN_ACTION, DECISION_ACTIONS.open], () => async ({ ack }: ActionArgs) => {
    await ack();
  });
  on([CONFIRM_ACTIONS.run], (deps) => confirmAction(deps, 'run'));
  on([CONFIRM_ACTIONS.cancel], (deps) => confirmAction(deps, 'cancel'));
  on([RELINK_ACTION], relinkAction);
  on([LINK_WAY_ACTION], linkWayAction);
  on([HOME_ACTIONS.refresh, HOME_ACTIONS.next, HOME_ACTIONS.previous], homePageAction);
  on([HOME_ACTIONS.unlink], homeUnlinkAction);
  on([HOME_ACTIONS.notify], homeNotifyAction);
  on([DETAILS_ACTIONS.open], detailsButtonAction);
  on([DETAILS_ACTIONS.select], detailsSelectAction);
  on([DETAILS_ACTIONS.next, DETAILS_ACTIONS.previous, DETAILS_ACTIONS.retry], detailsPageAction);
  on([DETAILS_ACTIONS.refresh], detailsRefreshAction);
  on([DETAILS_ACTIONS.relink], detailsRelinkAction);
  on(DECISION_ACTIONS.choose, decisionChooseAction);
  return routes;
}

/** Every click on a block (a button, a select), by action id. */
export function actionRoute(deps: SlackDeps): Route {
  return routeByName<ActionArgs>(deps, actionRoutes(), (args) =>
    args.body.type === 'block_actions' && 'action' in args && args.action !== undefined
      ? ((args.action as { action_id?: string }).action_id ?? '')
      : undefined,
  );
}

import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { DECISION_CALLBACK } from '../../../render/decision.js';
import { LINK_CALLBACK } from '../../../render/link.js';
import type { SlackDeps } from '../../deps.js';
import { type Route, routeByName } from '../../transport/routes.js';
import { decisionSubmission } from './decision.js';
import { linkSubmission } from './link.js';

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

const VIEWS = new Map<string, (deps: SlackDeps) => (args: ViewArgs) => Promise<void>>([
  [LINK_CALLBACK, linkSubmission],
  [DECISION_CALLBACK, decisionSubmission],
]);

/** Every modal submitted, by its callback id. A modal closed asks for nothing. */
export function viewRoute(deps: SlackDeps): Route {
  return routeByName(deps, VIEWS, (args) => (args.body.type === 'view_submission' && 'view' in args ? args.view.callback_id : undefined));
}

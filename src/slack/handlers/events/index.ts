import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { type Route, requestDeps } from '../../transport/routes.js';
import { homeOpened } from './home-opened.js';

/** The one event the app subscribes to: its Home tab opened. */
export function eventRoute(deps: SlackDeps): Route {
  return (args) => {
    if (!('event' in args) || args.event?.type !== 'app_home_opened') return undefined;
    return homeOpened(requestDeps(args.context, deps))(args as unknown as SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs);
  };
}

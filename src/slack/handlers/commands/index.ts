import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { type Route, routeByName } from '../../transport/routes.js';
import { approvalsCommand } from './approvals.js';
import { collectCommand } from './collect.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

const COMMANDS = new Map<string, (deps: SlackDeps) => (args: CommandArgs) => Promise<void>>([
  ['/approvals', approvalsCommand],
  ['/collect', collectCommand],
]);

/** Every command, by name. */
export function commandRoute(deps: SlackDeps): Route {
  return routeByName(deps, COMMANDS, (args) => ('command' in args && args.command ? args.command.command : undefined));
}

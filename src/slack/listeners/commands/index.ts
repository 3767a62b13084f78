import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { type Route, requestDeps } from '../middleware.js';
import { approvalsCommand } from './approvals.js';
import { collectCommand } from './collect.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

const COMMANDS = new Map<string, (deps: SlackDeps) => (args: CommandArgs) => Promise<void>>([
  ['/approvals', approvalsCommand],
  ['/collect', collectCommand],
]);

/** Every command, by name. */
export function commandRoute(deps: SlackDeps): Route {
  return (args) => {
    if (!('command' in args) || !args.command) return undefined;
    const make = COMMANDS.get(args.command.command);
    return make === undefined ? Promise.resolve() : make(requestDeps(args.context, deps))(args as CommandArgs);
  };
}

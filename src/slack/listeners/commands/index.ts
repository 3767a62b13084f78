import type { AllMiddlewareArgs, App, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { requestDeps } from '../middleware.js';
import { approvalsCommand } from './approvals.js';
import { collectCommand } from './collect.js';

type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

const COMMANDS = new Map<string, (deps: SlackDeps) => (args: CommandArgs) => Promise<void>>([
  ['/approvals', approvalsCommand],
  ['/collect', collectCommand],
]);

/** One listener for every command, routing by name: Bolt runs the matching of every listener it has for every request. */
export function registerCommands(app: App, deps: SlackDeps): void {
  app.command(/^\//, async (args) => {
    const make = COMMANDS.get(args.command.command);
    if (make !== undefined) await make(requestDeps(args.context, deps))(args);
  });
}

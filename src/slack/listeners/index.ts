/** Wires every Slack surface to its listener, through the one request middleware (see routes.ts). */

import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { actionRoutes } from './actions/index.js';
import { commandRoutes } from './commands/index.js';
import { eventRoutes } from './events/index.js';
import { requestMiddleware } from './middleware.js';
import { viewRoutes } from './views/index.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  app.use(requestMiddleware(deps, { commands: commandRoutes(), actions: actionRoutes(), views: viewRoutes(), events: eventRoutes() }));
  app.error(async (error) => {
    deps.logger.error(
      { error: { name: error.name, message: error.message, code: (error as { code?: string }).code } },
      'unhandled Slack listener error',
    );
  });
}

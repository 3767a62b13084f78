/** Wires every Slack surface to its listeners, behind the one request middleware. */

import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerActions } from './actions/index.js';
import { registerCommands } from './commands/index.js';
import { registerEvents } from './events/index.js';
import { requestMiddleware } from './middleware.js';
import { registerViews } from './views/index.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  app.use(requestMiddleware(deps));
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerEvents(app, deps);
  app.error(async (error) => {
    deps.logger.error(
      { error: { name: error.name, message: error.message, code: (error as { code?: string }).code } },
      'unhandled Slack listener error',
    );
  });
}

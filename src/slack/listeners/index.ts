/** Wires every Slack surface to its handlers, behind the one request middleware. */

import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { actionRoute } from './actions/index.js';
import { commandRoute } from './commands/index.js';
import { eventRoute } from './events/index.js';
import { requestMiddleware } from './middleware.js';
import { viewRoute } from './views/index.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  app.use(requestMiddleware(deps, [commandRoute(deps), actionRoute(deps), viewRoute(deps), eventRoute(deps)]));
  app.error(async (error) => {
    deps.logger.error(
      { error: { name: error.name, message: error.message, code: (error as { code?: string }).code } },
      'unhandled Slack listener error',
    );
  });
}

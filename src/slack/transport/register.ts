/** Wires every Slack surface to its handlers, behind the one request middleware. */

import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { actionRoute } from '../handlers/actions/index.js';
import { commandRoute } from '../handlers/commands/index.js';
import { eventRoute } from '../handlers/events/index.js';
import { viewRoute } from '../handlers/views/index.js';
import { requestMiddleware } from './routes.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  app.use(requestMiddleware(deps, [commandRoute(deps), actionRoute(deps), viewRoute(deps), eventRoute(deps)]));
  app.error(async (error) => {
    deps.logger.error(
      { error: { name: error.name, message: error.message, code: (error as { code?: string }).code } },
      'unhandled Slack listener error',
    );
  });
}

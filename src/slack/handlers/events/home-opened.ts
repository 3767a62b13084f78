/** app_home_opened: publish the user's Home tab. */

import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { publishHome } from '../../surfaces/home.js';

export function homeOpened(deps: SlackDeps) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    const who = { teamId: (body as { team_id?: string }).team_id ?? '', userId: event.user };
    deps.background.run('app home', () => publishHome(deps, client, who));
  };
}

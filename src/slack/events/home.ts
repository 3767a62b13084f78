/** app_home_opened: publish the Home tab for the user who opened it. */

import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import { renderHome } from '../../render/home.js';
import { SERVICE_COMMANDS } from '../../store/index.js';
import type { Deps } from '../deps.js';

export function homeOpened(deps: Deps) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    const teamId = (body as { team_id?: string }).team_id ?? '';
    deps.background.run('app home', async () => {
      const links = (await deps.store.listLinks()).filter((l) => l.userId === event.user && (l.teamId === teamId || l.teamId === ''));
      await client.views.publish({ user_id: event.user, view: renderHome(links, SERVICE_COMMANDS) });
    });
  };
}

import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { perRequest } from '../middleware.js';
import { homeOpened } from './home-opened.js';

export function registerEvents(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', perRequest(deps, homeOpened));
}

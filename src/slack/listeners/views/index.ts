import type { App } from '@slack/bolt';
import { LINK_CALLBACK } from '../../../render/link.js';
import type { SlackDeps } from '../../deps.js';
import { perRequest } from '../middleware.js';
import { linkSubmission } from './link.js';

export function registerViews(app: App, deps: SlackDeps): void {
  app.view(LINK_CALLBACK, perRequest(deps, linkSubmission));
}

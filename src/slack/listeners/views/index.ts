import type { App } from '@slack/bolt';
import { DECISION_CALLBACK } from '../../../render/decision.js';
import { LINK_CALLBACK } from '../../../render/link.js';
import type { SlackDeps } from '../../deps.js';
import { perRequest } from '../middleware.js';
import { decisionSubmission } from './decision.js';
import { linkSubmission } from './link.js';

export function registerViews(app: App, deps: SlackDeps): void {
  app.view(LINK_CALLBACK, perRequest(deps, linkSubmission));
  app.view(DECISION_CALLBACK, perRequest(deps, decisionSubmission));
}

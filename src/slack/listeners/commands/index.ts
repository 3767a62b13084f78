import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.js';
import { perRequest } from '../middleware.js';
import { approvalsCommand } from './approvals.js';
import { collectCommand } from './collect.js';

export function registerCommands(app: App, deps: SlackDeps): void {
  app.command('/approvals', perRequest(deps, approvalsCommand));
  app.command('/collect', perRequest(deps, collectCommand));
}

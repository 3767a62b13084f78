import type { Handlers } from '../routes.js';
import { approvalsCommand } from './approvals.js';
import { collectCommand } from './collect.js';

/** Each slash command and its listener. */
export function commandRoutes(): Handlers {
  return new Map([
    ['/approvals', approvalsCommand],
    ['/collect', collectCommand],
  ]);
}

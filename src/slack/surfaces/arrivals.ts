/**
 * Arrival messages, kept true from the Slack side: once a decision from Slack is done (from the
 * message itself, a list, Home, a Details modal), every arrival message that lists the approval,
 * any approver's, is drawn again with who decided what and when, and without its buttons. In the
 * background: the decision's own window does not wait on other people's messages.
 */

import { afterDecision } from '../../arrivals/decided.js';
import type { SlackDeps } from '../deps.js';

export function redrawArrivals(deps: SlackDeps, approvalId: string): void {
  // Where arrival messages are off there are none to redraw.
  if (deps.notifyIntervalMs === undefined) return;
  // afterDecision logs what it could not do and never throws: the decision is done whatever happens here.
  deps.background.run('arrival messages redrawn', () => afterDecision(deps, approvalId));
}

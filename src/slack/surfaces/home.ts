/** Publishing a user's App Home tab: the use case's content, rendered, with views.publish. */

import type { WebClient } from '@slack/web-api';
import { detailsOffered } from '../../approvals/details.js';
import { loadHome } from '../../home/home.js';
import { markOf } from '../../render/decision.js';
import { renderHome } from '../../render/home.js';
import type { Approval } from '../../service/schemas.js';
import { type DecisionHold, type Principal, SERVICE_COMMANDS } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';
import { clockOf } from '../transport/payload.js';
import { approvalsAsked, failureMessage } from './failure.js';

/**
 * `justDecided`: an approval decided from Home a moment ago, shown first as decided when the service
 * no longer lists it; Home is then drawn again from what this instance last drew of it, when it has it.
 */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  who: Principal,
  justDecided?: { approval: Approval; hold: DecisionHold },
): Promise<void> {
  const { frame } = await clockOf(deps, who.userId);
  const windowDays = deps.reminders.windowDays;
  const outcome =
    (justDecided && deps.shown.home(who.userId)) || (await loadHome(deps, who, frame, windowDays, deps.notifyIntervalMs !== undefined));
  deps.shown.drewHome(who.userId, outcome);
  const decided = new Map(outcome.decided ?? []);
  if (justDecided !== undefined) decided.set(justDecided.approval.workItemId, justDecided.hold);
  const problem =
    outcome.failure === undefined ? undefined : failureMessage(deps, outcome.failure, approvalsAsked(deps, who), { surface: 'home' });
  await client.views.publish({
    user_id: who.userId,
    view: renderHome({
      outcome,
      frame,
      windowDays,
      commands: SERVICE_COMMANDS,
      problem,
      approvalLinks: deps.approvalLinks,
      details: detailsOffered(deps),
      decided: { marks: new Map([...decided].map(([id, hold]) => [id, markOf(hold)])), readerId: who.userId },
      justDecided: justDecided === undefined ? [] : [justDecided.approval],
    }),
  });
}

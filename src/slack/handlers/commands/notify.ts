/**
 * `/approvals notify …`: the arrival messages' setting, shown or changed, in the user's own zone; or,
 * where the installation has them off (NOTIFY_INTERVAL off), that there is nothing to set.
 */

import { changeNotify, notifySettings } from '../../../arrivals/settings.js';
import type { NotifyCommand } from '../../../parse/notify.js';
import type { NotifyAnswer } from '../../../render/arrivals.js';
import type { Principal } from '../../../store/index.js';
import type { SlackDeps } from '../../deps.js';

export async function notifyAnswer(
  deps: SlackDeps,
  who: Principal,
  command: NotifyCommand,
  zone: string | undefined,
): Promise<NotifyAnswer> {
  if (deps.notifyIntervalMs === undefined) return { kind: 'off-here' };
  const settings =
    command.action === 'show'
      ? await notifySettings(deps, who)
      : await changeNotify(deps, who, command.action === 'switch' ? { enabled: command.enabled } : { quiet: command.quiet });
  // Only a linked approver's list can be checked: on, unlinked, nothing would ever come, and they should know why.
  const notLinked = settings.enabled && (await deps.credentials.credentialsFor(who, 'findApprovals')) === undefined;
  return { kind: command.action === 'show' ? 'shown' : 'changed', settings, zone, notLinked };
}

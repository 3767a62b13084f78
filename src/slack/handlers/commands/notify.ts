/**
 * `/approvals notify …`: the arrival messages' setting, shown or changed, in the user's own zone; or,
 * where the installation has them off (NOTIFY_INTERVAL off), that there is nothing to set.
 */

import type { NotifyChange } from '../../../arrivals/ports.js';
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
  if (command.action === 'show') return { kind: 'shown', settings: await notifySettings(deps, who), zone };
  const change: NotifyChange = command.action === 'switch' ? { enabled: command.enabled } : { quiet: command.quiet };
  return { kind: 'changed', settings: await changeNotify(deps, who, change), zone };
}

/**
 * An approver's own choice: arrival messages on (the default for every linked approver) or off,
 * and quiet hours in their zone. Switching on from off makes the next check, due at once, prime:
 * what waited while it was off is counted in one line, never announced.
 */

import type { Deps } from '../deps.js';
import type { Principal } from '../store/index.js';
import type { NotifyChange, NotifySettings } from './ports.js';

const DEFAULT: NotifySettings = { enabled: true, quiet: undefined };

export async function notifySettings(deps: Pick<Deps, 'store'>, who: Principal): Promise<NotifySettings> {
  return (await deps.store.notifySetting(who.userId)) ?? DEFAULT;
}

export async function changeNotify(deps: Pick<Deps, 'store' | 'now'>, who: Principal, change: NotifyChange): Promise<NotifySettings> {
  return deps.store.setNotify(who, change, deps.now());
}

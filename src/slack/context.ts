/** Who asked, and their today, from a Slack payload. */

import { type CalendarDay, todayIn } from '../parse/dates.js';
import type { Principal } from '../store/index.js';
import type { Deps } from './deps.js';

export function principalOf(body: {
  team?: { id?: string } | null;
  user?: { id: string; team_id?: string } | null;
  team_id?: string;
  user_id?: string;
}): Principal {
  const userId = body.user?.id ?? body.user_id ?? '';
  const teamId = body.team?.id ?? body.team_id ?? body.user?.team_id ?? '';
  return { teamId, userId };
}

export async function todayOf(deps: Deps, userId: string): Promise<CalendarDay> {
  return todayIn(await deps.timeZones.lookup(userId), deps.now());
}

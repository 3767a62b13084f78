/** Who asked, and their time zone and today, from a Slack payload. */

import type { Principal } from '../../store/index.js';
import { type TimeFrame, timeFrame } from '../../time/frame.js';
import type { CalendarDay } from '../../time/zones.js';
import type { SlackDeps } from '../deps.js';

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

/**
 * The user's zone as their Slack profile says (undefined: Slack did not say, so UTC), their today in
 * it, and the frame in which the service's times are shown to them.
 */
export async function clockOf(
  deps: SlackDeps,
  userId: string,
): Promise<{ zone: string | undefined; today: CalendarDay; frame: TimeFrame }> {
  const zone = await deps.timeZones.lookup(userId);
  const frame = timeFrame(deps.now(), zone, deps.serviceTimeZone);
  return { zone, today: frame.today, frame };
}

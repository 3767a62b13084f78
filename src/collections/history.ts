/** `/collect history`: a channel's last collections, newest first, with how their runs stand. */

import type { Deps } from '../deps.js';
import type { CollectAttempt } from '../store/index.js';

export function channelHistory(deps: Deps, where: { teamId: string; channelId: string }, limit: number): Promise<CollectAttempt[]> {
  return deps.store.listCollectAttempts({ teamId: where.teamId, channelId: where.channelId, limit });
}

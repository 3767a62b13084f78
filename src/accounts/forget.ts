/**
 * Forgetting a user's link (logout, Unlink on Home), and what whoami shows. Every link that would
 * act for them in this workspace goes, an admin's link for any workspace included: after it no
 * call is made for them until they link again. A session that loginUser started is ended at the
 * service first; the user's reminder pauses and resumes, without a "link again" message, once they link.
 */

import type { Deps } from '../runtime/deps.js';
import { type LinkSummary, type Principal, SERVICE_COMMANDS } from '../store/index.js';

export interface Forgotten {
  removed: number;
  endedAtService: number;
}

export async function forgetAccount(deps: Deps, who: Principal): Promise<Forgotten> {
  const ended = new Set<string>();
  for (const command of SERVICE_COMMANDS) {
    const linked = await deps.store.getToken(who, command).catch(() => undefined);
    if (linked?.source !== 'login' || ended.has(linked.token.reveal())) continue;
    ended.add(linked.token.reveal());
    await deps.service.logoutUser(linked.token).catch((error: unknown) => {
      deps.logger.info({ user: who.userId, error: (error as Error).message }, 'logoutUser failed; forgetting the token anyway');
    });
  }
  const removed = await deps.store.deleteTokens(who);
  await deps.store.pauseReminder(who, deps.now());
  deps.logger.info({ user: who.userId, team: who.teamId, removed, endedAtService: ended.size }, 'tokens forgotten at logout');
  return { removed, endedAtService: ended.size };
}

/** Which commands are linked, since when, how the last call went. Never a token. */
export function whoami(deps: Deps, who: Principal): Promise<LinkSummary[]> {
  return deps.store.listLinks(who);
}

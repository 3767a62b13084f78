/**
 * Forgetting a user's link (logout, Unlink on Home), and what whoami shows. Every link that would
 * act for them in this workspace goes, an admin's link for any workspace included: after it no
 * call is made for them until they link again. A session that loginUser started is ended at the
 * service first; the user's reminder pauses and resumes, without a "link again" message, once they link.
 */

import type { Deps } from '../deps.js';
import type { AppTrouble, LinkMode } from '../service/credentials.js';
import { type IdentityLink, type LinkSummary, type Principal, SERVICE_COMMANDS } from '../store/index.js';

export interface Forgotten {
  /** Token links removed. */
  removed: number;
  endedAtService: number;
  /** The service identities removed (trusted mode): the one for this workspace and any-workspace one. */
  identities: number;
}

/** Forgets the tokens that would act for the user here, ending at the service the sessions that loginUser started. */
export async function forgetTokens(deps: Deps, who: Principal): Promise<Omit<Forgotten, 'identities'>> {
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
  return { removed, endedAtService: ended.size };
}

export async function forgetAccount(deps: Deps, who: Principal): Promise<Forgotten> {
  const { removed, endedAtService } = await forgetTokens(deps, who);
  const identities = await deps.store.deleteIdentities(who);
  await deps.store.pauseReminder(who, deps.now());
  deps.logger.info({ user: who.userId, team: who.teamId, removed, endedAtService, identities }, 'links forgotten at logout');
  return { removed, endedAtService, identities };
}

/** What countersign holds for someone, and how this installation calls the service for them. Never a token. */
export interface LinkStatus {
  mode: LinkMode;
  /** Trusted mode: the identity calls are made for (the workspace's before an any-workspace one). */
  identity: IdentityLink | undefined;
  /** Token links: every one in the default mode; in the trusted mode, those from before it, used until they expire. */
  tokens: LinkSummary[];
  /** Trusted mode: what keeps countersign's own session with the service from working now (this instance's). */
  trouble: AppTrouble | undefined;
}

export async function whoami(deps: Deps, who: Principal): Promise<LinkStatus> {
  const mode = deps.credentials.mode;
  const identity = mode === 'trusted-app' ? await deps.store.getIdentity(who) : undefined;
  return { mode, identity, tokens: await deps.store.listLinks(who), trouble: deps.credentials.trouble?.() };
}

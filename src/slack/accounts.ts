/**
 * login and logout, for both commands: login opens the "link your account" modal (views.open
 * must follow the trigger within 3 seconds, so it is the first thing done after the ack); logout
 * forgets the user's tokens at once.
 */

import type { WebClient } from '@slack/web-api';
import { fallback, inert, section } from '../render/blocks.js';
import { linkInstructions } from '../render/errors.js';
import { type LinkMetadata, linkModal, renderWhoami } from '../render/link.js';
import { type Principal, SERVICE_COMMANDS } from '../store/index.js';
import type { Deps } from './deps.js';
import { ephemeral } from './respond.js';
import type { Respond } from './response-url.js';

export async function openLinkModal(
  deps: Deps,
  client: WebClient,
  triggerId: string,
  who: Principal,
  metadata: LinkMetadata,
  respond: Respond,
): Promise<void> {
  const command = metadata.command;
  // Slack caps private_metadata at 3,000 characters; a replay that does not fit is dropped, not the form.
  const fits = JSON.stringify(metadata).length <= 3000 ? metadata : { command };
  try {
    await client.views.open({ trigger_id: triggerId, view: linkModal(fits) });
  } catch (error) {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.open failed');
    const text = `The sign-in form could not be opened (Slack said: ${inert((error as Error).message, 200)}). Type the command again, or: ${linkInstructions({ userId: who.userId, command })}`;
    await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
  }
}

/**
 * Forgets the user's tokens, ending at the service first any session that loginUser started, and
 * pauses their reminder: it resumes, without a "link again" message, once they link.
 */
export async function forgetAccount(deps: Deps, who: Principal): Promise<{ removed: number; endedAtService: number }> {
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

export async function logout(deps: Deps, who: Principal, respond: Respond): Promise<void> {
  const { removed, endedAtService } = await forgetAccount(deps, who);
  const text =
    removed > 0
      ? `Done: countersign forgot your ${removed === 1 ? 'token' : `${removed} tokens`}${endedAtService > 0 ? ' and ended your session at the Command Service' : ''}. It can no longer act for you until you link again.`
      : 'countersign had no token of yours to forget.';
  await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
}

export async function whoami(deps: Deps, who: Principal, respond: Respond): Promise<void> {
  const links = await deps.store.listLinks(who);
  await respond(ephemeral(renderWhoami(who.userId, links, SERVICE_COMMANDS)));
}

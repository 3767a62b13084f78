/**
 * login and logout, for both commands: login opens the "link your account" modal (views.open
 * must follow the trigger within 3 seconds, so it is the first thing done after the ack); logout
 * forgets the user's tokens at once.
 */

import type { WebClient } from '@slack/web-api';
import { fallback, inert, section } from '../render/blocks.js';
import { linkInstructions, type ServiceCommand } from '../render/errors.js';
import { linkModal } from '../render/link.js';
import type { Principal } from '../store/index.js';
import type { Deps } from './deps.js';
import { ephemeral } from './respond.js';
import type { Respond } from './response-url.js';

export async function openLinkModal(
  deps: Deps,
  client: WebClient,
  triggerId: string,
  who: Principal,
  command: ServiceCommand,
  respond: Respond,
): Promise<void> {
  try {
    await client.views.open({ trigger_id: triggerId, view: linkModal({ command }) });
  } catch (error) {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.open failed');
    const text = `The sign-in form could not be opened (Slack said: ${inert((error as Error).message, 200)}). Type the command again, or: ${linkInstructions({ userId: who.userId, command })}`;
    await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
  }
}

export async function logout(deps: Deps, who: Principal, respond: Respond): Promise<void> {
  const removed = await deps.store.deleteTokens(who);
  deps.logger.info({ user: who.userId, team: who.teamId, removed }, 'tokens forgotten at logout');
  const text =
    removed > 0
      ? `Done: countersign forgot your ${removed === 1 ? 'token' : `${removed} tokens`}. It can no longer act for you until you link again.`
      : 'countersign had no token of yours to forget.';
  await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
}

/**
 * login and logout, for both commands. Until users can link from Slack (the accounts issue),
 * login explains how an admin links a token; logout forgets the user's tokens at once.
 */

import { fallback, section } from '../render/blocks.js';
import { linkInstructions, type ServiceCommand } from '../render/errors.js';
import type { Principal } from '../store/index.js';
import type { Deps } from './deps.js';
import { ephemeral } from './respond.js';
import type { Respond } from './response-url.js';

export async function explainLogin(who: Principal, command: ServiceCommand, respond: Respond): Promise<void> {
  const text = `Linking from Slack is not available yet. ${linkInstructions({ userId: who.userId, command })}`;
  await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
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

/**
 * Opening the "link your account" modal. views.open must follow the trigger within 3 seconds, so
 * callers open it before any other I/O; when Slack refuses, the user is told how else to link.
 */

import type { WebClient } from '@slack/web-api';
import type { LinkMetadata } from '../../parse/buttons.js';
import { fallback, inert, section } from '../../render/blocks.js';
import { linkInstructions } from '../../render/errors.js';
import { linkModal } from '../../render/link.js';
import type { Principal } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';
import type { Respond } from '../web-api/responder.js';
import { ephemeral } from './messages.js';

export async function openLinkModal(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  who: Principal,
  metadata: LinkMetadata,
  respond: Respond,
): Promise<void> {
  const command = metadata.command;
  try {
    await client.views.open({ trigger_id: triggerId, view: linkModal(metadata, undefined, {}, deps.credentials.mode) });
  } catch (error) {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.open failed');
    const text = `The sign-in form could not be opened (Slack said: ${inert((error as Error).message, 200)}). Type the command again, or: ${linkInstructions({ command, linkMode: deps.credentials.mode })}`;
    await respond(ephemeral({ text: fallback(text), blocks: [section(text)] }));
  }
}

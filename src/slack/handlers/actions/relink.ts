/**
 * "Link again" (on an answer that was a 401, a reminder, or Home): opens the sign-in modal
 * carrying the query that failed, so that once the user has linked it runs again without retyping.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeRelinkButton, type LinkMetadata } from '../../../parse/buttons.js';
import type { SlackDeps } from '../../deps.js';
import { openLinkModal } from '../../surfaces/login.js';
import { principalOf } from '../../transport/payload.js';

export function relinkAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const { replay, home } = decodeRelinkButton(action.value);
    const metadata: LinkMetadata = {
      command: replay?.kind === 'collect' ? 'collectEntitlements' : 'findApprovals',
      replay,
      responseUrl: replay ? body.response_url : undefined,
      channelId: replay?.kind === 'collect' ? body.channel?.id : undefined,
      home,
    };
    // views.open must follow the click within 3 seconds: it is the first thing done.
    await openLinkModal(deps, client, body.trigger_id, who, metadata, deps.responder.to(body.response_url));
  };
}

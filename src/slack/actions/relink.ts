/**
 * "Link again", on an answer that was a 401: opens the sign-in modal carrying the query that
 * failed, so that once the user has linked, the query runs again without retyping.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeReplay, type LinkMetadata } from '../../render/link.js';
import { openLinkModal } from '../accounts.js';
import { principalOf } from '../context.js';
import type { Deps } from '../deps.js';

export function relinkAction(deps: Deps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    let replay: LinkMetadata['replay'];
    let parsed: unknown;
    try {
      parsed = JSON.parse(action.value ?? '');
      replay = decodeReplay(parsed);
    } catch {
      replay = undefined;
    }
    const metadata: LinkMetadata = {
      command: replay?.kind === 'collect' ? 'collectEntitlements' : 'findApprovals',
      ...(replay ? { replay, responseUrl: body.response_url } : {}),
      ...(replay?.kind === 'collect' && body.channel?.id ? { channelId: body.channel.id } : {}),
      ...((parsed as { home?: unknown } | undefined)?.home === true ? { home: true } : {}),
    };
    // views.open must follow the click within 3 seconds: it is the first thing done.
    await openLinkModal(deps, client, body.trigger_id, who, metadata, deps.responder.to(body.response_url));
  };
}

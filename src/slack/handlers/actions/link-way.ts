/**
 * The sign-in form's "Paste a token instead" and "Sign in with a password instead": the same modal,
 * redrawn for the other way of linking, with what it carried (the query to run once linked).
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeLinkMetadata } from '../../../parse/buttons.js';
import { LINK_CALLBACK, linkModal } from '../../../render/link.js';
import type { SlackDeps } from '../../deps.js';
import { principalOf } from '../../transport/payload.js';

export function linkWayAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const view = body.view;
    // Only the sign-in form has this button; anything else that sends it is left as it is.
    if (view === undefined || view.callback_id !== LINK_CALLBACK) return;
    const metadata = decodeLinkMetadata(view.private_metadata);
    if (metadata === undefined) return;
    const way = action.value === 'token' ? 'token' : 'sign-in';
    try {
      // The view's hash: a form submitted or changed meanwhile is not overwritten.
      // The metadata as the form carried it, checked above: what it says goes on unchanged.
      const next = { ...linkModal(metadata, undefined, {}, deps.credentials.mode, way), private_metadata: view.private_metadata };
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (error) {
      deps.logger.warn({ user: principalOf(body).userId, error: (error as Error).message }, 'views.update of the sign-in form failed');
    }
  };
}

/** Run / Cancel on a /collect confirmation (and "Start anyway" on a cooldown notice). */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decideConfirmation } from '../../../collections/confirm.js';
import { startCollection } from '../../../collections/start.js';
import { fallback, section } from '../../../render/blocks.js';
import { renderConfirmationClosed } from '../../../render/collect.js';
import { renderNotYours, renderUnreadableButton } from '../../../render/errors.js';
import type { SlackDeps } from '../../deps.js';
import { answerEscaped } from '../../surfaces/answer.js';
import { answerStart } from '../../surfaces/collect.js';
import { ephemeral, replace } from '../../surfaces/messages.js';
import { principalOf } from '../../transport/payload.js';

const CLOSING = {
  started: 'Started: the result is in the channel.',
  nothing: 'Nothing was started.',
  failed: 'Not started: see the message below.',
} as const;

export function confirmAction(deps: SlackDeps, decision: 'run' | 'cancel') {
  return async ({ ack, body, action }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(body.response_url);
    const who = principalOf(body);
    deps.background.run(
      `collect ${decision}`,
      async () => {
        const decided = await decideConfirmation(deps, who, action.value ?? '', decision);
        switch (decided.kind) {
          case 'not-yours':
            return void (await respond(ephemeral(renderNotYours(decided.ownerId, decision === 'run' ? 'confirm' : 'cancel'))));
          case 'unreadable':
            return void (await respond(ephemeral(renderUnreadableButton('/collect'))));
          case 'already-used':
            return void (await respond(ephemeral(renderConfirmationClosed('already-used'))));
          case 'expired':
            return void (await respond(replace(renderConfirmationClosed('expired'))));
          case 'cancelled':
            return void (await respond(replace(renderConfirmationClosed('cancelled'))));
          case 'confirmed': {
            const { request } = decided;
            await respond(replace(renderConfirmationClosed('starting', request.query)));
            const result = await answerStart(deps, who, request.query, await startCollection(deps, request), respond);
            const text = CLOSING[result];
            return void (await respond(replace({ text: fallback(text), blocks: [section(text)] })));
          }
        }
      },
      answerEscaped(deps, who, '/collect', respond),
    );
  };
}

/**
 * Run / Cancel on a /collect confirmation. The store's atomic claim decides: of any number of
 * clicks, on any number of instances, exactly one starts the collection. Cancel claims too, so a
 * Run clicked after Cancel does nothing.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { fallback, section } from '../../render/blocks.js';
import { renderConfirmationClosed } from '../../render/collect.js';
import { renderNotYours, renderUnreadableButton } from '../../render/errors.js';
import { collectQuerySchema } from '../../service/index.js';
import { type ConfirmationPayload, recordAttempt, startCollection } from '../collections.js';
import { principalOf } from '../context.js';
import type { Deps } from '../deps.js';
import { answerWith } from '../failures.js';
import { ephemeral, replace } from '../respond.js';

export function confirmAction(deps: Deps, decision: 'run' | 'cancel') {
  return async ({ ack, body, action }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(body.response_url);
    const who = principalOf(body);
    deps.background.run(
      `collect ${decision}`,
      async () => {
        const id = action.value ?? '';
        const claim = /^[\w-]{8,64}$/.test(id)
          ? await deps.store.claimConfirmation(id, who.userId, deps.now())
          : { status: 'not-found' as const };
        switch (claim.status) {
          case 'not-yours':
            deps.logger.info({ user: who.userId, owner: claim.ownerId }, 'confirmation refused: not the asker');
            return void (await respond(ephemeral(renderNotYours(claim.ownerId, '/collect'))));
          case 'not-found':
            return void (await respond(ephemeral(renderUnreadableButton('/collect'))));
          case 'already-used':
            return void (await respond(ephemeral(renderConfirmationClosed('already-used'))));
          case 'expired':
            return void (await respond(replace(renderConfirmationClosed('expired'))));
          case 'claimed':
            break;
        }
        const payload = readPayload(claim.confirmation.payload);
        if (decision === 'cancel') {
          deps.logger.info({ user: who.userId, confirmation: id }, 'collection cancelled');
          if (payload) {
            const detail = payload.overrideCooldown ? 'did not start it again within the cooldown' : 'cancelled at the confirmation';
            await recordAttempt(deps, { who, channelId: claim.confirmation.channelId, query: payload.query }, 'cancelled', detail);
          }
          return void (await respond(replace(renderConfirmationClosed('cancelled'))));
        }
        if (payload === undefined) {
          deps.logger.error({ confirmation: id }, 'stored confirmation does not hold a valid query');
          return void (await respond(replace(renderUnreadableButton('/collect'))));
        }
        await respond(replace(renderConfirmationClosed('starting', payload.query)));
        const request = { who, channelId: claim.confirmation.channelId, ...payload };
        await startCollection(deps, request, respond, async (outcome) => {
          const text = {
            started: 'Started: the result is in the channel.',
            nothing: 'Nothing was started.',
            failed: 'Not started: see the message below.',
          }[outcome];
          await respond(replace({ text: fallback(text), blocks: [section(text)] }));
        });
      },
      answerWith(deps, who, '/collect', respond),
    );
  };
}

/** The stored payload, re-validated; confirmations made before "Start anyway" existed hold the bare query. */
function readPayload(text: string): ConfirmationPayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const wrapped = value as { query?: unknown; overrideCooldown?: unknown } | null;
  const query = collectQuerySchema.safeParse(wrapped !== null && typeof wrapped === 'object' && 'query' in wrapped ? wrapped.query : value);
  if (!query.success) return undefined;
  return { query: query.data, ...(wrapped?.overrideCooldown === true ? { overrideCooldown: true } : {}) };
}

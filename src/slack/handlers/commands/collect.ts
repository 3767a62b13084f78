/**
 * /collect: ack at once; a named collector or application starts straight away and the channel
 * sees the result; everything-at-once and force first ask the user to confirm.
 */

import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { forgetAccount, whoami } from '../../../accounts/forget.js';
import { offerConfirmation } from '../../../collections/confirm.js';
import { channelHistory } from '../../../collections/history.js';
import { startCollection } from '../../../collections/start.js';
import { renderCollectConfirmation, renderHistory } from '../../../render/collect.js';
import { renderInvalid } from '../../../render/errors.js';
import { renderCollectHelp } from '../../../render/help.js';
import { renderLoggedOut, renderWhoami } from '../../../render/link.js';
import { SERVICE_COMMANDS } from '../../../store/index.js';
import type { SlackDeps } from '../../deps.js';
import { answerEscaped } from '../../surfaces/answer.js';
import { answerStart } from '../../surfaces/collect.js';
import { openLinkModal } from '../../surfaces/login.js';
import { ephemeral } from '../../surfaces/messages.js';
import { clockOf, principalOf } from '../../transport/payload.js';
import { collectRead } from './read.js';

export function collectCommand(deps: SlackDeps) {
  return async ({ command, ack, client, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(command.response_url);
    const who = principalOf(command);
    deps.background.run(
      '/collect',
      async () => {
        const parsed = collectRead(context, command.text ?? '');
        switch (parsed.kind) {
          case 'help':
            return void (await respond(ephemeral(renderCollectHelp())));
          case 'login':
            return openLinkModal(deps, client, command.trigger_id, who, { command: 'collectEntitlements' }, respond);
          case 'logout':
            return void (await respond(ephemeral(renderLoggedOut(await forgetAccount(deps, who)))));
          case 'whoami': {
            const { frame } = await clockOf(deps, who.userId);
            return void (await respond(ephemeral(renderWhoami(who.userId, await whoami(deps, who), SERVICE_COMMANDS, frame.zone))));
          }
          case 'invalid':
            deps.metrics.outcome('invalid');
            return void (await respond(ephemeral(renderInvalid(parsed, '/collect'))));
          case 'history': {
            const attempts = await channelHistory(deps, { teamId: who.teamId, channelId: command.channel_id }, parsed.limit);
            return void (await respond(ephemeral(renderHistory(attempts, parsed.limit))));
          }
          case 'run': {
            const request = { who, channelId: command.channel_id, query: parsed.query };
            if (parsed.confirm.length === 0)
              return void (await answerStart(deps, who, parsed.query, await startCollection(deps, request), respond));
            const offer = await offerConfirmation(deps, request, parsed.confirm);
            // Refused or not linked: said exactly as a start would say it.
            if (offer.kind !== 'confirm') return void (await answerStart(deps, who, parsed.query, offer, respond));
            return void (await respond(ephemeral(renderCollectConfirmation(offer.query, offer.reasons, offer.id))));
          }
        }
      },
      answerEscaped(deps, who, '/collect', respond),
    );
  };
}

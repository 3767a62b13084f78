/**
 * /collect: ack at once; a named collector or application starts straight away and the channel
 * sees the result; everything-at-once and force first ask the user to confirm.
 */

import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseCollectCommand } from '../../parse/collect.js';
import { renderCollectConfirmation, renderHistory } from '../../render/collect.js';
import { renderInvalid, renderNotLinked } from '../../render/errors.js';
import { renderCollectHelp } from '../../render/help.js';
import { logout, openLinkModal, whoami } from '../accounts.js';
import { createConfirmationFor, refuseIfNotAllowed, startCollection } from '../collections.js';
import { principalOf } from '../context.js';
import type { Deps } from '../deps.js';
import { answerWith, reportFailure } from '../failures.js';
import { ephemeral } from '../respond.js';

export function collectCommand(deps: Deps) {
  return async ({ command, ack, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(command.response_url);
    const who = principalOf(command);
    deps.background.run(
      '/collect',
      async () => {
        const parsed = parseCollectCommand(command.text ?? '');
        switch (parsed.kind) {
          case 'help':
            return void (await respond(ephemeral(renderCollectHelp())));
          case 'login':
            return openLinkModal(deps, client, command.trigger_id, who, { command: 'collectEntitlements' }, respond);
          case 'logout':
            return logout(deps, who, respond);
          case 'whoami':
            return whoami(deps, who, respond);
          case 'invalid':
            deps.metrics.outcome('invalid');
            return void (await respond(ephemeral(renderInvalid(parsed, '/collect'))));
          case 'history': {
            const attempts = await deps.store.listCollectAttempts({
              teamId: who.teamId,
              channelId: command.channel_id,
              limit: parsed.limit,
            });
            return void (await respond(ephemeral(renderHistory(attempts, parsed.limit))));
          }
          case 'run': {
            const request = { who, channelId: command.channel_id, query: parsed.query };
            if (parsed.confirm.length === 0) return startCollection(deps, request, respond);
            // Ask only someone who could go on: the refused and the unlinked learn that first.
            const reference = deps.newId();
            const ctx = { ...who, slash: '/collect' as const, command: 'collectEntitlements' as const, reference };
            try {
              if (await refuseIfNotAllowed(deps, request, respond, reference)) return;
              if ((await deps.store.getToken(who, 'collectEntitlements')) === undefined)
                return void (await respond(ephemeral(renderNotLinked(ctx))));
              const id = await createConfirmationFor(deps, request);
              await respond(ephemeral(renderCollectConfirmation(parsed.query, parsed.confirm, id)));
            } catch (error) {
              await reportFailure(deps, error, ctx, respond);
            }
          }
        }
      },
      answerWith(deps, who, '/collect', respond),
    );
  };
}

/**
 * /collect: ack at once; a named collector or application starts straight away and the channel
 * sees the result; everything-at-once and force first ask the user to confirm.
 */

import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseCollectCommand } from '../../commands/collect.js';
import { renderCollectConfirmation, renderCollectResult, renderNoCollectorMatched } from '../../render/collect.js';
import { renderInvalid, renderNotLinked } from '../../render/errors.js';
import { renderCollectHelp } from '../../render/help.js';
import { encodeRelink } from '../../render/link.js';
import type { CollectQuery } from '../../service/index.js';
import type { Principal } from '../../store/index.js';
import { logout, openLinkModal, whoami } from '../accounts.js';
import { principalOf } from '../context.js';
import type { Deps } from '../deps.js';
import { answerWith, reportFailure } from '../failures.js';
import { ephemeral, inChannel } from '../respond.js';
import type { Respond } from '../response-url.js';

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
            return void (await respond(ephemeral(renderInvalid(parsed, '/collect'))));
          case 'run': {
            if (parsed.confirm.length === 0) return startCollection(deps, who, parsed.query, respond);
            // Ask only someone who could go on: an unlinked user learns that first.
            const reference = deps.newId();
            const ctx = { ...who, slash: '/collect' as const, command: 'collectEntitlements' as const, reference };
            try {
              if ((await deps.store.getToken(who, 'collectEntitlements')) === undefined)
                return void (await respond(ephemeral(renderNotLinked(ctx))));
              const id = deps.newId();
              const now = deps.now();
              await deps.store.createConfirmation({
                id,
                teamId: who.teamId,
                channelId: command.channel_id,
                userId: who.userId,
                payload: JSON.stringify(parsed.query),
                createdAt: now,
                expiresAt: new Date(now.getTime() + deps.confirmationTtlMs),
              });
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

/** Starts the collection with the user's token and tells the channel; failures go to the user alone. */
export async function startCollection(
  deps: Deps,
  who: Principal,
  query: CollectQuery,
  respond: Respond,
  onDone?: (outcome: 'started' | 'nothing' | 'failed') => Promise<void>,
): Promise<void> {
  const reference = deps.newId();
  const ctx = {
    ...who,
    slash: '/collect' as const,
    command: 'collectEntitlements' as const,
    reference,
    relink: encodeRelink({ kind: 'collect', query }),
  };
  try {
    const linked = await deps.store.getToken(who, 'collectEntitlements');
    if (linked === undefined) {
      await respond(ephemeral(renderNotLinked(ctx)));
      return void (await onDone?.('failed'));
    }
    const result = await deps.service.collectEntitlements(query, linked.token);
    await deps.store.recordOutcome(who, 'collectEntitlements', 'ok', deps.now());
    deps.logger.info({ user: who.userId, team: who.teamId, query, runs: result.runs, reference }, 'collection started');
    if (result.runs.length === 0) {
      await respond(ephemeral(renderNoCollectorMatched(query)));
      return void (await onDone?.('nothing'));
    }
    await respond(inChannel(renderCollectResult({ userId: who.userId, query, runs: result.runs })));
    await onDone?.('started');
  } catch (error) {
    await reportFailure(deps, error, ctx, respond);
    await onDone?.('failed');
  }
}

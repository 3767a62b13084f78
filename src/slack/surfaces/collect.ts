/** The /collect message: a start's outcome, to the asker alone, or, started, in the channel. */

import type { StartOutcome } from '../../collections/start.js';
import {
  renderCollectRefused,
  renderCollectStatus,
  renderCooldown,
  renderLeftOut,
  renderNoCollectorMatched,
  renderRanAgain,
} from '../../render/collect.js';
import { renderNotLinked } from '../../render/errors.js';
import { encodeRelink } from '../../render/link.js';
import type { CollectQuery } from '../../service/query.js';
import type { Principal } from '../../store/index.js';
import type { SlackDeps } from '../deps.js';
import type { Respond } from '../web-api/responder.js';
import { answerFailure } from './answer.js';
import { ephemeral, inChannel } from './messages.js';

/** How a start went, for the confirmation that led to it. */
export type StartResult = 'started' | 'nothing' | 'failed';

/** A collection's start: refusals to the asker alone; a started collection is in the channel already, unless the bot may not post there. */
export async function answerStart(
  deps: SlackDeps,
  who: Principal,
  query: CollectQuery,
  outcome: StartOutcome,
  respond: Respond,
): Promise<StartResult> {
  const ctx = {
    ...who,
    slash: '/collect' as const,
    command: 'collectEntitlements' as const,
    reference: deps.newId(),
    relink: encodeRelink({ kind: 'collect', query }),
  };
  switch (outcome.kind) {
    case 'refused':
      deps.metrics.outcome('refused');
      await respond(ephemeral(renderCollectRefused(outcome.refusal)));
      return 'failed';
    case 'not-linked':
      deps.metrics.outcome('not_linked');
      await respond(ephemeral(renderNotLinked({ ...ctx, linkMode: deps.credentials.mode })));
      return 'failed';
    case 'cooldown':
      deps.metrics.outcome('cooldown');
      await respond(ephemeral(renderCooldown({ ...outcome, askerId: who.userId })));
      return 'failed';
    case 'nothing-matched':
      await respond(ephemeral(renderNoCollectorMatched(outcome)));
      return 'nothing';
    case 'started':
      if (!outcome.posted) await respond(inChannel(renderCollectStatus(outcome.status, deps.serviceTimeZone)));
      if (outcome.leftOut.length > 0) await respond(ephemeral(renderLeftOut(outcome.leftOut, outcome.cooldownMs, who.userId)));
      if (outcome.ranAgain.length > 0) await respond(ephemeral(renderRanAgain(outcome.ranAgain, query, who.userId)));
      return 'started';
    case 'failed':
      await answerFailure(deps, outcome.error, ctx, respond);
      return 'failed';
  }
}

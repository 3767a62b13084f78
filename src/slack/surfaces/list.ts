/**
 * How the adapter answers: the shapes of a response_url message, and each use case's outcome put
 * into words with render/ and sent. Failures go through the one translator (render/errors.ts),
 * which also chooses the log line, so what the user reads and what the log says cannot drift.
 */

import type { RespondArguments } from '@slack/bolt';
import { detailsOffered } from '../../approvals/details.js';
import type { ApprovalsOutcome } from '../../approvals/search.js';
import type { StartOutcome } from '../../collections/start.js';
import { SLASH_COMMANDS, type Slash } from '../../parse/slash.js';
import { approvalsPageJson } from '../../render/approvals.js';
import type { Message } from '../../render/blocks.js';
import {
  renderCollectRefused,
  renderCollectStatus,
  renderCooldown,
  renderLeftOut,
  renderNoCollectorMatched,
  renderRanAgain,
} from '../../render/collect.js';
import type { DecidedMark } from '../../render/decision.js';
import { type FailureContext, renderNotLinked, translateFailure } from '../../render/errors.js';
import { encodeRelink } from '../../render/link.js';
import { isServiceError } from '../../service/errors.js';
import type { ApprovalQuery, CollectQuery } from '../../service/query.js';
import type { Approval } from '../../service/schemas.js';
import { type DecisionHold, type Principal, StoreUnavailableError } from '../../store/index.js';
import type { TimeFrame } from '../../time/frame.js';
import type { SlackDeps } from '../deps.js';
import { PreparedBody, type Respond, ResponseUrlError } from '../web-api/responder.js';

export const ephemeral = (m: Message): RespondArguments => ({
  response_type: 'ephemeral',
  replace_original: false,
  text: m.text,
  blocks: m.blocks,
});
export const inChannel = (m: Message): RespondArguments => ({
  response_type: 'in_channel',
  replace_original: false,
  text: m.text,
  blocks: m.blocks,
});
export const replace = (m: Message): RespondArguments => ({ replace_original: true, text: m.text, blocks: m.blocks });

/** How a post's JSON opens for the envelope `ephemeral` or `replace` would give a message, its own fields to follow. */
export function openingOf(how: 'ephemeral' | 'replace'): string {
  return how === 'replace' ? '{"replace_original":true,' : '{"response_type":"ephemeral","replace_original":false,';
}

export async function answerFailure(
  deps: SlackDeps,
  error: unknown,
  ctx: FailureContext & Principal,
  respond: Respond,
  how: 'ephemeral' | 'replace' = 'ephemeral',
): Promise<void> {
  if (error instanceof ResponseUrlError) {
    // The way to the user is what failed: saying so through it again would fail too.
    deps.metrics.outcome('response_url_failed');
    deps.logger.warn({ status: error.status, reference: ctx.reference, user: ctx.userId }, 'could not answer: response_url refused');
    return;
  }
  const translated = translateFailure(error, { ...ctx, linkMode: deps.credentials.mode });
  const kind = isServiceError(error) ? error.kind : undefined;
  deps.metrics.outcome(kind ?? (error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal'));
  deps.logger[translated.log.level](
    { ...translated.log.detail, reference: ctx.reference, user: ctx.userId, team: ctx.teamId, slash: ctx.slash },
    translated.log.event,
  );
  await respond(how === 'replace' ? replace(translated.message) : ephemeral(translated.message));
}

/** The fallback for work after the ack: whatever escaped it becomes the user's "something went wrong". */
export function answerEscaped(deps: SlackDeps, who: Principal, slash: Slash, respond: Respond): (error: unknown) => Promise<void> {
  return (error) => answerFailure(deps, error, { ...who, slash, command: SLASH_COMMANDS[slash], reference: deps.newId() }, respond);
}

const approvalsContext = (deps: SlackDeps, who: Principal, query: ApprovalQuery) => ({
  ...who,
  linkMode: deps.credentials.mode,
  slash: '/approvals' as const,
  command: 'findApprovals' as const,
  reference: deps.newId(),
  relink: encodeRelink({ kind: 'approvals', query }),
});

/** An approval decided from chat, as the lists show it. */
export function markOf(hold: DecisionHold): DecidedMark {
  return { action: hold.action, at: hold.settledAt ?? hold.at, userId: hold.userId };
}

/** Where a page is drawn: the response_url that takes it (remembered with the page), and whether it replaces the message. */
export interface PageTarget {
  respond: Respond;
  how: 'ephemeral' | 'replace';
  /** The response_url the page goes to: a decision from it redraws it from what is remembered. */
  url?: string | undefined;
}

/**
 * A page of approvals, as a new message or in place of the one whose button was clicked. Those
 * decided from chat say so; `justDecided`, one decided from this page a moment ago, is shown first
 * when the service no longer lists it here.
 */
export async function answerApprovals(
  deps: SlackDeps,
  who: Principal,
  query: ApprovalQuery,
  outcome: ApprovalsOutcome,
  frame: TimeFrame,
  target: PageTarget,
  justDecided?: { approval: Approval; hold: DecisionHold },
): Promise<void> {
  const { respond, how } = target;
  switch (outcome.kind) {
    case 'page': {
      if (target.url !== undefined) deps.shown.drewPage(target.url, { query: outcome.query, approvals: outcome.approvals });
      const listed = justDecided !== undefined && outcome.approvals.some((a) => a.workItemId === justDecided.approval.workItemId);
      const decided = new Map<string, DecidedMark>();
      for (const [id, hold] of outcome.decided) decided.set(id, markOf(hold));
      if (justDecided !== undefined) decided.set(justDecided.approval.workItemId, markOf(justDecided.hold));
      const body = approvalsPageJson(
        {
          query: outcome.query,
          approvals: outcome.approvals,
          userId: who.userId,
          frame,
          approvalLinks: deps.approvalLinks,
          details: detailsOffered(deps),
          decided,
          justDecided: justDecided === undefined || listed ? [] : [justDecided.approval],
        },
        openingOf(how),
      );
      return void (await respond(new PreparedBody(body)));
    }
    case 'not-linked':
      deps.metrics.outcome('not_linked');
      return void (await respond(ephemeral(renderNotLinked(approvalsContext(deps, who, query)))));
    case 'failed':
      return answerFailure(deps, outcome.error, approvalsContext(deps, who, query), respond);
  }
}

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
    linkMode: deps.credentials.mode,
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
      await respond(ephemeral(renderNotLinked(ctx)));
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

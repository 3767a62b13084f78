/**
 * The list: a page of approvals, as a new message or in place of the one clicked, with what was
 * decided from chat marked; and the list a Details or a decision came from, drawn again in place.
 */

import type { WebClient } from '@slack/web-api';
import { decidedAmong, decisionsOffered } from '../../approvals/decision-offer.js';
import { detailsOffered } from '../../approvals/details.js';
import { type ApprovalsOutcome, searchApprovals } from '../../approvals/search.js';
import type { DetailsState } from '../../parse/details.js';
import { approvalsPageJson } from '../../render/approvals.js';
import { type DecidedMark, markOf } from '../../render/decision.js';
import { refreshTarget } from '../../render/details.js';
import { renderNotLinked } from '../../render/errors.js';
import { encodeRelink } from '../../render/link.js';
import type { ApprovalQuery } from '../../service/query.js';
import type { Approval } from '../../service/schemas.js';
import type { DecisionHold, Principal } from '../../store/index.js';
import type { TimeFrame } from '../../time/frame.js';
import type { SlackDeps } from '../deps.js';
import { clockOf } from '../transport/payload.js';
import { PreparedBody, type Respond } from '../web-api/responder.js';
import { answerFailure } from './answer.js';
import { approvalsAsked } from './failure.js';
import { publishHome } from './home.js';
import { ephemeral, openingOf } from './messages.js';

const approvalsContext = (deps: SlackDeps, who: Principal, query: ApprovalQuery) =>
  approvalsAsked(deps, who, encodeRelink({ kind: 'approvals', query }));

/** Where a page is drawn: the response_url that takes it, and whether it replaces the message. */
export interface PageTarget {
  respond: Respond;
  how: 'ephemeral' | 'replace';
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
  justDecided?: JustDecided,
): Promise<void> {
  const { respond, how } = target;
  switch (outcome.kind) {
    case 'page': {
      // Kept for the redraw after a decision taken from it (redrawList), and for nothing else: where
      // no decision can be taken, keeping it was a fiftieth of an answered /approvals' CPU for nothing.
      if (decisionsOffered(deps)) deps.shown.drewPage(who.userId, { query: outcome.query, approvals: outcome.approvals });
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
      return void (await respond(ephemeral(renderNotLinked({ ...approvalsContext(deps, who, query), linkMode: deps.credentials.mode }))));
    case 'failed':
      return answerFailure(deps, outcome.error, approvalsContext(deps, who, query), respond);
  }
}

/** An approval just decided from chat, and the hold that says so: shown first, as decided, where the service no longer lists it. */
export interface JustDecided {
  approval: Approval;
  hold: DecisionHold;
}

/**
 * The list a Details window came from, drawn again in place: the asker's page (from what this
 * instance drew of it, when it has it and `justDecided` says what changed; else asked again) or
 * Home. `'none'` when it came from neither (a typed `show`, someone else's message).
 */
export async function redrawList(
  deps: SlackDeps,
  client: WebClient,
  who: Principal,
  state: DetailsState,
  justDecided?: JustDecided,
): Promise<'page' | 'home' | 'none'> {
  const target = refreshTarget(state, who.userId);
  if (target === 'home') {
    await publishHome(deps, client, who, justDecided);
    return 'home';
  }
  const url = state.responseUrl;
  if (target !== 'page' || state.origin.kind !== 'page' || state.origin.query === undefined || url === undefined) return 'none';
  const query = state.origin.query;
  const { frame } = await clockOf(deps, who.userId);
  const shown = justDecided === undefined ? undefined : deps.shown.page(who.userId, query);
  const outcome: ApprovalsOutcome =
    shown === undefined
      ? await searchApprovals(deps, who, query)
      : { kind: 'page', query: shown.query, approvals: shown.approvals, decided: await decidedAmong(deps, shown.approvals) };
  await answerApprovals(deps, who, query, outcome, frame, { respond: deps.responder.to(url), how: 'replace' }, justDecided);
  return 'page';
}

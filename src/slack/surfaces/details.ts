/**
 * The details modal: opened with the click's (or command's) trigger within Slack's 3 seconds as
 * a loading view, then updated in place once the service has answered, and again for each page
 * of request items. Failures go through the one translator, which also picks the log line.
 */

import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { approvalDetails, type DetailsOutcome, knownDetails } from '../../approvals/details.js';
import type { DetailsState } from '../../parse/details.js';
import { detailsFailureView, detailsLoadingView, detailsUnshownView, renderDetailsView } from '../../render/details.js';
import { code, oneLine, richMessage } from '../../render/rich.js';
import { isServiceError } from '../../service/errors.js';
import type { ApprovalDetails } from '../../service/index.js';
import { type Principal, StoreUnavailableError } from '../../store/index.js';
import type { TimeFrame } from '../../time/frame.js';
import type { SlackDeps } from '../deps.js';
import { clockOf } from '../transport/payload.js';
import type { Respond } from '../web-api/responder.js';
import { approvalsAsked, failureMessage } from './failure.js';
import { ephemeral } from './messages.js';
import { updateModal } from './modal.js';

/**
 * Opens the loading view, then fills it in. `respond` is where to say so when Slack refuses to
 * open it (a click on Home has no response_url: the log is all there is then).
 */
export async function openDetails(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  who: Principal,
  state: DetailsState,
  respond: Respond | undefined,
): Promise<void> {
  let viewId: string | undefined;
  let hash: string | undefined;
  try {
    const opened = await client.views.open({ trigger_id: triggerId, view: detailsLoadingView(state) });
    viewId = opened.view?.id;
    hash = opened.view?.hash;
  } catch (error) {
    deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.open failed');
    // Slack's words are quoted exactly, as rich text.
    const said = oneLine((error as Error).message, 200);
    const words = [
      ['The details could not be opened (Slack said: ', said, '). Try again, or type ', code(`/approvals show ${state.approvalId}`), '.'],
    ];
    if (respond !== undefined) await respond(ephemeral(richMessage(words)));
    return;
  }
  if (viewId === undefined) return void deps.logger.warn({ user: who.userId }, 'views.open answered without a view id');
  await showDetails(deps, client, viewId, who, state, hash).catch(detailsEscaped(deps, client, viewId, who, state, hash));
}

/**
 * Asks the service (with the reader's own credentials) and puts the answer in the modal. `hash`:
 * the modal as the click saw it, so that of two quick clicks the update that lands second does
 * not overwrite the first (Slack refuses it with hash_conflict).
 */
export async function showDetails(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DetailsState,
  hash?: string | undefined,
): Promise<void> {
  const [outcome, { frame }] = await Promise.all([approvalDetails(deps, who, state.approvalId, state.page), clockOf(deps, who.userId)]);
  await drawDetails(deps, client, viewId, who, state, outcome, frame, hash);
}

/**
 * The Details window of an approval just read (by a decision): the page of items it showed comes from
 * what this instance drew, and the approval itself is not asked again.
 */
export async function showKnownDetails(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DetailsState,
  details: ApprovalDetails,
): Promise<void> {
  const items = deps.shown.items(who.userId, state.approvalId, state.page);
  const [outcome, { frame }] = await Promise.all([knownDetails(deps, who, details, state.page, items), clockOf(deps, who.userId)]);
  await drawDetails(deps, client, viewId, who, state, outcome, frame);
}

async function drawDetails(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DetailsState,
  outcome: DetailsOutcome,
  frame: TimeFrame,
  hash?: string | undefined,
): Promise<void> {
  if (outcome.kind === 'details') deps.shown.drewItems(who.userId, state.approvalId, state.page, outcome.items);
  let view: View;
  if (outcome.kind === 'failed') {
    view = failureView(deps, who, state, outcome.error);
  } else {
    if (outcome.kind !== 'details') {
      deps.metrics.outcome(outcome.kind.replace('-', '_'));
      deps.logger.info({ user: who.userId, approval: state.approvalId, outcome: outcome.kind }, 'approval details not shown');
    }
    view = renderDetailsView({ outcome, state, userId: who.userId, frame, approvalLinks: deps.approvalLinks });
  }
  await updateDetails(deps, client, viewId, view, state, hash);
}

/** What went wrong, worded by the translator, with Link again or Try again where they help. */
export function failureView(deps: SlackDeps, who: Principal, state: DetailsState, error: unknown): View {
  const message = failureMessage(deps, error, approvalsAsked(deps, who), { surface: 'details', approval: state.approvalId });
  const kind = isServiceError(error) ? error.kind : undefined;
  // An answer too large to read is as large the next time: Try again would not help.
  const tooLarge = isServiceError(error) && error.kind === 'unexpected-response' && error.tooLargeBytes !== undefined;
  const retry = kind === 'service-unavailable' || (kind === 'unexpected-response' && !tooLarge) || error instanceof StoreUnavailableError;
  return detailsFailureView(state, message, { relink: kind === 'invalid-token', retry });
}

/** Puts a view in the Details modal, as it was when `hash` was read (when known): surfaces/modal.ts says what a refusal becomes. */
export function updateDetails(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  view: View,
  state: DetailsState,
  hash?: string | undefined,
): Promise<void> {
  return updateModal(deps, client, viewId, view, {
    what: 'details',
    about: { approval: state.approvalId },
    hash,
    unshown: (reference) => detailsUnshownView(state, reference, deps.approvalLinks),
  });
}

/** For work after the ack that escaped: the modal says something went wrong rather than loading for ever. */
export function detailsEscaped(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  who: Principal,
  state: DetailsState,
  hash?: string | undefined,
) {
  return async (error: unknown): Promise<void> => {
    deps.logger.error({ error, user: who.userId }, 'approval details failed');
    await updateDetails(deps, client, viewId, failureView(deps, who, state, error), state, hash);
  };
}

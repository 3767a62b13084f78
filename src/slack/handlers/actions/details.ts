/**
 * Details of an approval, in a modal: the Details button (a page, Home, a digest), the "Details
 * of…" select on a packed page, and, inside the modal, Next / Previous through the request's
 * items, Try again, Refresh of the list once the approval is gone, and Link again (the sign-in
 * modal pushed over this one). Whoever clicks sees what their own credentials show, whoever's
 * message it was: a forwarded or shared control never reads with someone else's token.
 */

import type { AllMiddlewareArgs, BlockAction, BlockButtonAction, BlockStaticSelectAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { LinkMetadata } from '../../../parse/buttons.js';
import {
  type DetailsRequest,
  type DetailsState,
  decodeDetailsButton,
  decodeDetailsMetadata,
  decodeDetailsSelect,
  parseDetailsPage,
} from '../../../parse/details.js';
import { detailsNoticeView } from '../../../render/details.js';
import { linkInstructions } from '../../../render/errors.js';
import { linkModal } from '../../../render/link.js';
import { code, md, oneLine } from '../../../render/rich.js';
import type { SlackDeps } from '../../deps.js';
import { detailsEscaped, openDetails, showDetails, updateDetails } from '../../surfaces/details.js';
import { redrawList } from '../../surfaces/list.js';
import { principalOf } from '../../transport/payload.js';

type Args<A extends BlockAction> = SlackActionMiddlewareArgs<A> & AllMiddlewareArgs;

const UNREADABLE = [
  md(
    'This control no longer works (it may come from an older version of countersign). Type `/approvals` again, or `/approvals show <id>`.',
  ),
];

/** Opens the modal for a request decoded from a control; one that cannot be read still gets a modal that says so. */
async function open(deps: SlackDeps, client: WebClient, body: BlockAction, request: DetailsRequest | undefined): Promise<void> {
  const who = principalOf(body);
  const respond = typeof body.response_url === 'string' ? deps.responder.to(body.response_url) : undefined;
  if (request === undefined) {
    deps.logger.warn({ user: who.userId }, 'unreadable details control');
    // A modal needs some state to carry; this one names no real approval, and nothing reads it back.
    const state: DetailsState = { approvalId: '0:unreadable:0', origin: { kind: 'typed' }, page: 1 };
    await client.views
      .open({ trigger_id: body.trigger_id, view: detailsNoticeView(state, UNREADABLE) })
      .catch((error: unknown) => deps.logger.warn({ error: (error as Error).message }, 'views.open failed'));
    return;
  }
  const state: DetailsState = { ...request, page: 1, responseUrl: typeof body.response_url === 'string' ? body.response_url : undefined };
  await openDetails(deps, client, body.trigger_id, who, state, respond);
}

export function detailsButtonAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: Args<BlockButtonAction>): Promise<void> => {
    await ack();
    // views.open must follow the click within 3 seconds: nothing else comes first.
    deps.background.run('approval details', () => open(deps, client, body, decodeDetailsButton(action.value)));
  };
}

export function detailsSelectAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: Args<BlockStaticSelectAction>): Promise<void> => {
    await ack();
    const request = decodeDetailsSelect(action.block_id, action.selected_option?.value);
    deps.background.run('approval details', () => open(deps, client, body, request));
  };
}

/**
 * The modal this click came from: its id, its state, and its hash (the view as the click saw it),
 * or undefined for a click that did not come from one of ours.
 */
function modalOf(body: BlockAction): { viewId: string; state: DetailsState; hash: string | undefined } | undefined {
  const view = body.view;
  const state = decodeDetailsMetadata(view?.private_metadata);
  const hash = typeof view?.hash === 'string' && view.hash !== '' ? view.hash : undefined;
  return view?.id === undefined || state === undefined ? undefined : { viewId: view.id, state, hash };
}

/** Next, Previous and Try again: the page in the button's value, the rest from the modal, asked again and shown in place. */
export function detailsPageAction(deps: SlackDeps) {
  return async ({ ack, body, action, client }: Args<BlockButtonAction>): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const modal = modalOf(body);
    const page = parseDetailsPage(action.value);
    if (modal === undefined) return void deps.logger.warn({ user: who.userId }, 'unreadable details paging');
    if (page === undefined) {
      deps.logger.warn({ user: who.userId }, 'unreadable details paging');
      return deps.background.run('approval details page', () =>
        updateDetails(deps, client, modal.viewId, detailsNoticeView(modal.state, UNREADABLE), modal.state, modal.hash),
      );
    }
    const state = { ...modal.state, page };
    deps.background.run(
      'approval details page',
      () => showDetails(deps, client, modal.viewId, who, state, modal.hash),
      detailsEscaped(deps, client, modal.viewId, who, state, modal.hash),
    );
  };
}

/** The approval is gone: issue the list it came from again (the asker's page in place, or Home), and say so. */
export function detailsRefreshAction(deps: SlackDeps) {
  return async ({ ack, body, client }: Args<BlockButtonAction>): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const modal = modalOf(body);
    if (modal === undefined) return void deps.logger.warn({ user: who.userId }, 'unreadable details refresh');
    const { state, viewId, hash } = modal;
    deps.background.run(
      'approval details refresh',
      async () => {
        const target = await redrawList(deps, client, who, state);
        const done =
          target === 'home'
            ? md('Done: your Home tab shows what waits for you now.')
            : target === 'page'
              ? md('Done: the list behind this window shows what waits for you now.')
              : md('Type `/approvals` to see what waits for you now.');
        await updateDetails(deps, client, viewId, detailsNoticeView(state, [done]), state, hash);
      },
      detailsEscaped(deps, client, viewId, who, state, hash),
    );
  };
}

/** Link again: the sign-in modal over this one, carrying the details to show underneath once linked. */
export function detailsRelinkAction(deps: SlackDeps) {
  return async ({ ack, body, client }: Args<BlockButtonAction>): Promise<void> => {
    await ack();
    const who = principalOf(body);
    const modal = modalOf(body);
    const metadata: LinkMetadata = {
      command: 'findApprovals',
      ...(modal === undefined ? {} : { replay: { kind: 'details' as const, state: modal.state, viewId: modal.viewId } }),
    };
    const view = linkModal(metadata, undefined, {}, deps.credentials.mode);
    try {
      // views.push must follow the click within 3 seconds: it is the first thing done.
      await client.views.push({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ user: who.userId, error: (error as Error).message }, 'views.push failed');
      if (modal === undefined) return;
      const said = oneLine((error as Error).message, 200);
      const words = [
        ['The sign-in form could not be opened (Slack said: ', said, ').'],
        md(linkInstructions({ command: 'findApprovals', linkMode: deps.credentials.mode })),
        ['Then open these details again: ', code(`/approvals show ${modal.state.approvalId}`)],
      ];
      await updateDetails(deps, client, modal.viewId, detailsNoticeView(modal.state, words), modal.state);
    }
  };
}

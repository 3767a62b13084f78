/**
 * The "link your account" modal's submission. The form is checked at once (problems shown under
 * their fields), the ack turns the modal into "checking", then the use case asks the service and
 * the modal is updated with the outcome: acking first keeps within Slack's 3 seconds whatever the
 * service does. Once linked, the query that met the 401 runs again (or the details modal underneath
 * is filled in), and Home is published again when the modal came from there.
 */

import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { linkAccount } from '../../../accounts/link.js';
import { searchApprovals } from '../../../approvals/search.js';
import { startCollection } from '../../../collections/start.js';
import { decodeLinkMetadata, type LinkMetadata } from '../../../parse/buttons.js';
import { checkLinkForm, type LinkFields } from '../../../parse/link-form.js';
import {
  identityLinked,
  LINK_FIELDS,
  LINK_PROBLEM_BLOCK,
  linkDone,
  linkModal,
  linkProblem,
  linkProgress,
  TOKEN_NOT_ACCEPTED,
} from '../../../render/link.js';
import type { Principal } from '../../../store/index.js';
import type { SlackDeps } from '../../deps.js';
import { answerStart } from '../../surfaces/collect.js';
import { showDetails } from '../../surfaces/details.js';
import { publishHome } from '../../surfaces/home.js';
import { answerApprovals } from '../../surfaces/list.js';
import { clockOf, principalOf } from '../../transport/payload.js';

const OUT_OF_DATE = 'This form is out of date. Close it and type /approvals login again.';

export function linkSubmission(deps: SlackDeps) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const value = (field: keyof LinkFields) => {
      const f = LINK_FIELDS[field];
      return view.state.values[f.block]?.[f.action]?.value ?? '';
    };
    const metadata = decodeLinkMetadata(view.private_metadata);
    if (metadata === undefined) return void (await ack({ response_action: 'errors', errors: { [LINK_FIELDS.token.block]: OUT_OF_DATE } }));
    const mode = deps.credentials.mode;
    // The form asks for one way of linking: the token form has a token field, the sign-in form a username.
    // A view as Slack sends it always has its blocks; a forged one may not, and is read as having none.
    const blocks = view.blocks ?? [];
    const way = blocks.some((b) => b.block_id === LINK_FIELDS.token.block) ? 'token' : 'sign-in';
    const shown = new Set(blocks.map((b) => b.block_id));
    /** A problem goes under a field the form has: Slack refuses errors for a block it does not show. */
    const onShown = (errors: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(errors).map(([block, text]) => [
          shown.has(block) ? block : way === 'token' ? LINK_FIELDS.token.block : LINK_FIELDS.username.block,
          text,
        ]),
      );
    /**
     * A problem with the form, under its field; but where the view still says why the last try
     * failed, Slack would show both, so the form comes back with the new problem in the old one's
     * place (and what was typed, but the password).
     */
    const refuse = async (errors: Record<string, string>) => {
      if (!blocks.some((b) => b.block_id === LINK_PROBLEM_BLOCK)) return ack({ response_action: 'errors', errors: onShown(errors) });
      const kept = { username: value('username').trim() || undefined, authsource: value('authsource').trim() || undefined };
      return ack({ response_action: 'update', view: linkModal(metadata, Object.values(errors).join(' '), kept, mode, way) });
    };
    // Only a form opened before the switch to the trusted mode still has a token field.
    if (mode === 'trusted-app' && value('token').trim() !== '')
      return void (await refuse({ [LINK_FIELDS.token.block]: TOKEN_NOT_ACCEPTED }));
    const form = checkLinkForm(
      {
        username: value('username'),
        password: value('password'),
        authsource: value('authsource'),
        token: value('token'),
      },
      way,
    );
    if (!form.ok) {
      const errors = Object.fromEntries(
        Object.entries(form.errors).map(([field, text]) => [LINK_FIELDS[field as keyof LinkFields].block, text]),
      );
      return void (await refuse(errors));
    }

    await ack({ response_action: 'update', view: linkProgress('Checking with the Command Service…') });
    const who = principalOf(body);
    const viewId = body.view.id;
    deps.background.run('link account', async () => {
      const outcome = await linkAccount(deps, who, form.request, metadata.command);
      if (outcome.kind === 'refused' || outcome.kind === 'token-not-accepted') {
        // The form comes back as it was typed, so that only the wrong part needs typing again; never the password.
        const kept = form.request.kind === 'login' ? { username: form.request.username, authsource: form.request.authsource } : {};
        const problem =
          outcome.kind === 'refused'
            ? linkProblem(outcome.error, form.request.kind !== 'login' || form.request.authsource !== undefined)
            : TOKEN_NOT_ACCEPTED;
        await client.views.update({
          view_id: viewId,
          view: linkModal(metadata, problem, kept, mode, form.request.kind === 'token' ? 'token' : 'sign-in'),
        });
        return;
      }
      const done =
        outcome.kind === 'identified'
          ? identityLinked(outcome.serviceUser, outcome.authsource, outcome.replaced)
          : linkDone(outcome.commands, outcome.checked, form.request.kind);
      await client.views.update({ view_id: viewId, view: done });
      await replay(deps, who, metadata, client as WebClient);
      if (metadata.home) await publishHome(deps, client as WebClient, who);
    });
  };
}

/** Runs the query that met the 401, answering in place of the message that offered "Link again". */
async function replay(deps: SlackDeps, who: Principal, metadata: LinkMetadata, client: WebClient): Promise<void> {
  // The details modal this one was pushed over: its details, now with the new link, appear there.
  if (metadata.replay?.kind === 'details') return showDetails(deps, client, metadata.replay.viewId, who, metadata.replay.state);
  if (metadata.replay === undefined || metadata.responseUrl === undefined) return;
  const respond = deps.responder.to(metadata.responseUrl);
  if (metadata.replay.kind === 'approvals') {
    const { query } = metadata.replay;
    const { frame } = await clockOf(deps, who.userId);
    const outcome = await searchApprovals(deps, who, query);
    await answerApprovals(deps, who, query, outcome, frame, { respond, how: 'replace' });
  } else {
    const request = { who, channelId: metadata.channelId ?? '', query: metadata.replay.query };
    await answerStart(deps, who, request.query, await startCollection(deps, request), respond);
  }
}

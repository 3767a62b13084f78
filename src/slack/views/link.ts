/**
 * The "link your account" modal's submission. Checks the form at once (errors shown in the
 * modal), acks with a "checking" view, then asks the service and updates the modal with the
 * outcome: acking first keeps within Slack's 3 seconds whatever the service does.
 */

import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { decodeReplay, LINK_FIELDS, type LinkMetadata, linkDone, linkModal, linkProgress } from '../../render/link.js';
import { Secret } from '../../runtime/secret.js';
import { isServiceError } from '../../service/index.js';
import { type Principal, SERVICE_COMMANDS, type ServiceCommandName } from '../../store/index.js';
import { startCollection } from '../collections.js';
import { showApprovals } from '../commands/approvals.js';
import { principalOf, todayOf } from '../context.js';
import type { Deps } from '../deps.js';
import { publishHome } from '../events/home.js';

type Field = (typeof LINK_FIELDS)[keyof typeof LINK_FIELDS];

export function linkSubmission(deps: Deps) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs): Promise<void> => {
    const value = (f: Field) => view.state.values[f.block]?.[f.action]?.value ?? '';
    const username = value(LINK_FIELDS.username).trim();
    // A password may begin or end with a space: it is taken as typed.
    const password = value(LINK_FIELDS.password);
    const authsource = value(LINK_FIELDS.authsource).trim();
    const token = value(LINK_FIELDS.token).trim();
    const metadata = readMetadata(view.private_metadata);
    const errors: Record<string, string> = {};
    if (metadata === undefined) errors[LINK_FIELDS.token.block] = 'This form is out of date. Close it and type /approvals login again.';
    else if (token !== '' && (username !== '' || password !== ''))
      errors[LINK_FIELDS.token.block] = 'Give either a username and password, or a token, not both.';
    else if (token === '' && username === '' && password === '')
      errors[LINK_FIELDS.username.block] = 'Give your username and password, or paste a token below.';
    else if (token === '' && username === '') errors[LINK_FIELDS.username.block] = 'Give the username that goes with the password.';
    else if (token === '' && password === '') errors[LINK_FIELDS.password.block] = 'Give the password too.';
    else if (token !== '' && (/\s/.test(token) || token.length > 4096))
      errors[LINK_FIELDS.token.block] = 'A token is one word, without spaces.';
    if (metadata === undefined || Object.keys(errors).length > 0) return void (await ack({ response_action: 'errors', errors }));

    await ack({ response_action: 'update', view: linkProgress('Checking with the Command Service…') });
    const who = principalOf(body);
    const viewId = body.view.id;
    deps.background.run('link account', async () => {
      const update = async (next: ReturnType<typeof linkModal>) => {
        await client.views.update({ view_id: viewId, view: next });
      };
      try {
        let commands: readonly ServiceCommandName[];
        let checked: boolean;
        if (token !== '') {
          const secret = new Secret(token);
          // Only findApprovals can be tried harmlessly; collectEntitlements would start work.
          checked = metadata.command === 'findApprovals';
          if (checked) await deps.service.findApprovals({ 'page-size': 1 }, secret);
          commands = [metadata.command];
          await deps.store.setToken(who, commands, secret, 'pasted', deps.now());
        } else {
          const secret = await deps.service.loginUser({ username, password: new Secret(password), ...(authsource ? { authsource } : {}) });
          commands = SERVICE_COMMANDS;
          checked = true;
          await deps.store.setToken(who, commands, secret, 'login', deps.now());
        }
        deps.logger.info({ user: who.userId, team: who.teamId, commands, source: token !== '' ? 'pasted' : 'login' }, 'account linked');
        await update(linkDone(commands, checked));
        await replay(deps, who, metadata);
        if (metadata.home) await publishHome(deps, client, who, 1);
      } catch (error) {
        deps.logger.info(
          { user: who.userId, kind: isServiceError(error) ? error.kind : 'internal', error: isServiceError(error) ? undefined : error },
          'account not linked',
        );
        await update(linkModal(metadata, problemOf(error)));
      }
    });
  };
}

/** Runs the query that met the 401, answering in place of the message that offered "Link again". */
async function replay(deps: Deps, who: Principal, metadata: LinkMetadata): Promise<void> {
  if (metadata.replay === undefined || metadata.responseUrl === undefined) return;
  const respond = deps.responder.to(metadata.responseUrl);
  if (metadata.replay.kind === 'approvals')
    await showApprovals(deps, who, metadata.replay.query, await todayOf(deps, who.userId), respond, 'replace');
  else await startCollection(deps, { who, channelId: metadata.channelId ?? '', query: metadata.replay.query }, respond);
}

function problemOf(error: unknown): string {
  if (!isServiceError(error)) return 'Something went wrong inside countersign; nothing was linked. Please try again.';
  switch (error.kind) {
    case 'login-failed':
      return `The Command Service did not accept that username and password: ${error.serviceMessage ?? ''}`.trim();
    case 'invalid-token':
      return 'The Command Service did not accept that token: it is not valid, has expired, or may not run findApprovals.';
    case 'service-unavailable':
      return 'The Command Service could not be reached or did not answer in time. Nothing was linked; try again in a minute.';
    default:
      return `The Command Service refused: ${error.serviceMessage ?? error.message}`;
  }
}

/** The modal's metadata, re-validated: it travelled through Slack and comes back as the user's input. */
function readMetadata(text: string | undefined): LinkMetadata | undefined {
  try {
    const parsed = JSON.parse(text ?? '') as {
      command?: unknown;
      replay?: unknown;
      responseUrl?: unknown;
      home?: unknown;
      channelId?: unknown;
    };
    if (!(SERVICE_COMMANDS as readonly unknown[]).includes(parsed.command)) return undefined;
    const metadata: LinkMetadata = { command: parsed.command as ServiceCommandName, ...(parsed.home === true ? { home: true } : {}) };
    if (typeof parsed.channelId === 'string' && /^[CGD][A-Z0-9]{2,}$/.test(parsed.channelId)) metadata.channelId = parsed.channelId;
    const replayed = parsed.replay === undefined ? undefined : decodeReplay(parsed.replay);
    if (replayed && typeof parsed.responseUrl === 'string' && /^https?:\/\//.test(parsed.responseUrl)) {
      metadata.replay = replayed;
      metadata.responseUrl = parsed.responseUrl;
    }
    return metadata;
  } catch {
    return undefined;
  }
}

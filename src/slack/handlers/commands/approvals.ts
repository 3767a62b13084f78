/**
 * /approvals: ack at once; then, its text as the middleware read it, open a modal at once (login, show)
 * or count its dates from the user's today, call the use case with their credentials, and answer ephemerally.
 */

import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { forgetAccount, whoami } from '../../../accounts/forget.js';
import { decisionsOffered } from '../../../approvals/decision-offer.js';
import { searchApprovals } from '../../../approvals/search.js';
import { resolveApprovalsCommand } from '../../../parse/approvals.js';
import { remind } from '../../../reminders/remind.js';
import { renderNotify } from '../../../render/arrivals.js';
import { renderInvalid } from '../../../render/errors.js';
import { renderApprovalsHelp, renderDecidePointer } from '../../../render/help.js';
import { renderLoggedOut, renderWhoami } from '../../../render/link.js';
import { renderRemind } from '../../../render/reminders.js';
import { type Principal, SERVICE_COMMANDS } from '../../../store/index.js';
import type { SlackDeps } from '../../deps.js';
import { answerEscaped } from '../../surfaces/answer.js';
import { openDetails } from '../../surfaces/details.js';
import { answerApprovals } from '../../surfaces/list.js';
import { openLinkModal } from '../../surfaces/login.js';
import { ephemeral } from '../../surfaces/messages.js';
import { clockOf, principalOf } from '../../transport/payload.js';
import type { Respond } from '../../web-api/responder.js';
import { notifyAnswer } from './notify.js';
import { approvalsRead } from './read.js';

export function approvalsCommand(deps: SlackDeps) {
  return async ({ command, ack, client, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(command.response_url);
    const who = principalOf(command);
    deps.background.run(
      '/approvals',
      async () => {
        const form = approvalsRead(context, command.text ?? '');
        // login and show must open their modals within the trigger's 3 seconds: before any other I/O.
        if (form.kind === 'login') return openLinkModal(deps, client, command.trigger_id, who, { command: 'findApprovals' }, respond);
        if (form.kind === 'show') return openShown(deps, client, command.trigger_id, who, form.approvalId, respond);
        const { zone, today, frame } = await clockOf(deps, who.userId);
        const serviceZone = deps.serviceTimeZone;
        const parsed = resolveApprovalsCommand(
          form,
          today,
          serviceZone === undefined ? undefined : { user: frame.zone, service: serviceZone },
        );
        switch (parsed.kind) {
          case 'help':
            return void (await respond(ephemeral(renderApprovalsHelp())));
          case 'login':
            return openLinkModal(deps, client, command.trigger_id, who, { command: 'findApprovals' }, respond);
          case 'show':
            return openShown(deps, client, command.trigger_id, who, parsed.approvalId, respond);
          case 'logout':
            return void (await respond(ephemeral(renderLoggedOut(await forgetAccount(deps, who)))));
          case 'whoami':
            return void (await respond(ephemeral(renderWhoami(who.userId, await whoami(deps, who), SERVICE_COMMANDS, frame.zone))));
          case 'invalid':
            deps.metrics.outcome('invalid');
            return void (await respond(ephemeral(renderInvalid(parsed, '/approvals'))));
          case 'query': {
            const outcome = await searchApprovals(deps, who, parsed.query);
            return answerApprovals(deps, who, parsed.query, outcome, frame, { respond, how: 'ephemeral' });
          }
          case 'remind':
            return void (await respond(ephemeral(renderRemind(await remind(deps, who, parsed, zone)))));
          case 'notify':
            return void (await respond(ephemeral(renderNotify(await notifyAnswer(deps, who, parsed, zone)))));
          case 'decide':
            return void (await respond(ephemeral(renderDecidePointer(parsed.verb, parsed.approvalId, decisionsOffered(deps)))));
          default:
            return assertNever(parsed);
        }
      },
      answerEscaped(deps, who, '/approvals', respond),
    );
  };
}

/** `/approvals show <id>`: the details modal, as a Details click opens it; there is no list behind it to refresh. */
function openShown(deps: SlackDeps, client: WebClient, triggerId: string, who: Principal, approvalId: string, respond: Respond) {
  return openDetails(deps, client, triggerId, who, { approvalId, origin: { kind: 'typed' }, page: 1 }, respond);
}

/** Every form of the command has its answer: a new one that has none fails to compile here. */
function assertNever(form: never): never {
  throw new Error(`an /approvals form with no answer: ${JSON.stringify(form)}`);
}

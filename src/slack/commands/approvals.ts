/** /approvals: ack at once, then parse, fetch with the user's own token, and answer ephemerally. */

import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseApprovalsCommand } from '../../parse/approvals.js';
import { type CalendarDay, todayIn } from '../../parse/dates.js';
import { renderApprovalsPage } from '../../render/approvals.js';
import { renderInvalid, renderNotLinked } from '../../render/errors.js';
import { renderApprovalsHelp } from '../../render/help.js';
import { encodeRelink } from '../../render/link.js';
import type { ApprovalQuery } from '../../service/index.js';
import type { Principal } from '../../store/index.js';
import { logout, openLinkModal, whoami } from '../accounts.js';
import { principalOf, todayOf } from '../context.js';
import type { Deps } from '../deps.js';
import { answerWith, reportFailure } from '../failures.js';
import { remind } from '../reminders.js';
import { ephemeral, replace } from '../respond.js';
import type { Respond } from '../response-url.js';

export function approvalsCommand(deps: Deps) {
  return async ({ command, ack, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const respond = deps.responder.to(command.response_url);
    const who = principalOf(command);
    deps.background.run(
      '/approvals',
      async () => {
        // login must open its modal within the trigger's 3 seconds: before any other I/O.
        if (parseApprovalsCommand(command.text ?? '', todayIn(undefined, deps.now())).kind === 'login') {
          return openLinkModal(deps, client, command.trigger_id, who, { command: 'findApprovals' }, respond);
        }
        const today = await todayOf(deps, who.userId);
        const parsed = parseApprovalsCommand(command.text ?? '', today);
        switch (parsed.kind) {
          case 'help':
            return void (await respond(ephemeral(renderApprovalsHelp())));
          case 'login':
            return openLinkModal(deps, client, command.trigger_id, who, { command: 'findApprovals' }, respond);
          case 'logout':
            return logout(deps, who, respond);
          case 'whoami':
            return whoami(deps, who, respond);
          case 'invalid':
            deps.metrics.outcome('invalid');
            return void (await respond(ephemeral(renderInvalid(parsed, '/approvals'))));
          case 'query':
            return showApprovals(deps, who, parsed.query, today, respond, 'ephemeral');
          case 'remind':
            return remind(deps, who, parsed, respond);
        }
      },
      answerWith(deps, who, '/approvals', respond),
    );
  };
}

/** Fetches one page with the user's token and shows it, as a new message or in place of the old one. */
export async function showApprovals(
  deps: Deps,
  who: Principal,
  query: ApprovalQuery,
  today: CalendarDay,
  respond: Respond,
  how: 'ephemeral' | 'replace',
): Promise<void> {
  const reference = deps.newId();
  const ctx = {
    ...who,
    slash: '/approvals' as const,
    command: 'findApprovals' as const,
    reference,
    relink: encodeRelink({ kind: 'approvals', query }),
  };
  try {
    const linked = await deps.store.getToken(who, 'findApprovals');
    if (linked === undefined) {
      deps.metrics.outcome('not_linked');
      return void (await respond(ephemeral(renderNotLinked(ctx))));
    }
    const page = await deps.service.findApprovals(query, linked.token);
    await deps.store.recordOutcome(who, 'findApprovals', 'ok', deps.now());
    const message = renderApprovalsPage({
      query,
      approvals: page.approvals,
      userId: who.userId,
      today,
      urlTemplate: deps.approvalUrlTemplate,
    });
    await respond(how === 'replace' ? replace(message) : ephemeral(message));
  } catch (error) {
    await reportFailure(deps, error, ctx, respond);
  }
}

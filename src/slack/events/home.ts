/**
 * App Home: published when the user opens the tab, and again on Refresh / Next / Previous. The
 * counts come from one call for the first pending approvals, soonest due first, with the user's
 * own token; paging moves through that same list.
 */

import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { reminderPaused } from '../../reminders/scheduler.js';
import { translateFailure } from '../../render/errors.js';
import { HOME_COUNT_WINDOW, HOME_PAGE_SIZE, type HomeApprovals, renderHome } from '../../render/home.js';
import { describeSchedule, formatInZone } from '../../render/reminders.js';
import { isServiceError } from '../../service/index.js';
import { type Principal, SERVICE_COMMANDS } from '../../store/index.js';
import { forgetAccount } from '../accounts.js';
import { principalOf, todayOf } from '../context.js';
import type { Deps } from '../deps.js';

export async function publishHome(deps: Deps, client: WebClient, who: Principal, page: number): Promise<void> {
  let approvals: HomeApprovals | undefined;
  let problem: string | undefined;
  const linked = await deps.store.getToken(who, 'findApprovals');
  if (linked !== undefined) {
    try {
      const today = await todayOf(deps, who.userId);
      const result = await deps.service.findApprovals({ state: 'pending', sort: 'asc', 'page-size': HOME_COUNT_WINDOW }, linked.token);
      await deps.store.recordOutcome(who, 'findApprovals', 'ok', deps.now());
      const lastPage = Math.max(1, Math.ceil(result.approvals.length / HOME_PAGE_SIZE));
      approvals = { pending: result.approvals, page: Math.min(Math.max(1, page), lastPage), today };
    } catch (error) {
      const translated = translateFailure(error, { ...who, slash: '/approvals', command: 'findApprovals', reference: deps.newId() });
      deps.logger[translated.log.level]({ ...translated.log.detail, user: who.userId, surface: 'home' }, translated.log.event);
      if (isServiceError(error) && error.kind === 'invalid-token')
        await deps.store.recordOutcome(who, 'findApprovals', 'rejected', deps.now());
      problem = translated.message.text;
    }
  }
  const links = await deps.store.listLinks(who);
  const reminder = await deps.store.getReminder(who);
  const paused = reminder !== undefined && reminderPaused(reminder, linked);
  await client.views.publish({
    user_id: who.userId,
    view: renderHome({
      links,
      commands: SERVICE_COMMANDS,
      ...(approvals ? { approvals } : {}),
      ...(problem ? { problem } : {}),
      reminder: reminder
        ? `${describeSchedule(reminder)} · ${paused ? 'paused until you link again' : `next ${formatInZone(reminder.nextAt, reminder.timeZone)}`} · \`/approvals remind off\` stops it`
        : undefined,
      urlTemplate: deps.approvalUrlTemplate,
    }),
  });
}

/** Unlink on the Home tab (Slack has already asked "are you sure?"): forget the tokens, then show the tab again. */
export function homeUnlinkAction(deps: Deps) {
  return async ({ ack, body, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const who = principalOf(body);
    deps.background.run('app home unlink', async () => {
      await forgetAccount(deps, who);
      await publishHome(deps, client, who, 1);
    });
  };
}

export function homeOpened(deps: Deps) {
  return async ({ event, body, client }: SlackEventMiddlewareArgs<'app_home_opened'> & AllMiddlewareArgs): Promise<void> => {
    if (event.tab !== 'home') return;
    const who = { teamId: (body as { team_id?: string }).team_id ?? '', userId: event.user };
    deps.background.run('app home', () => publishHome(deps, client, who, 1));
  };
}

/** Refresh, Next and Previous on the Home tab: the button's value is the page to show. */
export function homePageAction(deps: Deps) {
  return async ({ ack, body, action, client }: SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs): Promise<void> => {
    await ack();
    const page = /^\d{1,4}$/.test(action.value ?? '') ? Number(action.value) : 1;
    deps.background.run('app home page', () => publishHome(deps, client, principalOf(body), page));
  };
}

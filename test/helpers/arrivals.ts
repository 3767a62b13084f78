/**
 * Arrivals as an approver meets them in Slack, against a harness: the app's direct messages with
 * them as they read now (chat.update applied, found by the D… channel Slack gave the post), the
 * decision buttons in one, and a click on one as Slack sends a click on a message in a DM.
 */

import type { ArrivalScheduler } from '../../src/arrivals/scheduler.js';
import type { Running } from '../../src/main.js';
import { COMMENT_FIELD, DECISION_ACTIONS } from '../../src/render/decision.js';
import { eventually } from './eventually.js';
import { dmChannel, type SlackMessage, viewsSent } from './fake-slack.js';
import { type Harness, SIGNING_SECRET, sign, TEAM } from './harness.js';
import { visible } from './visible.js';

/** The app's messages in its DM with this user, oldest first, as they read now. */
export function dmsWith(h: Harness, userId: string): SlackMessage[] {
  return h.slack.messagesIn(dmChannel(userId));
}

/** What a person reads of a message: its fallback text, then its blocks. */
export function readOf(message: SlackMessage | undefined): string {
  return message === undefined ? '' : `${message.text}\n${visible(message.blocks as never)}`;
}

export interface MessageButton {
  actionId: string;
  blockId: string;
  text: string;
  value: string | undefined;
}

/** Every button of a message, with the block it is in. */
export function buttonsIn(message: SlackMessage | undefined): MessageButton[] {
  return (message?.blocks ?? [])
    .filter((b) => b.type === 'actions')
    .flatMap((b) =>
      (b.elements as Array<{ type: string; action_id: string; value?: string; text?: { text: string } }>)
        .filter((e) => e.type === 'button')
        .map((e) => ({ actionId: e.action_id, blockId: String(b.block_id ?? ''), text: e.text?.text ?? '', value: e.value })),
    );
}

/** The buttons that decide (one per action the service lists), as `Decide: <action>`. */
export function decisionButtonsIn(message: SlackMessage | undefined): MessageButton[] {
  return buttonsIn(message).filter((b) => DECISION_ACTIONS.choose.includes(b.actionId));
}

let sequence = 0;

/**
 * A click on a button of the app's message in a DM, as Slack sends it: the container names the
 * message by its D… channel and ts, with the message itself, a trigger and a response_url of its own.
 */
export async function clickInDm(
  h: Harness,
  now: () => Date,
  userId: string,
  message: SlackMessage,
  button: MessageButton,
): Promise<{ status: number; responseId: string }> {
  const response = h.slack.responseUrl();
  const at = now().getTime();
  const payload = {
    type: 'block_actions',
    user: { id: userId, username: userId.toLowerCase(), team_id: TEAM },
    api_app_id: 'A0COUNTERSIGN',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: `4321.${at}.${++sequence}`,
    team: { id: TEAM, domain: 'example' },
    channel: { id: message.channel, name: 'directmessage' },
    message: { type: 'message', user: 'UBOT', ts: message.ts, text: message.text, blocks: message.blocks },
    response_url: response.url,
    actions: [
      {
        action_id: button.actionId,
        block_id: button.blockId,
        type: 'button',
        action_ts: `${Math.floor(at / 1000)}.000300`,
        text: { type: 'plain_text', text: button.text },
        ...(button.value === undefined ? {} : { value: button.value }),
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const sent = await h.post(body, {
    'content-type': 'application/x-www-form-urlencoded',
    ...sign(body, SIGNING_SECRET, Math.floor(at / 1000)),
  });
  return { status: sent.status, responseId: response.id };
}

/**
 * Decides an approval from its arrival message, as an approver does: the action's button, the
 * confirmation Slack opens with the click's trigger (or, when the check at the click was slow and
 * "Checking…" was shown, what that was updated to), and its submission with this comment, `times`
 * times at once (a double click on Send, Slack's retry). Returns the confirmation as shown.
 */
export async function decideFromDm(
  h: Harness,
  now: () => Date,
  userId: string,
  message: SlackMessage,
  action: string,
  comment: string,
  times = 1,
): Promise<{ view: Record<string, unknown>; viewId: string; statuses: number[] }> {
  const button = decisionButtonsIn(message).find((b) => b.text === `Decide: ${action}`);
  if (button === undefined) throw new Error(`no ${action} button in ${readOf(message)}`);
  const opens = viewsSent(h.slack, 'views.open').length;
  const clicked = await clickInDm(h, now, userId, message, button);
  if (clicked.status !== 200) throw new Error(`the click was answered ${clicked.status}`);
  // A click on a message has no modal under it: the confirmation opens with the click's trigger.
  const opened = await eventually('the confirmation opened', () => viewsSent(h.slack, 'views.open')[opens]);
  if (!opened.triggerId?.startsWith('4321.')) throw new Error(`the confirmation was opened with trigger ${opened.triggerId}`);
  const call = h.slack.apiCalls.filter((c) => c.method === 'views.open')[opens];
  const viewId = `V${h.slack.apiCalls.indexOf(call as (typeof h.slack.apiCalls)[number]) + 1}`;
  let view = opened.view;
  if (visible(view.blocks as never).includes('Checking with the Command Service'))
    view = (await eventually('the checked confirmation', () => viewsSent(h.slack, 'views.update').find((u) => u.viewId === viewId))).view;
  const sent = await Promise.all(
    Array.from({ length: times }, () => h.submitView(userId, view, viewId, { [COMMENT_FIELD.block]: comment })),
  );
  return { view, viewId, statuses: sent.map((s) => s.status) };
}

/** The app's arrival checks: there unless NOTIFY_INTERVAL is off, which these tests never set. */
export function checksOf(app: Running): ArrivalScheduler {
  if (app.arrivals === undefined) throw new Error('arrival messages are off (NOTIFY_INTERVAL=off)');
  return app.arrivals;
}

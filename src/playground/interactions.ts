/**
 * What the person at the page does, sent to the app as Slack sends it, signed: a slash command
 * typed, a click on a message, a modal or the Home tab, a modal submitted, the Home tab opened. The
 * app's ack is then shown as Slack shows it.
 */

import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { signSlackRequest } from './sign.js';
import type { Workspace } from './workspace.js';

/** Where a click happened: a message (by id), the user's open modal, or their Home tab. */
export type Surface = { kind: 'message'; messageId: number } | { kind: 'modal' } | { kind: 'home' };
/** What was clicked: a button and its value, or a select and the option chosen. */
export type Control = { type: 'button'; value: string | undefined } | { type: 'static_select'; selected: string };

interface Forwarded {
  status: number;
  body: string;
  json: boolean;
}

const APP_ID = 'A0PLAYGROUND';

export class Interactions {
  readonly #ws: Workspace;
  readonly #signingSecret: string;
  /** The app's POST /slack/events; empty until the app is up. */
  appUrl = '';

  constructor(ws: Workspace, signingSecret: string) {
    this.#ws = ws;
    this.#signingSecret = signingSecret;
  }

  /** Sends a signed request to the app, as Slack does: forms for commands and clicks, JSON for events. */
  async forward(body: string, contentType = 'application/x-www-form-urlencoded'): Promise<Forwarded> {
    if (!this.appUrl) return { status: 503, body: 'the app is not running yet', json: false };
    const res = await request(this.appUrl, {
      method: 'POST',
      headers: { 'content-type': contentType, ...signSlackRequest(body, this.#signingSecret, Math.floor(this.#ws.nowMs() / 1000)) },
      body,
    });
    const json = String(res.headers['content-type'] ?? '').includes('json');
    return { status: res.statusCode, body: await res.body.text(), json };
  }

  async typed(userId: string, text: string): Promise<{ status: number; message?: string }> {
    const ws = this.#ws;
    const m = /^\s*(\/[a-z-]+)\s*([\s\S]*)$/.exec(text);
    if (!m) return { status: 400, message: 'Type a slash command, such as /approvals.' };
    const [, command = '', args = ''] = m;
    ws.add({ channel: ws.channel.id, author: userId, text: `${command} ${args}`.trim(), blocks: [], ephemeralTo: userId, typed: true });
    if (command !== '/approvals' && command !== '/collect') {
      ws.slackbotTells(userId, `${command} is not a valid command. This app has /approvals and /collect.`);
      return { status: 200 };
    }
    const form = new URLSearchParams({
      token: 'playground',
      team_id: ws.teamId,
      team_domain: 'playground',
      channel_id: ws.channel.id,
      channel_name: ws.channel.name,
      user_id: userId,
      user_name: ws.user(userId)?.name ?? userId,
      command,
      text: args.trim(),
      api_app_id: APP_ID,
      response_url: ws.newResponseUrl({ channel: ws.channel.id, userId }),
      trigger_id: ws.newTrigger(userId),
    }).toString();
    const res = await this.forward(form);
    this.#showAck(res, userId);
    return { status: res.status };
  }

  async clicked(userId: string, surface: Surface, actionId: string, control: Control, blockId: string): Promise<{ status: number }> {
    const ws = this.#ws;
    const action = {
      action_id: actionId,
      block_id: blockId,
      action_ts: ws.ts(),
      ...(control.type === 'button'
        ? { type: 'button', ...(control.value ? { value: control.value } : {}) }
        : { type: 'static_select', selected_option: { text: { type: 'plain_text', text: control.selected }, value: control.selected } }),
    };
    const base = {
      type: 'block_actions',
      user: { id: userId, username: ws.user(userId)?.name ?? userId, team_id: ws.teamId },
      api_app_id: APP_ID,
      token: 'playground',
      trigger_id: ws.newTrigger(userId),
      team: { id: ws.teamId, domain: 'playground' },
      actions: [action],
    };
    const payload = surface.kind === 'message' ? this.#onMessage(userId, surface.messageId, base) : this.#inView(userId, surface, base);
    if (payload === undefined) return { status: 404 };
    const res = await this.forward(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    if (res.status !== 200) ws.slackbotTells(userId, `The app answered ${res.status} to the click.`);
    return { status: res.status };
  }

  /** A click on a message answers where its message is: the channel, or the app's DM with the user. */
  #onMessage(userId: string, messageId: number, base: object): object {
    const ws = this.#ws;
    const message = ws.messages.find((m) => m.id === messageId);
    const where = message?.channel ?? ws.channel.id;
    return {
      ...base,
      container: { type: 'message', message_ts: message?.ts ?? '', channel_id: where, is_ephemeral: message?.ephemeralTo !== undefined },
      channel: { id: where, name: where === ws.channel.id ? ws.channel.name : 'directmessage' },
      message: message ? { ts: message.ts, text: message.text, blocks: message.blocks } : undefined,
      response_url: ws.newResponseUrl({ channel: where, userId, messageId }),
    };
  }

  /** As Slack sends a click in a modal or on Home: the view it was in, and no response_url. Undefined when no modal is open. */
  #inView(userId: string, surface: Exclude<Surface, { kind: 'message' }>, base: object): object | undefined {
    const ws = this.#ws;
    const shown =
      surface.kind === 'modal' ? ws.topModal(userId) : { id: `VHOME${userId}`, view: ws.homes.get(userId) ?? { type: 'home', blocks: [] } };
    if (shown === undefined) return undefined;
    // As Slack does, the click carries the view's hash: an update made with it fails once the view has changed since.
    const hash = 'hash' in shown ? shown.hash : ws.ts();
    const view = { ...(shown.view as object), id: shown.id, team_id: ws.teamId, state: { values: {} }, hash };
    return { ...base, container: { type: 'view', view_id: shown.id }, view };
  }

  async submitted(userId: string, values: Record<string, string>): Promise<{ status: number; errors?: Record<string, string> }> {
    const ws = this.#ws;
    const modal = ws.topModal(userId);
    if (!modal) return { status: 404 };
    const state: Record<string, Record<string, { type: string; value: string | null }>> = {};
    for (const [key, value] of Object.entries(values)) {
      const [blockId = '', actionId = ''] = key.split('|');
      state[blockId] = { ...state[blockId], [actionId]: { type: 'plain_text_input', value: value === '' ? null : value } };
    }
    const view = { ...(modal.view as object), id: modal.id, state: { values: state } };
    const payload = {
      type: 'view_submission',
      team: { id: ws.teamId },
      user: { id: userId, team_id: ws.teamId },
      api_app_id: APP_ID,
      trigger_id: ws.newTrigger(userId),
      view,
    };
    const res = await this.forward(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    if (res.status === 200 && res.body.trim() !== '') {
      const body = JSON.parse(res.body) as { response_action?: string; errors?: Record<string, string>; view?: unknown };
      if (body.response_action === 'errors') return { status: 200, errors: body.errors ?? {} };
      if (body.response_action === 'update' && body.view) {
        modal.view = body.view;
        ws.changed();
        return { status: 200 };
      }
      if (body.response_action === 'clear') {
        ws.modals.delete(userId);
        ws.changed();
        return { status: 200 };
      }
    }
    ws.closeTop(userId);
    return { status: res.status };
  }

  /** The Home tab opened: app_home_opened, as an event. */
  async homeOpened(userId: string): Promise<{ status: number }> {
    const ws = this.#ws;
    const event = {
      token: 'playground',
      team_id: ws.teamId,
      api_app_id: APP_ID,
      type: 'event_callback',
      event_id: `Ev${randomBytes(6).toString('hex')}`,
      event_time: Math.floor(ws.nowMs() / 1000),
      event: { type: 'app_home_opened', user: userId, channel: `D${userId.slice(1)}`, tab: 'home', event_ts: ws.ts() },
    };
    return { status: (await this.forward(JSON.stringify(event), 'application/json')).status };
  }

  /**
   * An ack may carry a message, shown as Slack shows it: a JSON one to the asker alone unless it
   * says in_channel; any other body as a message of exactly that text ("42" and "null" included).
   */
  #showAck(res: Forwarded, userId: string): void {
    const ws = this.#ws;
    if (res.status !== 200) {
      ws.slackbotTells(userId, `The app answered ${res.status}: Slack would say the command failed.`);
      return;
    }
    if (res.body.trim() === '') return;
    const message = ackMessage(res);
    if (message === undefined) return;
    const { inChannel, ...shown } = message;
    ws.add({ channel: ws.channel.id, author: 'bot', ...shown, ...(inChannel ? {} : { ephemeralTo: userId }) });
  }
}

/** The message an ack's body makes, if any: a JSON message as it says, any other body as its exact text. */
function ackMessage(res: Forwarded): { text: string; blocks: unknown[]; inChannel: boolean } | undefined {
  const asText = { text: res.body, blocks: [], inChannel: false };
  if (!res.json) return asText;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return asText;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return asText;
  const m = body as { text?: unknown; blocks?: unknown; response_type?: unknown };
  const text = typeof m.text === 'string' ? m.text : '';
  const blocks = Array.isArray(m.blocks) ? m.blocks : [];
  if (text === '' && blocks.length === 0) return undefined;
  return { text, blocks, inChannel: m.response_type === 'in_channel' };
}

/**
 * The Slack Web API methods the app calls, and its response_urls, answered as Slack answers them
 * and applied to the workspace: messages posted, updated, replaced or deleted; Home tabs published;
 * modals opened, pushed and updated. A message or view that breaks Block Kit's rules is refused
 * (invalid_blocks), as Slack refuses it, and the page says why.
 */

import { randomBytes } from 'node:crypto';
import { messageProblems, viewProblems } from '../render/validate.js';
import type { ResponseTarget, Workspace } from './workspace.js';

type Params = Record<string, unknown>;
type Answer = Record<string, unknown>;

/** A Web API call's parameters as the client sends them: strings, JSON in strings for blocks and views. */
class Call {
  constructor(readonly params: Params) {}

  str(k: string): string {
    return typeof this.params[k] === 'string' ? (this.params[k] as string) : '';
  }

  parsed(k: string): unknown {
    const v = this.params[k];
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }

  blocks(): unknown[] {
    return (this.parsed('blocks') as unknown[]) ?? [];
  }
}

export function webApi(ws: Workspace, method: string, params: Params): Answer {
  const call = new Call(params);
  const problems = refusedBlocks(method, call);
  if (problems.length > 0) {
    tellRefused(ws, method, problems);
    return { ok: false, error: 'invalid_blocks', response_metadata: { messages: problems.slice(0, 10) } };
  }
  // Own properties only: a method named like one of every object's (constructor, toString) is unknown too.
  if (!Object.hasOwn(METHODS, method)) return { ok: false, error: 'unknown_method', detail: `the playground does not play ${method}` };
  return (METHODS[method] as Method)(ws, call, method);
}

type Method = (ws: Workspace, call: Call, method: string) => Answer;

const METHODS: Readonly<Record<string, Method>> = {
  'auth.test': (ws) => ({
    ok: true,
    url: `${ws.base}/`,
    team: 'Playground',
    user: 'countersign',
    team_id: ws.teamId,
    user_id: 'UCOUNTERSIGN',
    bot_id: 'BCOUNTERSIGN',
  }),
  'users.info': (ws, call) => {
    const u = ws.user(call.str('user'));
    return u ? { ok: true, user: { id: u.id, name: u.name, real_name: u.name, tz: u.tz } } : { ok: false, error: 'user_not_found' };
  },
  'conversations.open': (_ws, call) => ({ ok: true, channel: { id: dmChannelOf(call.str('users').split(',')[0] ?? '') } }),
  'chat.postMessage': postMessage,
  'chat.postEphemeral': (ws, call) => {
    const m = ws.add({
      channel: ws.channel.id,
      author: 'bot',
      text: call.str('text'),
      blocks: call.blocks(),
      ephemeralTo: call.str('user'),
    });
    return { ok: true, message_ts: m.ts };
  },
  'chat.update': (ws, call) => {
    // As Slack: a message is found by its conversation and ts; a DM's conversation is the D… id its post answered, not the user's.
    const channel = call.str('channel');
    if (channel !== ws.channel.id && !ws.users.some((u) => dmChannelOf(u.id) === channel)) return { ok: false, error: 'channel_not_found' };
    const m = ws.messages.find((x) => x.ts === call.str('ts') && x.channel === channel && x.typed !== true);
    if (!m) return { ok: false, error: 'message_not_found' };
    m.text = call.str('text');
    m.blocks = call.blocks();
    ws.changed();
    return { ok: true, channel: call.str('channel'), ts: m.ts };
  },
  'views.publish': (ws, call) => {
    ws.homes.set(call.str('user_id'), call.parsed('view'));
    ws.changed();
    return { ok: true, view: { id: `VHOME${call.str('user_id')}` } };
  },
  'views.open': openModal,
  'views.push': openModal,
  'views.update': (ws, call) => {
    // Any modal of the stack may be updated, the one underneath too, as Slack allows.
    const entry = [...ws.modals.values()].flat().find((m) => m.id === call.str('view_id'));
    if (!entry) return { ok: false, error: 'not_found' };
    if (call.str('hash') !== '' && call.str('hash') !== entry.hash) return { ok: false, error: 'hash_conflict' };
    entry.view = call.parsed('view');
    entry.hash = ws.ts();
    ws.changed();
    return { ok: true, view: { id: entry.id, hash: entry.hash } };
  },
};

/** The app's DM with a user: the one channel id Slack gives their conversation with it. */
export function dmChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}

function postMessage(ws: Workspace, call: Call): Answer {
  const channel = call.str('channel');
  // A DM is addressed by its D… channel or, as reminders do, by the user's own id.
  const dmTo = ws.users.find((u) => dmChannelOf(u.id) === channel || u.id === channel)?.id;
  // A DM lands in the app's Messages tab of that user, as in Slack, not in the channel.
  const m = ws.add({
    channel: dmTo ? dmChannelOf(dmTo) : ws.channel.id,
    author: 'bot',
    text: call.str('text'),
    blocks: call.blocks(),
    ...(dmTo ? { ephemeralTo: dmTo } : {}),
  });
  // Slack answers with the conversation's own id: a DM's is its D… channel, which chat.update then needs.
  return { ok: true, channel: m.channel, ts: m.ts };
}

/** views.open, or views.push over the modal open: with a trigger, once each, at most three deep. */
function openModal(ws: Workspace, call: Call, method: string): Answer {
  const userId = ws.triggers.get(call.str('trigger_id'));
  if (!userId) return { ok: false, error: 'invalid_trigger_id' };
  // Slack allows a trigger once.
  ws.triggers.delete(call.str('trigger_id'));
  const id = `VMODAL${randomBytes(4).toString('hex')}`;
  const stack = method === 'views.push' ? (ws.modals.get(userId) ?? []) : [];
  if (method === 'views.push' && stack.length === 0) return { ok: false, error: 'push_limit_reached' };
  if (stack.length >= 3) return { ok: false, error: 'push_limit_reached' };
  const hash = ws.ts();
  stack.push({ id, view: call.parsed('view'), hash });
  ws.modals.set(userId, stack);
  ws.changed();
  return { ok: true, view: { id, hash } };
}

/** What Slack would refuse of a Web API call's message or view; nothing for other methods. */
function refusedBlocks(method: string, call: Call): string[] {
  if (method === 'chat.postMessage' || method === 'chat.update' || method === 'chat.postEphemeral')
    return messageProblems({ text: call.params.text, blocks: call.parsed('blocks') ?? undefined });
  if (method === 'views.open' || method === 'views.update' || method === 'views.push' || method === 'views.publish')
    return viewProblems(call.parsed('view'));
  return [];
}

/** Slack answers invalid_blocks to the app alone; the playground also shows the person at the desk what was wrong. */
function tellRefused(ws: Workspace, method: string, problems: string[], userId?: string): void {
  ws.logger.warn({ method, problems: problems.slice(0, 5) }, 'refused a payload that Slack would refuse (invalid_blocks)');
  ws.slackbotTells(userId, `Slack would refuse what the app sent with ${method} (invalid_blocks): ${problems.slice(0, 3).join('; ')}`);
}

export type ResponseBody = {
  response_type?: string;
  replace_original?: boolean;
  delete_original?: boolean;
  text?: string;
  blocks?: unknown[];
};

/**
 * An answer posted to a response_url: refused as Slack refuses a message that breaks Block Kit's
 * rules, else a new message, or the original replaced or deleted. Undefined when taken, else the problems.
 */
export function respondTo(ws: Workspace, target: ResponseTarget, body: ResponseBody): string[] | undefined {
  const problems = messageProblems(body);
  if (problems.length > 0) {
    tellRefused(ws, 'response_url', problems, target.userId);
    return problems;
  }
  const original = target.messageId === undefined ? undefined : ws.messages.find((m) => m.id === target.messageId);
  if (body.delete_original && original) {
    ws.messages.splice(ws.messages.indexOf(original), 1);
    ws.changed();
    return undefined;
  }
  if (body.replace_original && original) {
    original.text = body.text ?? '';
    original.blocks = body.blocks ?? [];
    if (body.response_type === 'in_channel') delete original.ephemeralTo;
    ws.changed();
    return undefined;
  }
  ws.add({
    channel: target.channel,
    author: 'bot',
    text: body.text ?? '',
    blocks: body.blocks ?? [],
    ...(body.response_type === 'in_channel' ? {} : { ephemeralTo: target.userId }),
  });
  return undefined;
}

/**
 * The local Slack stand-in (local mode): a page that looks like a channel, and the parts of Slack
 * the app talks to: the Web API methods it calls, response_url endpoints, and signed requests for
 * what the page's user types and clicks. The app is unchanged: it reaches this server only
 * through SLACK_API_URL, signed requests and response_url, exactly as it reaches Slack.
 */

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { request } from 'undici';
import { messageProblems, viewProblems } from '../render/validate.js';
import type { Logger } from '../runtime/logger.js';
import { playgroundPage } from './page.js';
import { signSlackRequest } from './sign.js';

export interface PlaygroundUser {
  id: string;
  name: string;
  role: string;
  tz: string;
}

export interface PlaygroundMessage {
  id: number;
  ts: string;
  channel: string;
  /** 'bot' or the user who typed a command. */
  author: string;
  text: string;
  blocks: unknown[];
  /** Seen only by this user, as Slack's ephemeral messages are. */
  ephemeralTo?: string;
  /** A slash command as typed, shown to the one who typed it. */
  typed?: boolean;
}

interface ResponseTarget {
  channel: string;
  userId: string;
  /** The message a button came from: replace_original and delete_original act on it. */
  messageId?: number;
}

export interface PlaygroundOptions {
  port: number;
  host?: string | undefined;
  signingSecret: string;
  botToken: string;
  users: readonly PlaygroundUser[];
  teamId: string;
  channel: { id: string; name: string };
  /** Command suggestions for the message box. */
  suggestions: readonly string[];
  /** Each command's usage hint, shown while it is typed, as Slack shows the manifest's. */
  usage: Readonly<Record<string, string>>;
  logger: Logger;
  /** The app's clock: message timestamps and signatures are on it. */
  now?: () => Date;
}

export interface Playground {
  url: string;
  apiUrl: string;
  setAppUrl(url: string): void;
  close(): Promise<void>;
}

const MAX_MESSAGES = 300;

export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const nowMs = () => (options.now ?? (() => new Date()))().getTime();
  let appUrl = '';
  let nextId = 0;
  let version = 0;
  const messages: PlaygroundMessage[] = [];
  const targets = new Map<string, ResponseTarget>();
  const homes = new Map<string, unknown>();
  /** Each user's open modals, the one on top last: views.push stacks one over another, as in Slack. */
  const modals = new Map<string, Array<{ id: string; view: unknown; hash: string }>>();
  const topModal = (userId: string) => modals.get(userId)?.at(-1);
  const triggers = new Map<string, string>();
  let base = '';
  let port = 0;

  const changed = () => {
    version++;
  };
  const ts = () => `${Math.floor(nowMs() / 1000)}.${String(++nextId).padStart(6, '0')}`;
  const add = (m: Omit<PlaygroundMessage, 'id' | 'ts'>) => {
    const stamp = ts(); // advances nextId, which then doubles as the message's id
    const message = { ...m, id: nextId, ts: stamp };
    messages.push(message);
    if (messages.length > MAX_MESSAGES) messages.splice(0, messages.length - MAX_MESSAGES);
    changed();
    return message;
  };
  const newResponseUrl = (target: ResponseTarget) => {
    const id = randomBytes(9).toString('base64url');
    targets.set(id, target);
    return `${base}/response/${id}`;
  };
  const newTrigger = (userId: string) => {
    const id = `${nowMs()}.${randomBytes(6).toString('hex')}`;
    triggers.set(id, userId);
    return id;
  };

  /** Sends a signed request to the app, as Slack does: forms for commands and clicks, JSON for events. */
  async function forward(
    body: string,
    contentType = 'application/x-www-form-urlencoded',
  ): Promise<{ status: number; body: string; json: boolean }> {
    if (!appUrl) return { status: 503, body: 'the app is not running yet', json: false };
    const res = await request(appUrl, {
      method: 'POST',
      headers: { 'content-type': contentType, ...signSlackRequest(body, options.signingSecret, Math.floor(nowMs() / 1000)) },
      body,
    });
    const json = String(res.headers['content-type'] ?? '').includes('json');
    return { status: res.statusCode, body: await res.body.text(), json };
  }

  const user = (id: unknown) => options.users.find((u) => u.id === id);

  async function typed(userId: string, text: string): Promise<{ status: number; message?: string }> {
    const m = /^\s*(\/[a-z-]+)\s*([\s\S]*)$/.exec(text);
    if (!m) return { status: 400, message: 'Type a slash command, such as /approvals.' };
    const [, command = '', args = ''] = m;
    add({ channel: options.channel.id, author: userId, text: `${command} ${args}`.trim(), blocks: [], ephemeralTo: userId, typed: true });
    if (command !== '/approvals' && command !== '/collect') {
      add({
        channel: options.channel.id,
        author: 'slackbot',
        text: `${command} is not a valid command. This app has /approvals and /collect.`,
        blocks: [],
        ephemeralTo: userId,
      });
      return { status: 200 };
    }
    const form = new URLSearchParams({
      token: 'playground',
      team_id: options.teamId,
      team_domain: 'playground',
      channel_id: options.channel.id,
      channel_name: options.channel.name,
      user_id: userId,
      user_name: user(userId)?.name ?? userId,
      command,
      text: args.trim(),
      api_app_id: 'A0PLAYGROUND',
      response_url: newResponseUrl({ channel: options.channel.id, userId }),
      trigger_id: newTrigger(userId),
    }).toString();
    const res = await forward(form);
    ackBody(res, userId);
    return { status: res.status };
  }

  /**
   * An ack may carry a message, shown as Slack shows it: a JSON one to the asker alone unless it
   * says in_channel; any other body as a message of exactly that text ("42" and "null" included).
   */
  function ackBody(res: { status: number; body: string; json: boolean }, userId: string): void {
    if (res.status !== 200) {
      add({
        channel: options.channel.id,
        author: 'slackbot',
        text: `The app answered ${res.status}: Slack would say the command failed.`,
        blocks: [],
        ephemeralTo: userId,
      });
      return;
    }
    if (res.body.trim() === '') return;
    const asText = () => add({ channel: options.channel.id, author: 'bot', text: res.body, blocks: [], ephemeralTo: userId });
    if (!res.json) return void asText();
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      return void asText();
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return void asText();
    const m = body as { text?: unknown; blocks?: unknown; response_type?: unknown };
    const text = typeof m.text === 'string' ? m.text : '';
    const blocks = Array.isArray(m.blocks) ? m.blocks : [];
    if (text === '' && blocks.length === 0) return;
    add({
      channel: options.channel.id,
      author: 'bot',
      text,
      blocks,
      ...(m.response_type === 'in_channel' ? {} : { ephemeralTo: userId }),
    });
  }

  /** Where a click happened: a message (by id), the user's open modal, or their Home tab. */
  type Surface = { kind: 'message'; messageId: number } | { kind: 'modal' } | { kind: 'home' };
  /** What was clicked: a button and its value, or a select and the option chosen. */
  type Control = { type: 'button'; value: string | undefined } | { type: 'static_select'; selected: string };

  async function clicked(
    userId: string,
    surface: Surface,
    actionId: string,
    control: Control,
    blockId: string,
  ): Promise<{ status: number }> {
    const action = {
      action_id: actionId,
      block_id: blockId,
      action_ts: ts(),
      ...(control.type === 'button'
        ? { type: 'button', ...(control.value ? { value: control.value } : {}) }
        : { type: 'static_select', selected_option: { text: { type: 'plain_text', text: control.selected }, value: control.selected } }),
    };
    const base = {
      type: 'block_actions',
      user: { id: userId, username: user(userId)?.name ?? userId, team_id: options.teamId },
      api_app_id: 'A0PLAYGROUND',
      token: 'playground',
      trigger_id: newTrigger(userId),
      team: { id: options.teamId, domain: 'playground' },
      actions: [action],
    };
    if (surface.kind !== 'message') {
      // As Slack sends a click in a modal or on Home: the view it was in, and no response_url.
      const shown =
        surface.kind === 'modal' ? topModal(userId) : { id: `VHOME${userId}`, view: homes.get(userId) ?? { type: 'home', blocks: [] } };
      if (shown === undefined) return { status: 404 };
      // As Slack does, the click carries the view's hash: an update made with it fails once the view has changed since.
      const hash = 'hash' in shown ? shown.hash : ts();
      const view = { ...(shown.view as object), id: shown.id, team_id: options.teamId, state: { values: {} }, hash };
      const res = await forward(
        new URLSearchParams({ payload: JSON.stringify({ ...base, container: { type: 'view', view_id: shown.id }, view }) }).toString(),
      );
      if (res.status !== 200) answeredNot(res.status, userId);
      return { status: res.status };
    }
    const messageId = surface.messageId;
    const message = messages.find((m) => m.id === messageId);
    // A click answers where its message is: the channel, or the app's DM with the user.
    const where = message?.channel ?? options.channel.id;
    const payload = {
      ...base,
      container: {
        type: 'message',
        message_ts: message?.ts ?? '',
        channel_id: where,
        is_ephemeral: message?.ephemeralTo !== undefined,
      },
      channel: { id: where, name: where === options.channel.id ? options.channel.name : 'directmessage' },
      message: message ? { ts: message.ts, text: message.text, blocks: message.blocks } : undefined,
      response_url: newResponseUrl({ channel: where, userId, messageId }),
    };
    const res = await forward(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    if (res.status !== 200) answeredNot(res.status, userId);
    return { status: res.status };
  }

  function answeredNot(status: number, userId: string): void {
    add({
      channel: options.channel.id,
      author: 'slackbot',
      text: `The app answered ${status} to the click.`,
      blocks: [],
      ephemeralTo: userId,
    });
  }

  async function submitted(userId: string, values: Record<string, string>): Promise<{ status: number; errors?: Record<string, string> }> {
    const modal = topModal(userId);
    if (!modal) return { status: 404 };
    const state: Record<string, Record<string, { type: string; value: string | null }>> = {};
    for (const [key, value] of Object.entries(values)) {
      const [blockId = '', actionId = ''] = key.split('|');
      state[blockId] = { ...state[blockId], [actionId]: { type: 'plain_text_input', value: value === '' ? null : value } };
    }
    const view = { ...(modal.view as object), id: modal.id, state: { values: state } };
    const payload = {
      type: 'view_submission',
      team: { id: options.teamId },
      user: { id: userId, team_id: options.teamId },
      api_app_id: 'A0PLAYGROUND',
      trigger_id: newTrigger(userId),
      view,
    };
    const res = await forward(new URLSearchParams({ payload: JSON.stringify(payload) }).toString());
    if (res.status === 200 && res.body.trim() !== '') {
      const body = JSON.parse(res.body) as { response_action?: string; errors?: Record<string, string>; view?: unknown };
      if (body.response_action === 'errors') return { status: 200, errors: body.errors ?? {} };
      if (body.response_action === 'update' && body.view) {
        modal.view = body.view;
        changed();
        return { status: 200 };
      }
      if (body.response_action === 'clear') {
        modals.delete(userId);
        changed();
        return { status: 200 };
      }
    }
    closeTop(userId);
    return { status: res.status };
  }

  /** Closes the modal on top; one pushed over another goes back to it, as in Slack. */
  function closeTop(userId: string): void {
    const stack = modals.get(userId);
    stack?.pop();
    if (stack?.length === 0) modals.delete(userId);
    changed();
  }

  /** What response_url does with an answer: a new message, or the original replaced or deleted. */
  function responded(
    target: ResponseTarget,
    body: { response_type?: string; replace_original?: boolean; delete_original?: boolean; text?: string; blocks?: unknown[] },
  ) {
    const original = target.messageId === undefined ? undefined : messages.find((m) => m.id === target.messageId);
    if (body.delete_original && original) {
      messages.splice(messages.indexOf(original), 1);
      changed();
      return;
    }
    if (body.replace_original && original) {
      original.text = body.text ?? '';
      original.blocks = body.blocks ?? [];
      if (body.response_type === 'in_channel') delete original.ephemeralTo;
      changed();
      return;
    }
    add({
      channel: target.channel,
      author: 'bot',
      text: body.text ?? '',
      blocks: body.blocks ?? [],
      ...(body.response_type === 'in_channel' ? {} : { ephemeralTo: target.userId }),
    });
  }

  function webApi(method: string, params: Record<string, unknown>): Record<string, unknown> {
    const str = (k: string) => (typeof params[k] === 'string' ? (params[k] as string) : '');
    const parsed = (k: string) => {
      const v = params[k];
      if (typeof v !== 'string') return v;
      try {
        return JSON.parse(v);
      } catch {
        return v;
      }
    };
    // As Slack does, a message or view that breaks Block Kit's rules is refused, and the page says why.
    const problems = refusedBlocks(method, params, parsed);
    if (problems.length > 0) {
      tellRefused(method, problems);
      return { ok: false, error: 'invalid_blocks', response_metadata: { messages: problems.slice(0, 10) } };
    }
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: `${base}/`,
          team: 'Playground',
          user: 'countersign',
          team_id: options.teamId,
          user_id: 'UCOUNTERSIGN',
          bot_id: 'BCOUNTERSIGN',
        };
      case 'users.info': {
        const u = user(str('user'));
        return u ? { ok: true, user: { id: u.id, name: u.name, real_name: u.name, tz: u.tz } } : { ok: false, error: 'user_not_found' };
      }
      case 'conversations.open':
        return { ok: true, channel: { id: `D${str('users').split(',')[0]?.slice(1) ?? ''}` } };
      case 'chat.postMessage': {
        const channel = str('channel');
        // A DM is addressed by its D… channel or, as reminders do, by the user's own id.
        const dmTo = options.users.find((u) => `D${u.id.slice(1)}` === channel || u.id === channel)?.id;
        // A DM lands in the app's Messages tab of that user, as in Slack, not in the channel.
        const m = add({
          channel: dmTo ? `D${dmTo.slice(1)}` : options.channel.id,
          author: 'bot',
          text: str('text'),
          blocks: (parsed('blocks') as unknown[]) ?? [],
          ...(dmTo ? { ephemeralTo: dmTo } : {}),
        });
        return { ok: true, channel, ts: m.ts };
      }
      case 'chat.postEphemeral': {
        const m = add({
          channel: options.channel.id,
          author: 'bot',
          text: str('text'),
          blocks: (parsed('blocks') as unknown[]) ?? [],
          ephemeralTo: str('user'),
        });
        return { ok: true, message_ts: m.ts };
      }
      case 'chat.update': {
        const m = messages.find((x) => x.ts === str('ts'));
        if (!m) return { ok: false, error: 'message_not_found' };
        m.text = str('text');
        m.blocks = (parsed('blocks') as unknown[]) ?? [];
        changed();
        return { ok: true, channel: str('channel'), ts: m.ts };
      }
      case 'views.publish':
        homes.set(str('user_id'), parsed('view'));
        changed();
        return { ok: true, view: { id: `VHOME${str('user_id')}` } };
      case 'views.open':
      case 'views.push': {
        const userId = triggers.get(str('trigger_id'));
        if (!userId) return { ok: false, error: 'invalid_trigger_id' };
        // Slack allows a trigger once.
        triggers.delete(str('trigger_id'));
        const id = `VMODAL${randomBytes(4).toString('hex')}`;
        const stack = method === 'views.push' ? (modals.get(userId) ?? []) : [];
        if (method === 'views.push' && stack.length === 0) return { ok: false, error: 'push_limit_reached' };
        if (stack.length >= 3) return { ok: false, error: 'push_limit_reached' };
        const hash = ts();
        stack.push({ id, view: parsed('view'), hash });
        modals.set(userId, stack);
        changed();
        return { ok: true, view: { id, hash } };
      }
      case 'views.update': {
        // Any modal of the stack may be updated, the one underneath too, as Slack allows.
        const entry = [...modals.values()].flat().find((m) => m.id === str('view_id'));
        if (!entry) return { ok: false, error: 'not_found' };
        if (str('hash') !== '' && str('hash') !== entry.hash) return { ok: false, error: 'hash_conflict' };
        entry.view = parsed('view');
        entry.hash = ts();
        changed();
        return { ok: true, view: { id: entry.id, hash: entry.hash } };
      }
      default:
        return { ok: false, error: 'unknown_method', detail: `the playground does not play ${method}` };
    }
  }

  /** What Slack would refuse of a Web API call's message or view; nothing for other methods. */
  function refusedBlocks(method: string, params: Record<string, unknown>, parsed: (k: string) => unknown): string[] {
    if (method === 'chat.postMessage' || method === 'chat.update' || method === 'chat.postEphemeral')
      return messageProblems({ text: params.text, blocks: parsed('blocks') ?? undefined });
    if (method === 'views.open' || method === 'views.update' || method === 'views.push' || method === 'views.publish')
      return viewProblems(parsed('view'));
    return [];
  }

  /** Slack answers invalid_blocks to the app alone; the playground also shows the person at the desk what was wrong. */
  function tellRefused(method: string, problems: string[], userId?: string): void {
    options.logger.warn({ method, problems: problems.slice(0, 5) }, 'refused a payload that Slack would refuse (invalid_blocks)');
    add({
      channel: options.channel.id,
      author: 'slackbot',
      text: `Slack would refuse what the app sent with ${method} (invalid_blocks): ${problems.slice(0, 3).join('; ')}`,
      blocks: [],
      ...(userId ? { ephemeralTo: userId } : {}),
    });
  }

  const page = playgroundPage({
    users: options.users,
    channel: options.channel,
    suggestions: options.suggestions,
    usage: options.usage,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://playground.invalid');
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const refused = refusal(req, url.pathname, port, options.host);
    if (refused !== undefined) {
      options.logger.warn({ host: req.headers.host, origin: req.headers.origin, path: url.pathname }, `playground refused: ${refused}`);
      return json(403, { error: refused });
    }
    const body = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src * data:",
      });
      return void res.end(page);
    }
    if (req.method === 'GET' && url.pathname === '/favicon.ico') {
      res.writeHead(204);
      return void res.end();
    }
    // The app's health, where a newcomer looks for it: on the address local mode printed. (Not /metrics:
    // asked from here it would always come from loopback, which is what lets it through without a token.)
    if (req.method === 'GET' && url.pathname === '/healthz') {
      if (!appUrl) return json(503, { ok: false, error: 'the app is not running yet' });
      const probe = await request(new URL('/healthz', appUrl));
      res.writeHead(probe.statusCode, { 'content-type': String(probe.headers['content-type'] ?? 'text/plain') });
      return void res.end(await probe.body.text());
    }
    if (req.method === 'GET' && url.pathname === '/playground/state') {
      const userId = url.searchParams.get('user') ?? '';
      const visible = messages.filter((m) => m.ephemeralTo === undefined || m.ephemeralTo === userId);
      const modal = topModal(userId);
      return json(200, {
        version,
        messages: visible,
        home: homes.get(userId) ?? null,
        modal: modal?.view ?? null,
        modals: modals.get(userId)?.length ?? 0,
      });
    }
    if (req.method === 'POST' && url.pathname.startsWith('/playground/')) {
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      const userId = String(input.user ?? '');
      if (!user(userId)) return json(400, { error: 'unknown user' });
      if (url.pathname === '/playground/command') return json(200, await typed(userId, String(input.text ?? '')));
      if (url.pathname === '/playground/action') {
        const surface: Surface =
          input.surface === 'modal'
            ? { kind: 'modal' }
            : input.surface === 'home'
              ? { kind: 'home' }
              : { kind: 'message', messageId: Number(input.messageId) };
        const control: Control =
          typeof input.selected === 'string'
            ? { type: 'static_select', selected: input.selected }
            : { type: 'button', value: input.value === undefined ? undefined : String(input.value) };
        return json(200, await clicked(userId, surface, String(input.actionId ?? ''), control, String(input.blockId ?? '')));
      }
      if (url.pathname === '/playground/submit') return json(200, await submitted(userId, (input.values ?? {}) as Record<string, string>));
      if (url.pathname === '/playground/home') {
        const event = {
          token: 'playground',
          team_id: options.teamId,
          api_app_id: 'A0PLAYGROUND',
          type: 'event_callback',
          event_id: `Ev${randomBytes(6).toString('hex')}`,
          event_time: Math.floor(nowMs() / 1000),
          event: { type: 'app_home_opened', user: userId, channel: `D${userId.slice(1)}`, tab: 'home', event_ts: ts() },
        };
        return json(200, { status: (await forward(JSON.stringify(event), 'application/json')).status });
      }
      if (url.pathname === '/playground/close') {
        closeTop(userId);
        return json(200, {});
      }
    }
    const response = /^\/response\/([\w-]+)$/.exec(url.pathname);
    if (req.method === 'POST' && response) {
      const target = targets.get(response[1] as string);
      if (!target) return json(404, { ok: false, error: 'expired_url' });
      const answer = JSON.parse(body) as Parameters<typeof responded>[1];
      const problems = messageProblems(answer);
      if (problems.length > 0) {
        tellRefused('response_url', problems, target.userId);
        return json(400, { ok: false, error: 'invalid_blocks', response_metadata: { messages: problems.slice(0, 10) } });
      }
      responded(target, answer);
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end('ok');
    }
    const api = /^\/api\/([\w.]+)$/.exec(url.pathname);
    if (req.method === 'POST' && api) {
      if (req.headers.authorization !== `Bearer ${options.botToken}`) return json(200, { ok: false, error: 'invalid_auth' });
      const params: Record<string, unknown> = String(req.headers['content-type']).includes('json')
        ? (JSON.parse(body || '{}') as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(body));
      return json(200, webApi(api[1] as string, params));
    }
    json(404, { error: 'not found' });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger.error({ error, path: req.url?.split('?')[0] }, 'playground request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: (error as Error).message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  base = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return {
    url: base,
    apiUrl: `${base}/api/`,
    setAppUrl(url) {
      appUrl = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Same origin only. The playground acts as any demo user and sees their private messages, so a
 * page on another site must neither post to it (Origin, or Referer when a browser sends no Origin)
 * nor read it by pointing a name of its own at this address (DNS rebinding: the Host is then that
 * name). A Host is ours when it names this port on localhost or an IP address: no other site's
 * name. Undefined when the request may go on, else why not.
 */
export function refusal(req: IncomingMessage, path: string, port: number, ownName?: string): string | undefined {
  const host = req.headers.host ?? '';
  let hostname: string;
  try {
    const parsed = new URL(`http://${host}`);
    if ((parsed.port || '80') !== String(port)) return 'the Host is not this playground';
    hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  } catch {
    return 'the Host is not this playground';
  }
  if (hostname !== 'localhost' && hostname !== ownName && isIP(hostname) === 0) return 'the Host is not this playground';
  // The page's own requests; the app's (Web API, response_url) carry a bot token or a capability URL, and no Origin.
  if (req.method !== 'POST' || !path.startsWith('/playground/')) return undefined;
  const self = `http://${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === self ? undefined : 'a request from another site';
  const referer = req.headers.referer;
  if (referer === undefined) return 'a request that says neither its Origin nor its Referer';
  try {
    return new URL(referer).origin === self ? undefined : 'a request from another site';
  } catch {
    return 'a request from another site';
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

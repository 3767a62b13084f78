/**
 * Slack's side of Socket Mode, played on loopback. apps.connections.open is answered through
 * FakeSlack, at the Web API base the app is configured with, and only for the app-level token;
 * it hands out a one-time ws:// URL of a real WebSocket server that greets each connection with
 * `hello`, carries the envelopes a test sends and records the app's acks. It can ask the app to
 * reconnect (`disconnect`) or drop the connection, and counts connections and pings.
 *
 * The frames are those of Slack's Socket Mode documentation, as @slack/socket-mode reads them:
 *   hello       {type:'hello', num_connections, debug_info, connection_info:{app_id}}
 *   envelope    {envelope_id, type:'slash_commands'|'interactive'|'events_api', payload, accepts_response_payload}
 *   ack (app)   {envelope_id, payload}: payload is {} for a bare ack()
 *   disconnect  {type:'disconnect', reason:'refresh_requested'|'warning'|'link_disabled', debug_info}
 */

import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FakeSlack } from './fake-slack.js';

export const APP_ID = 'A0COUNTERSIGN';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

export interface Connection {
  /** 1 for the first connection the app opened, 2 for the next… */
  readonly id: number;
  open: boolean;
  /** Pings the app sent on this connection (each answered with a pong by `ws`). */
  pings: number;
  /** The close code, once closed: 1000 when the app closed it, 1006 when the socket was dropped. */
  closeCode: number | undefined;
}

export interface Ack {
  envelopeId: string;
  payload: Record<string, unknown> | undefined;
  /** The connection the ack came on. */
  connection: number;
}

export interface FakeSlackSocket {
  /** apps.connections.open calls, in order, and whether each carried the app-level token. */
  readonly opens: ReadonlyArray<{ authorized: boolean }>;
  readonly connections: readonly Connection[];
  readonly acks: readonly Ack[];
  /** Whatever the app sent that was not an ack: nothing, when it speaks Socket Mode right. */
  readonly stray: readonly string[];
  /** Sends an envelope on the newest open connection and returns its envelope_id. */
  send(type: EnvelopeType, payload: Record<string, unknown>): { envelopeId: string; connection: number };
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<Ack>;
  /** Waits until the app has opened `count` connections in all and the last one is open (hello sent). */
  waitForConnections(count: number, timeoutMs?: number): Promise<Connection>;
  waitForPings(connection: Connection, count: number, timeoutMs?: number): Promise<void>;
  waitForClose(connection: Connection, timeoutMs?: number): Promise<void>;
  /** Asks the app to reconnect, as Slack does before it recycles a connection. */
  disconnect(reason?: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  /** Drops the newest connection without a close frame, as a network failure would. */
  drop(): void;
  close(): Promise<void>;
}

export async function startFakeSlackSocket(slack: FakeSlack, options: { appToken: string }): Promise<FakeSlackSocket> {
  const changed = new EventEmitter();
  const opens: Array<{ authorized: boolean }> = [];
  const connections: Connection[] = [];
  const sockets = new Map<number, WebSocket>();
  const acks: Ack[] = [];
  const stray: string[] = [];
  // Like Slack's, each URL is good for one connection.
  const tickets = new Set<string>();
  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  server.on('upgrade', (req, socket, head) => {
    const ticket = new URL(req.url ?? '/', 'http://localhost').searchParams.get('ticket') ?? '';
    if (!tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function accept(ws: WebSocket): void {
    const connection: Connection = { id: connections.length + 1, open: true, pings: 0, closeCode: undefined };
    connections.push(connection);
    sockets.set(connection.id, ws);
    ws.on('ping', () => {
      connection.pings++;
      changed.emit('change');
    });
    ws.on('message', (data, isBinary) => {
      const text = data.toString();
      const message = isBinary ? undefined : parseJson(text);
      if (typeof message?.envelope_id !== 'string') return void stray.push(text);
      acks.push({ envelopeId: message.envelope_id, payload: message.payload, connection: connection.id });
      changed.emit('change');
    });
    ws.on('close', (code) => {
      connection.open = false;
      connection.closeCode = code;
      sockets.delete(connection.id);
      changed.emit('change');
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: sockets.size,
        debug_info: { host: 'applink-loopback', build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: APP_ID },
      }),
    );
    changed.emit('change');
  }

  slack.handle('apps.connections.open', ({ authorization }) => {
    const authorized = authorization === `Bearer ${options.appToken}`;
    opens.push({ authorized });
    changed.emit('change');
    if (!authorized) return { ok: false, error: 'invalid_auth' };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${ticket}&app_id=${APP_ID}` };
  });

  /**
   * Resolves once `check` gives a value. Rejects with `what` and the state seen when it has not within
   * `timeoutMs`, or at once when `hopeless` says it no longer can (e.g. the connection closed).
   */
  function waitFor<T>(check: () => T | undefined, what: () => string, timeoutMs: number, hopeless = () => false): Promise<T> {
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        changed.off('change', test);
        clearTimeout(timer);
        outcome();
      };
      const test = () => {
        const value = check();
        if (value !== undefined) settle(() => resolve(value));
        else if (hopeless()) settle(() => reject(new Error(what())));
      };
      const timer = setTimeout(() => settle(() => reject(new Error(`${what()} within ${timeoutMs} ms`))), timeoutMs);
      changed.on('change', test);
      test();
    });
  }

  const newest = (): [Connection, WebSocket] => {
    const connection = connections.findLast((c) => c.open);
    const ws = connection && sockets.get(connection.id);
    if (!connection || !ws) throw new Error(`the app has no open Socket Mode connection (connections: ${JSON.stringify(connections)})`);
    return [connection, ws];
  };

  return {
    opens,
    connections,
    acks,
    stray,
    send(type, payload) {
      const [connection, ws] = newest();
      const envelopeId = randomUUID();
      // Slack takes a response in the ack for commands and view submissions, not for clicks or events.
      const acceptsResponse = type === 'slash_commands' || (type === 'interactive' && payload.type === 'view_submission');
      ws.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: acceptsResponse,
          ...(type === 'events_api' ? { retry_attempt: 0, retry_reason: '' } : {}),
        }),
      );
      return { envelopeId, connection: connection.id };
    },
    waitForAck(envelopeId, timeoutMs = 10_000) {
      return waitFor(
        () => acks.find((a) => a.envelopeId === envelopeId),
        () => `no ack for envelope ${envelopeId} (acks: ${JSON.stringify(acks.map((a) => a.envelopeId))})`,
        timeoutMs,
      );
    },
    waitForConnections(count, timeoutMs = 15_000) {
      return waitFor(
        () => {
          const last = connections[count - 1];
          return connections.length >= count && last?.open ? last : undefined;
        },
        () => `the app did not open connection #${count} (opens: ${JSON.stringify(opens)}, connections: ${JSON.stringify(connections)})`,
        timeoutMs,
      );
    },
    waitForPings(connection, count, timeoutMs = 15_000) {
      return waitFor(
        () => (connection.pings >= count ? true : undefined),
        () => `connection #${connection.id} got ${connection.pings} of ${count} pings (open: ${connection.open})`,
        timeoutMs,
        () => !connection.open,
      ).then(() => undefined);
    },
    waitForClose(connection, timeoutMs = 10_000) {
      return waitFor(
        () => (connection.open ? undefined : true),
        () => `connection #${connection.id} is still open`,
        timeoutMs,
      ).then(() => undefined);
    },
    disconnect(reason = 'refresh_requested') {
      newest()[1].send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-loopback' } }));
    },
    drop() {
      newest()[1].terminate();
    },
    async close() {
      for (const ws of sockets.values()) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseJson(text: string): { envelope_id?: unknown; payload?: Record<string, unknown> } | undefined {
  try {
    return JSON.parse(text) as { envelope_id?: unknown; payload?: Record<string, unknown> };
  } catch {
    return undefined;
  }
}

export interface Envelopes {
  team: string;
  /** A slash command as Slack sends it in Socket Mode: the HTTP form's fields, as a JSON object. */
  command(o: { userId: string; command: string; text: string; responseUrl: string; channelId?: string }): Record<string, unknown>;
  /** A button click (block_actions) on an ephemeral message. */
  click(o: { userId: string; actionId: string; value: string | undefined; responseUrl: string }): Record<string, unknown>;
  /** A modal submission with plain-text input values by block id (each input's action id is `value`). */
  submit(o: { userId: string; view: Record<string, unknown>; viewId: string; values: Record<string, string> }): Record<string, unknown>;
}

/** Payloads in the shapes the HTTP harness posts, so that both modes are driven with the same requests. */
export function envelopes(team: string): Envelopes {
  const user = (userId: string) => ({ id: userId, username: userId.toLowerCase(), team_id: team });
  return {
    team,
    command: ({ userId, command, text, responseUrl, channelId = 'C0OPS' }) => ({
      token: 'legacy-verification-token',
      team_id: team,
      team_domain: 'example',
      channel_id: channelId,
      channel_name: 'identity-ops',
      user_id: userId,
      user_name: userId.toLowerCase(),
      command,
      text,
      api_app_id: APP_ID,
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: '1234.5678.socket',
    }),
    click: ({ userId, actionId, value, responseUrl }) => ({
      type: 'block_actions',
      user: user(userId),
      api_app_id: APP_ID,
      token: 'legacy-verification-token',
      container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0OPS', is_ephemeral: true },
      trigger_id: '1234.5678.socketclick',
      team: { id: team, domain: 'example' },
      channel: { id: 'C0OPS', name: 'identity-ops' },
      response_url: responseUrl,
      actions: [
        {
          action_id: actionId,
          block_id: 'b',
          type: 'button',
          action_ts: '1700000001.000200',
          text: { type: 'plain_text', text: 'x' },
          ...(value === undefined ? {} : { value }),
        },
      ],
    }),
    submit: ({ userId, view, viewId, values }) => ({
      type: 'view_submission',
      team: { id: team, domain: 'example' },
      user: user(userId),
      api_app_id: APP_ID,
      token: 'legacy-verification-token',
      trigger_id: '1234.5678.socketview',
      view: {
        ...view,
        id: viewId,
        team_id: team,
        state: {
          values: Object.fromEntries(
            Object.entries(values).map(([block, value]) => [block, { value: { type: 'plain_text_input', value } }]),
          ),
        },
      },
    }),
  };
}

/**
 * The real app, started as main.ts starts it, over signed HTTP, against the reference Command
 * Service, with Slack's servers played by FakeSlack. Each test file gets its own harness.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { loadSlackConfig } from '../../src/config.js';
import { type Overrides, type Running, startCountersign } from '../../src/main.js';
import { signSlackRequest } from '../../src/playground/sign.js';
import { type ReferenceService, type ReferenceServiceOptions, startReferenceService } from '../../src/reference-service/server.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';
import type { ServiceTimeouts } from '../../src/service/index.js';
import type { ServiceCommandName } from '../../src/store/index.js';
import { type FakeSlack, startFakeSlack } from './fake-slack.js';

export const SIGNING_SECRET = '0123456789abcdef0123456789abcdef';
export const TEAM = 'T0001';

export interface Harness {
  /** The running app; a new one after restart(). */
  readonly app: Running;
  /** Stops the app as SIGTERM would and starts it again on the same database. */
  restart(): Promise<void>;
  /**
   * One more instance with the harness's configuration, on the same database, service and Slack,
   * logging only errors (nowhere); the caller stops it. `startScheduler` and `now` as for startCountersign.
   */
  startInstance(overrides?: Pick<Overrides, 'now' | 'startScheduler'>): Promise<Running>;
  readonly url: string;
  slack: FakeSlack;
  service: ReferenceService;
  logs: string[];
  /** The demo token with this label, as the reference service printed it. */
  demoToken(label: string): string;
  link(userId: string, label: string, commands?: ServiceCommandName[]): Promise<void>;
  /** Trusted mode: maps a Slack user to a user of the service, as `countersign users map` does. */
  map(userId: string, serviceUser: string): Promise<void>;
  command(userId: string, command: '/approvals' | '/collect', text: string, options?: SignOptions): Promise<Sent>;
  click(userId: string, actionId: string, value: string | undefined, options?: SignOptions): Promise<Sent>;
  /** Picks an option of a static_select in a message (the "Details of…" select). */
  choose(userId: string, actionId: string, blockId: string, value: string, options?: SignOptions): Promise<Sent>;
  /** Clicks a button inside a modal the app opened, as Slack sends it: with the view, no response_url. */
  clickInView(userId: string, view: Record<string, unknown>, viewId: string, actionId: string, value: string | undefined): Promise<Sent>;
  /** Clicks a button on the user's App Home tab: the home view, no response_url. */
  clickOnHome(userId: string, actionId: string, value: string | undefined): Promise<Sent>;
  /** Sends an Events API event (JSON, signed), e.g. app_home_opened. */
  event(userId: string, event: Record<string, unknown>): Promise<Sent>;
  /** Submits a modal the app opened, with plain-text input values by block id. */
  submitView(
    userId: string,
    view: Record<string, unknown>,
    viewId: string,
    values: Record<string, string>,
    options?: SignOptions,
  ): Promise<Sent>;
  /** POSTs exactly this body and these headers to /slack/events (no signature unless given): for forged, replayed, malformed requests. */
  post(body: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export interface SignOptions {
  /** Seconds since the epoch for the signature; now by default. */
  timestamp?: number;
  /** Sign with another secret (a forgery). */
  secret?: string;
  /** Reuse a response_url (a button on an earlier message). */
  responseUrl?: { id: string; url: string };
  channelId?: string;
  /** Post to another instance (its base URL) on the same Slack, service and store, as a balancer may. */
  to?: string;
}

export interface Sent {
  status: number;
  ackMs: number;
  body: string;
  responseId: string;
}

export interface HarnessOptions {
  /** Use this base URL as the Command Service instead of the reference service. */
  serviceUrl?: string;
  reference?: ReferenceServiceOptions;
  serviceTimeouts?: Partial<ServiceTimeouts>;
  /** Further configuration variables (APPROVAL_URL_TEMPLATE, REMIND_WINDOW, DATABASE_URL…). */
  env?: Record<string, string>;
  /** The app's clock (the reference service keeps its own unless options.reference says). */
  now?: () => Date;
  reminders?: Overrides['reminders'];
  runWatch?: Overrides['runWatch'];
  reconcile?: Overrides['reconcile'];
  maxInFlight?: number;
  /** False: reminders run only when the test calls app.reminders.tick(). */
  startScheduler?: boolean;
  /** Where the app listens (127.0.0.1 by default). */
  host?: string;
  /** The trusted-application mode, with the reference service's client credentials (or this secret instead of its own). */
  trusted?: { clientSecret?: string } | undefined;
  appSignInBackoff?: Overrides['appSignInBackoff'];
  announceWithinMs?: number;
  /** Spacing of writes to one channel (1 s, as Slack asks, unless a test says). */
  perChannelMs?: number;
}

/** Signs as Slack does: the same code the playground signs with. */
export const sign = signSlackRequest;

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-e2e-'));
  // What the harness stamps (links, maps) is stamped on the app's clock, never the machine's.
  const now = options.now ?? (() => new Date());
  const slack = await startFakeSlack();
  const service = await startReferenceService(options.reference);
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (line) => logs.push(line) });
  const config = loadSlackConfig({
    SLACK_BOT_TOKEN: 'xoxb-0000-1111-e2etestbot',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    COMMAND_SERVICE_URL: options.serviceUrl ?? service.url,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    DATABASE_URL: `sqlite:${join(dir, 'countersign.db')}`,
    PORT: '0',
    LOG_LEVEL: 'debug',
    ...(options.trusted
      ? {
          COMMAND_SERVICE_CLIENT_ID: service.trustedApp.clientId,
          COMMAND_SERVICE_CLIENT_SECRET: options.trusted.clientSecret ?? service.trustedApp.clientSecret,
        }
      : {}),
    ...options.env,
  });
  const start = () =>
    startCountersign(config, {
      logger,
      host: options.host ?? '127.0.0.1',
      ...(options.serviceTimeouts ? { serviceTimeouts: options.serviceTimeouts } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.reminders ? { reminders: options.reminders } : {}),
      ...(options.runWatch ? { runWatch: options.runWatch } : {}),
      ...(options.reconcile ? { reconcile: options.reconcile } : {}),
      ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
      ...(options.startScheduler === undefined ? {} : { startScheduler: options.startScheduler }),
      ...(options.appSignInBackoff ? { appSignInBackoff: options.appSignInBackoff } : {}),
      ...(options.announceWithinMs === undefined ? {} : { announceWithinMs: options.announceWithinMs }),
      ...(options.perChannelMs === undefined ? {} : { perChannelMs: options.perChannelMs }),
    });
  let app = await start();
  let url = `http://127.0.0.1:${app.port}`;

  // Slack's trigger ids and event ids are unique per request; so are these, so that two requests
  // alike in all else are not the same signed request (which the app refuses as a replay).
  let sequence = 0;
  const unique = () => `${now().getTime()}.${++sequence}`;

  async function post(form: string, opts: SignOptions, responseId: string): Promise<Sent> {
    const timestamp = opts.timestamp ?? Math.floor(now().getTime() / 1000);
    const started = performance.now();
    const res = await request(`${opts.to ?? url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(form, opts.secret ?? SIGNING_SECRET, timestamp) },
      body: form,
    });
    const body = await res.body.text();
    return { status: res.statusCode, ackMs: performance.now() - started, body, responseId };
  }

  /** A click on a view (a modal, or Home) as Slack sends it: container type view, the view itself, no response_url. */
  const viewClick = (userId: string, view: Record<string, unknown>, actionId: string, value: string | undefined) => ({
    type: 'block_actions',
    user: { id: userId, username: userId.toLowerCase(), team_id: TEAM },
    api_app_id: 'A0COUNTERSIGN',
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: view.id },
    trigger_id: `1234.${unique()}`,
    team: { id: TEAM, domain: 'example' },
    view: { ...view, team_id: TEAM, state: { values: {} }, hash: '1700000000.abc' },
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
  });

  const demoToken = (label: string) => {
    const t = service.demoTokens.find((d) => d.label === label);
    if (!t) throw new Error(`no demo token ${label}`);
    return t.token;
  };

  return {
    get app() {
      return app;
    },
    startInstance: (overrides = {}) =>
      startCountersign(config, { logger: createLogger({ level: 'error', write: () => {} }), host: '127.0.0.1', ...overrides }),
    async restart() {
      await app.shutdown();
      app = await start();
      url = `http://127.0.0.1:${app.port}`;
    },
    get url() {
      return url;
    },
    slack,
    service,
    logs,
    demoToken,
    async link(userId, label, commands = ['findApprovals', 'collectEntitlements']) {
      await app.deps.store.setToken({ teamId: TEAM, userId }, commands, new Secret(demoToken(label)), 'admin', now());
    },
    async map(userId, serviceUser) {
      await app.deps.store.setIdentity({ teamId: TEAM, userId }, { serviceUser, authsource: undefined }, 'admin', now());
    },
    async command(userId, command, text, opts = {}) {
      const response = opts.responseUrl ?? slack.responseUrl();
      const form = new URLSearchParams({
        token: 'legacy-verification-token',
        team_id: TEAM,
        team_domain: 'example',
        channel_id: opts.channelId ?? 'C0OPS',
        channel_name: 'identity-ops',
        user_id: userId,
        user_name: userId.toLowerCase(),
        command,
        text,
        api_app_id: 'A0COUNTERSIGN',
        response_url: response.url,
        trigger_id: `1234.${unique()}`,
      }).toString();
      return post(form, opts, response.id);
    },
    async click(userId, actionId, value, opts = {}) {
      const response = opts.responseUrl ?? slack.responseUrl();
      const payload = {
        type: 'block_actions',
        user: { id: userId, username: userId.toLowerCase(), team_id: TEAM },
        api_app_id: 'A0COUNTERSIGN',
        token: 'legacy-verification-token',
        container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0OPS', is_ephemeral: true },
        trigger_id: `1234.${unique()}`,
        team: { id: TEAM, domain: 'example' },
        channel: { id: 'C0OPS', name: 'identity-ops' },
        response_url: response.url,
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
      };
      return post(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), opts, response.id);
    },
    async choose(userId, actionId, blockId, value, opts = {}) {
      const response = opts.responseUrl ?? slack.responseUrl();
      const payload = {
        type: 'block_actions',
        user: { id: userId, username: userId.toLowerCase(), team_id: TEAM },
        api_app_id: 'A0COUNTERSIGN',
        container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0OPS', is_ephemeral: true },
        trigger_id: `1234.${unique()}`,
        team: { id: TEAM, domain: 'example' },
        channel: { id: 'C0OPS', name: 'identity-ops' },
        response_url: response.url,
        actions: [
          {
            action_id: actionId,
            block_id: blockId,
            type: 'static_select',
            action_ts: '1700000001.000200',
            selected_option: { text: { type: 'plain_text', text: value }, value },
          },
        ],
      };
      return post(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), opts, response.id);
    },
    clickInView(userId, view, viewId, actionId, value) {
      return post(
        new URLSearchParams({
          payload: JSON.stringify(viewClick(userId, { ...view, id: viewId, type: 'modal' }, actionId, value)),
        }).toString(),
        {},
        '',
      );
    },
    clickOnHome(userId, actionId, value) {
      const view = { id: `VHOME${userId}`, type: 'home', blocks: [] };
      return post(new URLSearchParams({ payload: JSON.stringify(viewClick(userId, view, actionId, value)) }).toString(), {}, '');
    },
    async event(userId, event) {
      const body = JSON.stringify({
        token: 'legacy',
        team_id: TEAM,
        api_app_id: 'A0COUNTERSIGN',
        type: 'event_callback',
        event_id: `Ev${unique()}`,
        event_time: Math.floor(now().getTime() / 1000),
        event: { user: userId, ...event },
      });
      const started = performance.now();
      const res = await request(`${url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sign(body, SIGNING_SECRET, Math.floor(now().getTime() / 1000)) },
        body,
      });
      return { status: res.statusCode, ackMs: performance.now() - started, body: await res.body.text(), responseId: '' };
    },
    async submitView(userId, view, viewId, values, opts = {}) {
      const state = Object.fromEntries(
        Object.entries(values).map(([block, value]) => [block, { value: { type: 'plain_text_input', value } }]),
      );
      const payload = {
        type: 'view_submission',
        team: { id: TEAM, domain: 'example' },
        user: { id: userId, username: userId.toLowerCase(), team_id: TEAM },
        api_app_id: 'A0COUNTERSIGN',
        token: 'legacy-verification-token',
        trigger_id: `1234.${unique()}`,
        view: { ...view, id: viewId, team_id: TEAM, state: { values: state } },
      };
      return post(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), opts, '');
    },
    async post(body, headers) {
      const res = await request(`${url}/slack/events`, { method: 'POST', headers, body });
      return { status: res.statusCode, body: await res.body.text() };
    },
    async close() {
      await app.shutdown();
      await service.close();
      await slack.close();
      rmSync(dir, { recursive: true, force: true });
      // Every end-to-end test also checks that Slack would have taken everything the app sent.
      if (slack.refused.length > 0) throw new Error(`Slack would have refused what the app sent:\n${slack.refused.join('\n')}`);
    },
  };
}

/**
 * Fakes for use-case and adapter tests: a scripted Command Service that records every call, and
 * the whole deps object around a real SQLite store in memory, a fixed clock and fixed ids.
 */

import type { RespondArguments } from '@slack/bolt';
import { storedTokens, trustedApplication } from '../../src/accounts/credentials.js';
import { AppSession } from '../../src/accounts/trusted-app.js';
import type { ArrivalMessage } from '../../src/arrivals/ports.js';
import type { CollectStatus } from '../../src/collections/runs.js';
import { type CollectPolicy, readDecisions } from '../../src/config.js';
import { nextOccurrence } from '../../src/reminders/schedule.js';
import { Background } from '../../src/runtime/background.js';
import { createLogger } from '../../src/runtime/logger.js';
import { Metrics } from '../../src/runtime/metrics.js';
import { Secret } from '../../src/runtime/secret.js';
import type {
  ApprovalDetails,
  ApprovalQuery,
  ApprovalsPage,
  CollectionResult,
  CollectQuery,
  DecisionAnswer,
  DecisionValues,
  OptionalCommand,
  RequestItemsPage,
  RequestItemsPageQuery,
  RequestItemsSelector,
  ServiceClient,
} from '../../src/service/index.js';
import type { SlackDeps } from '../../src/slack/deps.js';
import { ShownMemory } from '../../src/slack/surfaces/shown.js';
import { PreparedBody } from '../../src/slack/web-api/responder.js';
import { SqliteStore } from '../../src/store/sqlite.js';

export type Call =
  | { command: 'findApprovals'; query: ApprovalQuery; token: string; onBehalfOf?: string }
  | { command: 'collectEntitlements'; query: CollectQuery; token: string; onBehalfOf?: string }
  | { command: 'loginUser'; username: string; authsource?: string }
  | { command: 'logoutUser'; token: string }
  | { command: 'getApprovalDetails'; approvalId: string; token: string; onBehalfOf?: string }
  | { command: 'getRequestItems'; selector: RequestItemsSelector; page: RequestItemsPageQuery; token: string; onBehalfOf?: string }
  | { command: 'loginTrustedApp'; clientId: string }
  | { command: 'decide'; values: DecisionValues; token: string; onBehalfOf?: string };

export interface ServiceScript {
  findApprovals?: (q: ApprovalQuery) => Promise<ApprovalsPage>;
  collect?: (q: CollectQuery) => Promise<CollectionResult>;
  login?: (username: string, password: string, authsource: string | undefined) => Promise<Secret>;
  loginApp?: (clientId: string, clientSecret: string) => Promise<Secret>;
  details?: (approvalId: string) => Promise<ApprovalDetails>;
  items?: (selector: RequestItemsSelector, page: RequestItemsPageQuery) => Promise<RequestItemsPage>;
  /** Resolves to the DecisionAnswer to give, or to nothing for a plain 200 that says nothing. */
  decide?: (values: DecisionValues) => Promise<unknown>;
  /** What offers() answers; every command is offered when absent. */
  offers?: (command: OptionalCommand) => boolean;
}

/** The script's entry for each client method a test may make fail. */
const SCRIPTED = {
  findApprovals: 'findApprovals',
  collectEntitlements: 'collect',
  getApprovalDetails: 'details',
  getRequestItems: 'items',
  loginUser: 'login',
  loginTrustedApp: 'loginApp',
  decide: 'decide',
} as const satisfies Record<string, keyof ServiceScript>;

/**
 * A script whose `command` fails with `error`, every call: `fakeService(failing('findApprovals', refused))`,
 * or spread beside the rest of a script.
 */
export function failing(command: keyof typeof SCRIPTED, error: unknown): ServiceScript {
  return {
    [SCRIPTED[command]]: async () => {
      throw error;
    },
  };
}

/** An approval's details as a service would give them, with what a test overrides. */
export function fakeDetails(over: Partial<ApprovalDetails> = {}): ApprovalDetails {
  return {
    workItemId: '10001:WPDS:1',
    workItemName: 'Manager Approval',
    state: 'Available',
    dueDate: '2026-11-20 09:00:00.0',
    completedDate: '',
    completedByName: '',
    reassignDisabled: false,
    requestId: '10001',
    requestName: 'Add Access for Wayne, Bruce: Domain Admins',
    requestedByName: 'Wayne, Bruce',
    description: 'Needs it for the audit.',
    notes: '',
    hasAttachments: false,
    emailApprovalEnabled: true,
    lineItemApprovalEnabled: false,
    actions: ['Accepted', 'Rejected'],
    fields: {},
    ...over,
  };
}

/** Only what was given: a call for nobody in particular leaves onBehalfOf out. */
const behalf = (options: { onBehalfOf?: string | undefined } | undefined) =>
  options?.onBehalfOf === undefined ? {} : { onBehalfOf: options.onBehalfOf };

export function fakeService(script: ServiceScript = {}) {
  const calls: Call[] = [];
  /** The order of service calls and answers, for "acked before anything else" checks. */
  const events: string[] = [];
  const service: ServiceClient = {
    async findApprovals(query, token, options) {
      events.push('service');
      calls.push({ command: 'findApprovals', query, token: token.reveal(), ...behalf(options) });
      return script.findApprovals ? script.findApprovals(query) : { approvals: [], count: 0 };
    },
    async collectEntitlements(query, token, options) {
      events.push('service');
      calls.push({ command: 'collectEntitlements', query, token: token.reveal(), ...behalf(options) });
      // As the service does: the run's collector is the one asked for by name.
      return script.collect ? script.collect(query) : { runs: [{ runId: '1', collector: query.name ?? 'AD Accounts' }] };
    },
    getRunStatus: async () => {
      throw new Error('not used');
    },
    async loginUser(credentials) {
      const { username, authsource } = credentials;
      calls.push(authsource === undefined ? { command: 'loginUser', username } : { command: 'loginUser', username, authsource });
      if (!script.login) throw new Error('not used');
      return script.login(username, credentials.password.reveal(), authsource);
    },
    async logoutUser(token) {
      calls.push({ command: 'logoutUser', token: token.reveal() });
    },
    async loginTrustedApp(credentials) {
      calls.push({ command: 'loginTrustedApp', clientId: credentials.clientId });
      if (!script.loginApp) throw new Error('not used');
      return script.loginApp(credentials.clientId, credentials.clientSecret.reveal());
    },
    async getApprovalDetails(approvalId, token, options) {
      events.push('service');
      calls.push({ command: 'getApprovalDetails', approvalId, token: token.reveal(), ...behalf(options) });
      return script.details ? script.details(approvalId) : fakeDetails({ workItemId: approvalId });
    },
    async getRequestItems(selector, page, token, options) {
      events.push('service');
      calls.push({ command: 'getRequestItems', selector, page, token: token.reveal(), ...behalf(options) });
      if (script.items) return script.items(selector, page);
      return { items: [], received: 0, count: 0, total: undefined, workItemId: '', requestId: '', requestStatus: '' };
    },
    async decide(_call, values, token, options) {
      events.push('service');
      calls.push({ command: 'decide', values, token: token.reveal(), ...behalf(options) });
      const answer = script.decide ? ((await script.decide(values)) as DecisionAnswer | undefined) : undefined;
      return answer ?? { status: 200 };
    },
    offers: (command) => script.offers?.(command) ?? true,
    withLogFields: () => service,
    close: async () => {},
  };
  return { service, calls, events };
}

export interface FakeDepsOptions {
  service?: ReturnType<typeof fakeService>;
  zone?: string;
  /** COMMAND_SERVICE_TIME_ZONE. */
  serviceTimeZone?: string;
  now?: string;
  policy?: Partial<CollectPolicy>;
  groups?: Record<string, string[]>;
  /** postStatus rejects with this Slack error (the bot is not in the channel, say). */
  postFails?: string;
  /** chat.postMessage takes this long before it answers (Slack being slow). */
  postTakesMs?: number;
  announceWithinMs?: number;
  /** The trusted-application mode, signing in with the scripted service's loginTrustedApp. */
  trusted?: boolean;
  /** DECISION_REQUEST (and its companions) as an operator would set them; unset: no decisions. */
  decisions?: Record<string, string>;
  decisionHoldMs?: number;
  /** NOTIFY_INTERVAL; unset: arrival messages off, as with `off`. */
  notifyIntervalMs?: number;
}

export function fakeDeps(options: FakeDepsOptions = {}) {
  const fake = options.service ?? fakeService();
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', write: (l) => logs.push(l) });
  let id = 0;
  const responses: RespondArguments[] = [];
  const posted: Array<{ channel: string; status: CollectStatus }> = [];
  /** The user groups whose members were asked of the chat port, in order. */
  const groupLookups: string[] = [];
  /** What the arrivals' outbox was asked, in order. */
  const arrivalCalls: Array<
    | { kind: 'announce'; message: ArrivalMessage }
    | { kind: 'redraw'; channel: string; ts: string; message: ArrivalMessage }
    | { kind: 'already-waiting'; userId: string; count: number }
  > = [];
  let responseUrlFails = false;
  const respond = async (r: RespondArguments | PreparedBody) => {
    fake.events.push('respond');
    if (responseUrlFails) throw new Error('response_url answered 404');
    // A page written as its JSON is looked at as Slack would read it.
    responses.push(r instanceof PreparedBody ? (JSON.parse(r.json) as RespondArguments) : r);
  };
  const store = new SqliteStore(':memory:', new Secret(Buffer.alloc(32, 5).toString('base64')));
  const now = () => new Date(options.now ?? '2026-11-22T06:30:00Z');
  const credentials = options.trusted
    ? trustedApplication({
        store,
        session: new AppSession({
          service: fake.service,
          credentials: { clientId: 'countersign', clientSecret: new Secret('client-secret-of-the-test') },
          maxAgeMs: 3_600_000,
          // The deps' clock as a test sets it: a token reaches its age limit when the test moves time on.
          now: () => deps.now(),
          logger,
        }),
        now,
        logger,
      })
    : storedTokens(store);
  const deps: SlackDeps = {
    service: fake.service,
    credentials,
    store,
    logger,
    metrics: new Metrics({ defaultMetrics: false }),
    now,
    newId: () => `id-${String(++id).padStart(6, '0')}`,
    timeZones: { lookup: async () => options.zone },
    background: new Background(logger),
    responder: { to: () => respond, close: async () => {} },
    shown: new ShownMemory(now),
    confirmationTtlMs: 60_000,
    serviceTimeZone: options.serviceTimeZone,
    firstPollMs: 3000,
    announceWithinMs: options.announceWithinMs ?? 1000,
    reminders: {
      windowDays: 3,
      plan: (_who, schedule, after) => {
        const nextAt = nextOccurrence(schedule, after);
        return { nextAt, dueAt: nextAt };
      },
    },
    approvalLinks: undefined,
    chat: {
      postStatus: async (channel, status) => {
        if (options.postTakesMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.postTakesMs));
        if (options.postFails) throw new Error(`An API error occurred: ${options.postFails}`);
        posted.push({ channel, status });
        return { ts: `1700000000.${String(posted.length).padStart(6, '0')}` };
      },
      updateStatus: async () => 'updated',
      tellAborted: async () => {},
      userGroupMembers: async (group) => {
        groupLookups.push(group);
        return options.groups?.[group] ?? [];
      },
    },
    arrivals: {
      announce: async (message) => {
        arrivalCalls.push({ kind: 'announce', message });
        return { channel: `D${message.userId.slice(1)}`, ts: `1700000000.${String(arrivalCalls.length).padStart(6, '0')}` };
      },
      redraw: async (channel, ts, message) => {
        arrivalCalls.push({ kind: 'redraw', channel, ts, message });
        return 'updated';
      },
      alreadyWaiting: async (userId, count) => {
        arrivalCalls.push({ kind: 'already-waiting', userId, count });
      },
    },
    notifyIntervalMs: options.notifyIntervalMs,
    collectPolicy: {
      allowedChannels: [],
      allowedUsers: [],
      allowedUserGroups: [],
      forceAllowedUsers: [],
      cooldownMs: 0,
      watchLimitMs: 3_600_000,
      ...options.policy,
    },
    decisions: options.decisions === undefined ? undefined : readDecisions(options.decisions),
    decisionHoldMs: options.decisionHoldMs ?? 90_000,
    decisionDeadlineMs: 25_000,
    stopping: () => false,
    commandsPerMinute: 20,
    maxInFlight: 1000,
  };
  /** Links both commands with an admin token `token-of-<user>`, at the fixed clock unless `at` says otherwise. */
  const link = (userId = 'UADA', teamId = 'T1', at: Date = deps.now()) =>
    deps.store.setToken({ teamId, userId }, ['findApprovals', 'collectEntitlements'], new Secret(`token-of-${userId}`), 'admin', at);
  const failResponseUrl = () => {
    responseUrlFails = true;
  };
  return { deps, fake, logs, responses, posted, groupLookups, arrivalCalls, respond, link, failResponseUrl };
}

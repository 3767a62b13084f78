/**
 * Local mode: the reference Command Service with its demo data, the playground standing in for
 * Slack, and the real app between them, configured as for Slack except for where Slack is.
 */

import { randomBytes } from 'node:crypto';
import { type HttpConfig, type LocalConfig, readDecisions } from '../config.js';
import { APPROVALS_USAGE } from '../parse/approvals.js';
import { COLLECT_USAGE } from '../parse/collect.js';
import type { RunTimings } from '../reference-service/commands.js';
import { PERFORM_WORK_ITEM_REQUEST, startReferenceService } from '../reference-service/server.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import { Secret } from '../runtime/secret.js';
import { resolveEncryptionKey, type ServiceCommandName, type Store } from '../store/index.js';
import { type PlaygroundUser, startPlayground } from './server.js';

export const LOCAL_TEAM = 'T0LOCAL';

export const LOCAL_USERS: readonly PlaygroundUser[] = [
  { id: 'U0DEMOADA', name: 'Ada Lovelace', role: 'approver', tz: 'Europe/London' },
  { id: 'U0DEMOOSCAR', name: 'Oscar Ops', role: 'ops engineer', tz: 'America/New_York' },
  { id: 'U0DEMOGRACE', name: 'Grace Hopper', role: 'approver and ops', tz: 'America/Los_Angeles' },
  { id: 'U0DEMONEW', name: 'Nadia New', role: 'new here, starts unlinked', tz: 'Asia/Tokyo' },
];

/** Which demo token of the reference service each playground user gets (Nadia gets none). */
const LOCAL_LINKS: ReadonlyArray<[userId: string, demoToken: string, commands: ServiceCommandName[]]> = [
  ['U0DEMOADA', 'approver', ['findApprovals']],
  ['U0DEMOOSCAR', 'ops', ['collectEntitlements']],
  ['U0DEMOGRACE', 'approver+ops', ['findApprovals', 'collectEntitlements']],
];

const LOCAL_SUGGESTIONS = [
  '/approvals',
  '/approvals help',
  '/approvals completed sort:desc',
  '/approvals due-before:7d',
  '/approvals entitlement-name:"Domain Admins" state:all',
  '/collect help',
  '/collect AD Accounts',
  '/collect application:"Active Directory"',
  '/collect',
  '/collect AWS IAM force',
];

/** What local mode needs of the app; main.ts's startCountersign is one. */
export interface LocalApp {
  port: number | undefined;
  deps: { store: Pick<Store, 'setToken' | 'setIdentity'> };
  shutdown(): Promise<void>;
}

export interface LocalOverrides {
  logger?: Logger;
  /** The one clock of local mode: the embedded service's, the stand-in's and the app's. */
  now?: () => Date;
  host?: string;
  reminders?: { spreadMs?: number; tickMs?: number };
  /** How often runs are looked at (tests: quicker than a person would notice). */
  runWatch?: { tickMs?: number; firstPollMs?: number; maxIntervalMs?: number };
  /** How long the embedded service's runs stay queued and running (tests: shorter than the demo's seconds). */
  runTimings?: Partial<RunTimings>;
}

/** Starts the app for a configuration: main.ts passes its own, so the playground does not depend on the composition root. */
export type StartApp = (config: HttpConfig, overrides: LocalOverrides) => Promise<LocalApp>;

export interface Local {
  url: string;
  running: LocalApp;
  shutdown(): Promise<void>;
}

export async function startLocal(config: LocalConfig, start: StartApp, { runTimings, ...overrides }: LocalOverrides = {}): Promise<Local> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  // One clock for the embedded service, the Slack stand-in and the app.
  const now = overrides.now ?? (() => new Date());
  const auth = config.serviceAuth;
  // In the trusted mode the embedded service trusts the application the configuration names.
  // Its times are written in COMMAND_SERVICE_TIME_ZONE when set, in its own zone otherwise; the app is told which.
  const reference = await startReferenceService({
    host: '127.0.0.1',
    now,
    timeZone: config.serviceTimeZone,
    ...(runTimings === undefined ? {} : { runTimings }),
    ...(auth.mode === 'trusted-app' ? { trustedApp: { clientId: auth.clientId, clientSecret: auth.clientSecret.reveal() } } : {}),
  });
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  const playground = await startPlayground({
    port: config.port,
    host: overrides.host,
    signingSecret,
    botToken,
    users: LOCAL_USERS,
    teamId: LOCAL_TEAM,
    channel: { id: 'C0IDENTITYOPS', name: 'identity-ops' },
    suggestions: LOCAL_SUGGESTIONS,
    usage: { '/approvals': APPROVALS_USAGE.replace(/^\/approvals /, ''), '/collect': COLLECT_USAGE.replace(/^\/collect /, '') },
    logger: logger.child({ component: 'playground' }),
    now,
  });
  const appConfig: HttpConfig = {
    ...config,
    mode: 'http',
    port: 0,
    commandServiceUrl: reference.url,
    // Decisions work out of the box here: the embedded service's own call, unless the operator states another.
    decisions: config.decisions ?? readDecisions({ DECISION_REQUEST: PERFORM_WORK_ITEM_REQUEST }),
    serviceTimeZone: reference.timeZone,
    tokenEncryptionKey: resolveEncryptionKey(config),
    slack: { botToken: new Secret(botToken), signingSecret: new Secret(signingSecret), apiUrl: playground.apiUrl },
  };
  const running = await start(appConfig, {
    // One user at a desk: a reminder set for 10:42 should come at 10:42, not spread over minutes.
    reminders: { spreadMs: 0, tickMs: 10_000 },
    ...overrides,
    logger,
    now,
    host: '127.0.0.1',
  });
  playground.setAppUrl(`http://127.0.0.1:${running.port}/slack/events`);
  // The reference service makes new demo tokens at each start; link them afresh (trusted mode: who each demo user is).
  for (const [userId, label, commands] of LOCAL_LINKS) {
    const demo = reference.demoTokens.find((t) => t.label === label);
    if (demo === undefined) continue;
    const who = { teamId: LOCAL_TEAM, userId };
    if (auth.mode === 'trusted-app')
      await running.deps.store.setIdentity(who, { serviceUser: demo.userId, authsource: undefined }, 'admin', now());
    // The demo knows whose each token is, as an admin linking by hand would: whoami names the account.
    else
      await running.deps.store.setToken(who, commands, new Secret(demo.token), 'admin', now(), {
        serviceUser: demo.userId,
        authsource: undefined,
      });
  }
  return {
    url: playground.url,
    running,
    async shutdown() {
      await running.shutdown();
      await playground.close();
      await reference.close();
    },
  };
}

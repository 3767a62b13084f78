/**
 * Local mode: the reference Command Service with its demo data, the playground standing in for
 * Slack, and the real app between them, configured as for Slack except for where Slack is.
 *
 * The service's data lives beside countersign's (`reference.db` in the data directory), so that
 * the two stay true to each other across a restart: a decision made in the playground is in both,
 * or, with an in-memory database, in neither. Kept apart (the service's data made afresh at each
 * start, countersign's kept), an approval decided before came back waiting, beside "Accepted by you".
 */

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type HttpConfig, type LocalConfig, readDecisions } from '../config.js';
import { APPROVALS_USAGE } from '../parse/approvals.js';
import { COLLECT_USAGE } from '../parse/collect.js';
import { type ArrivedApproval, UnknownServiceUser } from '../reference-service/arrivals.js';
import type { RunTimings } from '../reference-service/commands.js';
import { type Db, openReferenceDb } from '../reference-service/db.js';
import { loadDemoData, serviceZoneOf } from '../reference-service/demo.js';
import { PERFORM_WORK_ITEM_REQUEST, type ReferenceService, startReferenceService } from '../reference-service/server.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import { Secret } from '../runtime/secret.js';
import { resolveEncryptionKey, type ServiceCommandName, type Store } from '../store/index.js';
import { type ArrivalNote, type PlaygroundUser, startPlayground } from './server.js';

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
  deps: { store: Pick<Store, 'setToken' | 'setIdentity' | 'getToken' | 'getIdentity'> };
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
  /** How often the app looks for approvers due a check (tests: quicker than a person would notice). */
  arrivals?: { tickMs?: number; intervalMs?: number };
}

/** Starts the app for a configuration: main.ts passes its own, so the playground does not depend on the composition root. */
export type StartApp = (config: HttpConfig, overrides: LocalOverrides) => Promise<LocalApp>;

export interface Local {
  url: string;
  running: LocalApp;
  /** Where the data of both is kept, in the words the page and the terminal say it. */
  data: LocalData;
  shutdown(): Promise<void>;
}

/** Whether local mode's data outlives it: both countersign's and the service's, or neither. */
export type LocalData =
  /** `dir` as the configuration names it (./data by default); `note`: something a person should know of what was found there. */
  { kept: true; dir: string; note?: string | undefined } | { kept: false };

/** The sentence the page and the terminal say of the data. */
export function dataSentence(data: LocalData): string {
  return data.kept
    ? `Data kept in ${data.dir} (countersign's and the demo service's): delete it to start afresh.`
    : 'Data is not kept (an in-memory database): each start begins afresh.';
}

/**
 * The service's data for this configuration: in the data directory beside countersign's SQLite
 * file (or ./data, beside the encryption key, when countersign's is PostgreSQL), made with the demo
 * data when new; in memory, as countersign's, for `sqlite::memory:`.
 */
function referenceData(config: LocalConfig, now: Date): { db: Db; data: LocalData } {
  const database = config.database;
  if (database.kind === 'sqlite' && database.path === ':memory:') {
    const db = openReferenceDb(':memory:');
    loadDemoData(db, now, { timeZone: config.serviceTimeZone });
    return { db, data: { kept: false } };
  }
  const dir = database.kind === 'sqlite' ? dirname(database.path) : 'data';
  const path = join(dir, 'reference.db');
  const fresh = !existsSync(path);
  // countersign's own records from a start that kept the service's data elsewhere (in memory, before it was kept here).
  const recordsBefore = database.kind === 'sqlite' && existsSync(database.path);
  mkdirSync(dir, { recursive: true });
  const db = openReferenceDb(path);
  const empty = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM users').get()?.n === 0;
  if (fresh || empty) loadDemoData(db, now, { timeZone: config.serviceTimeZone });
  const zone = serviceZoneOf(db);
  let note: string | undefined;
  if ((fresh || empty) && recordsBefore)
    note = `The demo service's data in ${dir} is new, but countersign's is kept from an earlier start: approvals decided then may show as waiting again. Delete ${dir} to start both afresh.`;
  else if (config.serviceTimeZone !== undefined && config.serviceTimeZone !== zone)
    note = `The demo service's data in ${dir} was written in ${zone}, not COMMAND_SERVICE_TIME_ZONE=${config.serviceTimeZone}: delete ${dir} to start afresh in ${config.serviceTimeZone}.`;
  return { db, data: { kept: true, dir, note } };
}

export async function startLocal(config: LocalConfig, start: StartApp, { runTimings, ...overrides }: LocalOverrides = {}): Promise<Local> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  // One clock for the embedded service, the Slack stand-in and the app.
  const now = overrides.now ?? (() => new Date());
  const auth = config.serviceAuth;
  const { db, data } = referenceData(config, now());
  if (data.kept && data.note !== undefined) logger.warn({ data: data.dir }, data.note);
  // In the trusted mode the embedded service trusts the application the configuration names.
  // Its times are written in the zone its data was (COMMAND_SERVICE_TIME_ZONE when set, its own otherwise); the app is told which.
  let reference: Awaited<ReturnType<typeof startReferenceService>>;
  try {
    reference = await startReferenceService({
      db,
      host: '127.0.0.1',
      now,
      ...(runTimings === undefined ? {} : { runTimings }),
      ...(auth.mode === 'trusted-app' ? { trustedApp: { clientId: auth.clientId, clientSecret: auth.clientSecret.reveal() } } : {}),
    });
  } catch (error) {
    db.close();
    throw error;
  }
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-local-${randomBytes(12).toString('hex')}`;
  // Set once the app runs: the page's control needs its store to know whose account a demo user is linked as.
  let app: LocalApp | undefined;
  let playground: Awaited<ReturnType<typeof startPlayground>>;
  try {
    playground = await startPlayground({
      port: config.port,
      host: overrides.host,
      signingSecret,
      botToken,
      users: LOCAL_USERS,
      teamId: LOCAL_TEAM,
      channel: { id: 'C0IDENTITYOPS', name: 'identity-ops' },
      suggestions: LOCAL_SUGGESTIONS,
      usage: { '/approvals': APPROVALS_USAGE.replace(/^\/approvals /, ''), '/collect': COLLECT_USAGE.replace(/^\/collect /, '') },
      dataNote: [dataSentence(data), ...(data.kept && data.note !== undefined ? [data.note] : [])].join(' '),
      logger: logger.child({ component: 'playground' }),
      now,
      arrive: (userId) =>
        app === undefined
          ? Promise.resolve({ arrived: false, said: 'The app is not running yet.' })
          : makeArrive(
              { store: app.deps.store, reference, trusted: auth.mode === 'trusted-app', notifyIntervalMs: config.notifyIntervalMs },
              userId,
            ),
    });
  } catch (error) {
    await reference.close();
    db.close();
    throw error;
  }
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
    // Someone who just made an approval arrive waits for it: who is due a check is looked at every second.
    arrivals: { tickMs: 1_000 },
    ...overrides,
    logger,
    now,
    host: '127.0.0.1',
  });
  app = running;
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
    data,
    async shutdown() {
      await running.shutdown();
      await playground.close();
      await reference.close();
      db.close();
    },
  };
}

interface ArriveDeps {
  store: LocalApp['deps']['store'];
  reference: Pick<ReferenceService, 'arrive' | 'tokens'>;
  trusted: boolean;
  /** How often each approver's list is checked; undefined: arrival messages are off (NOTIFY_INTERVAL=off). */
  notifyIntervalMs: number | undefined;
}

/**
 * The page's "Make an approval arrive": the demo service gives the account this demo user is linked
 * as (the identity of the trusted mode, or whose their findApprovals token is) a new pending
 * approval, now; the app notices it at its next check of them and sends the DM, as it would
 * for any approval that arrives. Never a message sent from here: only the app's own check tells.
 */
export async function makeArrive(deps: ArriveDeps, userId: string): Promise<ArrivalNote> {
  const user = LOCAL_USERS.find((u) => u.id === userId);
  const name = user?.name ?? userId;
  const who = { teamId: LOCAL_TEAM, userId };
  let account: string | undefined;
  let works = true;
  if (deps.trusted) account = (await deps.store.getIdentity(who))?.serviceUser;
  else {
    const link = await deps.store.getToken(who, 'findApprovals');
    const owner = link === undefined ? undefined : deps.reference.tokens.whose(link.token.reveal());
    account = owner?.userId;
    works = owner !== undefined && !owner.ended;
  }
  if (account === undefined)
    return { arrived: false, said: `${name} has no account linked for /approvals: type /approvals login first, or be another user.` };
  let arrived: ArrivedApproval;
  try {
    arrived = deps.reference.arrive(account);
  } catch (error) {
    if (error instanceof UnknownServiceUser) return { arrived: false, said: `The demo service has no user ${account}: nothing arrived.` };
    throw error;
  }
  const what = `“${arrived.requestName}” (${arrived.workItemName}, ${arrived.workItemId}) arrived for ${account} in the demo service.`;
  if (deps.notifyIntervalMs === undefined)
    return { arrived: true, said: `${what} Arrival messages are off here (NOTIFY_INTERVAL=off): /approvals lists it.` };
  if (!works)
    return {
      arrived: true,
      said: `${what} The service no longer takes ${name}'s token: link again (/approvals login) and the checks resume.`,
    };
  return {
    arrived: true,
    said: `${what} countersign checks each approver's list every ${spoken(deps.notifyIntervalMs)}: the message comes to 💬 Messages at the next check (unless /approvals notify is off or in quiet hours).`,
  };
}

function spoken(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}

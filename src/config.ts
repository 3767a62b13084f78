/**
 * Configuration: the environment, read once and checked whole, into a frozen typed Config.
 * The only module that reads process.env (and only through the env it is given). A bad value
 * stops the app with a message naming the variable, what is wrong, and an example.
 */

import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from './runtime/logger.js';
import { Secret } from './runtime/secret.js';
import { type DecisionCall, parseDecisionCall } from './service/decision-call.js';
import { LONE_SURROGATE } from './service/query.js';
import { canonicalZone } from './time/zones.js';

export type Mode = Config['mode'];

export type DatabaseTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: Secret };

/**
 * What every mode has. Each mode's own type says what it requires, so code downstream of
 * loadConfig never asks again whether a setting is there.
 */
interface CommonConfig {
  readonly port: number;
  readonly database: DatabaseTarget;
  /** The key being rotated away from: still read, never written. */
  readonly tokenEncryptionKeyPrevious: Secret | undefined;
  readonly logLevel: LogLevel;
  /** The service's own page for one approval, with {WorkItemId} where its id goes; "Open" buttons when set. */
  readonly approvalUrlTemplate: string | undefined;
  /** Reminders list approvals overdue or due within this many days. */
  readonly remindWindowDays: number;
  /** Digests' calls to the Command Service in flight at once, on all instances sharing the store together. */
  readonly reminderConcurrency: number;
  readonly collect: CollectPolicy;
  /** Slash commands one user may send a minute (per instance); 0 turns the limit off. */
  readonly commandsPerMinute: number;
  /** The longest a Command Service call may take, first byte to last, retry included. */
  readonly serviceTimeoutMs: number;
  /** GET /metrics needs `Authorization: Bearer <it>`; unset: answered only to loopback, not through a proxy. */
  readonly metricsToken: Secret | undefined;
  /** How long a stop waits for work in flight before it gives up on it and exits. */
  readonly shutdownTimeoutMs: number;
  /** How calls are made for people: each one's own token, or the app's own as a trusted application. */
  readonly serviceAuth: ServiceAuth;
  /**
   * The IANA zone the service writes its zone-less times in (COMMAND_SERVICE_TIME_ZONE): they are
   * then shown in each reader's own zone. Undefined: shown as written, as the service's time.
   */
  readonly serviceTimeZone: string | undefined;
  /** DECISION_REQUEST: approvers decide in chat with this call; undefined: the decision stays in the service (Open). */
  readonly decisions: DecisionsConfig | undefined;
}

/** The operator's decision call, and which actions need a comment. */
export interface DecisionsConfig {
  readonly call: DecisionCall;
  /** Action names (lower case) whose comment may not be empty. */
  readonly commentRequired: readonly string[];
  /** Whether the call sends a comment at all: when it does not, the approver is not asked for one. */
  readonly carriesComment: boolean;
}

/**
 * 'user-tokens' (the default): each user's own token, linked by signing in or pasting it.
 * 'trusted-app' (COMMAND_SERVICE_CLIENT_ID and _SECRET): the app signs in as itself
 * (loginTrustedApp) and acts for each user with auth-user-id; users link their identity once.
 */
export type ServiceAuth =
  | { readonly mode: 'user-tokens' }
  | {
      readonly mode: 'trusted-app';
      readonly clientId: string;
      readonly clientSecret: Secret;
      /** The app's token is replaced once it is this old, whatever the service says. */
      readonly maxTokenAgeMs: number;
    };

/** No Slack credentials: the embedded reference service and the playground stand in for both ends. */
export interface LocalConfig extends CommonConfig {
  readonly mode: 'local';
  /** Generated into the data directory (0600) when unset. */
  readonly tokenEncryptionKey: Secret | undefined;
}

export interface SlackCredentials {
  readonly botToken: Secret;
  readonly signingSecret: Secret;
  /** Slack Web API base, e.g. https://slack.com/api/ (GovSlack, tests, the playground). */
  readonly apiUrl: string | undefined;
}

interface ConnectedConfig extends CommonConfig {
  /** base_url of the Command Service. */
  readonly commandServiceUrl: string;
  readonly tokenEncryptionKey: Secret;
}

/** Slack sends signed HTTP requests to POST /slack/events. */
export interface HttpConfig extends ConnectedConfig {
  readonly mode: 'http';
  readonly slack: SlackCredentials;
}

/** The app opens a WebSocket to Slack with an app-level token. */
export interface SocketConfig extends ConnectedConfig {
  readonly mode: 'socket';
  readonly slack: SlackCredentials & { readonly appToken: Secret };
}

export type SlackConfig = HttpConfig | SocketConfig;
export type Config = LocalConfig | SlackConfig;

/** Where an approval's id goes in APPROVAL_URL_TEMPLATE. */
export const APPROVAL_URL_PLACEHOLDER = '{WorkItemId}';

/**
 * The service's page for an approval, from APPROVAL_URL_TEMPLATE (the id URL-encoded); undefined
 * without a template, and for an id no URL can carry (half a surrogate pair), which then goes
 * without its Open button rather than taking the whole page down.
 */
export function approvalPages(template: string | undefined): ((workItemId: string) => string | undefined) | undefined {
  if (template === undefined) return undefined;
  const parts = template.split(APPROVAL_URL_PLACEHOLDER);
  return (workItemId) => (LONE_SURROGATE.test(workItemId) ? undefined : parts.join(encodeURIComponent(workItemId)));
}

/** Who may start collections, where; empty lists mean no restriction of that kind. */
export interface CollectPolicy {
  readonly allowedChannels: readonly string[];
  readonly allowedUsers: readonly string[];
  readonly allowedUserGroups: readonly string[];
  /** Who may force (or start again within the cooldown); empty: anyone who may collect. */
  readonly forceAllowedUsers: readonly string[];
  /** The same collection is not started twice within this; 0 turns it off. */
  readonly cooldownMs: number;
  /** How long a collection's runs are watched before the channel message stops updating. */
  readonly watchLimitMs: number;
}

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string, example: string) {
    super(`${variable} ${problem}. Example: ${variable}=${example}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_DATABASE_URL = 'sqlite:./data/countersign.db';

/** REMINDER_CONCURRENCY's default: what an on-premises service answers alongside its own users without notice. */
export const DEFAULT_REMINDER_CONCURRENCY = 4;

interface Rule<T> {
  variable: string;
  example: string;
  schema: z.ZodType<T>;
  /** Read exactly as set: a secret is never trimmed behind the operator's back (its schema says what is wrong). */
  exact?: true;
}

function read<T>(env: Env, rule: Rule<T>): T {
  const raw = env[rule.variable];
  const value = raw === undefined || raw.trim() === '' ? undefined : rule.exact ? raw : raw.trim();
  const parsed = rule.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(rule.variable, parsed.error.issues[0]?.message ?? 'is not valid', rule.example);
}

const httpUrl = (what: string) =>
  z.string().refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  }, `must be an http(s) URL without credentials (${what})`);

const prefixed = (prefix: string, what: string) =>
  z
    .string()
    .refine((v) => v.startsWith(prefix) && v.length > prefix.length + 8, `must be ${what}, starting with ${prefix}`)
    .transform((v) => new Secret(v));

/** An AES-256 key: the base64 of exactly 32 bytes. */
const encryptionKey = z
  .string()
  .refine(
    (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32,
    'must be the base64 of exactly 32 random bytes',
  )
  .transform((v) => new Secret(v));

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `1h`, `2d`, or `0`; at most a week. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,6})\s*([smhd])?$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[2] === undefined) return n === 0 ? 0 : undefined;
  const ms = n * (DURATION_UNITS[m[2].toLowerCase()] as number);
  return ms <= 7 * 86_400_000 ? ms : undefined;
}

const duration = (zero: string, min = 0) =>
  z
    .string()
    .transform((v) => parseDuration(v))
    .refine((v): v is number => v !== undefined && v >= min, `must be a duration like 90s, 10m or 1h, up to 7d (${zero})`)
    .transform((v) => v as number);

/**
 * An IANA zone this runtime knows, by its canonical name (`europe/berlin` is read as Europe/Berlin).
 * Offsets (+01:00) are refused: a fixed offset is wrong half the year wherever clocks change.
 */
const ianaZone = z.string().transform((v, ctx) => {
  const zone = canonicalZone(v);
  if (zone !== undefined) return zone;
  ctx.addIssue({
    code: 'custom',
    message: `must be an IANA time zone name, the zone the service writes its times in (“${v.slice(0, 40)}” is not one)`,
  });
  return z.NEVER;
});

/** Both client credentials or neither: one alone is a mistake, said at start rather than at the first user's call. */
function readServiceAuth(env: Env): ServiceAuth {
  const clientId = read(env, {
    variable: 'COMMAND_SERVICE_CLIENT_ID',
    example: 'countersign',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be the ClientId of the Trusted Application page: 1 to 256 visible characters, without spaces')
      .optional(),
  });
  // The value never appears in a message: only what is wrong with it.
  const clientSecret = read(env, {
    variable: 'COMMAND_SERVICE_CLIENT_SECRET',
    example: '<the ClientSecret of the Trusted Application page>',
    exact: true,
    schema: z
      .string()
      .refine((v) => !/^\s|\s$/.test(v), 'starts or ends with a space or line break: set the ClientSecret exactly, without them')
      .regex(/^[\x20-\x7e]{8,1024}$/, 'must be the ClientSecret of the Trusted Application page: 8 to 1024 visible characters')
      .transform((v) => new Secret(v))
      .optional(),
  });
  const maxTokenAgeMs = read(env, {
    variable: 'COMMAND_SERVICE_APP_TOKEN_MAX_AGE',
    example: '1h',
    schema: duration('from 1m to 1d')
      .refine((ms) => ms >= 60_000 && ms <= 86_400_000, 'must be from 1m to 1d')
      .optional(),
  });
  if (clientId !== undefined && clientSecret === undefined)
    throw new ConfigError(
      'COMMAND_SERVICE_CLIENT_SECRET',
      'is required when COMMAND_SERVICE_CLIENT_ID is set (trusted-application mode: both or neither)',
      '<the ClientSecret of the Trusted Application page>',
    );
  if (clientSecret !== undefined && clientId === undefined)
    throw new ConfigError(
      'COMMAND_SERVICE_CLIENT_ID',
      'is required when COMMAND_SERVICE_CLIENT_SECRET is set (trusted-application mode: both or neither)',
      'countersign',
    );
  if (clientId === undefined || clientSecret === undefined) {
    if (maxTokenAgeMs !== undefined)
      throw new ConfigError(
        'COMMAND_SERVICE_APP_TOKEN_MAX_AGE',
        'is only used in the trusted-application mode: set COMMAND_SERVICE_CLIENT_ID and COMMAND_SERVICE_CLIENT_SECRET too, or unset it',
        '1h',
      );
    return Object.freeze({ mode: 'user-tokens' });
  }
  return Object.freeze({ mode: 'trusted-app', clientId, clientSecret, maxTokenAgeMs: maxTokenAgeMs ?? 3_600_000 });
}

export const DECISION_REQUEST_EXAMPLE = 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}';
const DECISION_BODY_EXAMPLE = '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>';

/**
 * DECISION_REQUEST and its companions, read together: unset, nothing is decided in chat, and the
 * companions are a mistake said at start. Exported for local mode, which states the reference
 * service's own call.
 */
export function readDecisions(env: Env): DecisionsConfig | undefined {
  const request = env.DECISION_REQUEST?.trim() || undefined;
  // A body is taken as written: its spaces and line breaks may matter to the service.
  const body = env.DECISION_REQUEST_BODY?.trim() ? env.DECISION_REQUEST_BODY : undefined;
  const required = read(env, {
    variable: 'DECISION_COMMENT_REQUIRED',
    example: 'Rejected,Needs Info',
    schema: z
      .string()
      .transform((v) => v.split(',').map((name) => name.trim().toLowerCase()))
      .refine(
        (names) => names.every((n) => /^[^\u0000-\u001f\u007f]{1,64}$/.test(n)),
        'must be action names (as getApprovalDetails lists them) separated by commas, or none',
      )
      .optional(),
  });
  if (request === undefined) {
    for (const [variable, set, example] of [
      ['DECISION_REQUEST_BODY', body, DECISION_BODY_EXAMPLE],
      ['DECISION_COMMENT_REQUIRED', required, 'Rejected'],
    ] as const)
      if (set !== undefined)
        throw new ConfigError(variable, 'is only used with DECISION_REQUEST: set it too (the decision call), or unset this', example);
    return undefined;
  }
  const parsed = parseDecisionCall(request, body);
  if (!parsed.ok) {
    const variable = parsed.variable ?? 'DECISION_REQUEST';
    throw new ConfigError(variable, parsed.problem, variable === 'DECISION_REQUEST' ? DECISION_REQUEST_EXAMPLE : DECISION_BODY_EXAMPLE);
  }
  const commentRequired = required === undefined ? ['rejected'] : required.length === 1 && required[0] === 'none' ? [] : required;
  const carriesComment = [...parsed.value.query.flatMap((q) => q.value), ...(parsed.value.body?.template ?? [])].some(
    (part) => 'value' in part && part.value === 'comment',
  );
  // A comment the approver must type and the call never sends would be dropped without a word.
  if (commentRequired.length > 0 && !carriesComment)
    throw new ConfigError(
      'DECISION_REQUEST',
      `has no {comment}${body === undefined ? '' : ', nor has DECISION_REQUEST_BODY'}, while DECISION_COMMENT_REQUIRED ${
        required === undefined ? '(by default) ' : ''
      }asks for a comment on ${commentRequired.join(', ')}: the comment would never reach the service. Put {comment} in the call, or set DECISION_COMMENT_REQUIRED=none`,
      DECISION_REQUEST_EXAMPLE,
    );
  return Object.freeze({ call: parsed.value, commentRequired: Object.freeze(commentRequired), carriesComment });
}

/**
 * The environment, area by area. A bad value stops at the first reader that meets it; each reader
 * checks its own variables together (both client credentials or neither, a previous key only with a
 * current one), and what depends on the mode is checked last, once the mode is known.
 */
export function loadConfig(env: Env): Config {
  const slack = readSlack(env);
  const serviceUrl = commandServiceUrlOf(env);
  const { logLevel, ...server } = readServer(env);
  const { tokenEncryptionKey, ...store } = readStore(env);
  const common: Omit<CommonConfig, 'logLevel'> = {
    ...server,
    ...store,
    ...readOperations(env),
    ...readService(env),
    collect: readCollectPolicy(env),
  };
  // At a desk, the terminal should show the address to open, not a stream of JSON: local mode logs warnings unless asked for more.
  if (slack === undefined) return Object.freeze({ ...common, logLevel: logLevel ?? 'warn', mode: 'local', tokenEncryptionKey });
  return connected({ ...common, logLevel: logLevel ?? 'info' }, slack, serviceUrl, tokenEncryptionKey);
}

/** The Slack credentials, when set: the bot token and signing secret together, and an app token only with them. */
function readSlack(env: Env): (SlackCredentials & { readonly appToken: Secret | undefined }) | undefined {
  const botToken = read(env, {
    variable: 'SLACK_BOT_TOKEN',
    example: 'xoxb-1234-5678-abcdef',
    schema: prefixed('xoxb-', 'a bot token').optional(),
  });
  const signingSecret = read(env, {
    variable: 'SLACK_SIGNING_SECRET',
    example: '8f742231b10e8888abcd99yyyzzz85a5',
    schema: z
      .string()
      .regex(/^[0-9a-f]{32}$/i, 'must be the 32 hex characters of the app’s Signing Secret (Basic Information page)')
      .transform((v) => new Secret(v))
      .optional(),
  });
  const appToken = read(env, {
    variable: 'SLACK_APP_TOKEN',
    example: 'xapp-1-A0123-4567-abcdef',
    schema: prefixed('xapp-', 'an app-level token').optional(),
  });
  if (botToken && !signingSecret)
    throw new ConfigError('SLACK_SIGNING_SECRET', 'is required when SLACK_BOT_TOKEN is set', '8f742231b10e8888abcd99yyyzzz85a5');
  if (signingSecret && !botToken)
    throw new ConfigError('SLACK_BOT_TOKEN', 'is required when SLACK_SIGNING_SECRET is set', 'xoxb-1234-5678-abcdef');
  if (appToken && !botToken)
    throw new ConfigError('SLACK_BOT_TOKEN', 'is required when SLACK_APP_TOKEN is set (Socket Mode)', 'xoxb-1234-5678-abcdef');
  const apiUrl = read(env, {
    variable: 'SLACK_API_URL',
    example: 'https://slack.com/api/',
    schema: httpUrl('the Slack Web API base').optional(),
  });
  if (botToken === undefined || signingSecret === undefined) return undefined;
  return { botToken, signingSecret, apiUrl, appToken };
}

/** The process itself: where it listens, what it logs, who may read its metrics, how long a stop may take. */
function readServer(env: Env): Pick<CommonConfig, 'port' | 'metricsToken' | 'shutdownTimeoutMs'> & { logLevel: LogLevel | undefined } {
  const port = read(env, {
    variable: 'PORT',
    example: '3000',
    schema: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535 (0 picks a free port)')
      .transform(Number)
      .refine((n) => n <= 65_535, 'must be a port number from 0 to 65535 (0 picks a free port)')
      .optional(),
  });
  const logLevel = read(env, {
    variable: 'LOG_LEVEL',
    example: 'info',
    schema: z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]], { message: `must be one of ${LOG_LEVELS.join(', ')}` }))
      .optional(),
  });
  const metricsToken = read(env, {
    variable: 'METRICS_TOKEN',
    example: '$(openssl rand -hex 32)',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]{16,512}$/, 'must be 16 to 512 visible characters, without spaces')
      .transform((v) => new Secret(v))
      .optional(),
  });
  const shutdownTimeoutMs = read(env, {
    variable: 'SHUTDOWN_TIMEOUT',
    example: '30s',
    schema: duration('at least 1s', 1000).optional(),
  });
  return { port: port ?? 3000, logLevel, metricsToken, shutdownTimeoutMs: shutdownTimeoutMs ?? 30_000 };
}

/** The store: where it is, and the keys its tokens are encrypted with (a previous one only beside a current one). */
function readStore(env: Env): Pick<CommonConfig, 'database' | 'tokenEncryptionKeyPrevious'> & { tokenEncryptionKey: Secret | undefined } {
  const database = read(env, {
    variable: 'DATABASE_URL',
    example: 'postgres://countersign@db.internal:5432/countersign',
    schema: z
      .string()
      .optional()
      .transform((v) => v ?? DEFAULT_DATABASE_URL)
      .pipe(
        z.string().transform((v, ctx): DatabaseTarget => {
          if (v.startsWith('sqlite:') && v.length > 'sqlite:'.length) return { kind: 'sqlite', path: v.slice('sqlite:'.length) };
          if (/^postgres(ql)?:\/\/./.test(v)) return { kind: 'postgres', url: new Secret(v) };
          ctx.addIssue({ code: 'custom', message: 'must be sqlite:<path> or postgres://…' });
          return z.NEVER;
        }),
      ),
  });
  const tokenEncryptionKey = read(env, {
    variable: 'TOKEN_ENCRYPTION_KEY',
    example: '$(openssl rand -base64 32)',
    schema: encryptionKey.optional(),
  });
  const tokenEncryptionKeyPrevious = read(env, {
    variable: 'TOKEN_ENCRYPTION_KEY_PREVIOUS',
    example: '<the TOKEN_ENCRYPTION_KEY being replaced>',
    schema: encryptionKey.optional(),
  });
  if (tokenEncryptionKeyPrevious !== undefined && tokenEncryptionKey === undefined) {
    throw new ConfigError('TOKEN_ENCRYPTION_KEY', 'is required when TOKEN_ENCRYPTION_KEY_PREVIOUS is set', '$(openssl rand -base64 32)');
  }
  return { database, tokenEncryptionKey, tokenEncryptionKeyPrevious };
}

/** The Command Service beyond its URL: how long a call may take, the zone of its times, how calls are made for people, its pages, deciding in chat. */
function readService(
  env: Env,
): Pick<CommonConfig, 'serviceTimeoutMs' | 'serviceTimeZone' | 'serviceAuth' | 'approvalUrlTemplate' | 'decisions'> {
  const approvalUrlTemplate = read(env, {
    variable: 'APPROVAL_URL_TEMPLATE',
    example: 'https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}',
    schema: z
      .string()
      .refine((v) => v.includes(APPROVAL_URL_PLACEHOLDER), `must contain ${APPROVAL_URL_PLACEHOLDER} where the approval's id goes`)
      .pipe(httpUrl('the page for one approval in the service').transform((v) => v))
      .optional(),
  });
  // Under a minute or so keeps the user's wait bearable; 15 minutes leaves room in response_url's 30-minute life.
  const serviceTimeoutMs = read(env, {
    variable: 'SERVICE_TIMEOUT',
    example: '20s',
    schema: duration('at least 1s')
      .refine((ms) => ms >= 1000 && ms <= 15 * 60_000, 'must be from 1s to 15m')
      .optional(),
  });
  const serviceAuth = readServiceAuth(env);
  const decisions = readDecisions(env);
  const serviceTimeZone = read(env, { variable: 'COMMAND_SERVICE_TIME_ZONE', example: 'America/New_York', schema: ianaZone.optional() });
  return { approvalUrlTemplate, serviceTimeoutMs: serviceTimeoutMs ?? 20_000, serviceAuth, decisions, serviceTimeZone };
}

/** What the app does on its own and how much: reminders' window and their calls at once, commands a minute per user. */
function readOperations(env: Env): Pick<CommonConfig, 'remindWindowDays' | 'reminderConcurrency' | 'commandsPerMinute'> {
  const remindWindowDays = read(env, {
    variable: 'REMIND_WINDOW',
    example: '3d',
    schema: z
      .string()
      .regex(/^\d{1,2}d?$/i, 'must be a number of days from 1 to 30, like 3d')
      .transform((v) => Number.parseInt(v, 10))
      .refine((n) => n >= 1 && n <= 30, 'must be a number of days from 1 to 30, like 3d')
      .optional(),
  });
  const reminderConcurrency = read(env, {
    variable: 'REMINDER_CONCURRENCY',
    example: '4',
    schema: z
      .string()
      .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 256: digest queries in flight at once, on all instances together')
      .transform(Number)
      .refine(
        (n) => n >= 1 && n <= 256,
        'must be a whole number from 1 to 256: digest queries in flight at once, on all instances together',
      )
      .optional(),
  });
  const commandsPerMinute = read(env, {
    variable: 'COMMANDS_PER_MINUTE',
    example: '20',
    schema: z
      .string()
      .regex(/^\d{1,4}$/, 'must be a whole number from 0 (no limit) to 1000')
      .transform(Number)
      .refine((n) => n <= 1000, 'must be a whole number from 0 (no limit) to 1000')
      .optional(),
  });
  return {
    remindWindowDays: remindWindowDays ?? 3,
    reminderConcurrency: reminderConcurrency ?? DEFAULT_REMINDER_CONCURRENCY,
    commandsPerMinute: commandsPerMinute ?? 20,
  };
}

/** Who may start collections, where, how often, and how long their runs are followed. */
function readCollectPolicy(env: Env): CollectPolicy {
  const idList = (variable: string, prefix: RegExp, what: string, example: string) =>
    read(env, {
      variable,
      example,
      schema: z
        .string()
        .transform((v) => v.split(/[\s,]+/).filter((x) => x !== ''))
        .refine((ids) => ids.every((id) => prefix.test(id)), `must be ${what}, separated by commas`)
        .optional(),
    }) ?? [];
  return Object.freeze({
    allowedChannels: idList('COLLECT_ALLOWED_CHANNELS', /^[CG][A-Z0-9]{2,}$/, 'Slack channel ids (C…)', 'C0123ABCD,C0456EFGH'),
    allowedUsers: idList('COLLECT_ALLOWED_USERS', /^[UW][A-Z0-9]{2,}$/, 'Slack user ids (U…)', 'U0123ABCD,U0456EFGH'),
    allowedUserGroups: idList('COLLECT_ALLOWED_USERGROUPS', /^S[A-Z0-9]{2,}$/, 'Slack user-group ids (S…)', 'S0123ABCD'),
    forceAllowedUsers: idList('COLLECT_FORCE_ALLOWED_USERS', /^[UW][A-Z0-9]{2,}$/, 'Slack user ids (U…)', 'U0123ABCD'),
    cooldownMs: read(env, { variable: 'COLLECT_COOLDOWN', example: '10m', schema: duration('0 to turn it off').optional() }) ?? 10 * 60_000,
    watchLimitMs:
      read(env, { variable: 'COLLECT_WATCH_LIMIT', example: '6h', schema: duration('more than 0', 1).optional() }) ?? 6 * 3_600_000,
  });
}

/** HTTP or Socket Mode: what connecting to Slack requires of the rest, checked once every value has been read. */
function connected(
  common: CommonConfig,
  slack: SlackCredentials & { readonly appToken: Secret | undefined },
  commandServiceUrl: string | undefined,
  tokenEncryptionKey: Secret | undefined,
): SlackConfig {
  if (commandServiceUrl === undefined)
    throw new ConfigError('COMMAND_SERVICE_URL', 'is required when Slack credentials are set', 'https://igl.example.com/aveksa');
  if (tokenEncryptionKey === undefined)
    throw new ConfigError('TOKEN_ENCRYPTION_KEY', 'is required when Slack credentials are set', '$(openssl rand -base64 32)');
  if (common.serviceAuth.mode === 'trusted-app' && !sentPrivately(commandServiceUrl))
    throw new ConfigError(
      'COMMAND_SERVICE_URL',
      'must be https in the trusted-application mode: COMMAND_SERVICE_CLIENT_SECRET is sent to it, and over http anyone on the way reads it (http is for a service on this machine only: localhost, 127.0.0.1, ::1)',
      'https://igl.example.com/aveksa',
    );
  const base = { ...common, commandServiceUrl, tokenEncryptionKey };
  const { appToken, ...credentials } = slack;
  if (appToken !== undefined) return Object.freeze({ ...base, mode: 'socket', slack: Object.freeze({ ...credentials, appToken }) });
  return Object.freeze({ ...base, mode: 'http', slack: Object.freeze(credentials) });
}

/** Whether what is sent to this URL stays between countersign and the service: https, or http on this machine. */
function sentPrivately(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'https:') return true;
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * COMMAND_SERVICE_URL, whatever the mode: loadConfig's, and the admin CLI's, which checks the tokens
 * it links against it on a machine that may have no Slack credentials (where the app would run
 * local mode and ignore it).
 */
export function commandServiceUrlOf(env: Env): string | undefined {
  return read(env, {
    variable: 'COMMAND_SERVICE_URL',
    example: 'https://igl.example.com/aveksa',
    schema: httpUrl('the base URL; requests go to <it>/command.submit').optional(),
  });
}

/** loadConfig, for a process that only makes sense connected to Slack (a benchmark's app, an instance of several). */
export function loadSlackConfig(env: Env): SlackConfig {
  const config = loadConfig(env);
  if (config.mode === 'local')
    throw new ConfigError('SLACK_BOT_TOKEN', 'and SLACK_SIGNING_SECRET are required to connect to Slack', 'xoxb-1234-5678-abcdef');
  return config;
}

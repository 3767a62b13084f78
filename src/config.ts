/**
 * Configuration: the environment, read once and checked whole, into a frozen typed Config.
 * The only module that reads process.env (and only through the env it is given). A bad value
 * stops the app with a message naming the variable, what is wrong, and an example.
 */

import { z } from 'zod';
import { LOG_LEVELS, type LogLevel } from './runtime/logger.js';
import { Secret } from './runtime/secret.js';
import { type DecisionCall, parseDecisionBody, parseDecisionCall, parseDecisionRequest } from './service/decision-call.js';
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
  /** NOTIFY_INTERVAL: how often each watched approver's pending list is checked for arrivals; undefined: `off`, no arrival messages. */
  readonly notifyIntervalMs: number | undefined;
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

/**
 * What follows `VARIABLE=` in an example: a value (shown quoted for a shell when it needs to be), or
 * a command whose output is one, shown as the shell runs it (`$(openssl rand -base64 32)`).
 */
export type Example = string | { readonly shell: string };

/** The example as typed after `VARIABLE=` in a shell: plain when it can be, in single quotes when not. */
export function shellExample(example: Example): string {
  if (typeof example !== 'string') return example.shell;
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(example) ? example : `'${example.replaceAll("'", "'\\''")}'`;
}

/** A variable's check, and an example that passes it: every message about the variable shows that example. */
interface Rule<T> {
  readonly example: Example;
  /** Given undefined when the variable is unset or blank. */
  readonly schema: z.ZodType<T, string | undefined>;
  /** Read exactly as set: a secret is never trimmed behind the operator's back (its schema says what is wrong). */
  readonly exact?: true;
}

export class ConfigError extends Error {
  readonly variable: string;
  /** Always the variable's own example, so that no message shows one its own check refuses. */
  constructor(variable: Variable, problem: string) {
    super(`${variable} ${problem}. Example: ${variable}=${shellExample(RULES[variable].example)}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_DATABASE_URL = 'sqlite:./data/countersign.db';

/** NOTIFY_INTERVAL's default, and its shortest: every approver costs the service a call each interval. */
export const DEFAULT_NOTIFY_INTERVAL_MS = 5 * 60_000;
export const SHORTEST_NOTIFY_INTERVAL_MS = 10_000;

/** REMINDER_CONCURRENCY's default: what an on-premises service answers alongside its own users without notice. */
export const DEFAULT_REMINDER_CONCURRENCY = 4;

function read<K extends Variable>(env: Env, variable: K): z.output<Rules[K]['schema']> {
  const rule: Rule<unknown> = RULES[variable];
  const raw = env[variable];
  const value = raw === undefined || raw.trim() === '' ? undefined : rule.exact ? raw : raw.trim();
  const parsed = rule.schema.safeParse(value);
  if (parsed.success) return parsed.data as z.output<Rules[K]['schema']>;
  throw new ConfigError(variable, parsed.error.issues[0]?.message ?? 'is not valid');
}

/**
 * Whether a value passes its variable's own check (not the checks between variables, such as "both
 * or neither"): the problem, as a message would say it, or undefined when it passes.
 */
export function checkValue(variable: Variable, value: string): string | undefined {
  const rule: Rule<unknown> = RULES[variable];
  const parsed = rule.schema.safeParse(rule.exact ? value : value.trim());
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'is not valid');
}

type Check = readonly [accepts: (value: string) => boolean, problem: string | ((value: string) => string)];

/** A string checked rule by rule: refused for the first rule it fails, in that rule's words. */
const checked = (...checks: readonly Check[]) =>
  z.string().superRefine((v, ctx) => {
    const failed = checks.find(([accepts]) => !accepts(v));
    if (failed !== undefined) ctx.addIssue({ code: 'custom', message: typeof failed[1] === 'string' ? failed[1] : failed[1](v) });
  });

const parsedUrl = (v: string) => {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
};

const httpUrl = (what: string) =>
  checked(
    [(v) => /^https?:$/.test(parsedUrl(v)?.protocol ?? ''), `must be an http or https URL (${what})`],
    [(v) => !parsedUrl(v)?.username && !parsedUrl(v)?.password, `must not carry a user name or password (${what})`],
  );

/** A Slack token: its kind by its prefix, then long enough to be one (Slack's are dozens of characters). */
const slackToken = (prefix: string, what: string) =>
  checked(
    [(v) => v.startsWith(prefix), `must be ${what}, which starts with ${prefix}`],
    [(v) => v.length > prefix.length + 8, `is too short for ${what}: ${prefix} and at least 9 more characters (copy the whole token)`],
    [(v) => /^[\x21-\x7e]+$/.test(v), 'must be one token, without spaces or characters a Slack token never has'],
  ).transform((v) => new Secret(v));

/** An AES-256 key: the base64 of exactly 32 bytes. */
const encryptionKey = (what: string) =>
  checked(
    [(v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v), `must be base64 (letters, digits, + and /, and = at most twice at the end): ${what}`],
    [
      (v) => Buffer.from(v, 'base64').length === 32,
      (v) => `must be the base64 of exactly 32 bytes, not ${Buffer.from(v, 'base64').length}: ${what}`,
    ],
  ).transform((v) => new Secret(v));

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

/** Slack ids of one kind, separated by commas (or spaces). */
const idList = (prefix: RegExp, what: string) =>
  z
    .string()
    .transform((v) => v.split(/[\s,]+/).filter((x) => x !== ''))
    .refine((ids) => ids.every((id) => prefix.test(id)), `must be ${what}, separated by commas`)
    .optional();

const numberFrom = (min: number, max: number, what: string) =>
  z
    .string()
    .regex(/^\d{1,6}$/, `must be a whole number from ${what}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${what}`)
    .optional();

export const DECISION_REQUEST_EXAMPLE = 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}';
const DECISION_BODY_EXAMPLE = '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>';

/** The message a Parsed result of decision-call.ts gives, as a schema's refusal. */
const parsedBy = <T>(parse: (text: string) => { ok: true; value: T } | { ok: false; problem: string }) =>
  z.string().superRefine((v, ctx) => {
    const parsed = parse(v);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem });
  });

/**
 * Every variable countersign reads, with its check and the example its messages show. One table, so
 * that a test holds every example to the check it stands beside.
 */
const RULES = {
  SLACK_BOT_TOKEN: { example: 'xoxb-1234-5678-abcdefghijkl', schema: slackToken('xoxb-', 'a bot token').optional() },
  SLACK_SIGNING_SECRET: {
    example: '8f742231b10e8888abcd99edabcd00d5',
    // Slack's Signing Secret is 32 hex digits: a wrong digit and a short paste are told apart.
    schema: checked(
      [(v) => /^[0-9a-f]*$/i.test(v), 'must be the app’s Signing Secret (Basic Information page): hex digits (0-9, a-f) only'],
      [(v) => v.length === 32, (v) => `must be the app’s Signing Secret (Basic Information page): 32 hex digits, not ${v.length}`],
    )
      .transform((v) => new Secret(v))
      .optional(),
  },
  SLACK_APP_TOKEN: { example: 'xapp-1-A0123-4567-abcdef', schema: slackToken('xapp-', 'an app-level token').optional() },
  SLACK_API_URL: { example: 'https://slack.com/api/', schema: httpUrl('the Slack Web API base').optional() },
  COMMAND_SERVICE_URL: {
    example: 'https://igl.example.com/aveksa',
    schema: httpUrl('the base URL; requests go to <it>/command.submit').optional(),
  },
  PORT: {
    example: '3000',
    schema: z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535 (0 picks a free port)')
      .transform(Number)
      .refine((n) => n <= 65_535, 'must be a port number from 0 to 65535 (0 picks a free port)')
      .optional(),
  },
  LOG_LEVEL: {
    example: 'info',
    schema: z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(LOG_LEVELS as [LogLevel, ...LogLevel[]], { message: `must be one of ${LOG_LEVELS.join(', ')}` }))
      .optional(),
  },
  METRICS_TOKEN: {
    example: { shell: '$(openssl rand -hex 32)' },
    schema: z
      .string()
      .regex(/^[\x21-\x7e]{16,512}$/, 'must be 16 to 512 visible characters, without spaces')
      .transform((v) => new Secret(v))
      .optional(),
  },
  SHUTDOWN_TIMEOUT: { example: '30s', schema: duration('at least 1s', 1000).optional() },
  DATABASE_URL: {
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
  },
  TOKEN_ENCRYPTION_KEY: {
    example: { shell: '$(openssl rand -base64 32)' },
    schema: encryptionKey('the output of openssl rand -base64 32').optional(),
  },
  TOKEN_ENCRYPTION_KEY_PREVIOUS: {
    // Any key of the right form: the operator's own is the TOKEN_ENCRYPTION_KEY being replaced.
    example: 'Rk9VUiBieXRlcyBvZiBhbiBleGFtcGxlIGtleSEhISE=',
    schema: encryptionKey('the TOKEN_ENCRYPTION_KEY being replaced').optional(),
  },
  APPROVAL_URL_TEMPLATE: {
    example: 'https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}',
    schema: z
      .string()
      .refine((v) => v.includes(APPROVAL_URL_PLACEHOLDER), `must contain ${APPROVAL_URL_PLACEHOLDER} where the approval's id goes`)
      .pipe(httpUrl('the page for one approval in the service'))
      .optional(),
  },
  // Under a minute or so keeps the user's wait bearable; 15 minutes leaves room in response_url's 30-minute life.
  SERVICE_TIMEOUT: {
    example: '20s',
    schema: duration('at least 1s')
      .refine((ms) => ms >= 1000 && ms <= 15 * 60_000, 'must be from 1s to 15m')
      .optional(),
  },
  COMMAND_SERVICE_TIME_ZONE: { example: 'America/New_York', schema: ianaZone.optional() },
  COMMAND_SERVICE_CLIENT_ID: {
    example: 'countersign',
    schema: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be the ClientId of the Trusted Application page: 1 to 256 visible characters, without spaces')
      .optional(),
  },
  // The value never appears in a message: only what is wrong with it.
  COMMAND_SERVICE_CLIENT_SECRET: {
    example: 'q7Lm2vX9pR4tK8wZ',
    exact: true,
    schema: z
      .string()
      .refine((v) => !/^\s|\s$/.test(v), 'starts or ends with a space or line break: set the ClientSecret exactly, without them')
      .regex(/^[\x20-\x7e]{8,1024}$/, 'must be the ClientSecret of the Trusted Application page: 8 to 1024 visible characters')
      .transform((v) => new Secret(v))
      .optional(),
  },
  COMMAND_SERVICE_APP_TOKEN_MAX_AGE: {
    example: '1h',
    schema: duration('from 1m to 1d')
      .refine((ms) => ms >= 60_000 && ms <= 86_400_000, 'must be from 1m to 1d')
      .optional(),
  },
  DECISION_REQUEST: {
    example: DECISION_REQUEST_EXAMPLE,
    schema: parsedBy(parseDecisionRequest).optional(),
  },
  // A body is taken as written: its spaces and line breaks may matter to the service.
  DECISION_REQUEST_BODY: { example: DECISION_BODY_EXAMPLE, exact: true, schema: parsedBy(parseDecisionBody).optional() },
  DECISION_COMMENT_REQUIRED: {
    example: 'Rejected,Needs Info',
    schema: z
      .string()
      .transform((v) => v.split(',').map((name) => name.trim().toLowerCase()))
      .refine(
        (names) => names.every((n) => /^[^\u0000-\u001f\u007f]{1,64}$/.test(n)),
        'must be action names (as getApprovalDetails lists them) separated by commas, or none',
      )
      .optional(),
  },
  REMIND_WINDOW: {
    example: '3d',
    schema: z
      .string()
      .regex(/^\d{1,2}d?$/i, 'must be a number of days from 1 to 30, like 3d')
      .transform((v) => Number.parseInt(v, 10))
      .refine((n) => n >= 1 && n <= 30, 'must be a number of days from 1 to 30, like 3d')
      .optional(),
  },
  REMINDER_CONCURRENCY: {
    example: '4',
    schema: numberFrom(1, 256, '1 to 256: digest queries in flight at once, on all instances together'),
  },
  NOTIFY_INTERVAL: {
    example: '5m',
    schema: z
      .string()
      .transform((v, ctx): number | 'off' => {
        if (v.toLowerCase() === 'off') return 'off';
        const ms = parseDuration(v);
        if (ms !== undefined && ms >= SHORTEST_NOTIFY_INTERVAL_MS) return ms;
        ctx.addIssue({
          code: 'custom',
          message:
            'must be a duration like 90s, 10m or 1h, up to 7d (at least 10s: each check is a call to the service per approver), or off',
        });
        return z.NEVER;
      })
      .optional(),
  },
  COMMANDS_PER_MINUTE: { example: '20', schema: numberFrom(0, 1000, '0 (no limit) to 1000') },
  COLLECT_ALLOWED_CHANNELS: { example: 'C0123ABCD,C0456EFGH', schema: idList(/^[CG][A-Z0-9]{2,}$/, 'Slack channel ids (C…)') },
  COLLECT_ALLOWED_USERS: { example: 'U0123ABCD,U0456EFGH', schema: idList(/^[UW][A-Z0-9]{2,}$/, 'Slack user ids (U…)') },
  COLLECT_ALLOWED_USERGROUPS: { example: 'S0123ABCD', schema: idList(/^S[A-Z0-9]{2,}$/, 'Slack user-group ids (S…)') },
  COLLECT_FORCE_ALLOWED_USERS: { example: 'U0123ABCD', schema: idList(/^[UW][A-Z0-9]{2,}$/, 'Slack user ids (U…)') },
  COLLECT_COOLDOWN: { example: '10m', schema: duration('0 to turn it off').optional() },
  COLLECT_WATCH_LIMIT: { example: '6h', schema: duration('more than 0', 1).optional() },
} satisfies Record<string, Rule<unknown>>;

type Rules = typeof RULES;
/** A variable countersign reads. */
export type Variable = keyof Rules;
/** Every variable countersign reads. */
export const VARIABLES = Object.keys(RULES) as Variable[];

/** The example a variable's messages show, as a shell takes it after `VARIABLE=`. */
export function exampleOf(variable: Variable): string {
  return shellExample(RULES[variable].example);
}

/** Both client credentials or neither: one alone is a mistake, said at start rather than at the first user's call. */
function readServiceAuth(env: Env): ServiceAuth {
  const clientId = read(env, 'COMMAND_SERVICE_CLIENT_ID');
  const clientSecret = read(env, 'COMMAND_SERVICE_CLIENT_SECRET');
  const maxTokenAgeMs = read(env, 'COMMAND_SERVICE_APP_TOKEN_MAX_AGE');
  if (clientId !== undefined && clientSecret === undefined)
    throw new ConfigError(
      'COMMAND_SERVICE_CLIENT_SECRET',
      'is required when COMMAND_SERVICE_CLIENT_ID is set (trusted-application mode: both or neither)',
    );
  if (clientSecret !== undefined && clientId === undefined)
    throw new ConfigError(
      'COMMAND_SERVICE_CLIENT_ID',
      'is required when COMMAND_SERVICE_CLIENT_SECRET is set (trusted-application mode: both or neither)',
    );
  if (clientId === undefined || clientSecret === undefined) {
    if (maxTokenAgeMs !== undefined)
      throw new ConfigError(
        'COMMAND_SERVICE_APP_TOKEN_MAX_AGE',
        'is only used in the trusted-application mode: set COMMAND_SERVICE_CLIENT_ID and COMMAND_SERVICE_CLIENT_SECRET too, or unset it',
      );
    return Object.freeze({ mode: 'user-tokens' });
  }
  return Object.freeze({ mode: 'trusted-app', clientId, clientSecret, maxTokenAgeMs: maxTokenAgeMs ?? 3_600_000 });
}

/**
 * DECISION_REQUEST and its companions, read together: unset, nothing is decided in chat, and the
 * companions are a mistake said at start. Exported for local mode, which states the reference
 * service's own call.
 */
export function readDecisions(env: Env): DecisionsConfig | undefined {
  const request = read(env, 'DECISION_REQUEST');
  const body = read(env, 'DECISION_REQUEST_BODY');
  const required = read(env, 'DECISION_COMMENT_REQUIRED');
  if (request === undefined) {
    for (const [variable, set] of [
      ['DECISION_REQUEST_BODY', body],
      ['DECISION_COMMENT_REQUIRED', required],
    ] as const)
      if (set !== undefined)
        throw new ConfigError(variable, 'is only used with DECISION_REQUEST: set it too (the decision call), or unset this');
    return undefined;
  }
  const parsed = parseDecisionCall(request, body);
  if (!parsed.ok) throw new ConfigError(parsed.variable ?? 'DECISION_REQUEST', parsed.problem);
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
  const botToken = read(env, 'SLACK_BOT_TOKEN');
  const signingSecret = read(env, 'SLACK_SIGNING_SECRET');
  const appToken = read(env, 'SLACK_APP_TOKEN');
  if (botToken && !signingSecret) throw new ConfigError('SLACK_SIGNING_SECRET', 'is required when SLACK_BOT_TOKEN is set');
  if (signingSecret && !botToken) throw new ConfigError('SLACK_BOT_TOKEN', 'is required when SLACK_SIGNING_SECRET is set');
  if (appToken && !botToken) throw new ConfigError('SLACK_BOT_TOKEN', 'is required when SLACK_APP_TOKEN is set (Socket Mode)');
  const apiUrl = read(env, 'SLACK_API_URL');
  if (botToken === undefined || signingSecret === undefined) return undefined;
  return { botToken, signingSecret, apiUrl, appToken };
}

/** The process itself: where it listens, what it logs, who may read its metrics, how long a stop may take. */
function readServer(env: Env): Pick<CommonConfig, 'port' | 'metricsToken' | 'shutdownTimeoutMs'> & { logLevel: LogLevel | undefined } {
  return {
    port: read(env, 'PORT') ?? 3000,
    logLevel: read(env, 'LOG_LEVEL'),
    metricsToken: read(env, 'METRICS_TOKEN'),
    shutdownTimeoutMs: read(env, 'SHUTDOWN_TIMEOUT') ?? 30_000,
  };
}

/** The store: where it is, and the keys its tokens are encrypted with (a previous one only beside a current one). */
function readStore(env: Env): Pick<CommonConfig, 'database' | 'tokenEncryptionKeyPrevious'> & { tokenEncryptionKey: Secret | undefined } {
  const database = read(env, 'DATABASE_URL');
  const tokenEncryptionKey = read(env, 'TOKEN_ENCRYPTION_KEY');
  const tokenEncryptionKeyPrevious = read(env, 'TOKEN_ENCRYPTION_KEY_PREVIOUS');
  if (tokenEncryptionKeyPrevious !== undefined && tokenEncryptionKey === undefined)
    throw new ConfigError('TOKEN_ENCRYPTION_KEY', 'is required when TOKEN_ENCRYPTION_KEY_PREVIOUS is set');
  return { database, tokenEncryptionKey, tokenEncryptionKeyPrevious };
}

/** The Command Service beyond its URL: how long a call may take, the zone of its times, how calls are made for people, its pages, deciding in chat. */
function readService(
  env: Env,
): Pick<CommonConfig, 'serviceTimeoutMs' | 'serviceTimeZone' | 'serviceAuth' | 'approvalUrlTemplate' | 'decisions'> {
  const approvalUrlTemplate = read(env, 'APPROVAL_URL_TEMPLATE');
  const serviceTimeoutMs = read(env, 'SERVICE_TIMEOUT') ?? 20_000;
  const serviceAuth = readServiceAuth(env);
  const decisions = readDecisions(env);
  const serviceTimeZone = read(env, 'COMMAND_SERVICE_TIME_ZONE');
  return { approvalUrlTemplate, serviceTimeoutMs, serviceAuth, decisions, serviceTimeZone };
}

/** What the app does on its own and how much: reminders' window and their calls at once, arrivals' interval, commands a minute per user. */
function readOperations(
  env: Env,
): Pick<CommonConfig, 'remindWindowDays' | 'reminderConcurrency' | 'notifyIntervalMs' | 'commandsPerMinute'> {
  const notify = read(env, 'NOTIFY_INTERVAL') ?? DEFAULT_NOTIFY_INTERVAL_MS;
  return {
    notifyIntervalMs: notify === 'off' ? undefined : notify,
    remindWindowDays: read(env, 'REMIND_WINDOW') ?? 3,
    reminderConcurrency: read(env, 'REMINDER_CONCURRENCY') ?? DEFAULT_REMINDER_CONCURRENCY,
    commandsPerMinute: read(env, 'COMMANDS_PER_MINUTE') ?? 20,
  };
}

/** Who may start collections, where, how often, and how long their runs are followed. */
function readCollectPolicy(env: Env): CollectPolicy {
  return Object.freeze({
    allowedChannels: read(env, 'COLLECT_ALLOWED_CHANNELS') ?? [],
    allowedUsers: read(env, 'COLLECT_ALLOWED_USERS') ?? [],
    allowedUserGroups: read(env, 'COLLECT_ALLOWED_USERGROUPS') ?? [],
    forceAllowedUsers: read(env, 'COLLECT_FORCE_ALLOWED_USERS') ?? [],
    cooldownMs: read(env, 'COLLECT_COOLDOWN') ?? 10 * 60_000,
    watchLimitMs: read(env, 'COLLECT_WATCH_LIMIT') ?? 6 * 3_600_000,
  });
}

/** HTTP or Socket Mode: what connecting to Slack requires of the rest, checked once every value has been read. */
function connected(
  common: CommonConfig,
  slack: SlackCredentials & { readonly appToken: Secret | undefined },
  commandServiceUrl: string | undefined,
  tokenEncryptionKey: Secret | undefined,
): SlackConfig {
  if (commandServiceUrl === undefined) throw new ConfigError('COMMAND_SERVICE_URL', 'is required when Slack credentials are set');
  if (tokenEncryptionKey === undefined) throw new ConfigError('TOKEN_ENCRYPTION_KEY', 'is required when Slack credentials are set');
  if (common.serviceAuth.mode === 'trusted-app' && !sentPrivately(commandServiceUrl))
    throw new ConfigError(
      'COMMAND_SERVICE_URL',
      'must be https in the trusted-application mode: COMMAND_SERVICE_CLIENT_SECRET is sent to it, and over http anyone on the way reads it (http is for a service on this machine only: localhost, 127.0.0.1, ::1)',
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
  return read(env, 'COMMAND_SERVICE_URL');
}

/** loadConfig, for a process that only makes sense connected to Slack (a benchmark's app, an instance of several). */
export function loadSlackConfig(env: Env): SlackConfig {
  const config = loadConfig(env);
  if (config.mode === 'local') throw new ConfigError('SLACK_BOT_TOKEN', 'and SLACK_SIGNING_SECRET are required to connect to Slack');
  return config;
}

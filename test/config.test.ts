import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const SLACK = {
  SLACK_BOT_TOKEN: 'xoxb-1111-2222-abcdefgh',
  SLACK_SIGNING_SECRET: '0123456789abcdef0123456789abcdef',
  COMMAND_SERVICE_URL: 'https://igl.example.com/aveksa',
  TOKEN_ENCRYPTION_KEY: KEY,
};

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('runs in local mode with nothing set, with the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      mode: 'local',
      port: 3000,
      logLevel: 'warn',
      database: { kind: 'sqlite', path: './data/countersign.db' },
    });
    expect(Object.isFrozen(config)).toBe(true);
    // Local mode runs its own reference service: a service URL there would be ignored, so it has none.
    expect('commandServiceUrl' in config).toBe(false);
  });

  it('picks HTTP mode with a bot token and signing secret, and Socket Mode with an app token too', () => {
    expect(loadConfig(SLACK).mode).toBe('http');
    expect(loadConfig({ ...SLACK, SLACK_APP_TOKEN: 'xapp-1-A01-2345-abcdef' }).mode).toBe('socket');
  });

  it('reads every variable', () => {
    const config = loadConfig({
      ...SLACK,
      SLACK_API_URL: 'http://127.0.0.1:9999/api/',
      PORT: '8080',
      DATABASE_URL: 'postgres://u@127.0.0.1:5432/test',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config.port).toBe(8080);
    expect(config.logLevel).toBe('debug');
    expect(config.mode === 'http' && config.slack.apiUrl).toBe('http://127.0.0.1:9999/api/');
    expect(config.database.kind).toBe('postgres');
    expect(config.tokenEncryptionKey?.reveal()).toBe(KEY);
  });

  it('reads who may collect, the cooldown and the watch limit', () => {
    expect(loadConfig({}).collect).toEqual({
      allowedChannels: [],
      allowedUsers: [],
      allowedUserGroups: [],
      forceAllowedUsers: [],
      cooldownMs: 600_000,
      watchLimitMs: 21_600_000,
    });
    const c = loadConfig({
      COLLECT_ALLOWED_CHANNELS: 'C0OPS, C0SEC',
      COLLECT_ALLOWED_USERS: 'U0ADA W0GRACE',
      COLLECT_ALLOWED_USERGROUPS: 'S0IDENTITY',
      COLLECT_FORCE_ALLOWED_USERS: 'U0ADA',
      COLLECT_COOLDOWN: '0',
      COLLECT_WATCH_LIMIT: '90m',
    }).collect;
    expect(c).toEqual({
      allowedChannels: ['C0OPS', 'C0SEC'],
      allowedUsers: ['U0ADA', 'W0GRACE'],
      allowedUserGroups: ['S0IDENTITY'],
      forceAllowedUsers: ['U0ADA'],
      cooldownMs: 0,
      watchLimitMs: 5_400_000,
    });
    expect(loadConfig({ COLLECT_COOLDOWN: '90s' }).collect.cooldownMs).toBe(90_000);
  });

  it('reads the reminder window and the approval URL template', () => {
    expect(loadConfig({}).remindWindowDays).toBe(3);
    expect(loadConfig({}).approvalUrlTemplate).toBeUndefined();
    expect(loadConfig({ REMIND_WINDOW: '7D' }).remindWindowDays).toBe(7);
    expect(loadConfig({ REMIND_WINDOW: '14' }).remindWindowDays).toBe(14);
    const template = 'https://igl.example.com/aveksa/main?PageID=WorkItem&WorkItemId={WorkItemId}';
    expect(loadConfig({ APPROVAL_URL_TEMPLATE: template }).approvalUrlTemplate).toBe(template);
  });

  it('reads the digests’ concurrency at the service, 4 unless REMINDER_CONCURRENCY says, from 1 to 256', () => {
    expect(loadConfig({}).reminderConcurrency).toBe(4);
    expect(loadConfig({ REMINDER_CONCURRENCY: '12' }).reminderConcurrency).toBe(12);
    expect(loadConfig({ REMINDER_CONCURRENCY: ' 1 ' }).reminderConcurrency).toBe(1);
    expect(loadConfig({ REMINDER_CONCURRENCY: '256' }).reminderConcurrency).toBe(256);
  });

  it('checks each approver for arrivals every 5 min unless NOTIFY_INTERVAL says, 10 s at the shortest, or never with off', () => {
    expect(loadConfig({}).notifyIntervalMs).toBe(300_000);
    expect(loadConfig({ NOTIFY_INTERVAL: '10s' }).notifyIntervalMs).toBe(10_000);
    expect(loadConfig({ NOTIFY_INTERVAL: ' 15m ' }).notifyIntervalMs).toBe(900_000);
    expect(loadConfig({ NOTIFY_INTERVAL: '1h' }).notifyIntervalMs).toBe(3_600_000);
    expect(loadConfig({ NOTIFY_INTERVAL: 'off' }).notifyIntervalMs).toBeUndefined();
    expect(loadConfig({ NOTIFY_INTERVAL: 'OFF' }).notifyIntervalMs).toBeUndefined();
  });

  it('reads the deadline of a service call, 20 s unless SERVICE_TIMEOUT says, from 1 s to 15 min', () => {
    expect(loadConfig({}).serviceTimeoutMs).toBe(20_000);
    expect(loadConfig({ SERVICE_TIMEOUT: '45s' }).serviceTimeoutMs).toBe(45_000);
    expect(loadConfig({ SERVICE_TIMEOUT: '2m' }).serviceTimeoutMs).toBe(120_000);
    for (const value of ['0', '16m', '1h', 'soon'])
      expect(() => loadConfig({ SERVICE_TIMEOUT: value })).toThrow(/^SERVICE_TIMEOUT must be/);
  });

  it('keeps secrets out of its own string form', () => {
    expect(JSON.stringify(loadConfig({ ...SLACK, DATABASE_URL: 'postgres://u:pw@h/db' }))).not.toMatch(/xoxb-1111|0123456789abcdef|pw@h/);
  });

  const bad: Array<[string, Record<string, string>, RegExp]> = [
    [
      'a bot token of the wrong kind',
      { ...SLACK, SLACK_BOT_TOKEN: 'xoxp-user-token-123' },
      /^SLACK_BOT_TOKEN must be a bot token, which starts with xoxb-\. Example: SLACK_BOT_TOKEN=xoxb-/,
    ],
    [
      'a bot token without a signing secret',
      { SLACK_BOT_TOKEN: SLACK.SLACK_BOT_TOKEN },
      /^SLACK_SIGNING_SECRET is required when SLACK_BOT_TOKEN is set/,
    ],
    ['a signing secret without a bot token', { SLACK_SIGNING_SECRET: SLACK.SLACK_SIGNING_SECRET }, /^SLACK_BOT_TOKEN is required/],
    [
      'a malformed signing secret',
      { ...SLACK, SLACK_SIGNING_SECRET: 'short' },
      /^SLACK_SIGNING_SECRET must be the app’s Signing Secret \(Basic Information page\): hex digits \(0-9, a-f\) only\./,
    ],
    [
      'an app token of the wrong kind',
      { ...SLACK, SLACK_APP_TOKEN: 'xoxb-nope-nope-nope' },
      /^SLACK_APP_TOKEN must be an app-level token, which starts with xapp-/,
    ],
    [
      'Slack without a service URL',
      { ...SLACK, COMMAND_SERVICE_URL: '' },
      /^COMMAND_SERVICE_URL is required when Slack credentials are set/,
    ],
    [
      'a service URL that is not http',
      { COMMAND_SERVICE_URL: 'igl.example.com' },
      /^COMMAND_SERVICE_URL must be an http or https URL \(the base URL/,
    ],
    [
      'a service URL with credentials',
      { COMMAND_SERVICE_URL: 'https://u:p@igl.example.com' },
      /^COMMAND_SERVICE_URL must not carry a user name or password \(the base URL/,
    ],
    ['a port out of range', { PORT: '70000' }, /^PORT must be a port number from 0 to 65535 \(0 picks a free port\)\. Example: PORT=3000$/],
    ['a port that is not a number', { PORT: 'http' }, /^PORT must be a port number/],
    ['an unknown database', { DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must be sqlite:<path> or postgres:\/\/…/],
    ['an empty sqlite path', { DATABASE_URL: 'sqlite:' }, /^DATABASE_URL must be sqlite:<path>/],
    [
      'a short encryption key',
      { TOKEN_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') },
      /^TOKEN_ENCRYPTION_KEY must be the base64 of exactly 32 bytes, not 16: the output of openssl rand -base64 32\. Example: TOKEN_ENCRYPTION_KEY=\$\(openssl rand -base64 32\)$/,
    ],
    ['Slack without an encryption key', { ...SLACK, TOKEN_ENCRYPTION_KEY: '' }, /^TOKEN_ENCRYPTION_KEY is required/],
    [
      'a previous key without a current one',
      { TOKEN_ENCRYPTION_KEY_PREVIOUS: KEY },
      /^TOKEN_ENCRYPTION_KEY is required when TOKEN_ENCRYPTION_KEY_PREVIOUS is set/,
    ],
    [
      'a malformed previous key',
      { TOKEN_ENCRYPTION_KEY: KEY, TOKEN_ENCRYPTION_KEY_PREVIOUS: 'short' },
      /^TOKEN_ENCRYPTION_KEY_PREVIOUS must be the base64 of exactly 32 bytes, not 3: the TOKEN_ENCRYPTION_KEY being replaced\./,
    ],
    ['an unknown log level', { LOG_LEVEL: 'verbose' }, /^LOG_LEVEL must be one of debug, info, warn, error\. Example: LOG_LEVEL=info$/],
    [
      'an approval URL without the id placeholder',
      { APPROVAL_URL_TEMPLATE: 'https://igl.example.com/aveksa/main' },
      /^APPROVAL_URL_TEMPLATE must contain \{WorkItemId\} where the approval's id goes\. Example: APPROVAL_URL_TEMPLATE='https:/,
    ],
    [
      'an approval URL that is not http',
      { APPROVAL_URL_TEMPLATE: 'javascript:alert({WorkItemId})' },
      /^APPROVAL_URL_TEMPLATE must be an http or https URL/,
    ],
    [
      'a channel that is a name',
      { COLLECT_ALLOWED_CHANNELS: 'C0OPS,#general' },
      /^COLLECT_ALLOWED_CHANNELS must be Slack channel ids \(C…\), separated by commas\. Example: COLLECT_ALLOWED_CHANNELS=C0123ABCD,C0456EFGH$/,
    ],
    ['a user that is an email', { COLLECT_ALLOWED_USERS: 'ada@example.com' }, /^COLLECT_ALLOWED_USERS must be Slack user ids/],
    [
      'a group that is a handle',
      { COLLECT_ALLOWED_USERGROUPS: '@identity-team' },
      /^COLLECT_ALLOWED_USERGROUPS must be Slack user-group ids \(S…\)/,
    ],
    ['a force user that is a name', { COLLECT_FORCE_ALLOWED_USERS: 'grace' }, /^COLLECT_FORCE_ALLOWED_USERS must be Slack user ids/],
    [
      'a cooldown without a unit',
      { COLLECT_COOLDOWN: '10' },
      /^COLLECT_COOLDOWN must be a duration like 90s, 10m or 1h, up to 7d \(0 to turn it off\)\. Example: COLLECT_COOLDOWN=10m$/,
    ],
    ['a cooldown of a month', { COLLECT_COOLDOWN: '30d' }, /^COLLECT_COOLDOWN must be a duration/],
    [
      'a watch limit of zero',
      { COLLECT_WATCH_LIMIT: '0' },
      /^COLLECT_WATCH_LIMIT must be a duration like 90s, 10m or 1h, up to 7d \(more than 0\)/,
    ],
    [
      'a reminder window of weeks',
      { REMIND_WINDOW: '2w' },
      /^REMIND_WINDOW must be a number of days from 1 to 30, like 3d\. Example: REMIND_WINDOW=3d$/,
    ],
    ['a reminder window of zero', { REMIND_WINDOW: '0d' }, /^REMIND_WINDOW must be a number of days from 1 to 30/],
    ['a reminder window too long', { REMIND_WINDOW: '45' }, /^REMIND_WINDOW must be a number of days from 1 to 30/],
    [
      'no digest concurrency at all',
      { REMINDER_CONCURRENCY: '0' },
      /^REMINDER_CONCURRENCY must be a whole number from 1 to 256: digest queries in flight at once, on all instances together\. Example: REMINDER_CONCURRENCY=4$/,
    ],
    ['a digest concurrency past 256', { REMINDER_CONCURRENCY: '1000' }, /^REMINDER_CONCURRENCY must be a whole number from 1 to 256/],
    ['a digest concurrency in words', { REMINDER_CONCURRENCY: 'four' }, /^REMINDER_CONCURRENCY must be a whole number from 1 to 256/],
    ['a digest concurrency with a fraction', { REMINDER_CONCURRENCY: '2.5' }, /^REMINDER_CONCURRENCY must be a whole number from 1 to 256/],
    [
      'an arrivals interval under 10 s',
      { NOTIFY_INTERVAL: '5s' },
      /^NOTIFY_INTERVAL must be a duration like 90s, 10m or 1h, up to 7d \(at least 10s: each check is a call to the service per approver\), or off\. Example: NOTIFY_INTERVAL=5m$/,
    ],
    ['an arrivals interval of zero', { NOTIFY_INTERVAL: '0' }, /^NOTIFY_INTERVAL must be a duration like 90s/],
    ['an arrivals interval in words', { NOTIFY_INTERVAL: 'never' }, /^NOTIFY_INTERVAL must be a duration like 90s.*, or off\./],
    ['an arrivals interval past a week', { NOTIFY_INTERVAL: '8d' }, /^NOTIFY_INTERVAL must be a duration like 90s/],
  ];
  for (const [name, env, message] of bad) {
    it(`stops on ${name}, naming the variable and showing an example`, () => {
      const error = failure(env);
      expect(error.message).toMatch(message);
      expect(error.message).toContain('Example:');
    });
  }

  it('never echoes a secret value in its message', () => {
    const error = failure({ ...SLACK, SLACK_SIGNING_SECRET: 'not-hex-but-secret-value-xyz' });
    expect(error.message).not.toContain('not-hex-but-secret-value-xyz');
  });
});

describe('COMMAND_SERVICE_TIME_ZONE', () => {
  it('is unset by default: the service’s times are then shown as it writes them', () => {
    expect(loadConfig({ ...SLACK }).serviceTimeZone).toBeUndefined();
    expect(loadConfig({}).serviceTimeZone).toBeUndefined();
  });

  it('takes an IANA zone, by its canonical name', () => {
    expect(loadConfig({ ...SLACK, COMMAND_SERVICE_TIME_ZONE: 'America/New_York' }).serviceTimeZone).toBe('America/New_York');
    expect(loadConfig({ ...SLACK, COMMAND_SERVICE_TIME_ZONE: ' europe/berlin ' }).serviceTimeZone).toBe('Europe/Berlin');
    expect(loadConfig({ COMMAND_SERVICE_TIME_ZONE: 'UTC' }).serviceTimeZone).toBe('UTC');
  });

  for (const value of ['Mars/Olympus_Mons', '+01:00', 'EST5EDT;', 'GMT+1 hour', 'x'.repeat(300)]) {
    it(`stops on “${value.slice(0, 20)}”, naming the variable, what it must be, and an example`, () => {
      expect(() => loadConfig({ ...SLACK, COMMAND_SERVICE_TIME_ZONE: value })).toThrow(
        /^COMMAND_SERVICE_TIME_ZONE must be an IANA time zone name, the zone the service writes its times in \(“.+” is not one\)\. Example: COMMAND_SERVICE_TIME_ZONE=America\/New_York$/,
      );
    });
  }
});

describe('METRICS_TOKEN and SHUTDOWN_TIMEOUT', () => {
  it('default to no token (loopback only) and a 30 s stop', () => {
    expect(loadConfig({ ...SLACK })).toMatchObject({ metricsToken: undefined, shutdownTimeoutMs: 30_000 });
  });

  it('take a token as a Secret and a duration', () => {
    const config = loadConfig({ ...SLACK, METRICS_TOKEN: 'a'.repeat(32), SHUTDOWN_TIMEOUT: '10s' });
    expect(config.metricsToken?.reveal()).toBe('a'.repeat(32));
    expect(String(config.metricsToken)).toBe('[redacted]');
    expect(config.shutdownTimeoutMs).toBe(10_000);
  });

  for (const [name, env, message] of [
    ['a short metrics token', { METRICS_TOKEN: 'short' }, /^METRICS_TOKEN must be 16 to 512 visible characters, without spaces\. Example:/],
    ['a metrics token with a space', { METRICS_TOKEN: 'abcdefgh ijklmnopq' }, /^METRICS_TOKEN must be 16 to 512 visible characters/],
    [
      'a shutdown limit of 0',
      { SHUTDOWN_TIMEOUT: '0' },
      /^SHUTDOWN_TIMEOUT must be a duration like 90s, 10m or 1h, up to 7d \(at least 1s\)\. Example: SHUTDOWN_TIMEOUT=30s$/,
    ],
    ['a shutdown limit without a unit', { SHUTDOWN_TIMEOUT: '30' }, /^SHUTDOWN_TIMEOUT must be a duration/],
  ] as const) {
    it(`stops on ${name}, naming the variable`, () => {
      const error = failure({ ...SLACK, ...env });
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('abcdefgh ijklmnopq');
    });
  }
});

describe('the trusted-application mode', () => {
  const SECRET = 'Tr4sted-App-Secret-0001';

  it('is off by default: each user’s own token', () => {
    expect(loadConfig({ ...SLACK }).serviceAuth).toEqual({ mode: 'user-tokens' });
    expect(loadConfig({}).serviceAuth).toEqual({ mode: 'user-tokens' });
  });

  it('is on with both client credentials, the secret a Secret and the app token kept an hour unless told', () => {
    const config = loadConfig({ ...SLACK, COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: SECRET });
    expect(config.serviceAuth).toMatchObject({ mode: 'trusted-app', clientId: 'countersign', maxTokenAgeMs: 3_600_000 });
    const auth = config.serviceAuth;
    if (auth.mode !== 'trusted-app') throw new Error('not trusted');
    expect(auth.clientSecret.reveal()).toBe(SECRET);
    expect(JSON.stringify(config)).not.toContain(SECRET);
    const shorter = loadConfig({
      ...SLACK,
      COMMAND_SERVICE_CLIENT_ID: 'countersign',
      COMMAND_SERVICE_CLIENT_SECRET: SECRET,
      COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '20m',
    });
    expect(shorter.serviceAuth).toMatchObject({ maxTokenAgeMs: 20 * 60_000 });
    // A secret with spaces inside is kept exactly; http is fine for a service on this machine.
    const spaced = loadConfig({ ...SLACK, COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: 'with inner spaces' });
    expect(spaced.serviceAuth.mode === 'trusted-app' && spaced.serviceAuth.clientSecret.reveal()).toBe('with inner spaces');
    for (const url of [
      'http://127.0.0.1:4000/aveksa',
      'http://localhost:4000/aveksa',
      'http://[::1]:4000/aveksa',
      'http://127.8.9.10/aveksa',
    ])
      expect(
        loadConfig({ ...SLACK, COMMAND_SERVICE_URL: url, COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: SECRET })
          .serviceAuth.mode,
      ).toBe('trusted-app');
    // Users' own tokens over http are the operator's choice, as before.
    expect(loadConfig({ ...SLACK, COMMAND_SERVICE_URL: 'http://igl.example.com/aveksa' }).serviceAuth.mode).toBe('user-tokens');
    // Local mode too: its embedded service then trusts the same application.
    expect(loadConfig({ COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: SECRET }).serviceAuth.mode).toBe(
      'trusted-app',
    );
  });

  for (const [name, env, message] of [
    [
      'an id without a secret',
      { COMMAND_SERVICE_CLIENT_ID: 'countersign' },
      /^COMMAND_SERVICE_CLIENT_SECRET is required when COMMAND_SERVICE_CLIENT_ID is set \(trusted-application mode: both or neither\)\. Example:/,
    ],
    [
      'a secret without an id',
      { COMMAND_SERVICE_CLIENT_SECRET: SECRET },
      /^COMMAND_SERVICE_CLIENT_ID is required when COMMAND_SERVICE_CLIENT_SECRET is set/,
    ],
    [
      'an id with a space',
      { COMMAND_SERVICE_CLIENT_ID: 'counter sign', COMMAND_SERVICE_CLIENT_SECRET: SECRET },
      /^COMMAND_SERVICE_CLIENT_ID must be the ClientId/,
    ],
    [
      'a secret too short',
      { COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: 'short' },
      /^COMMAND_SERVICE_CLIENT_SECRET must be the ClientSecret of the Trusted Application page: 8 to 1024 visible characters\. Example:/,
    ],
    [
      'a secret with a control character',
      { COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: `${SECRET}\u0007x` },
      /^COMMAND_SERVICE_CLIENT_SECRET must be/,
    ],
    [
      'a secret with spaces at its ends (a copy that took too much)',
      { COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: ` ${SECRET}\n` },
      /^COMMAND_SERVICE_CLIENT_SECRET starts or ends with a space or line break: set the ClientSecret exactly, without them\. Example:/,
    ],
    [
      'a secret sent in clear to a service elsewhere',
      {
        COMMAND_SERVICE_CLIENT_ID: 'countersign',
        COMMAND_SERVICE_CLIENT_SECRET: SECRET,
        COMMAND_SERVICE_URL: 'http://igl.example.com/aveksa',
      },
      /^COMMAND_SERVICE_URL must be https in the trusted-application mode: COMMAND_SERVICE_CLIENT_SECRET is sent to it, and over http anyone on the way reads it \(http is for a service on this machine only: localhost, 127\.0\.0\.1, ::1\)\. Example: COMMAND_SERVICE_URL=https:\/\/igl\.example\.com\/aveksa$/,
    ],
    [
      'an age limit past a day',
      { COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: SECRET, COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '2d' },
      /^COMMAND_SERVICE_APP_TOKEN_MAX_AGE must be from 1m to 1d/,
    ],
    [
      'an age limit without the mode',
      { COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '1h' },
      /^COMMAND_SERVICE_APP_TOKEN_MAX_AGE is only used in the trusted-application mode/,
    ],
  ] as const) {
    it(`stops on ${name}, naming the variable, never echoing the secret`, () => {
      const error = failure({ ...SLACK, ...env });
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain(SECRET);
    });
  }
});

describe('decisions in chat (DECISION_REQUEST, DECISION_REQUEST_BODY, DECISION_COMMENT_REQUIRED)', () => {
  const REQUEST = 'POST performWorkItem?workitem-id={id}&action={action}&comment={comment}';

  it('are off when DECISION_REQUEST is unset: exactly as before, Open only', () => {
    expect(loadConfig(SLACK).decisions).toBeUndefined();
    expect(loadConfig({}).decisions).toBeUndefined();
  });

  it('read the call: method, command, the query’s parameters with their placeholders, and Rejected needing a comment', () => {
    const { decisions } = loadConfig({ ...SLACK, DECISION_REQUEST: REQUEST });
    expect(decisions).toEqual({
      call: {
        method: 'POST',
        command: 'performWorkItem',
        setsFormat: false,
        body: undefined,
        query: [
          { name: 'workitem-id', value: [{ value: 'id' }] },
          { name: 'action', value: [{ value: 'action' }] },
          { name: 'comment', value: [{ value: 'comment' }] },
        ],
      },
      commentRequired: ['rejected'],
      carriesComment: true,
    });
    expect(Object.isFrozen(decisions)).toBe(true);
  });

  it('take a GET with literal text around the placeholders, percent-decoded once, and a format the operator set', () => {
    const { decisions } = loadConfig({
      ...SLACK,
      DECISION_REQUEST: 'get performApproval?id=WI-{id}&decision={action}&note=by%20chat&format=xml',
      DECISION_COMMENT_REQUIRED: 'none',
    });
    // Its note is literal text: no comment is sent, so the confirmation asks for none.
    expect(decisions?.carriesComment).toBe(false);
    expect(decisions?.call).toMatchObject({
      method: 'GET',
      command: 'performApproval',
      setsFormat: true,
      query: [
        { name: 'id', value: [{ text: 'WI-' }, { value: 'id' }] },
        { name: 'decision', value: [{ value: 'action' }] },
        { name: 'note', value: [{ text: 'by chat' }] },
        { name: 'format', value: [{ text: 'xml' }] },
      ],
    });
  });

  it('read a body template, its type from its first character', () => {
    const xml = loadConfig({
      ...SLACK,
      DECISION_REQUEST: 'POST performWorkItem',
      DECISION_REQUEST_BODY: '<workitem-id>{id}</workitem-id><action>{action}</action><comment>{comment}</comment>',
    }).decisions?.call.body;
    expect(xml?.type).toBe('application/xml');
    expect(xml?.template.filter((p) => 'value' in p)).toEqual([{ value: 'id' }, { value: 'action' }, { value: 'comment' }]);
    const json = loadConfig({
      ...SLACK,
      DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}',
      DECISION_REQUEST_BODY: '{"action": "{action}", "comment": "{comment}"}',
    }).decisions?.call.body;
    expect(json?.type).toBe('application/json');
    const form = loadConfig({
      ...SLACK,
      DECISION_REQUEST: 'POST performWorkItem',
      DECISION_REQUEST_BODY: 'id={id}&action={action}',
      DECISION_COMMENT_REQUIRED: 'none',
    }).decisions?.call.body;
    expect(form?.type).toBe('application/x-www-form-urlencoded');
  });

  it('read which actions need a comment, any case, or none', () => {
    const with_ = (value: string) => loadConfig({ ...SLACK, DECISION_REQUEST: REQUEST, DECISION_COMMENT_REQUIRED: value }).decisions;
    expect(with_('Rejected, Needs Info')?.commentRequired).toEqual(['rejected', 'needs info']);
    expect(with_('none')?.commentRequired).toEqual([]);
  });

  const cases: Array<[string, Record<string, string>, string, RegExp]> = [
    [
      'an unknown placeholder',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}&action={action}&by={user}' },
      'DECISION_REQUEST',
      /unknown placeholder \{user\}/,
    ],
    ['no {id}', { DECISION_REQUEST: 'POST performWorkItem?action={action}' }, 'DECISION_REQUEST', /has no \{id\}/],
    [
      'no {action}',
      { DECISION_REQUEST: 'GET performWorkItem?workitem-id={id}&comment={comment}' },
      'DECISION_REQUEST',
      /has no \{action\}/,
    ],
    [
      'a bad method',
      { DECISION_REQUEST: 'DELETE performWorkItem?id={id}&action={action}' },
      'DECISION_REQUEST',
      /method DELETE: it must be GET or POST/,
    ],
    ['no command', { DECISION_REQUEST: 'POST ?id={id}&action={action}' }, 'DECISION_REQUEST', /must be METHOD COMMAND\?QUERY/],
    ['a method alone', { DECISION_REQUEST: 'POST' }, 'DECISION_REQUEST', /must be METHOD COMMAND\?QUERY/],
    ['cmd in the query', { DECISION_REQUEST: 'POST performWorkItem?cmd=x&id={id}&action={action}' }, 'DECISION_REQUEST', /sets cmd/],
    [
      'auth-user-id in the query',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}&action={action}&auth-user-id=admin' },
      'DECISION_REQUEST',
      /auth-user-id is added by countersign/,
    ],
    [
      'a parameter twice',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}&id={action}' },
      'DECISION_REQUEST',
      /sets the parameter id twice/,
    ],
    [
      'a broken escape',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}&action={action}&note=%zz' },
      'DECISION_REQUEST',
      /percent-encoding in the value of note/,
    ],
    [
      'a body with GET',
      { DECISION_REQUEST: 'GET performWorkItem?id={id}&action={action}', DECISION_REQUEST_BODY: '<c>{comment}</c>' },
      'DECISION_REQUEST_BODY',
      /a body needs POST/,
    ],
    [
      'an unknown placeholder in the body',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}', DECISION_REQUEST_BODY: '<a>{action}</a><x>{when}</x>' },
      'DECISION_REQUEST_BODY',
      /unknown placeholder \{when\}/,
    ],
    [
      'a JSON body whose placeholder is not in quotes',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}', DECISION_REQUEST_BODY: '{"action": {action}}' },
      'DECISION_REQUEST_BODY',
      /inside quotes/,
    ],
    [
      'no {action} in the query or the body',
      { DECISION_REQUEST: 'POST performWorkItem?id={id}', DECISION_REQUEST_BODY: '<c>{comment}</c>' },
      'DECISION_REQUEST',
      /has no \{action\}, nor has DECISION_REQUEST_BODY/,
    ],
    [
      'a comment required (by default) that the call never sends',
      { DECISION_REQUEST: 'POST performWorkItem?workitem-id={id}&action={action}' },
      'DECISION_REQUEST',
      /has no \{comment\}, while DECISION_COMMENT_REQUIRED \(by default\) asks for a comment on rejected: the comment would never reach the service\. Put \{comment\} in the call, or set DECISION_COMMENT_REQUIRED=none\. Example: DECISION_REQUEST='POST performWorkItem\?workitem-id=\{id\}&action=\{action\}&comment=\{comment\}'$/,
    ],
    [
      'a comment required that neither the request nor its body sends',
      {
        DECISION_REQUEST: 'POST performWorkItem',
        DECISION_REQUEST_BODY: 'id={id}&action={action}',
        DECISION_COMMENT_REQUIRED: 'Rejected,Needs Info',
      },
      'DECISION_REQUEST',
      /has no \{comment\}, nor has DECISION_REQUEST_BODY, while DECISION_COMMENT_REQUIRED asks for a comment on rejected, needs info/,
    ],
    [
      'a body without the request',
      { DECISION_REQUEST_BODY: '<a>{action}</a>' },
      'DECISION_REQUEST_BODY',
      /only used with DECISION_REQUEST/,
    ],
    [
      'comments required without the request',
      { DECISION_COMMENT_REQUIRED: 'Rejected' },
      'DECISION_COMMENT_REQUIRED',
      /only used with DECISION_REQUEST/,
    ],
    [
      'a control character in an action name',
      { DECISION_REQUEST: REQUEST, DECISION_COMMENT_REQUIRED: 'Rejected,\u0007' },
      'DECISION_COMMENT_REQUIRED',
      /action names/,
    ],
  ];
  for (const [name, env, variable, problem] of cases) {
    it(`stop on ${name}, naming the variable and what is wrong, with an example`, () => {
      const error = failure({ ...SLACK, ...env });
      expect(error.variable).toBe(variable);
      expect(error.message).toMatch(new RegExp(`^${variable} `));
      expect(error.message).toMatch(problem);
      expect(error.message).toMatch(new RegExp(`Example: ${variable}=\\S`));
    });
  }
});

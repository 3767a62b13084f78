/**
 * Every example a configuration message gives is one the same check accepts. Messages are provoked
 * from many environments (every variable loadConfig reads, found by watching what it reads, with
 * wrong values, alone, left out, and in random mixtures), each message's example is taken from its
 * text, set as a shell sets it (an operator pastes it after `export`), and fed back to loadConfig in
 * place of the value it was about, in a complete configuration: it must be accepted there. A
 * variable added later is found and held to the same, with nothing to list here.
 */

import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, checkValue, type Env, exampleOf, loadConfig, VARIABLES } from '../src/config.js';

/** A complete configuration, every variable set (HTTP mode, the trusted application, deciding in chat). */
const COMPLETE: Record<string, string> = {
  SLACK_BOT_TOKEN: 'xoxb-2222-3333-bcdefghijklm',
  SLACK_SIGNING_SECRET: 'abcdef0123456789abcdef0123456789',
  SLACK_API_URL: 'https://slack.example.org/api/',
  COMMAND_SERVICE_URL: 'https://service.example.org/aveksa',
  TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
  TOKEN_ENCRYPTION_KEY_PREVIOUS: Buffer.alloc(32, 8).toString('base64'),
  DATABASE_URL: 'sqlite:./data/examples.db',
  PORT: '3100',
  LOG_LEVEL: 'warn',
  METRICS_TOKEN: 'a-metrics-token-of-enough-length',
  SHUTDOWN_TIMEOUT: '45s',
  APPROVAL_URL_TEMPLATE: 'https://service.example.org/page?id={WorkItemId}',
  SERVICE_TIMEOUT: '30s',
  COMMAND_SERVICE_TIME_ZONE: 'Europe/Paris',
  COMMAND_SERVICE_CLIENT_ID: 'the-client',
  COMMAND_SERVICE_CLIENT_SECRET: 'the-client-secret',
  COMMAND_SERVICE_APP_TOKEN_MAX_AGE: '2h',
  DECISION_REQUEST: 'POST performWorkItem',
  DECISION_REQUEST_BODY: '{"id":"{id}","action":"{action}","comment":"{comment}"}',
  DECISION_COMMENT_REQUIRED: 'Rejected',
  REMIND_WINDOW: '5d',
  REMINDER_CONCURRENCY: '8',
  NOTIFY_INTERVAL: '2m',
  COMMANDS_PER_MINUTE: '30',
  COLLECT_ALLOWED_CHANNELS: 'C0OPS',
  COLLECT_ALLOWED_USERS: 'U0ADA',
  COLLECT_ALLOWED_USERGROUPS: 'S0OPS',
  COLLECT_FORCE_ALLOWED_USERS: 'U0ADA',
  COLLECT_COOLDOWN: '5m',
  COLLECT_WATCH_LIMIT: '2h',
};

/** What loadConfig made of an environment: nothing wrong, or the ConfigError's message. */
function messageOf(env: Env): string | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** Every variable loadConfig asks its environment for, in each mode. */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const values of [{}, COMPLETE, { ...COMPLETE, SLACK_APP_TOKEN: 'xapp-1-A0123-4567-abcdef' }]) {
    const env = new Proxy(values as Record<string, string>, {
      get(target, key) {
        if (typeof key === 'string') names.add(key);
        return typeof key === 'string' ? target[key] : undefined;
      },
    });
    messageOf(env);
  }
  return [...names].filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name)).sort();
}

/** Values wrong for most variables, each in its own way. */
const WRONG = [
  'x',
  '0',
  '-1',
  '99999999',
  'none',
  '1.5',
  'é',
  ' padded ',
  'with space',
  'http://',
  'ftp://example.org',
  'https://u:p@example.org',
  'postgres:',
  'xoxb-1',
  'xapp-1',
  'xoxp-1234-5678-abcdefghijkl',
  'GET cmd',
  '{id}',
  '{"a":{comment}}',
  'Rejected,\u0007',
  'C0OPS,general',
  'Etc/Nowhere',
  '+01:00',
  'a'.repeat(2000),
  '0123456789abcdef0123456789abcdeg',
  'AAAA',
];

/** The messages of many environments, each with the environment that provoked it. */
function provoke(variables: readonly string[]): Map<string, Record<string, string>> {
  const seen = new Map<string, Record<string, string>>();
  const tryEnv = (env: Record<string, string>) => {
    const message = messageOf(env);
    if (message !== undefined && !seen.has(message)) seen.set(message, env);
  };
  for (const name of variables) {
    const { [name]: _left, ...without } = COMPLETE;
    tryEnv(without);
    for (const value of WRONG) {
      tryEnv({ [name]: value });
      tryEnv({ ...COMPLETE, [name]: value });
    }
    if (COMPLETE[name] !== undefined) tryEnv({ [name]: COMPLETE[name] });
  }
  // Mixtures: each variable unset, as in the complete configuration, or wrong.
  fc.assert(
    fc.property(
      fc.record(Object.fromEntries(variables.map((name) => [name, fc.option(fc.constantFrom(COMPLETE[name] ?? 'x', ...WRONG))]))),
      (picked) => {
        const env: Record<string, string> = {};
        for (const [name, value] of Object.entries(picked)) if (value !== null) env[name] = value as string;
        tryEnv(env);
      },
    ),
    { numRuns: 400, seed: 34 },
  );
  return seen;
}

/** What a POSIX shell makes of `NAME=<example>`: the variable's value, or why it made none. */
function asTheShellSetsIt(name: string, assignment: string): { value: string } | { problem: string } {
  const run = spawnSync('sh', ['-c', `${assignment}\nprintf '%s' "$${name}"`], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (run.status !== 0 || run.stderr !== '') return { problem: `the shell said: ${run.stderr.trim() || `exit ${run.status}`}` };
  if (run.stdout === '') return { problem: 'the shell set it to nothing' };
  return { value: run.stdout };
}

describe('configuration messages', () => {
  const variables = variablesRead();
  const messages = provoke(variables);

  it('are provoked for every variable loadConfig reads', () => {
    expect(variables).toContain('SLACK_SIGNING_SECRET');
    expect(variables).toContain('COLLECT_WATCH_LIMIT');
    const named = new Set([...messages.keys()].map((m) => m.split(' ')[0]));
    expect(variables.filter((name) => !named.has(name))).toEqual([]);
    expect(messages.size).toBeGreaterThan(variables.length * 2);
  });

  it('each name the variable first and end with an example of that variable', () => {
    const wrong = [...messages.keys()].filter((m) => {
      const name = m.split(' ')[0] as string;
      return !variables.includes(name) || !m.includes(`. Example: ${name}=`);
    });
    expect(wrong).toEqual([]);
  });

  it('each give an example that, set as a shell sets it, the same check accepts', () => {
    const refused: string[] = [];
    for (const message of messages.keys()) {
      const name = message.split(' ')[0] as string;
      const assignment = message.slice(message.lastIndexOf('. Example: ') + '. Example: '.length);
      const set = asTheShellSetsIt(name, assignment);
      if ('problem' in set) {
        refused.push(`${assignment}: ${set.problem}`);
        continue;
      }
      const again = messageOf({ ...COMPLETE, [name]: set.value });
      if (again !== undefined) refused.push(`${assignment}: ${again}`);
    }
    expect(refused).toEqual([]);
  });

  it('name the rule that failed: a bot token too short is told so, not that it must start with xoxb-', () => {
    expect(messageOf({ ...COMPLETE, SLACK_BOT_TOKEN: 'xoxb-1' })).toMatch(/^SLACK_BOT_TOKEN is too short for a bot token\b/);
    expect(messageOf({ ...COMPLETE, SLACK_BOT_TOKEN: 'xoxp-1234-5678-abcdefghijkl' })).toMatch(
      /^SLACK_BOT_TOKEN must be a bot token, which starts with xoxb-/,
    );
    expect(messageOf({ ...COMPLETE, SLACK_SIGNING_SECRET: 'abcdef' })).toMatch(/32 hex digits, not 6\b/);
    expect(messageOf({ ...COMPLETE, SLACK_SIGNING_SECRET: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' })).toMatch(/hex digits \(0-9, a-f\) only/);
    expect(messageOf({ ...COMPLETE, TOKEN_ENCRYPTION_KEY: 'AAAA' })).toMatch(/exactly 32 bytes, not 3:/);
    expect(messageOf({ ...COMPLETE, COMMAND_SERVICE_URL: 'https://u:p@example.org' })).toMatch(/must not carry a user name or password/);
  });
});

describe('the table of variables', () => {
  it('holds every variable loadConfig reads, and no other', () => {
    expect([...VARIABLES].sort()).toEqual(variablesRead());
  });

  it('gives each an example its own check accepts, whether or not a test provoked a message showing it', () => {
    const refused = VARIABLES.flatMap((name) => {
      const set = asTheShellSetsIt(name, `${name}=${exampleOf(name)}`);
      if ('problem' in set) return [`${name}: ${set.problem}`];
      const problem = checkValue(name, set.value);
      return problem === undefined ? [] : [`${name}=${exampleOf(name)}: ${problem}`];
    });
    expect(refused).toEqual([]);
  });
});

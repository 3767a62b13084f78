import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../src/reference-service/server.js';
import { Secret } from '../src/runtime/secret.js';
import { createServiceClient } from '../src/service/index.js';
import { cli as countersign } from './helpers/cli.js';
import { startFakeSlack } from './helpers/fake-slack.js';
import { childEnv, ROOT, spawnCli } from './helpers/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('countersign service', () => {
  it('serves the demo data, prints working demo tokens, and stops cleanly on SIGTERM', async () => {
    const cli = spawnCli(['service', '--port', '0']);
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    const [, token] = await cli.waitFor(/^ {2}approver +ada\.lovelace +(\S+)/m);
    const client = createServiceClient({ baseUrl: url ?? '' });
    const page = await client.findApprovals({ 'page-size': 3 }, new Secret(token ?? ''));
    expect(page.count).toBe(3);
    await client.close();
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toContain('stopped');
  });

  it('prints the trusted application loginTrustedApp accepts, made up or as given, and it signs in', async () => {
    const made = countersign(['service', '--port', '0']);
    const [, url] = await made.waitFor(/listening on (http:\/\/\S+)/);
    // What countersign must be told of its times.
    await made.waitFor(/^ {2}Its times are written in UTC: give countersign COMMAND_SERVICE_TIME_ZONE=UTC\.$/m);
    const [, id, secret] = await made.waitFor(/COMMAND_SERVICE_CLIENT_ID=(\S+)\n {2}COMMAND_SERVICE_CLIENT_SECRET=(\S+)/);
    expect(id).toBe('countersign');
    const client = createServiceClient({ baseUrl: url ?? '' });
    const app = await client.loginTrustedApp({ clientId: id ?? '', clientSecret: new Secret(secret ?? '') });
    expect((await client.findApprovals({ 'page-size': 2 }, app, { onBehalfOf: 'ada.lovelace' })).count).toBe(2);
    await client.close();
    made.signal('SIGTERM');
    expect(await made.exited).toBe(0);

    const given = countersign(['service', '--port', '0', '--client-id', 'my-app', '--client-secret', 'my-secret-123']);
    await given.waitFor(/COMMAND_SERVICE_CLIENT_ID=my-app\n {2}COMMAND_SERVICE_CLIENT_SECRET=my-secret-123\n/);
    given.signal('SIGTERM');
    expect(await given.exited).toBe(0);

    const bad = countersign(['service', '--port', '0', '--client-secret', 'with space']);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('--client-secret takes 1 to 256 visible characters');
  });

  it('keeps data in a file across restarts', async () => {
    const file = join(dir, 'reference.db');
    for (const expectFill of [true, false]) {
      const cli = countersign(['service', '--port', '0', '--data', file]);
      await cli.waitFor(/420 approvals, 7 collectors/);
      expect(cli.stderr().includes('Filling')).toBe(expectFill);
      cli.signal('SIGTERM');
      expect(await cli.exited).toBe(0);
    }
  });

  it('switches commands off with --disable, as an administrator would', async () => {
    const cli = countersign(['service', '--port', '0', '--disable', 'getApprovalDetails']);
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    await cli.waitFor(/Switched off: getApprovalDetails/);
    const [, token] = await cli.waitFor(/^ {2}approver +ada\.lovelace +(\S+)/m);
    const client = createServiceClient({ baseUrl: url ?? '' });
    const [approval] = (await client.findApprovals({ 'page-size': 1 }, new Secret(token ?? ''))).approvals;
    await expect(client.getApprovalDetails(approval?.workItemId ?? '', new Secret(token ?? ''))).rejects.toMatchObject({
      kind: 'not-offered',
    });
    const items = await client.getRequestItems(
      { approvalId: approval?.workItemId ?? '' },
      { pageSize: 5, startPage: 1 },
      new Secret(token ?? ''),
    );
    expect(items.items.length).toBeGreaterThan(0);
    await client.close();
    cli.signal('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('answers each call after --latency, and reports the calls and the most in flight at once', async () => {
    const cli = countersign(['service', '--port', '0', '--latency', '300ms']);
    const [, url] = await cli.waitFor(/listening on (http:\/\/\S+)/);
    await cli.waitFor(/Every call waits 300 ms before it is answered/);
    const [, token] = await cli.waitFor(/^ {2}approver +ada\.lovelace +(\S+)/m);
    const client = createServiceClient({ baseUrl: url ?? '' });
    const started = performance.now();
    const pages = await Promise.all([1, 2, 3].map(() => client.findApprovals({ 'page-size': 2 }, new Secret(token ?? ''))));
    // A lower bound only: the wait is the service's, whatever this machine's speed.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(pages.map((p) => p.count)).toEqual([2, 2, 2]);
    await client.close();
    cli.signal('SIGUSR2');
    await cli.waitFor(/Calls answered: 3 \(findApprovals 3\); at most 3 in flight at once\./);
    cli.signal('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toContain('stopped. Calls answered: 3 (findApprovals 3); at most 3 in flight at once.');
  });

  it('refuses a --latency that is not a duration up to a minute, saying the right form', async () => {
    for (const value of ['200', 'fast', '2m', '61s', '-1s']) {
      const cli = countersign(['service', '--port', '0', `--latency=${value}`]);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toContain(`--latency takes a duration from 0 to 60s, like 200ms or 1.5s, not '${value}'`);
    }
    const zero = countersign(['service', '--port', '0', '--latency', '0']);
    await zero.waitFor(/listening on/);
    expect(zero.stdout()).not.toContain('Every call waits');
    zero.signal('SIGTERM');
    expect(await zero.exited).toBe(0);
  });

  it('exits 2 on a wrong command or option with one line saying what is wrong and one pointing to help, not the whole usage', async () => {
    for (const [args, says, help] of [
      [['nope'], "unknown command 'nope'", 'countersign help'],
      [['service', '--port', 'x'], "--port takes a whole number from 0 to 65535, not 'x'", 'countersign service --help'],
      [['service', '--bogus'], 'service has no option --bogus', 'countersign service --help'],
      [['service', '--port'], '--port needs a value', 'countersign service --help'],
      [['audit', '--json=yes'], '--json takes no value', 'countersign audit --help'],
      [
        ['service', '--approvals', '10'],
        '--approvals needs --data <file.db>: a large data set is built once and kept',
        'countersign service --help',
      ],
      [
        ['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all', 'extra'],
        "tokens set takes options only, not 'extra'",
        'countersign tokens --help',
      ],
    ] as const) {
      const cli = countersign([...args]);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toBe(
        `countersign: ${says}\nRun ${help} for ${help === 'countersign help' ? 'every command and its options' : 'what it takes'}.\n`,
      );
    }
    // With no command at all, the whole usage is the answer.
    const bare = countersign([]);
    expect(await bare.exited).toBe(2);
    expect(bare.stdout()).toMatch(/^Usage: countersign <command>/);
  });

  it('reads a value that starts with a dash as the value it is, and says what is wrong with it on one line', async () => {
    for (const [args, says] of [
      [['audit', '--limit', '-1'], "--limit takes a whole number from 1 to 100000, not '-1'"],
      [['audit', '--since', '-7d'], "--since takes 7d, 24h, 30m or a date such as 2026-11-01, not '-7d'"],
      [['service', '--port', '-80'], "--port takes a whole number from 0 to 65535, not '-80'"],
    ] as const) {
      const cli = countersign([...args]);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr().split('\n')[0]).toBe(`countersign: ${says}`);
      expect(cli.stderr()).not.toMatch(/\\u000a|ambiguous/);
    }
    // A value left out before the next option is said so, not taken for a value.
    const missing = countersign(['audit', '--limit', '--json']);
    expect(await missing.exited).toBe(2);
    expect(missing.stderr().split('\n')[0]).toBe('countersign: --limit needs a value');
  });

  it('answers --help after a command with what that command takes, exit 0', async () => {
    for (const [args, says] of [
      [['service', '--help'], /^Usage: countersign service …\n\n {2}service \[--port N\]/],
      [['tokens', 'set', '-h'], /^Usage: countersign tokens …\n\n {2}tokens set --user[\s\S]+ {2}tokens delete/],
      [['audit', '--help'], /^Usage: countersign audit …\n\n {2}audit \[--kind collections\|decisions\] \[--since/],
    ] as const) {
      const cli = countersign([...args]);
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toMatch(says);
      expect(cli.stdout()).not.toContain('keys rotate');
    }
    const unknown = countersign(['nope', '--help']);
    expect(await unknown.exited).toBe(2);
  });

  it('exits 1 when the port is taken, saying which port and what to do, not EADDRINUSE', async () => {
    const first = countersign(['service', '--port', '0']);
    const [, port] = await first.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const second = countersign(['service', '--port', port ?? '']);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toBe(
      `countersign: port ${port} on 127.0.0.1 is already in use (another countersign service, or another program). Stop that, or give another port: countersign service --port ${Number(port) + 1}\n`,
    );
    expect(second.stdout()).not.toContain('listening');
    first.signal('SIGTERM');
    await first.exited;
  });
});

describe('countersign tokens', () => {
  const env = (name: string) => ({
    DATABASE_URL: `sqlite:${join(dir, name, 'countersign.db')}`,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  });
  const TOKEN = 'ws3101aaaa:-28aff589:18a2758240d:-7c4e0.57';

  it('links a token read from stdin, lists it without the token, stores it encrypted, and deletes it', async () => {
    const e = env('a');
    const set = countersign(['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all'], e, `${TOKEN}\n`);
    expect(await set.exited).toBe(0);
    expect(set.stderr()).toContain('Linked findApprovals and collectEntitlements for U012ABCDEF.');
    const list = countersign(['tokens', 'list'], e);
    expect(await list.exited).toBe(0);
    // Times as the product writes them, in the CLI's zone (the test's: UTC), named; never an ISO instant.
    expect(list.stdout()).toMatch(
      /^TEAM +USER +COMMAND +LINKED AT +SOURCE +LAST USE\n\* +U012ABCDEF +collectEntitlements +\w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC +admin/,
    );
    expect(list.stdout()).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(list.stdout()).not.toContain(TOKEN);
    const json = countersign(['tokens', 'list', '--json'], e);
    expect(await json.exited).toBe(0);
    expect(
      json
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).command),
    ).toEqual(['collectEntitlements', 'findApprovals']);
    for (const file of readdirSync(join(dir, 'a'))) {
      expect(readFileSync(join(dir, 'a', file)).includes(Buffer.from('28aff589'))).toBe(false);
    }
    const del = countersign(['tokens', 'delete', '--user', 'U012ABCDEF'], e);
    expect(await del.exited).toBe(0);
    expect(del.stderr()).toContain('Forgot 2 token(s)');
    const again = countersign(['tokens', 'delete', '--user', 'U012ABCDEF'], e);
    expect(await again.exited).toBe(1);
  });

  it('deletes every link that would act for the user: with --team, that workspace’s and any-workspace ones; without, all', async () => {
    const e = env('delete');
    for (const team of [[], ['--team', 'T0ONE'], ['--team', 'T0TWO']]) {
      const set = countersign(['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all', ...team], e, TOKEN);
      expect(await set.exited).toBe(0);
    }
    const inOne = countersign(['tokens', 'delete', '--user', 'U012ABCDEF', '--team', 'T0ONE'], e);
    expect(await inOne.exited).toBe(0);
    expect(inOne.stderr()).toContain('Forgot 4 token(s) of U012ABCDEF in T0ONE (its links and any-workspace links).');
    const json = countersign(['tokens', 'list', '--json'], e);
    expect(await json.exited).toBe(0);
    expect(
      new Set(
        json
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).teamId),
      ),
    ).toEqual(new Set(['T0TWO']));
    const everywhere = countersign(['tokens', 'delete', '--user', 'U012ABCDEF'], e);
    expect(await everywhere.exited).toBe(0);
    expect(everywhere.stderr()).toContain('Forgot 2 token(s) of U012ABCDEF in any workspace.');
    const none = countersign(['tokens', 'list'], e);
    expect(await none.exited).toBe(0);
    expect(none.stderr()).toContain('No tokens are linked.');
  });

  it('generates a local key, readable by its owner only, when none is configured', async () => {
    const set = countersign(
      ['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'findApprovals'],
      { DATABASE_URL: `sqlite:${join(dir, 'local', 'c.db')}` },
      TOKEN,
    );
    expect(await set.exited).toBe(0);
    expect(statSync(join(dir, 'local', 'encryption.key')).mode & 0o777).toBe(0o600);
  });

  it('refuses a token on the command line, and other usage errors, with exit 2', async () => {
    const e = env('b');
    for (const [args, input, message] of [
      [
        ['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all', '--token', TOKEN],
        TOKEN,
        /^countersign: tokens set has no option --token\n/,
      ],
      [['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all'], '', /no token on standard input/],
      [['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all'], 'two tokens', /spaces or control characters/],
      [['tokens', 'set', '--user', 'alice', '--command', 'all'], TOKEN, /Slack user id such as U012ABCDEF, not 'alice'/],
      [
        ['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'deleteAll'],
        TOKEN,
        /--command findApprovals, collectEntitlements or all, not 'deleteAll'/,
      ],
      [['tokens', 'rotate'], undefined, /tokens takes set, list or delete/],
    ] as const) {
      const cli = countersign([...args], e, input);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toMatch(message);
      expect(cli.stderr()).not.toContain('28aff589');
    }
  });

  it('exits 1 naming the variable when the configuration is bad', async () => {
    const cli = countersign(['tokens', 'list'], { DATABASE_URL: 'mysql://x' });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('DATABASE_URL must be sqlite:<path> or postgres://');
  });
});

describe('countersign users', () => {
  const env = (name: string, trusted = true) => ({
    DATABASE_URL: `sqlite:${join(dir, name, 'countersign.db')}`,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
    ...(trusted ? { COMMAND_SERVICE_CLIENT_ID: 'countersign', COMMAND_SERVICE_CLIENT_SECRET: 'a-secret-for-the-cli' } : {}),
  });

  it('maps a Slack user to a user of the service, lists and unmaps them, by the workspace rules of tokens', async () => {
    const e = env('users');
    const map = countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'jdoe', '--authsource', 'corp-ldap'], e);
    expect(await map.exited).toBe(0);
    expect(map.stderr()).toBe('Mapped U012ABCDEF to jdoe (corp-ldap).\n');
    const inTeam = countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'john.doe', '--team', 'T0ONE'], e);
    expect(await inTeam.exited).toBe(0);
    expect(inTeam.stderr()).toContain('Mapped U012ABCDEF in T0ONE to john.doe.');

    const list = countersign(['users', 'list'], e);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toMatch(
      /^TEAM +USER +SERVICE USER +AUTHSOURCE +LINKED AT +SOURCE +LAST USE\n\* +U012ABCDEF +jdoe +corp-ldap +\w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC +admin +-\nT0ONE +U012ABCDEF +john\.doe +- /,
    );
    const json = countersign(['users', 'list', '--json'], e);
    expect(await json.exited).toBe(0);
    expect(
      json
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      expect.objectContaining({ teamId: '', userId: 'U012ABCDEF', serviceUser: 'jdoe', authsource: 'corp-ldap', source: 'admin' }),
      expect.objectContaining({ teamId: 'T0ONE', serviceUser: 'john.doe', authsource: null }),
    ]);

    const unmap = countersign(['users', 'unmap', '--user', 'U012ABCDEF', '--team', 'T0ONE'], e);
    expect(await unmap.exited).toBe(0);
    expect(unmap.stderr()).toContain('Forgot 2 mapping(s) of U012ABCDEF in T0ONE (its mapping and an any-workspace one).');
    const again = countersign(['users', 'unmap', '--user', 'U012ABCDEF'], e);
    expect(await again.exited).toBe(1);
    expect(again.stderr()).toContain('U012ABCDEF had no mapping in any workspace.');
    const none = countersign(['users', 'list'], e);
    expect(await none.exited).toBe(0);
    expect(none.stderr()).toContain('No users are mapped.');
  });

  it('warns that a mapping for any workspace is not used where the user has one of their own, naming it and the commands that change it', async () => {
    const e = env('users-shadowed');
    // As if the user had linked themselves in one workspace (or an admin had, for it).
    expect(await countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'alice', '--team', 'T0ONE'], e).exited).toBe(0);
    expect(await countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'al', '--team', 'T0TWO'], e).exited).toBe(0);
    const map = countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'bob'], e);
    expect(await map.exited).toBe(0);
    const said = map.stderr();
    expect(said).toContain('Mapped U012ABCDEF to bob.');
    expect(said).toContain('Note: in T0ONE, U012ABCDEF has a mapping of their own (alice');
    expect(said).toContain('Note: in T0TWO, U012ABCDEF has a mapping of their own (al');
    expect(said).toContain('countersign uses it there, not this one');
    expect(said).toContain('countersign users unmap --user U012ABCDEF --team T0ONE');
    expect(said).toContain('countersign users map --user U012ABCDEF --team T0ONE --service-user bob');
    // A mapping for one workspace shadows nothing: no note.
    const inTeam = countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'carol', '--team', 'T0ONE'], e);
    expect(await inTeam.exited).toBe(0);
    expect(inTeam.stderr()).not.toContain('Note:');
  });

  it('says when the mode that uses mappings is not configured, and never prints the client secret', async () => {
    const map = countersign(['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'jdoe'], env('users-off', false));
    expect(await map.exited).toBe(0);
    expect(map.stderr()).toContain('mappings are used only in the trusted-application mode');
    const token = countersign(['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all'], env('users-off'), 'ws3101aaaa:-1:2:-3.4');
    expect(await token.exited).toBe(0);
    expect(token.stderr()).toContain('the token is used until it expires; `countersign users map` links for good');
    const on = countersign(['users', 'list'], env('users-off'));
    expect(await on.exited).toBe(0);
    expect(on.stdout() + on.stderr()).not.toContain('a-secret-for-the-cli');
  });

  it('refuses wrong usage with exit 2, and a bad client secret with exit 1 naming the variable', async () => {
    const e = env('users-bad');
    for (const [args, message] of [
      [['users', 'map', '--user', 'U012ABCDEF'], /users map needs --service-user/],
      [['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'jd\u202eoe'], /users map needs --service-user/],
      [['users', 'map', '--user', 'alice', '--service-user', 'jdoe'], /Slack user id such as U012ABCDEF, not 'alice'/],
      [['users', 'map', '--user', 'U012ABCDEF', '--service-user', 'jdoe', '--team', 'nope'], /--team takes a Slack team id/],
      [['users', 'unmap', '--user', 'U012ABCDEF', '--service-user', 'jdoe'], /users unmap takes no --service-user/],
      [['users', 'delete'], /users takes map, list or unmap/],
    ] as const) {
      const cli = countersign([...args], e);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toMatch(message);
    }
    const config = countersign(['users', 'list'], { ...e, COMMAND_SERVICE_CLIENT_SECRET: 'short' });
    expect(await config.exited).toBe(1);
    expect(config.stderr()).toContain('COMMAND_SERVICE_CLIENT_SECRET must be the ClientSecret');
    expect(config.stderr()).not.toMatch(/COMMAND_SERVICE_CLIENT_SECRET=short/);
  });
});

// A pseudo-terminal, as an admin's shell gives the CLI: util-linux's script runs it on one and relays our keystrokes.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) process.stderr.write('script (util-linux) not found: skipping the tests of reading a token at a terminal\n');

describe.skipIf(!hasScript)('countersign tokens set at a terminal', () => {
  const env = childEnv({
    SHELL: '/bin/sh',
    DATABASE_URL: `sqlite:${join(dir, 'tty', 'countersign.db')}`,
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  /** Runs `tokens set` on a terminal, types `keys` once it prompts, and returns everything the terminal showed. */
  function atTerminal(keys: string): Promise<string> {
    // After the CLI, the terminal's own settings: they show whether echo came back on.
    const cli = `${process.execPath} --import tsx src/cli.ts tokens set --user U0TTY --command all; echo "exit=$?"; stty -a`;
    const child = spawn('script', ['-qec', cli, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let shown = '';
    let typed = false;
    child.stdout.on('data', (c: Buffer) => {
      shown += c.toString();
      if (!typed && /press Enter/.test(shown)) {
        typed = true;
        child.stdin.write(keys);
      }
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`no end at the terminal; it showed: ${shown}`));
      }, 15_000);
      child.on('exit', () => {
        clearTimeout(timer);
        child.stdin.end();
        resolve(shown);
      });
    });
  }

  it('reads the token without echoing it (Backspace works), links it, and leaves the terminal as it found it', async () => {
    const shown = await atTerminal('ws-typed-secret-4X\u007f2\r');
    expect(shown).not.toContain('ws-typed-secret-4');
    expect(shown).toContain('Linked findApprovals and collectEntitlements for U0TTY.');
    expect(shown).toContain('exit=0');
    expect(shown).toMatch(/(^|\s)echo(\s|$)/m);
    expect(shown).toMatch(/(^|\s)icanon(\s|$)/m);
    const { SqliteStore } = await import('../src/store/sqlite.js');
    const store = new SqliteStore(String(env.DATABASE_URL).slice('sqlite:'.length), new Secret(String(env.TOKEN_ENCRYPTION_KEY)));
    expect((await store.getToken({ teamId: 'T1', userId: 'U0TTY' }, 'collectEntitlements'))?.token.reveal()).toBe('ws-typed-secret-42');
    await store.close();
  });

  it('on Ctrl-C links nothing, exits 130 and gives the terminal its echo back', async () => {
    const shown = await atTerminal('ws-abc\u0003');
    expect(shown).toContain('cancelled; nothing was changed');
    expect(shown).toContain('exit=130');
    expect(shown).not.toContain('ws-abc');
    expect(shown).toMatch(/(^|\s)echo(\s|$)/m);
    expect(shown).toMatch(/(^|\s)icanon(\s|$)/m);
  });
});

describe('countersign tokens set, checked against the service', () => {
  const KEY = Buffer.alloc(32, 5).toString('base64');
  let service: Awaited<ReturnType<typeof startReferenceService>>;
  beforeAll(async () => {
    service = await startReferenceService({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => service?.close());
  const demo = (label: string) => service.demoTokens.find((t) => t.label === label)?.token ?? '';
  const env = (name: string, url = service.url) => ({
    DATABASE_URL: `sqlite:${join(dir, 'checked', name, 'countersign.db')}`,
    TOKEN_ENCRYPTION_KEY: KEY,
    COMMAND_SERVICE_URL: url,
  });
  const linked = async (name: string, user: string) => {
    const list = countersign(['tokens', 'list', '--json'], env(name));
    expect(await list.exited).toBe(0);
    return list
      .stdout()
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l))
      .filter((l) => l.userId === user)
      .map((l) => l.command);
  };

  it('links a token the service accepts, after a harmless findApprovals of one approval, and says it was checked', async () => {
    const calls = service.calls.get('findApprovals') ?? 0;
    const set = countersign(['tokens', 'set', '--user', 'U0ADA', '--command', 'findApprovals'], env('ok'), demo('approver'));
    expect(await set.exited).toBe(0);
    expect(set.stderr()).toBe(
      'Linked findApprovals for U0ADA. The Command Service accepted the token (checked with a findApprovals of one approval).\n',
    );
    expect(service.calls.get('findApprovals')).toBe(calls + 1);
    expect(await linked('ok', 'U0ADA')).toEqual(['findApprovals']);
  });

  it('links nothing when the service refuses the token, and says why and what to do', async () => {
    const expired = countersign(['tokens', 'set', '--user', 'U0OLD', '--command', 'all'], env('refused'), demo('expired'));
    expect(await expired.exited).toBe(1);
    expect(expired.stderr()).toBe(
      'countersign: the Command Service refused this token: it is not valid or has expired. Nothing was linked; get a new token and run tokens set again.\n',
    );
    // A token for collections only, offered for everything: refused for findApprovals.
    const ops = countersign(['tokens', 'set', '--user', 'U0OPS', '--command', 'all'], env('refused'), demo('ops'));
    expect(await ops.exited).toBe(1);
    expect(ops.stderr()).toBe(
      'countersign: the Command Service refused this token for findApprovals: it is not allowed to run that command. Nothing was linked. If it is meant for collections only, link it with --command collectEntitlements.\n',
    );
    const app = countersign(['tokens', 'set', '--user', 'U0APP', '--command', 'findApprovals'], env('refused'), demo('trusted-app'));
    expect(await app.exited).toBe(1);
    expect(app.stderr()).toContain('it belongs to an application, not to a person (the service wants auth-user-id). Nothing was linked.');
    expect(await linked('refused', 'U0OLD')).toEqual([]);
    expect(await linked('refused', 'U0OPS')).toEqual([]);
    expect(await linked('refused', 'U0APP')).toEqual([]);
    for (const run of [expired, ops, app]) expect(run.stderr()).not.toContain(demo('expired').slice(0, 12));
  });

  it('links a collections-only token unchecked, and says why: collectEntitlements has no call that does no work', async () => {
    const calls = [...service.calls.values()].reduce((a, b) => a + b, 0);
    const set = countersign(['tokens', 'set', '--user', 'U0OPS', '--command', 'collectEntitlements'], env('ops'), demo('ops'));
    expect(await set.exited).toBe(0);
    expect(set.stderr()).toBe(
      'Linked collectEntitlements for U0OPS. Not checked: collectEntitlements has no call that does no work (trying it would start collections), so the token is checked the first time it is used.\n',
    );
    expect([...service.calls.values()].reduce((a, b) => a + b, 0)).toBe(calls);
    expect(await linked('ops', 'U0OPS')).toEqual(['collectEntitlements']);
  });

  it('links nothing when the service cannot be reached, naming the address', async () => {
    const down = 'http://127.0.0.1:9/aveksa';
    const set = countersign(['tokens', 'set', '--user', 'U0ADA', '--command', 'all'], env('down', down), demo('approver'));
    expect(await set.exited).toBe(1);
    expect(set.stderr()).toBe(
      `countersign: could not check the token: the Command Service at ${down} cannot be reached. Nothing was linked; try again once it answers.\n`,
    );
  });

  it('says a token is unchecked when there is no service to check it against', async () => {
    const set = countersign(
      ['tokens', 'set', '--user', 'U0ADA', '--command', 'all'],
      { DATABASE_URL: `sqlite:${join(dir, 'checked', 'nourl', 'countersign.db')}`, TOKEN_ENCRYPTION_KEY: KEY },
      'ws-any',
    );
    expect(await set.exited).toBe(0);
    expect(set.stderr()).toBe(
      'Linked findApprovals and collectEntitlements for U0ADA. Not checked: COMMAND_SERVICE_URL is not set, so there is no service to check it against.\n',
    );
  });
});

describe('countersign keys rotate', () => {
  it('re-encrypts every token with the new key, reading the old with TOKEN_ENCRYPTION_KEY_PREVIOUS', async () => {
    const db = `sqlite:${join(dir, 'rotate', 'countersign.db')}`;
    const oldKey = Buffer.alloc(32, 11).toString('base64');
    const newKey = Buffer.alloc(32, 12).toString('base64');
    const set = countersign(
      ['tokens', 'set', '--user', 'U012ABCDEF', '--command', 'all'],
      { DATABASE_URL: db, TOKEN_ENCRYPTION_KEY: oldKey },
      'ws-rotate-1',
    );
    expect(await set.exited).toBe(0);
    const without = countersign(['keys', 'rotate'], { DATABASE_URL: db, TOKEN_ENCRYPTION_KEY: newKey });
    expect(await without.exited).toBe(1);
    expect(without.stderr()).toContain('Set TOKEN_ENCRYPTION_KEY_PREVIOUS to the key those tokens were written with; nothing was changed.');
    const rotate = countersign(['keys', 'rotate'], {
      DATABASE_URL: db,
      TOKEN_ENCRYPTION_KEY: newKey,
      TOKEN_ENCRYPTION_KEY_PREVIOUS: oldKey,
    });
    expect(await rotate.exited).toBe(0);
    expect(rotate.stderr()).toBe(
      'Re-encrypted 2 tokens from the previous key (TOKEN_ENCRYPTION_KEY_PREVIOUS) to the current one (TOKEN_ENCRYPTION_KEY); none was already under the current key.\n' +
        'Every stored token is now under TOKEN_ENCRYPTION_KEY: TOKEN_ENCRYPTION_KEY_PREVIOUS can be removed once every instance of countersign runs with this TOKEN_ENCRYPTION_KEY.\n',
    );
    const again = countersign(['keys', 'rotate'], { DATABASE_URL: db, TOKEN_ENCRYPTION_KEY: newKey });
    expect(await again.exited).toBe(0);
    expect(again.stderr()).toBe(
      'Nothing to re-encrypt: all 2 stored tokens are already under the current key (TOKEN_ENCRYPTION_KEY).\n' +
        'TOKEN_ENCRYPTION_KEY_PREVIOUS is not set, and no stored token needs it.\n',
    );
  });

  it('says how many it re-encrypted and how many were already under the current key', async () => {
    const db = `sqlite:${join(dir, 'rotate-mixed', 'countersign.db')}`;
    const oldKey = Buffer.alloc(32, 21).toString('base64');
    const newKey = Buffer.alloc(32, 22).toString('base64');
    const both = { DATABASE_URL: db, TOKEN_ENCRYPTION_KEY: newKey, TOKEN_ENCRYPTION_KEY_PREVIOUS: oldKey };
    const old = countersign(
      ['tokens', 'set', '--user', 'U0OLD', '--command', 'findApprovals'],
      { DATABASE_URL: db, TOKEN_ENCRYPTION_KEY: oldKey },
      'ws-old',
    );
    expect(await old.exited).toBe(0);
    const fresh = countersign(['tokens', 'set', '--user', 'U0NEW', '--command', 'all'], both, 'ws-new');
    expect(await fresh.exited).toBe(0);
    const rotate = countersign(['keys', 'rotate'], both);
    expect(await rotate.exited).toBe(0);
    expect(rotate.stderr()).toContain(
      'Re-encrypted 1 token from the previous key (TOKEN_ENCRYPTION_KEY_PREVIOUS) to the current one (TOKEN_ENCRYPTION_KEY); 2 were already under the current key.',
    );
    expect(rotate.stderr()).toContain('TOKEN_ENCRYPTION_KEY_PREVIOUS can be removed once every instance');
    // Nothing left for the previous key to read: said as such when it is still set.
    const again = countersign(['keys', 'rotate'], both);
    expect(await again.exited).toBe(0);
    expect(again.stderr()).toContain('all 3 stored tokens are already under the current key');
    expect(again.stderr()).toContain('TOKEN_ENCRYPTION_KEY_PREVIOUS reads none of them: it can be removed once every instance');
  });

  it('refuses other words with exit 2', async () => {
    const cli = countersign(['keys', 'delete']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain("keys takes rotate, not 'delete'");
  });
});

describe('countersign audit', () => {
  const KEY = Buffer.alloc(32, 4).toString('base64');
  const db = join(dir, 'audit', 'countersign.db');
  const env = { DATABASE_URL: `sqlite:${db}`, TOKEN_ENCRYPTION_KEY: KEY };
  /** A database of the test's own under `name`: the CLI's environment for it, and the store to write its rows. */
  const ownStore = async (name: string) => {
    const path = join(dir, name, 'countersign.db');
    const { SqliteStore } = await import('../src/store/sqlite.js');
    return { env: { DATABASE_URL: `sqlite:${path}`, TOKEN_ENCRYPTION_KEY: KEY }, store: new SqliteStore(path, new Secret(KEY)) };
  };

  it('prints every attempt oldest first, as a table or JSON lines, filtered by time and channel', async () => {
    const { SqliteStore } = await import('../src/store/sqlite.js');
    const store = new SqliteStore(db, new Secret(KEY));
    const base = { teamId: 'T1', userId: 'UOSCAR' };
    const day = 86_400_000;
    // The CLI's clock and zone are the test's: "7d" counts back from this instant, whatever the date.
    const NOW = Date.parse('2026-12-31T22:30:00Z');
    const at = { now: () => new Date(NOW), timeZone: 'Asia/Kolkata' };
    const asked = { ...base, attemptId: 'a1', channelId: 'C0ONE', query: {} };
    await store.recordCollectStep({ ...asked, at: new Date(NOW - 10 * day), step: 'asked' });
    await store.recordCollectStep({ ...asked, at: new Date(NOW - 10 * day + 60_000), step: 'cancelled', reason: { kind: 'cancelled' } });
    const started = { ...base, attemptId: 'a2', channelId: 'C0ONE', query: { name: 'AD Accounts' } };
    await store.recordCollectStep({ ...started, at: new Date(NOW - 2 * day), step: 'sent' });
    await store.recordCollectStep({
      ...started,
      at: new Date(NOW - 2 * day),
      step: 'answered',
      runs: [{ runId: '41', collector: 'AD Accounts', state: undefined }],
      leftOut: [],
      ranAgain: [],
    });
    await store.recordCollectStep({
      ...base,
      attemptId: 'a3',
      at: new Date(NOW - day),
      channelId: 'C0TWO',
      query: { name: 'AWS IAM', force: true },
      step: 'refused',
      reason: { kind: 'force' },
    });
    await store.close();

    const table = countersign(['audit'], env, '', at);
    expect(await table.exited).toBe(0);
    const lines = table.stdout().trim().split('\n');
    expect(lines[0]).toMatch(/^WHEN +TEAM +CHANNEL +WHO +COLLECTOR +APPLICATION +FORCE +OUTCOME +RUNS$/);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/)[7])).toEqual([
      'cancelled: cancelled at the confirmation',
      'started',
      'refused: they may not force',
    ]);
    // In the reader's zone, written as the product writes every time, the zone named: never an ISO instant.
    expect(lines[1]).toMatch(/^Tue 22 Dec 2026, 04:00 Kolkata time /);
    expect(lines[1]).toContain('every collector  every application');
    expect(lines[2]).toMatch(/AD Accounts 41 started$/);
    expect(lines[3]).toMatch(/yes +refused: they may not force$/);
    expect(table.stderr()).toContain("Times are in this machine's zone (Asia/Kolkata)");

    const json = countersign(['audit', '--since', '7d', '--json'], env, '', at);
    expect(await json.exited).toBe(0);
    const rows = json
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.id)).toEqual(['a2', 'a3']);
    expect(rows[0]).toMatchObject({
      channel: 'C0ONE',
      user: 'UOSCAR',
      name: 'AD Accounts',
      application: null,
      force: false,
      outcome: 'started',
    });
    expect(rows[0].runs).toEqual([{ runId: '41', collector: 'AD Accounts', state: null }]);
    expect(rows[1]).toMatchObject({ outcome: 'refused', reason: 'they may not force', detail: { kind: 'force' } });
    // Every step, with its own time: the question's time is not lost when it is answered.
    expect(rows[0].steps).toEqual([
      { step: 'sent', at: new Date(NOW - 2 * day).toISOString() },
      { step: 'answered', at: new Date(NOW - 2 * day).toISOString() },
    ]);

    const channel = countersign(['audit', '--channel', 'C0TWO', '--json'], env, '', at);
    expect(await channel.exited).toBe(0);
    expect(channel.stdout().trim().split('\n')).toHaveLength(1);
  });

  it('words every outcome and run state as a person reads them, never the stored codes', async () => {
    const { env: wordsEnv, store } = await ownStore('audit-words');
    const NOW = Date.parse('2026-12-31T22:30:00Z');
    const base = { teamId: 'T1', channelId: 'C0ONE', userId: 'UOSCAR' };
    await store.recordCollectStep({
      ...base,
      attemptId: 'w1',
      at: new Date(NOW - 3000),
      query: { name: 'Nosuch' },
      step: 'answered',
      runs: [],
      leftOut: [],
      ranAgain: [],
    });
    await store.recordCollectStep({ ...base, attemptId: 'w2', at: new Date(NOW - 2000), query: {}, step: 'asked' });
    await store.recordCollectStep({
      ...base,
      attemptId: 'w3',
      at: new Date(NOW - 1000),
      query: { application: 'Active Directory' },
      step: 'answered',
      runs: [
        { runId: '51', collector: 'AD Accounts', state: 'New' },
        { runId: '52', collector: 'AD Groups', state: 'Completed' },
      ],
      leftOut: [],
      ranAgain: [],
    });
    // The structured trail's own outcomes: Run clicked and nothing after it, and a start sent with no answer recorded.
    await store.recordCollectStep({ ...base, attemptId: 'w4', at: new Date(NOW - 900), query: {}, step: 'confirmed' });
    await store.recordCollectStep({ ...base, attemptId: 'w5', at: new Date(NOW - 800), query: { name: 'AD Groups' }, step: 'sent' });
    await store.close();
    const table = countersign(['audit'], wordsEnv, '', { now: () => new Date(NOW), timeZone: 'UTC' });
    expect(await table.exited).toBe(0);
    const lines = table.stdout().trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(/ {2,}/)[7])).toEqual([
      'matched no collector',
      'asked to confirm, no answer',
      'started',
      'confirmed, not started yet',
      'sent to the service, no answer recorded',
    ]);
    expect(table.stdout()).not.toMatch(/nothing-matched|unanswered/);
    expect(lines[3]).toMatch(/AD Accounts 51 queued, AD Groups 52 completed$/);
    // JSON lines are for programs: the stable codes stay there, with the words beside them.
    const json = countersign(['audit', '--json'], wordsEnv, '', { now: () => new Date(NOW) });
    expect(await json.exited).toBe(0);
    const rows = json
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.outcome, r.outcomeWords])).toEqual([
      ['nothing-matched', 'matched no collector'],
      ['unanswered', 'asked to confirm, no answer'],
      ['started', 'started'],
      ['confirmed', 'confirmed, not started yet'],
      ['sent', 'sent to the service, no answer recorded'],
    ]);
  });

  it('escapes control and bidirectional characters in what it prints, so a stored value cannot steer the terminal', async () => {
    const { env: hostileEnv, store } = await ownStore('audit-hostile');
    // As a value stored before input was checked, or written into the database by hand, would be.
    const name = 'AD\u202eevil\u0085next\u009b2J\u2066x\u2069\u200e\u200f\u061c\u2028';
    await store.recordCollectStep({
      attemptId: 'h1',
      at: new Date(),
      teamId: 'T1',
      channelId: 'C0ONE',
      userId: 'U\u202eOSCAR',
      query: { name, application: 'App\u001b[2J' },
      step: 'failed',
      reason: { kind: 'other', text: 'service said \u001b]0;title\u0007 and \u009b31m' },
      maybeStarted: false,
    });
    await store.setToken({ teamId: 'T\u202e1', userId: 'U012ABCDEF' }, ['findApprovals'], new Secret('t'), 'admin', new Date());
    await store.close();
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

    const table = countersign(['audit'], hostileEnv);
    expect(await table.exited).toBe(0);
    expect(table.stdout()).not.toMatch(raw);
    expect(table.stdout()).toContain('AD\\u202eevil\\u0085next\\u009b2J\\u2066x\\u2069\\u200e\\u200f\\u061c\\u2028');
    expect(table.stdout()).toContain('U\\u202eOSCAR');
    expect(table.stdout()).toContain('App\\u001b[2J');

    const json = countersign(['audit', '--json'], hostileEnv);
    expect(await json.exited).toBe(0);
    expect(json.stdout()).not.toMatch(raw);
    const row = JSON.parse(json.stdout());
    expect([row.name, row.user, row.application]).toEqual([name, 'U\u202eOSCAR', 'App\u001b[2J']);

    for (const args of [
      ['tokens', 'list'],
      ['tokens', 'list', '--json'],
    ]) {
      const list = countersign(args, hostileEnv);
      expect(await list.exited).toBe(0);
      expect(list.stdout()).not.toMatch(raw);
      expect(list.stdout()).toContain('T\\u202e1');
    }
  });

  it('names each user as Slack does, beside the id, when it has the bot token; by id alone when it has none or Slack names nobody', async () => {
    const slack = await startFakeSlack();
    const BOT = 'xoxb-1111-2222-auditnames';
    // As Slack answers users.info: the bot token in Authorization, user_not_found for a user it does not know.
    slack.handle('users.info', ({ params, authorization }) => {
      if (authorization !== `Bearer ${BOT}`) return { ok: false, error: 'invalid_auth' };
      const id = params.get('user');
      return id === 'UOSCAR'
        ? {
            ok: true,
            user: { id, name: 'oscar', real_name: 'Oscar \u202eOps', profile: { real_name: 'Oscar \u202eOps', display_name: 'oscar' } },
          }
        : { ok: false, error: 'user_not_found' };
    });
    try {
      const { env: own, store } = await ownStore('audit-names');
      const NOW = Date.parse('2026-12-31T22:30:00Z');
      for (const [attemptId, userId, minutes] of [
        ['n1', 'UOSCAR', 30],
        ['n2', 'UGONE', 20],
        ['n3', 'UOSCAR', 10],
      ] as const)
        await store.recordCollectStep({
          teamId: 'T1',
          channelId: 'C0ONE',
          userId,
          attemptId,
          at: new Date(NOW - minutes * 60_000),
          query: { name: 'AWS IAM', force: true },
          step: 'refused',
          reason: { kind: 'force' },
        });
      const decision = { decisionId: 'd9', teamId: 'T1', userId: 'UGONE', approvalId: '10001:WPDS:1', action: 'Accepted', requestId: 'r1' };
      await store.recordDecisionStep({ ...decision, at: new Date(NOW - 60_000), step: 'confirmed', comment: '' });
      await store.recordDecisionStep({
        ...decision,
        at: new Date(NOW - 60_000),
        step: 'refused',
        reason: { kind: 'already-decided', userId: 'UOSCAR', action: 'Rejected', at: new Date(NOW - 120_000) },
      });
      await store.close();
      const withSlack = {
        ...own,
        SLACK_BOT_TOKEN: BOT,
        SLACK_SIGNING_SECRET: '0123456789abcdef0123456789abcdef',
        SLACK_API_URL: slack.apiUrl,
        COMMAND_SERVICE_URL: 'http://127.0.0.1:9/aveksa',
      };
      const at = { now: () => new Date(NOW), timeZone: 'UTC' };

      const table = countersign(['audit'], withSlack, '', at);
      expect(await table.exited).toBe(0);
      expect(
        table
          .stdout()
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(/ {2,}/)[3]),
      ).toEqual(['Oscar \\u202eOps (UOSCAR)', 'UGONE', 'Oscar \\u202eOps (UOSCAR)']);
      // One users.info a user, however often they appear.
      expect(
        slack.apiCalls
          .filter((c) => c.method === 'users.info')
          .map((c) => new URLSearchParams(c.body).get('user'))
          .sort(),
      ).toEqual(['UGONE', 'UOSCAR']);
      expect(table.stderr()).not.toContain('shown by id');

      const json = countersign(['audit', '--json'], withSlack, '', at);
      expect(await json.exited).toBe(0);
      expect(
        json
          .stdout()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .map((r) => [r.user, r.userName]),
      ).toEqual([
        ['UOSCAR', 'Oscar \u202eOps'],
        ['UGONE', null],
        ['UOSCAR', 'Oscar \u202eOps'],
      ]);

      const decisions = countersign(['audit', '--kind', 'decisions'], withSlack, '', at);
      expect(await decisions.exited).toBe(0);
      expect(decisions.stdout()).toContain(
        'refused: decided from Slack already: Rejected by Oscar \\u202eOps (UOSCAR) Thu 31 Dec 2026, 22:28 UTC',
      );

      // Without the bot token there is no one to ask: ids, and a line saying how to get names.
      const idsOnly = countersign(['audit'], own, '', at);
      expect(await idsOnly.exited).toBe(0);
      expect(
        idsOnly
          .stdout()
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(/ {2,}/)[3]),
      ).toEqual(['UOSCAR', 'UGONE', 'UOSCAR']);
      expect(idsOnly.stderr()).toContain('Users are shown by id: with SLACK_BOT_TOKEN set, by their name in Slack too.');

      // Slack refusing the token (or unreachable): ids, and what Slack said.
      const refused = countersign(['audit'], { ...withSlack, SLACK_BOT_TOKEN: 'xoxb-1111-2222-notthetoken' }, '', at);
      expect(await refused.exited).toBe(0);
      expect(refused.stdout()).not.toContain('Oscar');
      expect(refused.stderr()).toContain('Users are shown by id: Slack did not name them (users.info: invalid_auth).');
    } finally {
      await slack.close();
    }
  });

  it('refuses a bad --since, --channel, --user or --kind with exit 2', async () => {
    for (const args of [
      ['audit', '--since', 'last week'],
      ['audit', '--channel', 'general'],
      ['audit', '--user', 'ada'],
      ['audit', '--kind', 'everything'],
      ['audit', '--kind', 'decisions', '--channel', 'C0ONE'],
      ['audit', 'now'],
    ]) {
      const cli = countersign(args, env);
      expect(await cli.exited).toBe(2);
      expect(cli.stderr()).toMatch(
        /^countersign: (--since takes|--channel takes|--channel is for collections|--user takes|--kind takes|audit takes options only)/,
      );
    }
  });

  it('prints the decisions made from Slack with --kind decisions: who, which approval, the action, the comment, how it came out, every step', async () => {
    const { env: decisionsEnv, store } = await ownStore('audit-decisions');
    const NOW = Date.parse('2026-12-31T22:30:00Z');
    const at = (minutes: number) => new Date(NOW - minutes * 60_000);
    const ada = {
      decisionId: 'd1',
      teamId: 'T1',
      userId: 'UADA',
      approvalId: '10001:WPDS:1',
      action: 'Rejected',
      requestId: 'req00000001',
    };
    await store.recordDecisionStep({ ...ada, at: at(30), step: 'asked' });
    await store.recordDecisionStep({ ...ada, at: at(29), step: 'confirmed', comment: 'Not needed\nany more \u202e' });
    await store.recordDecisionStep({ ...ada, at: at(29), step: 'sent' });
    await store.recordDecisionStep({
      ...ada,
      at: at(29),
      step: 'answered',
      result: 'done',
      seen: { pending: false, state: 'Rejected', completedDate: '2026-12-31 22:01:00.0', completedBy: 'Lovelace, Ada' },
    });
    const eve = { ...ada, decisionId: 'd2', userId: 'UEVE', action: 'Accepted' };
    await store.recordDecisionStep({ ...eve, at: at(10), step: 'confirmed', comment: '' });
    await store.recordDecisionStep({
      ...eve,
      at: at(10),
      step: 'refused',
      reason: { kind: 'already-decided', userId: 'UADA', action: 'Rejected', at: at(29) },
    });
    await store.recordCollectStep({
      attemptId: 'a1',
      at: at(5),
      teamId: 'T1',
      channelId: 'C0ONE',
      userId: 'UOSCAR',
      query: {},
      step: 'asked',
    });
    await store.close();
    const clock = { now: () => new Date(NOW), timeZone: 'UTC' };

    const table = countersign(['audit', '--kind', 'decisions'], decisionsEnv, '', clock);
    expect(await table.exited).toBe(0);
    const lines = table.stdout().trim().split('\n');
    expect(lines[0]).toMatch(/^WHEN +TEAM +WHO +APPROVAL +ACTION +OUTCOME +COMMENT$/);
    expect(lines[1]).toMatch(
      /^Thu 31 Dec 2026, 22:00 UTC +T1 +UADA +10001:WPDS:1 +Rejected +done; the service then showed it Rejected +Not needed\\u000aany more \\u202e$/,
    );
    expect(lines[2]).toContain('refused: decided from Slack already: Rejected by UADA Thu 31 Dec 2026, 22:01 UTC; nothing sent');
    expect(lines[2]).toMatch(/\(none\)$/);

    // The trusted mode's refusals in the words the collections' trail uses: countersign's own sign-in, a command not granted.
    const { env: refusalsEnv, store: again } = await ownStore('audit-decision-refusals');
    const expired = "The token is not valid for the command 'performWorkItem'. Token is invalid or expired";
    const sign = { ...ada, decisionId: 'd3' };
    await again.recordDecisionStep({ ...sign, at: at(8), step: 'sent' });
    await again.recordDecisionStep({
      ...sign,
      at: at(8),
      step: 'answered',
      result: 'refused',
      error: 'app-sign-in',
      message: expired,
      status: 401,
    });
    const granted = { ...ada, decisionId: 'd4' };
    await again.recordDecisionStep({ ...granted, at: at(7), step: 'sent' });
    await again.recordDecisionStep({
      ...granted,
      at: at(7),
      step: 'answered',
      result: 'refused',
      error: 'invalid-token',
      message: "The token is not valid for the command 'performWorkItem'. ",
      status: 401,
    });
    const checked = { ...ada, decisionId: 'd5' };
    await again.recordDecisionStep({
      ...checked,
      at: at(6),
      step: 'refused',
      reason: { kind: 'check-failed', error: 'app-sign-in', message: expired },
    });
    await again.close();
    const worded = countersign(['audit', '--kind', 'decisions'], refusalsEnv, '', clock);
    expect(await worded.exited).toBe(0);
    const refusalLines = worded.stdout().trim().split('\n');
    expect(refusalLines[1]).toContain('not done: the Command Service refused countersign’s own sign-in (an administrator is needed)');
    expect(refusalLines[2]).toContain(
      'not done: the service does not let them run performWorkItem; an administrator of the service grants it',
    );
    expect(refusalLines[3]).toContain(
      'refused: it could not be checked with the service first: the Command Service refused countersign’s own sign-in (an administrator is needed); nothing sent',
    );
    expect(worded.stdout()).not.toMatch(/link again/);

    const json = countersign(['audit', '--kind', 'decisions', '--user', 'UADA', '--json'], decisionsEnv, '', clock);
    expect(await json.exited).toBe(0);
    const rows = json
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'decision',
      id: 'd1',
      user: 'UADA',
      approval: '10001:WPDS:1',
      action: 'Rejected',
      comment: 'Not needed\nany more \u202e',
      outcome: 'done',
      detail: { result: 'done', seen: { state: 'Rejected' } },
    });
    expect(rows[0].steps.map((s: { step: string; request: string }) => [s.step, s.request])).toEqual([
      ['asked', 'req00000001'],
      ['confirmed', 'req00000001'],
      ['sent', 'req00000001'],
      ['answered', 'req00000001'],
    ]);
    // Collections stay where they were, and the default.
    const collections = countersign(['audit', '--json'], decisionsEnv, '', clock);
    expect(await collections.exited).toBe(0);
    expect(
      collections
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['a1']);
  });

  it('lists decisions by when each began, and each one’s steps in the order they are taken, even when written at the same moment out of order', async () => {
    const { env: orderEnv, store } = await ownStore('audit-decision-order');
    const NOW = Date.parse('2026-12-31T22:30:00Z');
    const at = (minutes: number) => new Date(NOW - minutes * 60_000);
    const base = { teamId: 'T1', approvalId: '10001:WPDS:1', action: 'Accepted' };
    // The first began earlier and ended later (no answer for a while); the second began and ended between.
    const early = { ...base, decisionId: 'd-early', userId: 'UADA' };
    const late = { ...base, decisionId: 'd-late', userId: 'UEVE', approvalId: '10002:WPDS:1' };
    await store.recordDecisionStep({ ...early, at: at(30), step: 'asked' });
    await store.recordDecisionStep({ ...late, at: at(20), step: 'asked' });
    await store.recordDecisionStep({ ...late, at: at(19), step: 'confirmed', comment: '' });
    await store.recordDecisionStep({ ...late, at: at(19), step: 'refused', reason: { kind: 'not-theirs' } });
    // Steps of one moment, as another instance may write them: the answer's row first.
    await store.recordDecisionStep({ ...early, at: at(10), step: 'answered', result: 'done', seen: undefined });
    await store.recordDecisionStep({ ...early, at: at(10), step: 'resent' });
    await store.recordDecisionStep({ ...early, at: at(10), step: 'sent' });
    await store.recordDecisionStep({ ...early, at: at(10), step: 'confirmed', comment: 'ok' });
    await store.close();
    const clock = { now: () => new Date(NOW), timeZone: 'UTC' };
    const json = countersign(['audit', '--kind', 'decisions', '--json'], orderEnv, '', clock);
    expect(await json.exited).toBe(0);
    const rows = json
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r: { id: string }) => r.id)).toEqual(['d-early', 'd-late']);
    expect(rows[0].steps.map((s: { step: string }) => s.step)).toEqual(['asked', 'confirmed', 'sent', 'resent', 'answered']);
    expect(rows[0].outcome).toBe('done');
    expect(rows[1]).toMatchObject({ outcome: 'refused', reason: 'refused: it was not on their own pending list; nothing sent' });
    const table = countersign(['audit', '--kind', 'decisions'], orderEnv, '', clock);
    expect(await table.exited).toBe(0);
    const lines = table.stdout().trim().split('\n');
    expect(lines.slice(1).map((l) => l.split(/ {2,}/)[2])).toEqual(['UADA', 'UEVE']);
  });
});

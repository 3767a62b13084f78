/**
 * The admin CLI (`countersign …`). Exit codes: 0 done, 1 failed, 2 wrong usage. Messages go to
 * stderr, results to stdout, so that scripts can pipe the output.
 */

import { existsSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { WebClient } from '@slack/web-api';
import { explainAttempt, outcomeWords, reasonParts, runStateWords } from '../collections/explain.js';
import { type Config, commandServiceUrlOf, loadConfig } from '../config.js';
import { DEFAULT_RUN_TIMINGS } from '../reference-service/commands.js';
import { openReferenceDb } from '../reference-service/db.js';
import { loadBulkData, loadDemoData } from '../reference-service/demo.js';
import { type DemoToken, newTrustedApp, startReferenceService } from '../reference-service/server.js';
import { Secret } from '../runtime/secret.js';
import { createServiceClient, isServiceError } from '../service/index.js';
import { INVISIBLE_OUT_OF_PLACE, MAYBE_INVISIBLE, serviceUserIdSchema, UNSAFE_CHARACTERS } from '../service/query.js';
import {
  type CollectAttempt,
  type DecisionRecord,
  type DecisionRefusal,
  openStore,
  SERVICE_COMMANDS,
  type SeenState,
  type ServiceCommandName,
} from '../store/index.js';
import { readableInstant } from '../time/write.js';

const USAGE = `Usage: countersign <command> [options]

Commands:
  tokens set --user <SlackUserId> --command <findApprovals|collectEntitlements|all> [--team <TeamId>]
      Link a Command Service token to a Slack user. The token is read from standard input (at a
      terminal, without echo), never from the command line (the command line is visible to every
      user of the machine). It is first tried with a findApprovals of one approval against
      COMMAND_SERVICE_URL, and not linked when the service refuses it; a collectEntitlements token
      alone cannot be tried without starting collections, so it is linked unchecked, and said so.
  tokens list [--json]
      Linked users, commands and when they were linked. Never the tokens.
  tokens delete --user <SlackUserId> [--team <TeamId>]
      Forget a user's tokens: every one of their links in every workspace; with --team, every
      link that would act for them in that workspace (its own and any made for any workspace).
  users map --user <SlackUserId> --service-user <name> [--team <TeamId>] [--authsource <source>]
      Trusted-application mode: say who a Slack user is in the Command Service (the name they
      sign in with), so that countersign acts for them without their signing in. Without --team
      the mapping holds in any workspace but those where the user has one of their own (said).
  users list [--json]
      Mapped users: who they are in the service, how and when they were linked, last use.
  users unmap --user <SlackUserId> [--team <TeamId>]
      Forget who a Slack user is in the service: every mapping in every workspace; with --team,
      that workspace's and any made for any workspace.
  keys rotate
      Re-encrypt every stored token with TOKEN_ENCRYPTION_KEY, reading the old ones with
      TOKEN_ENCRYPTION_KEY_PREVIOUS. Safe to run again; run it once after switching keys. Says how
      many it re-encrypted, how many were already under the current key, and whether
      TOKEN_ENCRYPTION_KEY_PREVIOUS can go.
  service [--port N] [--host H] [--data demo|<file.db>] [--approvals N] [--client-id ID] [--client-secret S]
          [--disable <command,…>] [--latency <200ms|1s>]
      Run the reference Command Service alone. --data demo (the default) keeps a fresh
      demo data set in memory; a file path keeps the data in that SQLite file (created and
      filled with demo data when new; with --approvals N, N generated approvals as well).
      loginTrustedApp accepts the client id and secret given, or ones made up and printed.
      --disable switches commands off as an administrator would (e.g. getApprovalDetails):
      they answer 404 with the command's name as the reason phrase.
      --latency makes every call wait that long before it is answered, as a slow service
      would (0 to 60s; e.g. 200ms, 1.5s). The calls answered and the most in flight at once
      are printed when it stops, and on SIGUSR2 (kill -USR2 <pid>) while it runs.
  audit [--kind collections|decisions] [--since 7d|24h|2026-11-01] [--channel <ChannelId>] [--team <TeamId>]
        [--user <SlackUserId>] [--limit N] [--json]
      Every attempt to start a collection (the default), or every decision made from Slack
      (--kind decisions), oldest first: when, workspace, channel, user, what was asked, how it
      ended (runs and their last known state, the action and comment and the service's answer, or
      why it was refused or failed). Users by id, and with SLACK_BOT_TOKEN set by their name in
      Slack too. --json prints one JSON object per line, with every step and its time. Never a token.
  help
      Show this text.

Examples:
  countersign tokens set --user U012ABCDEF --command all < token.txt
  countersign users map --user U012ABCDEF --service-user jdoe --authsource corp-ldap
  countersign audit --since 7d --json > collections.jsonl
  countersign audit --kind decisions --since 30d
  countersign service --port 4000
  countersign service --data ./data/reference.db --approvals 1000000
  countersign service --latency 200ms
`;

/**
 * Everything the CLI takes from its process, passed in: the tests run it in process with their own
 * clock, zone, input and output, and src/cli.ts wires it to the real ones.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  /** Where a token is typed without echo: the process's terminal, when standard input is one. */
  terminal?: NodeJS.WriteStream | undefined;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  now(): Date;
  /** The zone the audit's table is shown in: the reader's, i.e. the machine's for a person at a terminal. */
  timeZone: string;
  /**
   * From this call on, a request to stop (SIGINT, SIGTERM) settles the promise instead of ending
   * the process: `service` calls it before it says it is listening, and runs until then.
   */
  untilStopped(): Promise<void>;
  /** Calls `report` whenever asked for figures (SIGUSR2) until the returned function is called. */
  onReport(report: () => void): () => void;
}

class UsageError extends Error {}

/** The person at the terminal gave up (Ctrl-C): exit 130, as a shell reports an interrupted command. */
class Cancelled extends Error {}

const COMMANDS = ['service', 'tokens', 'keys', 'users', 'audit'];

/** The part of the usage that tells of one command (every line of `  tokens …` for tokens), or all of it. */
function usageOf(command: string): string {
  const lines = USAGE.split('\n');
  const picked: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (/^ {2}\S/.test(line)) inside = line.startsWith(`  ${command} `) || line === `  ${command}`;
    if (inside) picked.push(line);
  }
  return picked.length === 0 ? USAGE : `Usage: countersign ${command} …\n\n${picked.join('\n')}\n`;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  // `countersign service --help`, `countersign tokens set -h`: what that command takes, not an error.
  if (command !== undefined && COMMANDS.includes(command) && rest.some((a) => a === '--help' || a === '-h')) {
    io.stdout.write(usageOf(command));
    return 0;
  }
  try {
    switch (command) {
      case 'service':
        return await serviceCommand(rest, io);
      case 'tokens':
        return await tokensCommand(rest, io);
      case 'keys':
        return await keysCommand(rest, io);
      case 'users':
        return await usersCommand(rest, io);
      case 'audit':
        return await auditCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (error) {
    if (error instanceof Cancelled) {
      io.stderr.write('countersign: cancelled; nothing was changed.\n');
      return 130;
    }
    if (error instanceof UsageError) {
      // One line of what is wrong, one of where to read more: the whole usage would bury the first.
      const help = COMMANDS.includes(command ?? '')
        ? `Run countersign ${command} --help for what it takes.`
        : 'Run countersign help for every command and its options.';
      io.stderr.write(`countersign: ${oneLine(error.message)}\n${help}\n`);
      return 2;
    }
    io.stderr.write(`countersign: ${oneLine((error as Error).message)}\n`);
    return 1;
  }
}

/**
 * A stored value as a terminal should get it: each control or bidirectional formatting character
 * written as its \u escape, so that nothing in the store (a collector's name, an id, a detail) can
 * move the cursor, clear the screen or reorder what an auditor reads; and each invisible character
 * out of its place (U+200B, tag characters spelling words nobody sees, a run of variation
 * selectors) too, so that an auditor sees all a value holds. One beyond U+FFFF is written as its
 * two \u escapes, as JSON writes it, so a JSON line stays JSON.
 */
export function printable(text: string): string {
  const escaped = text.replace(UNSAFE_CHARACTERS, escapeUnits);
  if (!MAYBE_INVISIBLE.test(escaped)) return escaped;
  return escaped.replace(INVISIBLE_OUT_OF_PLACE, (all, inPlace: string | undefined) => (inPlace === undefined ? escapeUnits(all) : all));
}

function escapeUnits(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** A message on one line, as printable: its line breaks (Node's own messages have some) read as spaces, not as \\u000a. */
function oneLine(text: string): string {
  return printable(text.replace(/\s*\r?\n\s*/g, ' '));
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of a command, or a UsageError in countersign's words (parseArgs says "argument is
 * ambiguous" of `--limit -1`, and points to `--` for an unknown option). A value that starts with a
 * dash and then no letter (`-1`, `-7d`) is taken as the value it is, so that its own check says what
 * is wrong with it; positionals are refused here unless the command takes them.
 */
function parseOptions<T extends Options>(label: string, args: string[], options: T, takesPositionals = false) {
  const valued = new Set(Object.entries(options).flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : [])));
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (valued.has(arg) && next !== undefined && /^-[^A-Za-z-]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: joined, options, strict: true, allowPositionals: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1] ?? 'an option';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`${label} has no option ${option}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(valued.has(option) ? `${option} needs a value` : `${option} takes no value`);
    throw error;
  }
  if (!takesPositionals && parsed.positionals.length > 0)
    throw new UsageError(`${label} takes options only, not '${parsed.positionals.join(' ')}'`);
  return parsed;
}

/** One JSON line; JSON escapes the C0 controls, and these escapes keep it valid for the rest. */
function jsonLine(value: unknown): string {
  return `${printable(JSON.stringify(value))}\n`;
}

async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'rotate' || rest.length > 0) throw new UsageError(`keys takes rotate, not '${[action, ...rest].join(' ')}'`);
  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    const rotated = await store.rotateKeys();
    // Every stored token is under the current key now: what was not re-encrypted already was.
    const total = (await store.keyUsage()).reduce((sum, k) => sum + k.tokens, 0);
    io.stderr.write(rotationReport(rotated, total - rotated, config.tokenEncryptionKeyPrevious !== undefined));
    return 0;
  } catch (error) {
    if ((error as { name?: string }).name === 'DecryptError') {
      io.stderr.write(
        `countersign: ${printable((error as Error).message)}. Set TOKEN_ENCRYPTION_KEY_PREVIOUS to the key those tokens were written with; nothing was changed.\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

const tokens = (n: number) => `${n} token${n === 1 ? '' : 's'}`;

/** What keys rotate did, and whether TOKEN_ENCRYPTION_KEY_PREVIOUS is still needed (instances still on the old key write with it). */
function rotationReport(rotated: number, already: number, previousSet: boolean): string {
  const once = 'once every instance of countersign runs with this TOKEN_ENCRYPTION_KEY';
  if (rotated === 0) {
    const none =
      already === 0
        ? 'no tokens are stored'
        : `${already === 1 ? 'the one stored token is' : `all ${already} stored tokens are`} already under the current key (TOKEN_ENCRYPTION_KEY)`;
    return `Nothing to re-encrypt: ${none}.\n${
      previousSet
        ? `TOKEN_ENCRYPTION_KEY_PREVIOUS reads none of them: it can be removed ${once}.`
        : 'TOKEN_ENCRYPTION_KEY_PREVIOUS is not set, and no stored token needs it.'
    }\n`;
  }
  const before = already === 0 ? 'none was' : `${already} ${already === 1 ? 'was' : 'were'}`;
  return (
    `Re-encrypted ${tokens(rotated)} from the previous key (TOKEN_ENCRYPTION_KEY_PREVIOUS) to the current one (TOKEN_ENCRYPTION_KEY); ${before} already under the current key.\n` +
    `Every stored token is now under TOKEN_ENCRYPTION_KEY: TOKEN_ENCRYPTION_KEY_PREVIOUS can be removed ${once}.\n`
  );
}

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const TEAM_ID = /^[TE][A-Z0-9]{2,}$/;

async function tokensCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'set' && action !== 'list' && action !== 'delete')
    throw new UsageError(`tokens takes set, list or delete, not '${action ?? ''}'`);
  const { values } = parseOptions(`tokens ${action}`, rest, {
    user: { type: 'string' },
    command: { type: 'string' },
    team: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (action !== 'list' && (values.user === undefined || !USER_ID.test(values.user))) {
    throw new UsageError(
      `tokens ${action} needs --user with a Slack user id such as U012ABCDEF${values.user ? `, not '${values.user}'` : ''}`,
    );
  }
  if (values.team !== undefined && !TEAM_ID.test(values.team))
    throw new UsageError(`--team takes a Slack team id such as T012ABCDEF, not '${values.team}'`);
  let commands: ServiceCommandName[] = [];
  if (action === 'set') {
    const c = values.command;
    if (c !== 'all' && !(SERVICE_COMMANDS as readonly string[]).includes(c ?? '')) {
      throw new UsageError(`tokens set needs --command findApprovals, collectEntitlements or all${c ? `, not '${c}'` : ''}`);
    }
    commands = c === 'all' ? [...SERVICE_COMMANDS] : [c as ServiceCommandName];
  }

  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    const who = { teamId: values.team ?? '', userId: values.user ?? '' };
    switch (action) {
      case 'set': {
        const token = await readToken(io);
        const check = await checkToken(commandServiceUrlOf(io.env), commands, token, config.serviceTimeoutMs);
        if (check.kind === 'refused') {
          io.stderr.write(`countersign: ${check.why}\n`);
          return 1;
        }
        await store.setToken(who, commands, token, 'admin', io.now());
        io.stderr.write(
          `Linked ${commands.join(' and ')} for ${who.userId}${who.teamId ? ` in ${who.teamId}` : ''}. ${
            check.kind === 'checked'
              ? 'The Command Service accepted the token (checked with a findApprovals of one approval).'
              : `Not checked: ${check.why}.`
          }\n`,
        );
        if (config.serviceAuth.mode === 'trusted-app')
          io.stderr.write(
            'Note: this installation is in the trusted-application mode: the token is used until it expires; `countersign users map` links for good.\n',
          );
        return 0;
      }
      case 'delete': {
        // Whatever would still act for the user must go: without --team that is every link they
        // have; with it, that workspace's and the any-workspace ones, which serve them there too.
        const removed = await store.deleteTokens(values.team === undefined ? { userId: who.userId } : who);
        const where = values.team === undefined ? 'in any workspace' : `in ${values.team} (its links and any-workspace links)`;
        io.stderr.write(
          removed > 0 ? `Forgot ${removed} token(s) of ${who.userId} ${where}.\n` : `${who.userId} had no tokens ${where}.\n`,
        );
        return removed > 0 ? 0 : 1;
      }
      case 'list': {
        const links = await store.listLinks();
        if (values.json) {
          for (const l of links)
            io.stdout.write(jsonLine({ ...l, linkedAt: l.linkedAt.toISOString(), lastUsedAt: l.lastUsedAt?.toISOString() ?? null }));
          return 0;
        }
        if (links.length === 0) {
          io.stderr.write('No tokens are linked.\n');
          return 0;
        }
        const rows = [['TEAM', 'USER', 'COMMAND', 'LINKED AT', 'SOURCE', 'LAST USE']].concat(
          links.map((l) => [
            l.teamId || '*',
            l.userId,
            l.command,
            localTime(l.linkedAt, io.timeZone),
            l.source,
            l.lastOutcome ? `${l.lastOutcome} ${l.lastUsedAt === undefined ? '' : localTime(l.lastUsedAt, io.timeZone)}` : '-',
          ]),
        );
        printTable(io, rows);
        return 0;
      }
    }
  } finally {
    await store.close();
  }
}

type TokenCheck = { kind: 'checked' } | { kind: 'unchecked'; why: string } | { kind: 'refused'; why: string };

/**
 * A token is linked only once the service has taken it, as the login modal's pasted token is: a
 * findApprovals of one approval, which changes nothing. collectEntitlements has no such call, and
 * without COMMAND_SERVICE_URL there is nothing to ask: then it is linked unchecked, and said so.
 */
async function checkToken(
  url: string | undefined,
  commands: readonly ServiceCommandName[],
  token: Secret,
  timeoutMs: number,
): Promise<TokenCheck> {
  if (!commands.includes('findApprovals'))
    return {
      kind: 'unchecked',
      why: 'collectEntitlements has no call that does no work (trying it would start collections), so the token is checked the first time it is used',
    };
  if (url === undefined) return { kind: 'unchecked', why: 'COMMAND_SERVICE_URL is not set, so there is no service to check it against' };
  const service = createServiceClient({ baseUrl: url, connections: 1, timeouts: { totalMs: timeoutMs } });
  try {
    await service.findApprovals({ 'page-size': 1 }, token);
    return { kind: 'checked' };
  } catch (error) {
    return { kind: 'refused', why: refusalWords(error, url, commands) };
  } finally {
    await service.close();
  }
}

/** Why the token was not linked, in words, with what to do; never the token. */
function refusalWords(error: unknown, url: string, commands: readonly ServiceCommandName[]): string {
  const nothing = 'Nothing was linked';
  if (!isServiceError(error)) return `could not check the token: ${(error as Error).message}. ${nothing}.`;
  switch (error.kind) {
    case 'invalid-token':
      if (error.commandOnly)
        return `the Command Service refused this token for findApprovals: it is not allowed to run that command. ${nothing}.${
          commands.includes('collectEntitlements')
            ? ' If it is meant for collections only, link it with --command collectEntitlements.'
            : ''
        }`;
      return `the Command Service refused this token: it is not valid or has expired. ${nothing}; get a new token and run tokens set again.`;
    case 'missing-parameter':
      return error.parameter === 'auth-user-id'
        ? `the Command Service refused this token: it belongs to an application, not to a person (the service wants auth-user-id). ${nothing}.`
        : `the Command Service refused the check: ${error.serviceMessage ?? error.message}. ${nothing}.`;
    case 'service-unavailable':
      return error.reason === 'timeout'
        ? `could not check the token: the Command Service at ${url} did not answer in time. ${nothing}; try again once it answers.`
        : `could not check the token: the Command Service at ${url} cannot be reached. ${nothing}; try again once it answers.`;
    default:
      return `could not check the token: the Command Service answered “${error.serviceMessage ?? error.message}”. ${nothing}.`;
  }
}

/** Trusted-application mode: who each Slack user is in the service. Names, never credentials. */
async function usersCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'map' && action !== 'list' && action !== 'unmap')
    throw new UsageError(`users takes map, list or unmap, not '${action ?? ''}'`);
  const { values } = parseOptions(`users ${action}`, rest, {
    user: { type: 'string' },
    team: { type: 'string' },
    'service-user': { type: 'string' },
    authsource: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (action !== 'list' && (values.user === undefined || !USER_ID.test(values.user))) {
    throw new UsageError(
      `users ${action} needs --user with a Slack user id such as U012ABCDEF${values.user ? `, not '${values.user}'` : ''}`,
    );
  }
  if (values.team !== undefined && !TEAM_ID.test(values.team))
    throw new UsageError(`--team takes a Slack team id such as T012ABCDEF, not '${values.team}'`);
  let identity: { serviceUser: string; authsource: string | undefined } | undefined;
  if (action === 'map') {
    const serviceUser = values['service-user']?.trim() ?? '';
    // Sent as auth-user-id on every call for this user: checked as the client checks what it sends.
    if (!serviceUserIdSchema.safeParse(serviceUser).success)
      throw new UsageError(
        'users map needs --service-user with the name the user signs in to the Command Service with (1 to 256 characters, no control characters)',
      );
    const authsource = values.authsource?.trim();
    if (authsource !== undefined && !serviceUserIdSchema.safeParse(authsource).success)
      throw new UsageError('--authsource takes the name of an authentication source, such as corp-ldap');
    identity = { serviceUser, authsource: authsource || undefined };
  } else if (values['service-user'] !== undefined || values.authsource !== undefined) {
    throw new UsageError(`users ${action} takes no --service-user or --authsource`);
  }

  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    const who = { teamId: values.team ?? '', userId: values.user ?? '' };
    switch (action) {
      case 'map': {
        if (identity === undefined) throw new UsageError('users map needs --service-user');
        await store.setIdentity(who, identity, 'admin', io.now());
        io.stderr.write(
          `Mapped ${who.userId}${who.teamId ? ` in ${who.teamId}` : ''} to ${printable(identity.serviceUser)}${identity.authsource ? ` (${printable(identity.authsource)})` : ''}.\n`,
        );
        // A workspace's own mapping wins over one for any workspace: said, so that the admin is not misled.
        if (who.teamId === '')
          for (const own of (await store.listIdentities()).filter((i) => i.userId === who.userId && i.teamId !== ''))
            io.stderr.write(
              `Note: in ${own.teamId}, ${who.userId} has a mapping of their own (${printable(own.serviceUser)}${own.authsource ? ` (${printable(own.authsource)})` : ''}, ${own.source === 'login' ? 'by signing in' : 'by an admin'} ${own.linkedAt.toISOString().slice(0, 10)}): countersign uses it there, not this one. To use ${printable(identity.serviceUser)} there: countersign users map --user ${who.userId} --team ${own.teamId} --service-user ${printable(identity.serviceUser)}; or to forget it: countersign users unmap --user ${who.userId} --team ${own.teamId} (which forgets this mapping for any workspace too: map it again after).\n`,
            );
        if (config.serviceAuth.mode !== 'trusted-app')
          io.stderr.write(
            'Note: COMMAND_SERVICE_CLIENT_ID and COMMAND_SERVICE_CLIENT_SECRET are not set here; mappings are used only in the trusted-application mode.\n',
          );
        return 0;
      }
      case 'unmap': {
        const removed = await store.deleteIdentities(values.team === undefined ? { userId: who.userId } : who);
        const where = values.team === undefined ? 'in any workspace' : `in ${values.team} (its mapping and an any-workspace one)`;
        io.stderr.write(
          removed > 0 ? `Forgot ${removed} mapping(s) of ${who.userId} ${where}.\n` : `${who.userId} had no mapping ${where}.\n`,
        );
        return removed > 0 ? 0 : 1;
      }
      case 'list': {
        const identities = await store.listIdentities();
        if (values.json) {
          for (const i of identities)
            io.stdout.write(
              jsonLine({
                teamId: i.teamId,
                userId: i.userId,
                serviceUser: i.serviceUser,
                authsource: i.authsource ?? null,
                source: i.source,
                linkedAt: i.linkedAt.toISOString(),
                lastUsedAt: i.lastUsedAt?.toISOString() ?? null,
                lastOutcome: i.lastOutcome ?? null,
                ...(i.notPermitted === undefined ? {} : { notPermitted: i.notPermitted }),
              }),
            );
          return 0;
        }
        if (identities.length === 0) {
          io.stderr.write('No users are mapped.\n');
          return 0;
        }
        printTable(
          io,
          [['TEAM', 'USER', 'SERVICE USER', 'AUTHSOURCE', 'LINKED AT', 'SOURCE', 'LAST USE']].concat(
            identities.map((i) => [
              i.teamId || '*',
              i.userId,
              i.serviceUser,
              i.authsource ?? '-',
              localTime(i.linkedAt, io.timeZone),
              i.source,
              i.lastOutcome
                ? `${i.lastOutcome}${i.notPermitted ? ` (${printable(i.notPermitted)})` : ''} ${i.lastUsedAt === undefined ? '' : localTime(i.lastUsedAt, io.timeZone)}`
                : '-',
            ]),
          ),
        );
        return 0;
      }
    }
  } finally {
    await store.close();
  }
}

function printTable(io: CliIo, table: string[][]): void {
  const rows = table.map((r) => r.map(printable));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of rows)
    io.stdout.write(
      `${r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
}

/** `7d`, `24h`, `30m` ago, or a date (`2026-11-01`, or a full ISO time). */
function parseSince(value: string, now: Date): Date {
  const relative = /^(\d{1,5})([dhm])$/.exec(value);
  if (relative) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'];
    return new Date(now.getTime() - Number(relative[1]) * unit);
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--since takes 7d, 24h, 30m or a date such as 2026-11-01, not '${value}'`);
  return at;
}

/** Why an attempt ended so, in words, for a terminal: the user as `who` names them, the time in this machine's zone. */
function reasonText(attempt: CollectAttempt, timeZone: string, who: Who): string | undefined {
  const reason = explainAttempt(attempt);
  if (reason === undefined) return undefined;
  return reasonParts(reason)
    .map((part) => (typeof part === 'string' ? part : 'user' in part ? who(part.user) : localTime(part.time, timeZone)))
    .join('');
}

/** How an attempt ended, in the table's OUTCOME column: the one place that words an outcome. */
function outcomeText(attempt: CollectAttempt, timeZone: string, who: Who): string {
  const reason = reasonText(attempt, timeZone, who);
  return reason ? `${outcomeWords(attempt.outcome)}: ${reason}` : outcomeWords(attempt.outcome);
}

/**
 * "Sun 22 Nov 2026, 09:41 Berlin time": every time the CLI prints, written as the product writes
 * times, in the zone it was given (the reader's: the machine's, for a person at a terminal), named.
 */
function localTime(at: Date, timeZone: string): string {
  return readableInstant(at, timeZone);
}

/** A Slack user as a line of the audit names them: "Ada Lovelace (U0ADA)" when Slack gave a name, the id alone when not. */
type Who = (userId: string) => string;

const whoOf =
  (names: ReadonlyMap<string, string>): Who =>
  (userId) => {
    const name = names.get(userId);
    return name === undefined ? userId : `${name} (${userId})`;
  };

/** The users an attempt's reason names (who confirmed, who holds the cooldown), besides who asked. */
function usersIn(attempt: CollectAttempt): string[] {
  const reason = explainAttempt(attempt);
  return reason === undefined ? [] : reasonParts(reason).flatMap((part) => (typeof part !== 'string' && 'user' in part ? [part.user] : []));
}

/** Users looked up in Slack at most, a run: users.info allows about 100 a minute. */
const MAX_NAMES = 200;

/**
 * The names Slack gives these users (users.info: the real name, else the display name), for the
 * audit's reader: the trail keeps ids only, which an auditor cannot read. Only with the bot token
 * (SLACK_BOT_TOKEN, as the app has it); one call a user, a few at once, none retried or waited
 * for. A user Slack does not name is shown by id; the note says why names are missing, if they are.
 */
async function slackNames(config: Config, userIds: readonly string[]): Promise<{ names: Map<string, string>; note?: string }> {
  const names = new Map<string, string>();
  if (config.mode === 'local') return { names, note: 'Users are shown by id: with SLACK_BOT_TOKEN set, by their name in Slack too.' };
  const quiet = { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => 'error' as never, setName() {} };
  const slack = new WebClient(config.slack.botToken.reveal(), {
    ...(config.slack.apiUrl === undefined ? {} : { slackApiUrl: config.slack.apiUrl }),
    timeout: 5_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: quiet,
  });
  const everyone = [...new Set(userIds)];
  const pending = everyone.slice(0, MAX_NAMES);
  const failures = new Set<string>();
  const worker = async () => {
    for (let id = pending.shift(); id !== undefined; id = pending.shift()) {
      try {
        const { user } = await slack.users.info({ user: id });
        const name = user?.real_name || user?.profile?.real_name || user?.profile?.display_name || user?.name;
        if (name) names.set(id, name);
      } catch (error) {
        const { code, data } = error as { code?: string; data?: { error?: string } };
        // A user Slack does not know (gone from the workspace) is an answer; any other failure would
        // meet every call alike (a refused token, no users:read, no network, a rate limit): stop asking.
        if (data?.error === 'user_not_found') continue;
        failures.add(code === 'slack_webapi_rate_limited_error' ? 'rate limited' : (data?.error ?? 'no answer'));
        pending.length = 0;
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const some = names.size > 0 ? 'Some users are shown by id only' : 'Users are shown by id';
  if (failures.size > 0) return { names, note: `${some}: Slack did not name them (users.info: ${[...failures].join(', ')}).` };
  if (everyone.length > MAX_NAMES)
    return { names, note: `Users past the first ${MAX_NAMES} are shown by id only: Slack allows about 100 users.info calls a minute.` };
  return { names };
}

async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions('audit', args, {
    since: { type: 'string' },
    channel: { type: 'string' },
    team: { type: 'string' },
    user: { type: 'string' },
    kind: { type: 'string', default: 'collections' },
    limit: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (values.kind !== 'collections' && values.kind !== 'decisions')
    throw new UsageError(`--kind takes collections or decisions, not '${values.kind}'`);
  if (values.user !== undefined && !USER_ID.test(values.user))
    throw new UsageError(`--user takes a Slack user id such as U012ABCDEF, not '${values.user}'`);
  if (values.kind === 'decisions' && values.channel !== undefined)
    throw new UsageError('--channel is for collections: decisions are made in a private window, in no channel');
  const since = values.since === undefined ? undefined : parseSince(values.since, io.now());
  if (values.channel !== undefined && !/^[CGD][A-Z0-9]{2,}$/.test(values.channel))
    throw new UsageError(`--channel takes a Slack channel id such as C012ABCDEF, not '${values.channel}'`);
  if (values.team !== undefined && !TEAM_ID.test(values.team))
    throw new UsageError(`--team takes a Slack team id such as T012ABCDEF, not '${values.team}'`);
  const limit = positiveInt(values.limit, '--limit', 1, 100_000) ?? 10_000;

  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    if (values.kind === 'decisions') {
      // Read as the latest active; listed by when each began, as the WHEN column says (ids break ties in the order written).
      const decisions = (await store.listDecisions({ limit, since, teamId: values.team, userId: values.user }))
        .reverse()
        .sort((a, b) => a.at.getTime() - b.at.getTime());
      const named = await slackNames(
        config,
        decisions.flatMap((d) => [d.userId, ...(d.refusal && 'userId' in d.refusal ? [d.refusal.userId] : [])]),
      );
      return printDecisions(io, decisions, values.json, named);
    }
    const attempts = (
      await store.listCollectAttempts({
        limit,
        since,
        channelId: values.channel,
        teamId: values.team,
        userId: values.user,
      })
    ).reverse();
    const { names, note } = await slackNames(
      config,
      attempts.flatMap((a) => [a.userId, ...usersIn(a)]),
    );
    const who = whoOf(names);
    if (values.json) {
      for (const a of attempts) {
        const line = {
          id: a.id,
          at: a.at.toISOString(),
          team: a.teamId,
          channel: a.channelId,
          user: a.userId,
          userName: names.get(a.userId) ?? null,
          name: a.query.name ?? null,
          application: a.query.application ?? null,
          force: a.query.force === true,
          outcome: a.outcome,
          outcomeWords: outcomeWords(a.outcome),
          reason: reasonText(a, 'UTC', who) ?? null,
          // The reason's fields as the trail holds them, and every step with its time.
          detail: a.reason ?? null,
          steps: a.steps.map((s) => ({ step: s.step, at: s.at.toISOString() })),
          runs: a.runs.map((r) => ({ runId: r.runId, collector: r.collector ?? null, state: r.state ?? null })),
          liveStatus: a.watch ? (a.watch.done ? (a.watch.note ?? 'done') : 'watching') : null,
        };
        io.stdout.write(jsonLine(line));
      }
      return 0;
    }
    if (attempts.length === 0) {
      io.stderr.write('No collection attempts recorded for that period.\n');
      return 0;
    }
    printTable(
      io,
      [['WHEN', 'TEAM', 'CHANNEL', 'WHO', 'COLLECTOR', 'APPLICATION', 'FORCE', 'OUTCOME', 'RUNS']].concat(
        attempts.map((a) => {
          return [
            localTime(a.at, io.timeZone),
            a.teamId,
            a.channelId,
            who(a.userId),
            a.query.name ?? 'every collector',
            a.query.application ?? (a.query.name === undefined ? 'every application' : '-'),
            a.query.force ? 'yes' : '-',
            outcomeText(a, io.timeZone, who),
            a.runs.map((r) => `${r.collector ?? 'run'} ${r.runId} ${runStateWords(r.state) ?? 'started'}`).join(', '),
          ];
        }),
      ),
    );
    io.stderr.write(`Times are in this machine's zone (${io.timeZone}); --json gives them in UTC.\n`);
    if (note !== undefined) io.stderr.write(`${note}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * A refusal of countersign's token, or of the user's, in the words the collections' trail uses: the
 * service refusing countersign's own sign-in (the trusted mode), a command it does not let the user
 * run, a user it does not know, a token refused. Undefined for any other error.
 */
function refusedWords(error: string, message: string): string | undefined {
  if (error !== 'invalid-token' && error !== 'app-sign-in') return undefined;
  return reasonParts({ kind: 'service', error, message })
    .filter((part): part is string => typeof part === 'string')
    .join('');
}

/** Why a decision was turned away before it was sent, in words for a terminal. */
function refusalText(r: DecisionRefusal, timeZone: string, who: Who): string {
  switch (r.kind) {
    case 'not-linked':
      return 'their account was not linked';
    case 'not-visible':
      return 'the service would not show it to them';
    case 'not-pending':
      return `the service showed it completed already${r.state ? ` (as ${r.state})` : ''}`;
    case 'line-items':
      return 'its items are decided one by one, in the service';
    case 'action-not-listed':
      return `the service did not list that action (it listed ${r.listed.join(', ') || 'none'})`;
    case 'already-decided':
      return `decided from Slack already: ${r.action} by ${who(r.userId)} ${localTime(r.at, timeZone)}`;
    case 'held':
      return `${who(r.userId)}'s decision (${r.action}) was ${r.state === 'sending' ? 'being sent' : 'unsettled'} until ${localTime(r.until, timeZone)}`;
    case 'not-offered':
      return `the service does not offer ${r.command}`;
    case 'check-failed': {
      const words = refusedWords(r.error, r.message);
      return `it could not be checked with the service first${words === undefined ? ` (${r.error})` : `: ${words}`}`;
    }
    case 'not-allowed':
      return 'the service does not let them act on it';
    case 'not-theirs':
      return 'it was not on their own pending list';
    case 'sign-in-failed': {
      const words = refusedWords(r.error, r.message);
      return `countersign could not get a token to send it with${words === undefined ? ` (${r.error})` : `: ${words}`}`;
    }
    case 'hold-lost':
      return 'its hold gave way while the approval was checked';
    case 'stopping':
      return 'countersign was stopping';
  }
}

/** What was found afterwards of a decision no answer settled. */
function foundText(f: NonNullable<DecisionRecord['found']>, timeZone: string): string {
  const when = `found ${localTime(f.at, timeZone)}${f.by === 'next-decision' ? ' when the approval was next decided' : ''}`;
  switch (f.found) {
    case 'completed':
      return `${when}: the service shows it ${f.seen?.state || 'completed'}${f.seen?.completedBy ? ` by ${f.seen.completedBy}` : ''}`;
    case 'pending':
      return `${when}: the service still shows it waiting, so it was not decided`;
    case 'not-sent':
      return `${when}: it ended before it was sent`;
    case 'unreadable':
      return `${when}: the service could not be read (${f.why ?? 'unknown'}); check it there`;
  }
}

/** How a decision stands, in the table's OUTCOME column: the one place that words a decision's outcome. */
function decisionOutcomeText(d: DecisionRecord, timeZone: string, who: Who): string {
  const seen = (s: SeenState | undefined) =>
    s === undefined
      ? ''
      : s.pending
        ? '; the service then showed it still waiting'
        : `; the service then showed it ${s.state || 'completed'}`;
  if (d.outcome === 'refused' && d.refusal !== undefined) return `refused: ${refusalText(d.refusal, timeZone, who)}; nothing sent`;
  const answered = answerText(d, seen);
  if (d.found !== undefined) return `${answered}; ${foundText(d.found, timeZone)}`;
  return d.unsettled ? `${answered}; UNSETTLED: the service will be read again` : answered;
}

function answerText(d: DecisionRecord, seen: (s: SeenState | undefined) => string): string {
  const a = d.answer;
  switch (a?.result) {
    case 'done':
      return a.after === undefined ? `done${seen(a.seen)}` : `done: no answer that said (${a.after})${seen(a.seen)}`;
    case 'refused': {
      const words = refusedWords(a.error, a.message);
      if (words !== undefined) return `not done: ${words}`;
      return `not done: the service refused it (${a.error}${a.status === undefined ? '' : ` ${a.status}`})${a.message ? `: “${a.message}”` : ''}`;
    }
    case 'not-sent':
      return 'not done: it never reached the service';
    case 'unknown':
      return a.status === undefined
        ? `unknown: no answer that says (${a.error})${seen(a.seen)}`
        : `unknown: the service answered ${a.status}${a.says ? ` saying “${a.says}”` : ''}, but did not show it completed as sent${seen(a.seen)}`;
    default:
      return (
        { asked: 'asked, not confirmed', confirmed: 'confirmed, not sent', sent: 'sent, no answer recorded' }[d.outcome as string] ??
        d.outcome
      );
  }
}

function printDecisions(
  io: CliIo,
  decisions: readonly DecisionRecord[],
  json: boolean,
  { names, note }: { names: ReadonlyMap<string, string>; note?: string | undefined },
): number {
  const who = whoOf(names);
  if (json) {
    for (const d of decisions)
      io.stdout.write(
        jsonLine({
          kind: 'decision',
          id: d.id,
          at: d.at.toISOString(),
          lastAt: d.lastAt.toISOString(),
          team: d.teamId,
          user: d.userId,
          userName: names.get(d.userId) ?? null,
          approval: d.approvalId,
          action: d.action,
          comment: d.comment ?? null,
          outcome: d.outcome,
          reason: decisionOutcomeText(d, 'UTC', who),
          detail: d.refusal ?? d.answer ?? null,
          found: d.found === undefined ? null : { ...d.found, at: d.found.at.toISOString() },
          unsettled: d.unsettled,
          steps: d.steps.map((s) => ({ step: s.step, at: s.at.toISOString(), request: s.requestId ?? null })),
        }),
      );
    return 0;
  }
  if (decisions.length === 0) {
    io.stderr.write('No decisions recorded for that period.\n');
    return 0;
  }
  printTable(
    io,
    [['WHEN', 'TEAM', 'WHO', 'APPROVAL', 'ACTION', 'OUTCOME', 'COMMENT']].concat(
      decisions.map((d) => [
        localTime(d.at, io.timeZone),
        d.teamId,
        who(d.userId),
        d.approvalId,
        d.action,
        decisionOutcomeText(d, io.timeZone, who),
        d.comment === undefined ? '-' : d.comment === '' ? '(none)' : d.comment,
      ]),
    ),
  );
  io.stderr.write(`Times are in this machine's zone (${io.timeZone}); --json gives them in UTC, with every step.\n`);
  if (note !== undefined) io.stderr.write(`${note}\n`);
  return 0;
}

const MAX_TOKEN_BYTES = 8192;

function isTerminal(input: NodeJS.ReadableStream): input is NodeJS.ReadStream {
  return (input as NodeJS.ReadStream).isTTY === true;
}

/** The token, from standard input only: typed or pasted without echo at a terminal, or piped in. */
async function readToken(io: CliIo): Promise<Secret> {
  const stdin = io.stdin;
  const token = (isTerminal(stdin) && io.terminal !== undefined ? await readHidden(stdin, io.terminal) : await readPiped(stdin)).trim();
  if (token === '')
    throw new UsageError('no token on standard input; pipe it in, e.g. countersign tokens set --user U012ABCDEF --command all < token.txt');
  if (/\s|[\u0000-\u001f\u007f]/.test(token))
    throw new UsageError('the token on standard input contains spaces or control characters; give exactly one token');
  return new Secret(token);
}

async function readPiped(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > MAX_TOKEN_BYTES) throw new UsageError('standard input is larger than any token (8 KiB)');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * One line from a terminal with its echo off (raw mode), as a password prompt reads: the token
 * never shows on screen or in the scrollback. Enter ends it, Backspace deletes, Ctrl-C cancels,
 * Ctrl-D ends it (or cancels an empty one). The terminal gets its mode back however this ends: a
 * line, a cancel, an error, a signal from elsewhere, or the process exiting.
 */
function readHidden(input: NodeJS.ReadStream, prompt: NodeJS.WriteStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const restore = () => {
      input.off('data', onData);
      input.off('error', onError);
      for (const signal of Object.keys(SIGNAL_EXIT)) process.off(signal, onSignal);
      process.off('exit', restoreMode);
      restoreMode();
      input.pause();
      prompt.write('\n');
    };
    const restoreMode = () => {
      if (input.isRaw) input.setRawMode(false);
    };
    const finish = (outcome: () => void) => {
      restore();
      outcome();
    };
    const onSignal = (signal: NodeJS.Signals) => {
      restore();
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    };
    const onError = (error: Error) => finish(() => reject(error));
    const onData = (chunk: Buffer | string) => {
      for (const c of chunk.toString()) {
        if (c === '\r' || c === '\n') return finish(() => resolve(text));
        if (c === '\u0003') return finish(() => reject(new Cancelled()));
        if (c === '\u0004') return finish(() => (text === '' ? reject(new Cancelled()) : resolve(text)));
        if (c === '\u007f' || c === '\b') text = text.slice(0, -1);
        else text += c;
        if (text.length > MAX_TOKEN_BYTES) return finish(() => reject(new UsageError('that is larger than any token (8 KiB)')));
      }
    };
    // Echo goes off before the prompt shows, so nothing typed after the prompt can be echoed.
    input.setRawMode(true);
    process.on('exit', restoreMode);
    for (const signal of Object.keys(SIGNAL_EXIT)) process.on(signal, onSignal);
    input.on('data', onData);
    input.on('error', onError);
    input.resume();
    prompt.write('Paste or type the token, then press Enter (it is not shown): ');
  });
}

function positiveInt(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not '${value}'`);
  return n;
}

/** `--latency`: `200ms`, `1.5s`, `1s` or `0`, up to a minute. */
function latencyMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{1,5}(?:\.\d{1,3})?)(ms|s)$|^0$/.exec(value.trim());
  const ms = m === null ? Number.NaN : m[0] === '0' ? 0 : Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
  if (!Number.isFinite(ms) || ms > 60_000)
    throw new UsageError(`--latency takes a duration from 0 to 60s, like 200ms or 1.5s, not '${value}'`);
  return ms;
}

async function serviceCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions('service', args, {
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    data: { type: 'string', default: 'demo' },
    approvals: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    disable: { type: 'string' },
    latency: { type: 'string' },
  });
  const port = positiveInt(values.port, '--port', 0, 65_535) ?? 4000;
  const delayMs = latencyMs(values.latency) ?? 0;
  // A test service's made-up credentials: on the command line, unlike anything countersign itself holds.
  const made = newTrustedApp();
  const trustedApp = { clientId: values['client-id'] ?? made.clientId, clientSecret: values['client-secret'] ?? made.clientSecret };
  for (const [flag, value] of [
    ['--client-id', trustedApp.clientId],
    ['--client-secret', trustedApp.clientSecret],
  ] as const) {
    if (!/^[\x21-\x7e]{1,256}$/.test(value)) throw new UsageError(`${flag} takes 1 to 256 visible characters, without spaces`);
  }
  const disabled = values.disable === undefined ? [] : values.disable.split(',').map((c) => c.trim());
  if (disabled.some((c) => !/^[A-Za-z]{1,64}$/.test(c)))
    throw new UsageError('--disable takes command names separated by commas, e.g. --disable getApprovalDetails,getRequestItems');
  const approvals = positiveInt(values.approvals, '--approvals', 1, 50_000_000);
  const inMemory = values.data === 'demo';
  if (inMemory && approvals !== undefined)
    throw new UsageError('--approvals needs --data <file.db>: a large data set is built once and kept');

  let db: ReturnType<typeof openReferenceDb> | undefined;
  if (!inMemory) {
    const isNew = !existsSync(values.data);
    db = openReferenceDb(values.data);
    const empty = (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n === 0;
    if (isNew || empty) {
      const started = performance.now();
      io.stderr.write(`Filling ${values.data} with ${approvals === undefined ? 'the demo data set' : `${approvals} approvals`}…\n`);
      if (approvals === undefined) loadDemoData(db, io.now());
      else loadBulkData(db, io.now(), approvals);
      io.stderr.write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
    }
  }

  // Listened for before saying "listening": a supervisor may stop us the moment it reads that line.
  const stopped = io.untilStopped();
  let service: Awaited<ReturnType<typeof startReferenceService>>;
  try {
    service = await startReferenceService({
      db,
      port,
      host: values.host,
      trustedApp,
      quirks: { disabledCommands: disabled },
      delayMs,
      now: io.now,
    });
  } catch (error) {
    db?.close();
    const why = listenProblem((error as { code?: string }).code, port, values.host);
    if (why === undefined) throw error;
    io.stderr.write(`countersign: ${printable(why)}\n`);
    return 1;
  }
  const report = () => {
    const byCommand = [...service.calls].map(([command, n]) => `${command} ${n}`).join(', ');
    const total = [...service.calls.values()].reduce((a, b) => a + b, 0);
    return `Calls answered: ${total}${total > 0 ? ` (${byCommand})` : ''}; at most ${service.load.maxInFlight} in flight at once.\n`;
  };
  // For whoever watches a run under load (a benchmark): what the server itself saw, so far.
  const stopReporting = io.onReport(() => io.stdout.write(report()));
  const count = (sql: string) => (service.db.prepare(sql).get() as { n: number }).n;
  io.stdout.write(
    [
      `Reference Command Service listening on ${service.url}`,
      `  ${count('SELECT count(*) AS n FROM approvals')} approvals, ${count('SELECT count(*) AS n FROM collectors')} collectors; ` +
        `runs stay New ${DEFAULT_RUN_TIMINGS.queuedMs / 1000} s, then Running ${DEFAULT_RUN_TIMINGS.runningMs / 1000} s.`,
      `  Its times are written in ${service.timeZone}: give countersign COMMAND_SERVICE_TIME_ZONE=${service.timeZone}.`,
      ...(disabled.length > 0 ? [`  Switched off: ${disabled.join(', ')} (404 with the command's name as the reason phrase).`] : []),
      ...(delayMs > 0 ? [`  Every call waits ${delayMs} ms before it is answered (--latency).`] : []),
      '',
      'Demo tokens (valid 24 hours):',
      ...formatTokens(service.demoTokens),
      '',
      'Demo logins (loginUser): ada.lovelace, grace.hopper, oscar.ops with password "demo";',
      '  katherine.johnson with password "demo" and authsource corp-ldap.',
      '',
      'Trusted application (loginTrustedApp; its tokens act for the user named by auth-user-id):',
      `  COMMAND_SERVICE_CLIENT_ID=${service.trustedApp.clientId}`,
      `  COMMAND_SERVICE_CLIENT_SECRET=${service.trustedApp.clientSecret}`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer $TOKEN" '${service.url}/command.submit?cmd=findApprovals&format=json&page-size=2'`,
      '',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );

  await stopped;
  stopReporting();
  await service.close();
  db?.close();
  io.stderr.write(`Reference Command Service stopped. ${report()}`);
  return 0;
}

/** Why the service could not listen there, and what to do, for the errors a person can act on; undefined for others. */
function listenProblem(code: string | undefined, port: number, host: string): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (another countersign service, or another program). Stop that, or give another port: countersign service --port ${port === 65_535 ? 4000 : port + 1}`;
    case 'EACCES':
      return `this user may not listen on port ${port} on ${host} (ports below 1024 need privileges). Give another port: countersign service --port 4000`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine. Give one of its own with --host, such as --host 127.0.0.1`;
    default:
      return undefined;
  }
}

function formatTokens(tokens: readonly DemoToken[]): string[] {
  const width = (f: (t: DemoToken) => string) => Math.max(...tokens.map((t) => f(t).length));
  const w1 = width((t) => t.label);
  const w2 = width((t) => t.userId);
  return tokens.map((t) => `  ${t.label.padEnd(w1)}  ${t.userId.padEnd(w2)}  ${t.token}  (${t.note})`);
}

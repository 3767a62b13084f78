/**
 * The admin CLI (`countersign …`). Exit codes: 0 done, 1 failed, 2 wrong usage. Messages go to
 * stderr, results to stdout, so that scripts can pipe the output.
 */

import { auditCommand } from './audit.js';
import { Cancelled, type CliIo, UsageError } from './io.js';
import { keysCommand } from './keys.js';
import { oneLine } from './output.js';
import { serviceCommand } from './service.js';
import { tokensCommand } from './tokens.js';
import { usersCommand } from './users.js';

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

export type { CliIo } from './io.js';

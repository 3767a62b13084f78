/** `countersign tokens set | list | delete`: users' tokens linked by an admin, checked with the service first; never a token printed. */

import { commandServiceUrlOf, loadConfig } from '../config.js';
import type { Secret } from '../runtime/secret.js';
import { createServiceClient, isServiceError } from '../service/index.js';
import { openStore, SERVICE_COMMANDS, type ServiceCommandName } from '../store/index.js';
import { parseOptions, TEAM_ID, USER_ID } from './args.js';
import { readToken } from './input.js';
import { type CliIo, UsageError } from './io.js';
import { jsonLine, localTime, printTable } from './output.js';

export async function tokensCommand(args: string[], io: CliIo): Promise<number> {
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

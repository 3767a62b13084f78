/** `countersign users map | list | unmap`: the trusted mode's identities, the service user each Slack user acts as. */

import { loadConfig } from '../config.js';
import { serviceUserIdSchema } from '../service/query.js';
import { openStore } from '../store/index.js';
import { parseOptions, TEAM_ID, USER_ID } from './args.js';
import { type CliIo, UsageError } from './io.js';
import { jsonLine, localTime, printable, printTable } from './output.js';

/** Trusted-application mode: who each Slack user is in the service. Names, never credentials. */
export async function usersCommand(args: string[], io: CliIo): Promise<number> {
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

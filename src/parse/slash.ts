/** The slash commands, and which Command Service command each one's token is linked for: written once. */

import type { ServiceCommandName } from '../store/types.js';

export const SLASH_COMMANDS = { '/approvals': 'findApprovals', '/collect': 'collectEntitlements' } as const satisfies Record<
  string,
  ServiceCommandName
>;

export type Slash = keyof typeof SLASH_COMMANDS;

const SLASH_OF = Object.fromEntries(Object.entries(SLASH_COMMANDS).map(([slash, command]) => [command, slash])) as Record<
  ServiceCommandName,
  Slash
>;

/** The slash command whose `login` links a token for this service command. */
export function slashFor(command: ServiceCommandName): Slash {
  return SLASH_OF[command];
}

/** The slash commands, and which Command Service command each one's token is linked for: written once. */

import type { ServiceCommandName } from '../store/types.js';

export const SLASH_COMMANDS = { '/approvals': 'findApprovals', '/collect': 'collectEntitlements' } as const satisfies Record<
  string,
  ServiceCommandName
>;

export type Slash = keyof typeof SLASH_COMMANDS;

export function slashFor(command: ServiceCommandName): Slash {
  return command === 'findApprovals' ? '/approvals' : '/collect';
}

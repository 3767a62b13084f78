/**
 * The service's commands in the words of the people who use countersign: what countersign tried to
 * do for them ("list your approvals"), never the API's name (findApprovals), which means nothing to
 * an approver. Operators and the admin CLI keep the names.
 */

/** What a service command does, as its user would say it: "list your approvals", not findApprovals. */
const COMMAND_WORDS: Record<string, string> = {
  findApprovals: 'list your approvals',
  getApprovalDetails: 'see an approval’s details',
  getRequestItems: 'list a request’s items',
  collectEntitlements: 'start collections',
  getRunStatus: 'follow a collection’s runs',
};

export function commandWords(command: string): string {
  return Object.hasOwn(COMMAND_WORDS, command) ? (COMMAND_WORDS[command] as string) : 'do that';
}

/** A link's line heading, in the same words: "To list your approvals", not findApprovals. */
export function commandPurpose(command: string): string {
  return Object.hasOwn(COMMAND_WORDS, command) ? `To ${COMMAND_WORDS[command] as string}` : 'For the Command Service';
}

/** "list your approvals"; a command of the operator's (the decision call) has no words of ours: "decide approvals here". */
export function permittedWords(command: string | undefined): string {
  if (command === undefined) return 'use one of its commands';
  return Object.hasOwn(COMMAND_WORDS, command) ? (COMMAND_WORDS[command] as string) : 'decide approvals from Slack';
}

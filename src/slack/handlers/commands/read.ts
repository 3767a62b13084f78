/**
 * A slash command's text, read once per request. The middleware reads it (the rate limit counts
 * only the forms that reach the service) and leaves it in the request's context; the command's
 * handler takes it from there, and /approvals then only counts its dates from the user's today.
 */

import { type ApprovalsForm, readApprovalsCommand } from '../../../parse/approvals.js';
import { type CollectCommand, parseCollectCommand } from '../../../parse/collect.js';

export type ReadCommand = { command: '/approvals'; form: ApprovalsForm } | { command: '/collect'; form: CollectCommand };

/** Where the middleware leaves the command as read, for its handler. */
const READ_COMMAND = 'countersignCommand';

/** The text of one of countersign's commands, read; undefined for a command that is not one. */
export function readCommand(command: string, text: string): ReadCommand | undefined {
  if (command === '/approvals') return { command, form: readApprovalsCommand(text) };
  if (command === '/collect') return { command, form: parseCollectCommand(text) };
  return undefined;
}

export function keepReadCommand(context: Record<string, unknown>, read: ReadCommand): void {
  context[READ_COMMAND] = read;
}

/** /approvals as the middleware read it; read here only when no middleware did (a handler called on its own, as in a test). */
export function approvalsRead(context: Record<string, unknown> | undefined, text: string): ApprovalsForm {
  const kept = context?.[READ_COMMAND] as ReadCommand | undefined;
  return kept?.command === '/approvals' ? kept.form : readApprovalsCommand(text);
}

/** /collect as the middleware read it; read here only when no middleware did. */
export function collectRead(context: Record<string, unknown> | undefined, text: string): CollectCommand {
  const kept = context?.[READ_COMMAND] as ReadCommand | undefined;
  return kept?.command === '/collect' ? kept.form : parseCollectCommand(text);
}

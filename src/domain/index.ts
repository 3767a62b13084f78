/**
 * The words the store and the service client share, below both so that neither imports the other:
 * who a user is (Principal), the commands a user links a token for, how a token was linked, what a
 * collection asks for, and the states of a collection's run. Types and constants only: no I/O, no
 * validation (the service client checks a CollectQuery with its schema before it is sent).
 */

/** The commands a Slack user links a token for, one link each. */
export const SERVICE_COMMANDS = ['findApprovals', 'collectEntitlements'] as const;
export type ServiceCommandName = (typeof SERVICE_COMMANDS)[number];

/** Whose token: the Slack workspace (team) and user. An empty team id means any workspace. */
export interface Principal {
  teamId: string;
  userId: string;
}

/** How a token was linked: by an admin, by signing in, or pasted. */
export type TokenSource = 'admin' | 'login' | 'pasted';

/** What a collection asks the service to run: collectors by name or application, forced or not. */
export interface CollectQuery {
  name?: string | undefined;
  application?: string | undefined;
  force?: boolean | undefined;
}

/** A collection run's state as countersign knows it; 'Unknown' for a word the service has that it does not. */
export type RunState = 'New' | 'Running' | 'Completed' | 'Aborted' | 'Unknown';

/**
 * The arrivals' words, shared with the Slack side (which renders and sends the DMs), the
 * end-to-end tests and the bench: an approval *arrives* for an approver when it is on their pending
 * list and never was before; each is announced once, in a DM kept true afterwards.
 */

/** Quiet hours in the approver's own zone: minutes after midnight; start > end wraps midnight. */
export interface QuietHours {
  startMinute: number;
  endMinute: number;
}
export interface NotifySettings {
  enabled: boolean;
  quiet: QuietHours | undefined;
}
export type NotifyChange = { enabled: boolean } | { quiet: QuietHours | null };

/** What a DM says of one approval: the service's own text, kept so the DM can be redrawn without asking again. */
export interface ArrivalSummary {
  approvalId: string; // workItemId
  workItemName: string;
  requestName: string;
  requestedBy: string; // fields.RequestedByName (or '' when the service gave none)
  dueDate: string; // as the service wrote it ('' when none)
}
export type ArrivalState =
  | { kind: 'waiting'; actions: readonly string[] } // actions: decision buttons to offer ([] = Details only)
  | { kind: 'decided'; action: string; by: string; at: Date } // decided from Slack; `by` a Slack user id
  | { kind: 'gone'; at: Date }; // left their pending list otherwise (seen at a check)
export interface ArrivalEntry {
  approval: ArrivalSummary;
  state: ArrivalState;
}
export interface ArrivalMessage {
  userId: string; // the approver (Slack)
  entries: readonly ArrivalEntry[]; // at most ARRIVALS_LISTED (5) listed
  more: number; // how many more arrived with them than are listed (the message says `/approvals`)
  afterQuiet: boolean; // sent when quiet hours ended
}
/** Where arrival messages go: the Slack side renders and sends them; the checks and afterDecision call it. */
export interface ArrivalOutbox {
  /** Posts the DM; returns the channel id Slack's answer gave (D…) and the message ts: the DM is updated by those. */
  announce(message: ArrivalMessage): Promise<{ channel: string; ts: string }>;
  /** Redraws a DM in place; 'gone' when Slack says it cannot be updated any more (deleted, channel gone). */
  redraw(channel: string, ts: string, message: ArrivalMessage): Promise<'updated' | 'gone'>;
  /** The one line of the first check: N approvals already wait. */
  alreadyWaiting(userId: string, count: number): Promise<void>;
}

/** How many approvals one DM lists by name; those that arrived with them beyond it are counted. */
export const ARRIVALS_LISTED = 5;

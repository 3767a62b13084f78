/**
 * From what the store keeps to what a DM says, and when quiet hours hold: pure. A decision from
 * Slack outranks "gone": an approval decided from a DM also leaves the list at the next check.
 */

import type { KeptArrival, KeptArrivalMessage } from '../store/index.js';
import { wallClock } from '../time/zones.js';
import type { ArrivalEntry, ArrivalMessage, QuietHours } from './ports.js';

export function entryOf(kept: KeptArrival): ArrivalEntry {
  const { approvalId, workItemName, requestName, requestedBy, dueDate } = kept.summary;
  const approval = { approvalId, workItemName, requestName, requestedBy, dueDate };
  if (kept.decided !== undefined) return { approval, state: { kind: 'decided', ...kept.decided } };
  if (kept.goneAt !== undefined) return { approval, state: { kind: 'gone', at: kept.goneAt } };
  return { approval, state: { kind: 'waiting', actions: kept.actions } };
}

export function messageOf(kept: KeptArrivalMessage): ArrivalMessage {
  return { userId: kept.userId, entries: kept.entries.map(entryOf), more: kept.more, afterQuiet: kept.afterQuiet };
}

/** Whether `at` falls in the quiet hours, read on the wall clock of `zone`; a range whose start is after its end wraps midnight. */
export function inQuietHours(quiet: QuietHours | undefined, at: Date, zone: string): boolean {
  if (quiet === undefined || quiet.startMinute === quiet.endMinute) return false;
  const wall = wallClock(at, zone);
  const minute = wall.hour * 60 + wall.minute;
  if (quiet.startMinute < quiet.endMinute) return minute >= quiet.startMinute && minute < quiet.endMinute;
  return minute >= quiet.startMinute || minute < quiet.endMinute;
}

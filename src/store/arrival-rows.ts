/**
 * The arrivals' rows as both backends return them, and their mappings: one place for both. The
 * summary and the decision are JSON, as the service's text was kept, so that a DM is redrawn
 * without asking the service again.
 */

import { dateOf, type Millis, optionalDateOf } from './rows.js';
import type { ArrivalDecided, ArrivalWatch, KeptArrival, KeptArrivalMessage, KeptSummary, NotifySetting, QuietMinutes } from './types.js';

export interface ArrivalWatchRow {
  user_id: string;
  team_id: string;
  enabled: number | string;
  quiet_start: number | string | null;
  quiet_end: number | string | null;
  prime: number | string;
  next_at: Millis | null;
  due_at: Millis | null;
  lease_owner: string | null;
  lease_until: Millis | null;
}

export interface ArrivalItemRow {
  user_id: string;
  approval_id: string;
  status: KeptArrival['status'];
  summary: string;
  actions: string;
  seen_at: Millis;
  gone_at: Millis | null;
  decided: string | null;
  message_id: string | null;
  position: number | string | null;
}

export interface ArrivalMessageRow {
  id: string;
  user_id: string;
  team_id: string;
  channel: string | null;
  ts: string | null;
  more: number | string;
  after_quiet: number | string;
  at: Millis;
  gone: number | string;
}

function quietOf(r: Pick<ArrivalWatchRow, 'quiet_start' | 'quiet_end'>): QuietMinutes | undefined {
  if (r.quiet_start === null || r.quiet_end === null) return undefined;
  return { startMinute: Number(r.quiet_start), endMinute: Number(r.quiet_end) };
}

export function notifySettingOf(r: ArrivalWatchRow): NotifySetting {
  return { enabled: Number(r.enabled) === 1, quiet: quietOf(r) };
}

/** A claimed row: its due_at and next_at were just written. */
export function arrivalWatchOf(r: ArrivalWatchRow): ArrivalWatch {
  return {
    teamId: r.team_id,
    userId: r.user_id,
    quiet: quietOf(r),
    prime: Number(r.prime) === 1,
    dueAt: dateOf(r.due_at ?? 0),
    nextAt: dateOf(r.next_at ?? 0),
  };
}

/** What a summary keeps: the service's own text, and nothing it did not give. */
export function summaryText(s: KeptSummary): string {
  return JSON.stringify([s.workItemName, s.requestName, s.requestedBy, s.dueDate]);
}

function summaryOf(approvalId: string, text: string): KeptSummary {
  const [workItemName = '', requestName = '', requestedBy = '', dueDate = ''] = JSON.parse(text) as string[];
  return { approvalId, workItemName, requestName, requestedBy, dueDate };
}

export function decidedText(d: ArrivalDecided): string {
  return JSON.stringify({ action: d.action, by: d.by, at: d.at.getTime() });
}

function decidedOf(text: string | null): ArrivalDecided | undefined {
  if (text === null) return undefined;
  const d = JSON.parse(text) as { action: string; by: string; at: number };
  return { action: d.action, by: d.by, at: new Date(d.at) };
}

export function keptArrivalOf(r: ArrivalItemRow): KeptArrival {
  return {
    approvalId: r.approval_id,
    status: r.status,
    summary: summaryOf(r.approval_id, r.summary),
    actions: JSON.parse(r.actions) as string[],
    seenAt: dateOf(r.seen_at),
    goneAt: optionalDateOf(r.gone_at),
    decided: decidedOf(r.decided),
    messageId: r.message_id ?? undefined,
  };
}

/** Messages with their listed items (any order in): each message's entries by position. */
export function keptMessagesOf(messages: readonly ArrivalMessageRow[], items: readonly ArrivalItemRow[]): KeptArrivalMessage[] {
  return messages.map((m) => ({
    id: m.id,
    teamId: m.team_id,
    userId: m.user_id,
    channel: m.channel ?? undefined,
    ts: m.ts ?? undefined,
    more: Number(m.more),
    afterQuiet: Number(m.after_quiet) === 1,
    at: dateOf(m.at),
    entries: items
      .filter((i) => i.message_id === m.id && i.position !== null)
      .sort((a, b) => Number(a.position) - Number(b.position))
      .map(keptArrivalOf),
  }));
}

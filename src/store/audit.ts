/**
 * The audit trail as rows, for both stores: one row per step of an audited action (a collection
 * attempt, a decision), appended and never changed, with the step's own fields as JSON beside the
 * columns readers filter on. Reading folds a subject's steps back into one attempt. Pure.
 */

import { randomBytes } from 'node:crypto';
import type { CollectQuery } from '../domain/index.js';
import { dateOf, type Millis } from './rows.js';
import type {
  AttemptReason,
  AuditStep,
  CollectAttempt,
  CollectEvent,
  CollectOutcome,
  CollectStep,
  DecisionEvent,
  DecisionRecord,
  DecisionRefusal,
  DecisionResult,
  SeenState,
  WatchedRun,
} from './types.js';

export type AuditKind = 'collection' | 'decision';

/** A row of audit_events as both databases return it (BIGINT as a number or a string). */
export interface AuditRow {
  id: string;
  at: Millis;
  kind: string;
  subject: string;
  step: string;
  team_id: string;
  user_id: string;
  channel_id: string;
  approval_id: string;
  data: string;
}

/** A collection's row, with the live state of its runs when a watch follows them. */
export interface CollectRow extends AuditRow {
  watch_id?: string | null;
  watch_runs?: string | null;
  watch_note?: string | null;
  watch_done?: Millis | null;
}

/** The values of an INSERT into audit_events, in its column order. */
export type AuditValues = [
  id: string,
  at: number,
  kind: AuditKind,
  subject: string,
  step: AuditStep,
  teamId: string,
  userId: string,
  channelId: string,
  approvalId: string,
  data: string,
];

/** The one statement that writes the trail, with ? placeholders (PostgreSQL's are numbered from them). */
export const INSERT_AUDIT =
  'INSERT INTO audit_events (id, at, kind, subject, step, team_id, user_id, channel_id, approval_id, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** Reasons as JSON: a time as its ISO string. */
function reasonData(reason: AttemptReason): Record<string, unknown> {
  return reason.kind === 'cooldown' ? { ...reason, at: reason.at.toISOString() } : reason;
}

function stepData(step: CollectStep): Record<string, unknown> {
  switch (step.step) {
    case 'refused':
    case 'cancelled':
      return { reason: reasonData(step.reason) };
    case 'failed':
      return { reason: reasonData(step.reason), maybeStarted: step.maybeStarted };
    case 'answered':
      return { runs: step.runs, leftOut: step.leftOut, ranAgain: step.ranAgain };
    default:
      return {};
  }
}

export function collectValues(id: string, e: CollectEvent): AuditValues {
  const data = { query: e.query, ...stepData(e) };
  return [id, e.at.getTime(), 'collection', e.attemptId, e.step, e.teamId, e.userId, e.channelId, '', JSON.stringify(data)];
}

/**
 * Row ids that sort as the rows were written by one process (its steps of one action, often in
 * the same millisecond): the time, this process's tag, and a count. Steps of one action written by
 * different instances are apart in time (they answer different requests).
 */
export class AuditIds {
  readonly #tag = randomBytes(6).toString('base64url');
  #count = 0;

  next(at: Date): string {
    this.#count = (this.#count + 1) % 1e9;
    return `${String(at.getTime()).padStart(15, '0')}-${this.#tag}-${String(this.#count).padStart(9, '0')}`;
  }
}

/** A subject's steps in the order they happened: by time, then as written. */
export function byTimeThenStep(a: AuditRow, b: AuditRow): number {
  return Number(a.at) - Number(b.at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Where each step of a decision comes in its course: the tie-break for steps of one moment, whoever wrote them first. */
const DECISION_STEP_ORDER: Record<string, number> = { asked: 0, confirmed: 1, refused: 2, sent: 2, resent: 3, answered: 4, reconciled: 5 };

/** A decision's steps by time, then by their place in a decision's course (not by which instance's id sorts first), then as written. */
export function byTimeThenDecisionStep(a: AuditRow, b: AuditRow): number {
  const rank = (r: AuditRow) => DECISION_STEP_ORDER[r.step] ?? 6;
  return Number(a.at) - Number(b.at) || rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A stored reason, read strictly: one this version does not know is kept as the words it carries, if any. */
export function readReason(value: unknown): AttemptReason | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  switch (r.kind) {
    case 'channel':
      return { kind: 'channel', allowedChannels: strings(r.allowedChannels) };
    case 'user':
    case 'force':
    case 'not-linked':
    case 'internal':
    case 'cancelled':
    case 'not-again':
      return { kind: r.kind };
    case 'cooldown': {
      const at = new Date(text(r.at));
      return {
        kind: 'cooldown',
        userId: text(r.userId),
        at: Number.isNaN(at.getTime()) ? new Date(0) : at,
        offered: r.offered === true,
        ...(typeof r.collector === 'string' ? { collector: r.collector } : {}),
      };
    }
    case 'service':
      return { kind: 'service', error: text(r.error), message: text(r.message) };
    case 'other':
      return { kind: 'other', text: text(r.text) };
    default:
      return typeof r.text === 'string' ? { kind: 'other', text: r.text } : undefined;
  }
}

function readRuns(value: unknown): WatchedRun[] {
  return Array.isArray(value) ? (value.filter((r) => typeof r === 'object' && r !== null && 'runId' in r) as WatchedRun[]) : [];
}

const KNOWN_STEPS = new Set<string>(['asked', 'refused', 'confirmed', 'cancelled', 'sent', 'answered', 'failed'] satisfies AuditStep[]);

/** What an attempt came to, from its last step. */
function outcomeOf(last: string, runs: readonly WatchedRun[]): CollectOutcome {
  switch (last) {
    case 'answered':
      return runs.length > 0 ? 'started' : 'nothing-matched';
    case 'refused':
      return 'refused';
    case 'cancelled':
      return 'cancelled';
    case 'failed':
      return 'failed';
    case 'asked':
      return 'unanswered';
    case 'confirmed':
      return 'confirmed';
    default:
      return 'sent';
  }
}

/**
 * Attempts from their rows, latest activity first: by their last row's id, which sorts by time and
 * then as written. A subject's rows must all be there: the stores select whole subjects.
 */
export function foldAttempts(rows: readonly CollectRow[]): CollectAttempt[] {
  const bySubject = new Map<string, CollectRow[]>();
  for (const row of rows) {
    const list = bySubject.get(row.subject) ?? [];
    list.push(row);
    bySubject.set(row.subject, list);
  }
  const attempts: Array<CollectAttempt & { lastId: string }> = [];
  for (const [subject, list] of bySubject) {
    list.sort(byTimeThenStep);
    const first = list[0] as CollectRow;
    const last = list[list.length - 1] as CollectRow;
    let query: CollectQuery = {};
    let reason: AttemptReason | undefined;
    let runs: WatchedRun[] = [];
    let leftOut: string[] = [];
    let ranAgain: string[] = [];
    let watch: CollectAttempt['watch'];
    let watchRuns: string | undefined;
    for (const row of list) {
      const data = parse(row.data);
      if (typeof data.query === 'object' && data.query !== null) query = data.query as CollectQuery;
      if (row.step === 'refused' || row.step === 'cancelled' || row.step === 'failed') reason = readReason(data.reason) ?? reason;
      if (row.step === 'answered') {
        runs = readRuns(data.runs);
        leftOut = strings(data.leftOut);
        ranAgain = strings(data.ranAgain);
        reason = undefined;
      }
      if (row.watch_id) {
        watchRuns = row.watch_runs ?? undefined;
        watch = { note: row.watch_note ?? undefined, done: row.watch_done !== null && row.watch_done !== undefined };
      }
    }
    // The watch holds the runs' latest states; the step, the runs as they were started.
    if (watchRuns !== undefined) runs = readRuns(parse(`{"runs":${watchRuns}}`).runs);
    attempts.push({
      id: subject,
      at: dateOf(first.at),
      lastAt: dateOf(last.at),
      teamId: first.team_id,
      channelId: first.channel_id,
      userId: first.user_id,
      query,
      // A step a newer release wrote (a rolling deploy) is listed, and the outcome is the last one this release knows.
      outcome: outcomeOf([...list].reverse().find((r) => KNOWN_STEPS.has(r.step))?.step ?? 'sent', runs),
      reason,
      leftOut,
      ranAgain,
      runs,
      steps: list.map((r) => ({ step: r.step as AuditStep, at: dateOf(r.at) })),
      watch,
      lastId: list.reduce((max, r) => (r.id > max ? r.id : max), ''),
    });
  }
  return attempts.sort((a, b) => (a.lastId < b.lastId ? 1 : a.lastId > b.lastId ? -1 : 0)).map(({ lastId: _, ...a }) => a);
}

function decisionStepData(e: DecisionEvent): Record<string, unknown> {
  switch (e.step) {
    case 'confirmed':
      return { comment: e.comment };
    case 'reconciled': {
      const { step: _step, decisionId: _d, at: _at, teamId: _t, userId: _u, approvalId: _a, action: _x, requestId: _r, ...found } = e;
      return found;
    }
    case 'refused':
      return {
        ...(e.comment === undefined ? {} : { comment: e.comment }),
        reason:
          'at' in e.reason
            ? { ...e.reason, at: e.reason.at.toISOString() }
            : 'until' in e.reason
              ? { ...e.reason, until: e.reason.until.toISOString() }
              : e.reason,
      };
    case 'answered': {
      const { step: _step, decisionId: _d, at: _at, teamId: _t, userId: _u, approvalId: _a, action: _x, requestId: _r, ...result } = e;
      return result;
    }
    default:
      return {};
  }
}

export function decisionValues(id: string, e: DecisionEvent): AuditValues {
  const data = { action: e.action, ...(e.requestId === undefined ? {} : { requestId: e.requestId }), ...decisionStepData(e) };
  return [id, e.at.getTime(), 'decision', e.decisionId, e.step, e.teamId, e.userId, '', e.approvalId, JSON.stringify(data)];
}

function readDate(v: unknown): Date {
  const d = new Date(text(v));
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

function readRefusal(value: unknown): DecisionRefusal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  switch (r.kind) {
    case 'not-linked':
    case 'not-visible':
    case 'line-items':
      return { kind: r.kind };
    case 'not-pending':
      return { kind: 'not-pending', state: text(r.state), by: text(r.by) };
    case 'action-not-listed':
      return { kind: 'action-not-listed', listed: strings(r.listed) };
    case 'already-decided':
      return { kind: 'already-decided', userId: text(r.userId), action: text(r.action), at: readDate(r.at) };
    case 'held':
      return {
        kind: 'held',
        userId: text(r.userId),
        action: text(r.action),
        state: r.state === 'sending' ? 'sending' : 'unsettled',
        until: readDate(r.until),
      };
    case 'not-offered':
      return { kind: 'not-offered', command: text(r.command) };
    case 'not-allowed':
    case 'not-theirs':
    case 'hold-lost':
      return { kind: r.kind };
    case 'sign-in-failed':
      return { kind: 'sign-in-failed', error: text(r.error), message: text(r.message) };
    case 'check-failed':
      return { kind: 'check-failed', error: text(r.error), message: text(r.message) };
    default:
      return undefined;
  }
}

function readSeen(value: unknown): SeenState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  return { pending: v.pending === true, state: text(v.state), completedDate: text(v.completedDate), completedBy: text(v.completedBy) };
}

function readResult(data: Record<string, unknown>): DecisionResult | undefined {
  const error = text(data.error);
  const message = text(data.message);
  switch (data.result) {
    case 'done':
      return {
        result: 'done',
        seen: readSeen(data.seen),
        ...(typeof data.status === 'number' ? { status: data.status } : {}),
        ...(typeof data.after === 'string' ? { after: data.after } : {}),
      };
    case 'refused':
      return { result: 'refused', error, message, status: typeof data.status === 'number' ? data.status : undefined };
    case 'not-sent':
      return { result: 'not-sent', error, message };
    case 'unknown':
      return {
        result: 'unknown',
        error,
        message,
        seen: readSeen(data.seen),
        ...(typeof data.status === 'number' ? { status: data.status } : {}),
        ...(typeof data.says === 'string' ? { says: data.says } : {}),
      };
    default:
      return undefined;
  }
}

function readFound(data: Record<string, unknown>, at: Date): DecisionRecord['found'] {
  const found = data.found;
  if (found !== 'completed' && found !== 'pending' && found !== 'not-sent' && found !== 'unreadable') return undefined;
  return {
    found,
    seen: readSeen(data.seen),
    ...(typeof data.why === 'string' ? { why: data.why } : {}),
    by: data.by === 'next-decision' ? 'next-decision' : 'reconciler',
    at,
  };
}

const DECISION_OUTCOMES: Record<string, DecisionRecord['outcome']> = {
  asked: 'asked',
  confirmed: 'confirmed',
  refused: 'refused',
  sent: 'sent',
  resent: 'sent',
};

/** Decisions from their rows, latest activity first, as foldAttempts folds attempts. */
export function foldDecisions(rows: readonly AuditRow[]): DecisionRecord[] {
  const bySubject = new Map<string, AuditRow[]>();
  for (const row of rows) bySubject.set(row.subject, [...(bySubject.get(row.subject) ?? []), row]);
  const decisions: Array<DecisionRecord & { lastId: string }> = [];
  for (const [subject, list] of bySubject) {
    list.sort(byTimeThenDecisionStep);
    const first = list[0] as AuditRow;
    const last = list[list.length - 1] as AuditRow;
    let action = '';
    let comment: string | undefined;
    let refusal: DecisionRefusal | undefined;
    let answer: DecisionResult | undefined;
    let found: DecisionRecord['found'];
    let outcome: DecisionRecord['outcome'] = 'asked';
    const steps: DecisionRecord['steps'] = [];
    for (const row of list) {
      const data = parse(row.data);
      if (typeof data.action === 'string') action = data.action;
      steps.push({
        step: row.step as AuditStep,
        at: dateOf(row.at),
        requestId: typeof data.requestId === 'string' ? data.requestId : undefined,
      });
      if (row.step === 'confirmed') comment = text(data.comment);
      if (row.step === 'refused') {
        refusal = readRefusal(data.reason);
        // A submission turned away before its claim has no confirmed step: what they typed is here.
        if (comment === undefined && typeof data.comment === 'string') comment = data.comment;
      }
      if (row.step === 'reconciled') found = readFound(data, dateOf(row.at));
      if (row.step === 'answered') answer = readResult(data);
      // A step this release does not know leaves the outcome as the last one it does.
      const known =
        row.step === 'answered'
          ? answer && { done: 'done', refused: 'not-done', 'not-sent': 'not-sent', unknown: 'unknown' }[answer.result]
          : DECISION_OUTCOMES[row.step];
      if (known !== undefined) outcome = known as DecisionRecord['outcome'];
    }
    decisions.push({
      id: subject,
      at: dateOf(first.at),
      lastAt: dateOf(last.at),
      teamId: first.team_id,
      userId: first.user_id,
      approvalId: first.approval_id,
      action,
      comment,
      outcome,
      refusal,
      answer,
      found,
      unsettled:
        found === undefined &&
        (outcome === 'sent' || (outcome === 'unknown' && answer?.result === 'unknown' && !answer.seen?.completedDate)),
      steps,
      lastId: list.reduce((max, r) => (r.id > max ? r.id : max), ''),
    });
  }
  return decisions.sort((a, b) => (a.lastId < b.lastId ? 1 : a.lastId > b.lastId ? -1 : 0)).map(({ lastId: _, ...d }) => d);
}

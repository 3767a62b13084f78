/**
 * The commands of the reference service, as pure functions of (parameters, caller, clock) to an
 * Answer. The HTTP layer (server.ts) only parses requests and writes Answers.
 *
 * Decisions where the spec is silent (documented in docs/reference-service.md, "Where the contract is silent"):
 * - Enumerations and dates must be lower case; a bad value is a 412 naming the parameter and
 *   the accepted form, as the real service answers for an invalid enumeration value.
 * - page-size is 1 to 1000; start-page is 1 or more; a page past the end has no approvals.
 * - Date filters are inclusive whole days: due-before 31-jan-2026 includes the 31st.
 * - Text filters match whole values, ignoring case; approval-id matches the WorkItemId exactly.
 * - Unknown parameters are ignored, as servlet-based services do.
 * - name and application together select collectors matching both.
 */

import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { HOSTILE_REQUEST_NAMES } from './demo.js';
import { type ApprovalRowForRequest, progressOf, type RequestProgress, type RequestSketch, sketchRequest } from './requests.js';
import { formatRunTime, formatServiceTimestamp, nextDay, parseFilterDate } from './time.js';

export type Format = 'json' | 'properties' | 'xml';

export type Answer =
  | { kind: 'object'; status: number; root: string; value: Record<string, unknown>; format: Format }
  | { kind: 'error'; status: number; message: string; withQueryString: boolean; reason?: string };

export interface Quirks {
  /** Answer XML instead of JSON: always, or only when there are no approvals (as seen from the real service). */
  xml?: 'never' | 'when-empty' | 'always';
  /** Write counts and numeric ids as strings, as an XML-to-JSON conversion may. */
  numbersAsStrings?: boolean;
  /** Commands this service does not have (older versions lack getRunStatus): answered 404 as unknown. */
  missingCommands?: readonly string[];
  /**
   * Commands an administrator switched off: answered 404 with the command's name as the HTTP
   * reason phrase, as the real service was seen to (getApprovalDetails, getRequestItems).
   */
  disabledCommands?: readonly string[];
  /**
   * Commands answered this many milliseconds after they have taken effect, as a service that does
   * the work and then stalls would: a decision that landed, whose answer never came in time.
   */
  lateAnswers?: Readonly<Record<string, number>>;
}

export interface RunTimings {
  /** How long a run stays New (queued). */
  queuedMs: number;
  /** How long it then stays Running. */
  runningMs: number;
}

export const DEFAULT_RUN_TIMINGS: Readonly<RunTimings> = Object.freeze({ queuedMs: 2_000, runningMs: 8_000 });

export const PAGE_SIZE_MAX = 1000;

export function errorAnswer(status: number, message: string, withQueryString = true): Answer {
  return { kind: 'error', status, message, withQueryString };
}

class ParameterError extends Error {}

type Params = URLSearchParams;

function enumParam<T extends string>(params: Params, name: string, allowed: readonly T[], fallback: T): T {
  const value = params.get(name);
  if (value === null || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ParameterError(`The value '${value}' of the parameter ${name} is invalid. Valid values are: ${allowed.join(', ')}.`);
}

function intParam(params: Params, name: string, fallback: number, max: number): number {
  const value = params.get(name);
  if (value === null || value === '') return fallback;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new ParameterError(`The value '${value}' of the parameter ${name} is invalid. Expected a whole number from 1 to ${max}.`);
  }
  return n;
}

function dateParam(params: Params, name: string): string | undefined {
  const value = params.get(name);
  if (value === null || value === '') return undefined;
  const day = parseFilterDate(value);
  if (day === undefined) {
    throw new ParameterError(`The value '${value}' of the parameter ${name} is invalid. Expected a date such as 31-jan-2026.`);
  }
  return day;
}

export function formatParam(params: Params): Format {
  return enumParam(params, 'format', ['properties', 'json'] as const, 'properties');
}

/** Runs a parameter-checking body and turns a ParameterError into the service's 412 page. */
export function withParameterChecks(body: () => Answer): Answer {
  try {
    return body();
  } catch (error) {
    if (error instanceof ParameterError) return errorAnswer(412, error.message);
    throw error;
  }
}

const TEXT_FILTERS: ReadonlyArray<readonly [param: string, column: string, exact: boolean]> = [
  ['approval-id', 'work_item_id', true],
  ['business-source', 'business_source', false],
  ['entitlement-name', 'entitlement_name', false],
  ['entitlement-type', 'entitlement_type', false],
  ['user-first-name', 'requester_first_name', false],
  ['user-id', 'requester_id', false],
  ['user-last-name', 'requester_last_name', false],
];

const DATE_FILTERS: ReadonlyArray<readonly [prefix: string, column: string]> = [
  ['completed', 'completed_at'],
  ['due', 'due_at'],
  ['requested', 'requested_at'],
];

interface ApprovalRow {
  work_item_id: string;
  work_item_name: string;
  request_id: number;
  request_name: string;
  requester_first_name: string;
  requester_last_name: string;
  business_source: string;
  entitlement_name: string;
  entitlement_type: string;
  state: 'pending' | 'completed';
  requested_at: string;
  due_at: string;
  completed_at: string | null;
}

export class ApprovalFinder {
  readonly #db: Db;
  /** One prepared statement per combination of filters: a handful in practice. */
  readonly #statements = new Map<string, Statement<unknown[], ApprovalRow>>();

  constructor(db: Db) {
    this.#db = db;
  }

  find(approverId: string, params: Params, quirks: Quirks): Answer {
    return withParameterChecks(() => {
      const format = formatParam(params);
      const state = enumParam(params, 'state', ['pending', 'completed', 'all'] as const, 'pending');
      const sort = enumParam(params, 'sort', ['asc', 'desc'] as const, 'asc');
      const pageSize = intParam(params, 'page-size', 20, PAGE_SIZE_MAX);
      const startPage = intParam(params, 'start-page', 1, 1_000_000);

      const where = ['approver_id = ?'];
      const args: Array<string | number> = [approverId];
      if (state !== 'all') {
        where.push('state = ?');
        args.push(state);
      }
      for (const [param, column, exact] of TEXT_FILTERS) {
        const value = params.get(param);
        if (value === null || value === '') continue;
        where.push(exact ? `${column} = ?` : `${column} = ? COLLATE NOCASE`);
        args.push(value);
      }
      for (const [prefix, column] of DATE_FILTERS) {
        const after = dateParam(params, `${prefix}-after`);
        const before = dateParam(params, `${prefix}-before`);
        if (after !== undefined) {
          where.push(`${column} >= ?`);
          args.push(`${after} 00:00:00`);
        }
        if (before !== undefined) {
          where.push(`${column} < ?`);
          args.push(`${nextDay(before)} 00:00:00`);
        }
      }
      const direction = sort === 'asc' ? 'ASC' : 'DESC';
      const sql = `SELECT work_item_id, work_item_name, request_id, request_name, requester_first_name, requester_last_name,
          business_source, entitlement_name, entitlement_type, state, requested_at, due_at, completed_at
        FROM approvals WHERE ${where.join(' AND ')} ORDER BY due_at ${direction}, id ${direction} LIMIT ? OFFSET ?`;
      let statement = this.#statements.get(sql);
      if (statement === undefined) {
        statement = this.#db.prepare<unknown[], ApprovalRow>(sql);
        this.#statements.set(sql, statement);
      }
      const rows = statement.all(...args, pageSize, (startPage - 1) * pageSize);
      const num = (n: number) => (quirks.numbersAsStrings ? String(n) : n);
      const records = rows.map((r) => ({
        WorkItemName: r.work_item_name,
        WorkItemId: r.work_item_id,
        RequestName: r.request_name,
        WorkItemCompletedDate: r.completed_at ?? '',
        WorkItemDueDate: r.due_at,
        WorkItemState: r.state === 'pending' ? 'Pending' : 'Completed',
        RequestId: num(r.request_id),
        RequestedByName: `${r.requester_last_name}, ${r.requester_first_name}`,
        RequestedDate: r.requested_at,
        EntitlementName: r.entitlement_name,
        EntitlementType: r.entitlement_type,
        BusinessSource: r.business_source,
      }));
      const value: Record<string, unknown> = {};
      // As the XML-to-JSON conversion does: one element is an object, several a list, none absent.
      if (records.length === 1) value.Approval = records[0];
      else if (records.length > 1) value.Approval = records;
      value.NumApprovals = num(records.length);
      const xml = quirks.xml === 'always' || (quirks.xml === 'when-empty' && records.length === 0);
      return { kind: 'object', status: 200, root: 'findApprovals', value, format: xml ? 'xml' : format };
    });
  }
}

interface CollectorRow {
  id: number;
  name: string;
  breaker_tripped: number;
}

export interface CollectOptions {
  now: Date;
  /** Refuse (409) to queue a collector that already has a run waiting, as the real service does. */
  conflictWhenQueued: boolean;
  timings: RunTimings;
}

export function collectEntitlements(db: Db, userId: string, params: Params, options: CollectOptions): Answer {
  return withParameterChecks(() => {
    const format = formatParam(params);
    const force = enumParam(params, 'force', ['true', 'false'] as const, 'false') === 'true';
    const name = params.get('name') || undefined;
    const application = params.get('application') || undefined;
    const where: string[] = [];
    const args: string[] = [];
    if (name !== undefined) {
      where.push('name = ? COLLATE NOCASE');
      args.push(name);
    }
    if (application !== undefined) {
      where.push('application = ? COLLATE NOCASE');
      args.push(application);
    }
    const collectors = db
      .prepare<unknown[], CollectorRow>(
        `SELECT id, name, breaker_tripped FROM collectors ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id`,
      )
      .all(...args);
    if (collectors.length === 0 && application !== undefined) {
      return errorAnswer(404, `No eligible collectors found for the application ${application}`);
    }
    const nowMs = options.now.getTime();
    if (options.conflictWhenQueued) {
      const queued = db.prepare<[number, number], { id: number }>(
        'SELECT id FROM runs WHERE collector_id = ? AND queued_at_ms > ? LIMIT 1',
      );
      const busy = collectors.find((c) => queued.get(c.id, nowMs - options.timings.queuedMs) !== undefined);
      if (busy !== undefined) {
        return errorAnswer(409, `Cannot schedule the collector ${busy.name}: it is already in the queue for processing.`);
      }
    }
    // Run ids go on from the largest ever given out, or from the data set's base, whichever is higher:
    // a demo data set made afresh at each start must not hand out run 1 again (history would show it twice).
    const insert = db.prepare<[number, string, number, number]>(
      `INSERT INTO runs (id, collector_id, user_id, forced, queued_at_ms) VALUES (
         max(coalesce((SELECT max(id) FROM runs), 0), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'run_id_base'), 0)) + 1,
         ?, ?, ?, ?)`,
    );
    const value: Record<string, unknown> = { type: 'collectEntitlements' };
    const ids: string[] = [];
    db.transaction(() => {
      for (const c of collectors) {
        const id = String(insert.run(c.id, userId, force ? 1 : 0, nowMs).lastInsertRowid);
        ids.push(id);
        value[`run-source-${id}`] = c.name;
      }
    })();
    // A name that matches nothing still answers 200, without a run-id (as in the spec's example).
    if (ids.length > 0) value['run-id'] = ids.join(',');
    return { kind: 'object', status: 200, root: 'data', value, format };
  });
}

export function getRunStatus(db: Db, params: Params, now: Date, timings: RunTimings, timeZone: string): Answer {
  return withParameterChecks(() => {
    const format = formatParam(params);
    const runId = params.get('run-id');
    if (runId === null || runId === '') return errorAnswer(412, 'The parameter run-id is required.');
    const run = /^\d{1,12}$/.test(runId)
      ? db
          .prepare<[number], { queued_at_ms: number; forced: number; breaker_tripped: number }>(
            'SELECT r.queued_at_ms, r.forced, c.breaker_tripped FROM runs r JOIN collectors c ON c.id = r.collector_id WHERE r.id = ?',
          )
          .get(Number(runId))
      : undefined;
    if (run === undefined) return errorAnswer(404, `The run-id ${runId} is invalid.`);
    const elapsed = now.getTime() - run.queued_at_ms;
    const started = run.queued_at_ms + timings.queuedMs;
    const ended = started + timings.runningMs;
    let status: string;
    if (elapsed < timings.queuedMs) status = 'New';
    else if (elapsed < timings.queuedMs + timings.runningMs) status = 'Running';
    else status = run.breaker_tripped && !run.forced ? 'Aborted' : 'Completed';
    const value = {
      type: 'getRunStatus',
      'run-id': runId,
      'overall-status': status,
      'start-time': status === 'New' ? '' : formatRunTime(new Date(started), timeZone),
      'completed-time': status === 'Completed' || status === 'Aborted' ? formatRunTime(new Date(ended), timeZone) : '',
    };
    return { kind: 'object', status: 200, root: 'data', value, format };
  });
}

/** An approval with what getApprovalDetails and getRequestItems tell of its request. */
interface RequestRow extends ApprovalRowForRequest {
  work_item_id: string;
  due_at: string;
  completed_at: string | null;
  approver_first_name: string | null;
  approver_last_name: string | null;
}

const REQUEST_ROW_COLUMNS = `a.work_item_id, a.work_item_name, a.request_id, a.request_name, a.requester_id, a.requester_first_name,
  a.requester_last_name, a.business_source, a.entitlement_name, a.entitlement_type, a.state, a.due_at, a.completed_at,
  u.first_name AS approver_first_name, u.last_name AS approver_last_name`;

/**
 * getApprovalDetails and getRequestItems over the approvals table. A user sees the approvals
 * assigned to them, and the requests behind those; anything else "could not be retrieved", as an
 * unknown id could not, so that the answer does not say which ids exist.
 */
/** What performWorkItem is given, from the query or the body. */
export interface DecisionFields {
  workItemId: string | undefined;
  action: string | undefined;
  comment: string | undefined;
}

export class RequestReader {
  readonly #db: Db;
  readonly #byWorkItem: Statement<[string, string], RequestRow>;
  readonly #byRequest: Statement<[string, number], RequestRow>;
  readonly #decision: Statement<[string], { action: string }>;
  readonly #complete: Statement<[string, string, string]>;
  readonly #record: Statement<[string, string, string, string, string]>;

  constructor(db: Db) {
    this.#db = db;
    this.#decision = db.prepare('SELECT action FROM decisions WHERE work_item_id = ?');
    // Only a pending item moves: of two decisions at once, the second finds it completed.
    this.#complete = db.prepare(
      "UPDATE approvals SET state = 'completed', completed_at = ? WHERE work_item_id = ? AND approver_id = ? AND state = 'pending'",
    );
    this.#record = db.prepare(
      'INSERT OR REPLACE INTO decisions (work_item_id, action, comment, decided_by, decided_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#byWorkItem = db.prepare(
      `SELECT ${REQUEST_ROW_COLUMNS} FROM approvals a LEFT JOIN users u ON u.id = a.approver_id WHERE a.work_item_id = ? AND a.approver_id = ?`,
    );
    // An approver's own rows, through the approver index: no index on request_id is needed.
    this.#byRequest = db.prepare(
      `SELECT ${REQUEST_ROW_COLUMNS} FROM approvals a LEFT JOIN users u ON u.id = a.approver_id
       WHERE a.approver_id = ? AND a.request_id = ? ORDER BY a.due_at LIMIT 1`,
    );
  }

  /** Where the request stands: a decision made here names how its step ended. */
  #progress(row: RequestRow, request: RequestSketch): RequestProgress {
    const decided = row.state === 'pending' ? undefined : this.#decision.get(row.work_item_id)?.action;
    return progressOf(request, row.state, decided);
  }

  details(userId: string, params: Params, quirks: Quirks): Answer {
    return withParameterChecks(() => {
      const format = formatParam(params);
      const id = params.get('approval-id');
      if (id === null || id === '') return errorAnswer(412, 'The approval-id parameter is required.');
      const row = this.#byWorkItem.get(id, userId);
      if (row === undefined) return errorAnswer(412, 'The work item could not be retrieved');
      const request = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name));
      const progress = this.#progress(row, request);
      const scalar = (v: number | boolean) => (quirks.numbersAsStrings ? String(v) : v);
      const pending = row.state === 'pending';
      const approval: Record<string, unknown> = {
        WorkItemId: row.work_item_id,
        WorkItemName: row.work_item_name,
        WorkItemDueDate: row.due_at,
        WorkItemCompletedDate: row.completed_at ?? '',
        WorkItemCompletedByName: pending ? '' : `${row.approver_last_name ?? ''}, ${row.approver_first_name ?? ''}`,
        WorkItemState: progress.workItemState,
        WorkItemReassignDisabled: scalar(request.reassignDisabled),
        RequestId: scalar(row.request_id),
        RequestName: row.request_name,
        RequestedByName: `${row.requester_last_name}, ${row.requester_first_name}`,
        RequestDescription: request.description,
        RequestNotes: request.notes,
        RequestHasAttachments: scalar(request.hasAttachments),
        EmailApprovalEnabled: scalar(request.emailApprovalEnabled),
        LineItemApprovalEnabled: scalar(request.lineItemApprovalEnabled),
        ExtraFields: '',
      };
      // A completed step has no way out left; one transition is one element, which converts to a string.
      if (pending) {
        const names = request.actions.length === 1 ? request.actions[0] : request.actions;
        approval.Actions = format === 'properties' ? request.actions.join(',') : { ActionName: names };
      }
      return { kind: 'object', status: 200, root: 'getApprovalDetails', value: { Approval: approval }, format };
    });
  }

  /**
   * performWorkItem, in this service's own shape (the real one's is shown only to its
   * administrators): the caller's own pending work item, completed with one of the actions its
   * workflow lists, the comment kept. Anything else "could not be retrieved", as getApprovalDetails
   * answers; an action the step does not list is refused naming it. Its completed time is written
   * on the service's clocks (`timeZone`), as every other time it writes.
   */
  decide(userId: string, fields: DecisionFields, params: Params, now: Date, timeZone: string): Answer {
    return withParameterChecks(() => {
      const format = formatParam(params);
      if (!fields.workItemId) return errorAnswer(412, 'The workitem-id parameter is required.');
      if (!fields.action) return errorAnswer(412, 'The action parameter is required.');
      const row = this.#byWorkItem.get(fields.workItemId, userId);
      if (row === undefined || row.state !== 'pending') return errorAnswer(412, 'The work item could not be retrieved');
      const request = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name));
      if (!request.actions.includes(fields.action))
        return errorAnswer(
          412,
          `The action '${fields.action}' is not valid for the work item. Valid actions are: ${request.actions.join(', ')}.`,
        );
      const at = formatServiceTimestamp(now, timeZone);
      const done = this.#db.transaction(() => {
        if (this.#complete.run(at, row.work_item_id, userId).changes !== 1) return false;
        this.#record.run(row.work_item_id, fields.action as string, fields.comment ?? '', userId, at);
        return true;
      })();
      if (!done) return errorAnswer(412, 'The work item could not be retrieved');
      return {
        kind: 'object',
        status: 200,
        root: 'data',
        value: { type: 'performWorkItem', 'workitem-id': row.work_item_id, action: fields.action, 'completed-date': at },
        format,
      };
    });
  }

  items(userId: string, params: Params, quirks: Quirks): Answer {
    return withParameterChecks(() => {
      const format = formatParam(params);
      const pageSize = intParam(params, 'page-size', 20, PAGE_SIZE_MAX);
      const startPage = intParam(params, 'start-page', 1, 1_000_000);
      const approvalId = params.get('approval-id') || undefined;
      const requestId = params.get('request-id') || undefined;
      let row: RequestRow | undefined;
      if (approvalId !== undefined) {
        row = this.#byWorkItem.get(approvalId, userId);
        if (row === undefined) return errorAnswer(412, 'The work item could not be retrieved');
      } else if (requestId !== undefined) {
        row = /^\d{1,15}$/.test(requestId) ? this.#byRequest.get(userId, Number(requestId)) : undefined;
        if (row === undefined) return errorAnswer(412, 'The change request could not be retrieved');
      } else {
        return errorAnswer(412, "Either the 'approval-id' or the 'request-id' parameter must be provided.");
      }
      const request = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name));
      const progress = this.#progress(row, request);
      const num = (n: number) => (quirks.numbersAsStrings ? String(n) : n);
      const items = request.items.slice((startPage - 1) * pageSize, startPage * pageSize).map((item) => ({
        ...item,
        ItemId: num(item.ItemId),
        State: progress.itemState,
        IsChangeToApprove: quirks.numbersAsStrings ? String(item.IsChangeToApprove) : item.IsChangeToApprove,
      }));
      // NumRequestItems counts this answer's items, as NumApprovals counts findApprovals'.
      const value: Record<string, unknown> = {
        NumRequestItems: num(items.length),
        ...(approvalId === undefined ? {} : { WorkItemId: row.work_item_id }),
        RequestId: num(row.request_id),
        RequestStatus: progress.status,
      };
      // As the XML-to-JSON conversion does: one element an object, several a list, none absent.
      if (format === 'properties') {
        if (items.length > 0) value.RequestItem = items;
      } else if (items.length === 1) value.RequestItems = { RequestItem: items[0] };
      else if (items.length > 1) value.RequestItems = { RequestItem: items };
      return { kind: 'object', status: 200, root: 'getRequestItems', value, format };
    });
  }
}

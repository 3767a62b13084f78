/**
 * What the service answers, checked with zod and normalised into the shapes the rest of the app
 * uses. Tolerant where docs/service-contract.md says the real service varies (object or list, numbers as
 * strings, extra fields), strict where a wrong guess would mislead a user (a count that is not a
 * number, a record without an id).
 */

import { z } from 'zod';
import type { RunState } from '../domain/index.js';

/** A scalar the XML-to-JSON conversion may have turned into a number, or left out. */
const text = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .optional()
  .transform((v) => (v === null || v === undefined ? '' : String(v)));

const count = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'a whole number')
    .transform((v) => Number(v)),
]);

const approvalRecord = z.looseObject({
  WorkItemName: text,
  WorkItemId: z.union([z.string().min(1), z.number()]).transform(String),
  RequestName: text,
  WorkItemCompletedDate: text,
  WorkItemDueDate: text,
});

export interface Approval {
  workItemId: string;
  workItemName: string;
  requestName: string;
  /** As the service wrote it: `YYYY-MM-DD hh:mm:ss.f`, or '' when the service gave none. */
  dueDate: string;
  /** '' when not completed. */
  completedDate: string;
  /** Every field as received, the unknown ones included (WorkItemState, RequestedByName, …). */
  fields: Readonly<Record<string, unknown>>;
}

export interface ApprovalsPage {
  approvals: Approval[];
  /** NumApprovals: the number of approvals in this answer. */
  count: number;
}

export const findApprovalsBody = z
  .object({
    findApprovals: z.union([
      z.looseObject({
        Approval: z.union([approvalRecord, z.array(approvalRecord)]).optional(),
        NumApprovals: count.optional(),
      }),
      // An empty <findApprovals/> converts to an empty string.
      z.literal('').transform(() => ({ Approval: undefined, NumApprovals: undefined })),
    ]),
  })
  .transform(({ findApprovals }): ApprovalsPage => {
    const raw = findApprovals.Approval;
    const records = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    const approvals = records.map(
      (r): Approval => ({
        workItemId: r.WorkItemId,
        workItemName: r.WorkItemName,
        requestName: r.RequestName,
        dueDate: r.WorkItemDueDate,
        completedDate: r.WorkItemCompletedDate,
        fields: r,
      }),
    );
    return { approvals, count: findApprovals.NumApprovals ?? approvals.length };
  });

const RECORD_KEYS = new Set(['WorkItemName', 'WorkItemId', 'RequestName', 'WorkItemCompletedDate', 'WorkItemDueDate']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A scalar `text` takes as it is: the service's usual string, or what a conversion made of it. */
function plainText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return String(v);
  return undefined;
}

/**
 * findApprovalsBody's answer for the shape the service sends every time (a list or one record,
 * each with an id; a count that is a number), read without zod, which cost as much as the rest of
 * the client put together; undefined for anything else, which then goes through the schema (and
 * its error messages). A property test holds the two to the same answers.
 */
export function readApprovalsPage(tree: unknown): ApprovalsPage | undefined {
  if (!isRecord(tree) || !isRecord(tree.findApprovals)) return undefined;
  const { Approval: raw, NumApprovals: count } = tree.findApprovals;
  if (count !== undefined && !(typeof count === 'number' && Number.isSafeInteger(count) && count >= 0)) return undefined;
  const records = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const approvals: Approval[] = [];
  for (const r of records) {
    if (!isRecord(r)) return undefined;
    const id = r.WorkItemId;
    if (!((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)))) return undefined;
    const workItemName = plainText(r.WorkItemName);
    const requestName = plainText(r.RequestName);
    const completedDate = plainText(r.WorkItemCompletedDate);
    const dueDate = plainText(r.WorkItemDueDate);
    if (workItemName === undefined || requestName === undefined || completedDate === undefined || dueDate === undefined) return undefined;
    const workItemId = String(id);
    // The schema's order: its own keys first, then the others as they came.
    const fields: Record<string, unknown> = {
      WorkItemName: workItemName,
      WorkItemId: workItemId,
      RequestName: requestName,
      WorkItemCompletedDate: completedDate,
      WorkItemDueDate: dueDate,
    };
    for (const key of Object.keys(r)) {
      if (key === '__proto__') return undefined;
      if (!RECORD_KEYS.has(key)) fields[key] = r[key];
    }
    approvals.push({ workItemId, workItemName, requestName, dueDate, completedDate, fields });
  }
  return { approvals, count: count ?? approvals.length };
}

export interface CollectionRun {
  runId: string;
  /** The collector the service says it processed in this run; null when it named none. */
  collector: string | null;
}

export interface CollectionResult {
  runs: CollectionRun[];
}

const RUN_SOURCE = 'run-source-';

/** The data object; run-id may be one id, a comma-separated list, a number, or absent. */
export const collectDataSchema = z
  .looseObject({
    type: text.optional(),
    'run-id': text.optional(),
  })
  .transform((data): CollectionResult => {
    const listed = (data['run-id'] ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    // Tolerance: run-source keys without a run-id still tell which runs were started.
    const ids =
      listed.length > 0
        ? listed
        : Object.keys(data)
            .filter((k) => k.startsWith(RUN_SOURCE))
            .map((k) => k.slice(RUN_SOURCE.length));
    const runs = [...new Set(ids)].map((runId) => {
      const source = data[`${RUN_SOURCE}${runId}`];
      return { runId, collector: typeof source === 'string' && source !== '' ? source : source == null ? null : String(source) };
    });
    return { runs };
  });

export const collectBody = z.object({ data: collectDataSchema });

export type { RunState };

export interface RunStatus {
  runId: string;
  state: RunState;
  /** The status word exactly as the service gave it, for states this app does not know. */
  rawState: string;
  startTime: string;
  completedTime: string;
}

const KNOWN_STATES: readonly RunState[] = ['New', 'Running', 'Completed', 'Aborted'];

export const runStatusData = z.looseObject({
  'overall-status': text,
  'start-time': text.optional(),
  'completed-time': text.optional(),
  'run-id': text.optional(),
});

export function toRunStatus(runId: string, data: z.infer<typeof runStatusData>): RunStatus {
  const raw = data['overall-status'].trim();
  const known = KNOWN_STATES.find((s) => s.toLowerCase() === raw.toLowerCase());
  return {
    runId: data['run-id'] || runId,
    state: known ?? 'Unknown',
    rawState: raw,
    startTime: data['start-time'] ?? '',
    completedTime: data['completed-time'] ?? '',
  };
}

export const runStatusBody = z.union([z.object({ data: runStatusData }), runStatusData.transform((data) => ({ data }))]);

export const loginBody = z.union([
  z.object({ data: z.looseObject({ token: z.string().min(1) }) }).transform((b) => b.data.token),
  z.looseObject({ token: z.string().min(1) }).transform((b) => b.token),
]);

/**
 * A yes/no the XML-to-JSON conversion may have left typed or as a string ("true", "FALSE", "1");
 * undefined when absent or unreadable, so that nothing is claimed the service did not say.
 */
const flag = z
  .unknown()
  .optional()
  .transform((v): boolean | undefined => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : undefined;
    if (typeof v !== 'string') return undefined;
    const word = v.trim().toLowerCase();
    if (word === 'true' || word === 'yes' || word === '1') return true;
    if (word === 'false' || word === 'no' || word === '0') return false;
    return undefined;
  });

/** More transitions than a workflow step has; past them a list is not read. */
const MAX_ACTIONS = 100;

/**
 * The names of a step's transitions: `{ActionName: [..]}`, or one ActionName as a string, or
 * none (missing, empty); a list of such objects is read too. Never hard-coded: what the service lists.
 */
function actionNames(value: unknown, depth = 0, names: string[] = []): string[] {
  if (value === null || value === undefined || depth > 3 || names.length >= MAX_ACTIONS) return names;
  if (typeof value === 'string' || typeof value === 'number') {
    const name = String(value).trim();
    if (name !== '') names.push(name);
  } else if (Array.isArray(value)) {
    for (const v of value) {
      if (names.length >= MAX_ACTIONS) break;
      actionNames(v, depth + 1, names);
    }
  } else if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    actionNames(o.ActionName ?? o.Action ?? o.Name, depth + 1, names);
  }
  return names;
}

const detailsRecord = z.looseObject({
  WorkItemId: text,
  WorkItemName: text,
  WorkItemState: text,
  WorkItemDueDate: text,
  WorkItemCompletedDate: text,
  WorkItemCompletedByName: text,
  WorkItemReassignDisabled: flag,
  RequestId: text,
  RequestName: text,
  RequestedByName: text,
  RequestDescription: text,
  RequestNotes: text,
  RequestHasAttachments: flag,
  EmailApprovalEnabled: flag,
  LineItemApprovalEnabled: flag,
  Actions: z
    .unknown()
    .optional()
    .transform((v) => [...new Set(actionNames(v))]),
});

export interface ApprovalDetails {
  workItemId: string;
  workItemName: string;
  /** As the service words it: Available (pending), Accepted, … */
  state: string;
  dueDate: string;
  /** '' when not completed. */
  completedDate: string;
  /** "Last, First"; '' when not completed. */
  completedByName: string;
  reassignDisabled: boolean | undefined;
  requestId: string;
  requestName: string;
  /** "Last, First" ("AveksaAdmin," has an empty first name). */
  requestedByName: string;
  description: string;
  notes: string;
  hasAttachments: boolean | undefined;
  emailApprovalEnabled: boolean | undefined;
  /** Each item of the request is decided on its own. */
  lineItemApprovalEnabled: boolean | undefined;
  /** The transitions out of this step, as the service names them (Accepted, Rejected, Needs Info, Completed…). */
  actions: string[];
  /** Every field as received, the unknown ones included. */
  fields: Readonly<Record<string, unknown>>;
}

function toDetails(r: z.infer<typeof detailsRecord>): ApprovalDetails {
  return {
    workItemId: r.WorkItemId,
    workItemName: r.WorkItemName,
    state: r.WorkItemState,
    dueDate: r.WorkItemDueDate,
    completedDate: r.WorkItemCompletedDate,
    completedByName: r.WorkItemCompletedByName,
    reassignDisabled: r.WorkItemReassignDisabled,
    requestId: r.RequestId,
    requestName: r.RequestName,
    requestedByName: r.RequestedByName,
    description: r.RequestDescription,
    notes: r.RequestNotes,
    hasAttachments: r.RequestHasAttachments,
    emailApprovalEnabled: r.EmailApprovalEnabled,
    lineItemApprovalEnabled: r.LineItemApprovalEnabled,
    actions: r.Actions,
    fields: r,
  };
}

/**
 * `{getApprovalDetails: {Approval: {…}}}`; an Approval list is read as its first record (the others
 * are not even checked: a list of thousands costs nothing), a record without the Approval wrapper as itself.
 */
export const approvalDetailsBody = z
  .object({
    getApprovalDetails: z.union([
      z.looseObject({ Approval: z.preprocess((v) => (Array.isArray(v) ? v[0] : v), detailsRecord) }),
      detailsRecord.refine((r) => r.WorkItemId !== '' || r.RequestId !== '', 'an approval record'),
    ]),
  })
  .transform(
    ({ getApprovalDetails: root }): ApprovalDetails =>
      toDetails(('Approval' in root ? root.Approval : root) as z.infer<typeof detailsRecord>),
  );

const itemRecord = z.looseObject({
  ItemId: text,
  TypeDescription: text,
  Operation: text,
  EntitlementType: text,
  EntitlementName: text,
  BusinessSource: text,
  State: text,
  ItemDescription: text,
  DerivedType: text,
  IsChangeToApprove: flag,
  UserName: text,
  UserId: text,
  AccountName: text,
});

export interface RequestItem {
  itemId: string;
  /** "Add user to group". */
  typeDescription: string;
  /** Add, Remove, Create, Modify… */
  operation: string;
  entitlementType: string;
  entitlementName: string;
  businessSource: string;
  /** "Pending Approval". */
  state: string;
  description: string;
  /** "Direct". */
  derivedType: string;
  isChangeToApprove: boolean | undefined;
  /** "Wayne, Bruce". */
  userName: string;
  userId: string;
  accountName: string;
  /** Every field as received (ApplicationRoleName, UserGroupName, GlobalRoleName…). */
  fields: Readonly<Record<string, unknown>>;
}

export interface RequestItemsPage {
  /** The answer's items, the first MAX_ITEMS_KEPT of them when it held more. */
  items: RequestItem[];
  /** How many items the answer held, those not kept included. */
  received: number;
  /** NumRequestItems as given, or the items counted. */
  count: number;
  /** How many items the request has in all, when the service's count says more than this answer holds. */
  total: number | undefined;
  workItemId: string;
  requestId: string;
  /** "Approvals Phase". */
  requestStatus: string;
}

/**
 * The most items kept of one answer: ten times a page of the modal, more than it shows at once. A
 * service that sends more (it ignores page-size) has the rest counted, never checked one by one.
 */
export const MAX_ITEMS_KEPT = 100;

/** RequestItem as the conversion gives it: one object, a list, or nothing. */
function itemRecords(value: unknown): unknown[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return Array.isArray(value) ? value : [value];
}

const keptItems = z.array(itemRecord);

/**
 * `{getRequestItems: {NumRequestItems, WorkItemId, RequestId, RequestStatus, RequestItems: {RequestItem: …}}}`,
 * with RequestItem one object, a list or missing, an empty RequestItems element as '' and an empty
 * answer as ''; items found without the RequestItems wrapper are read too.
 */
export const requestItemsBody = z
  .object({
    getRequestItems: z.union([
      z.looseObject({
        NumRequestItems: count.optional(),
        WorkItemId: text,
        RequestId: text,
        RequestStatus: text,
        RequestItems: z.unknown().optional(),
        RequestItem: z.unknown().optional(),
      }),
      z.literal('').transform(() => ({
        NumRequestItems: undefined,
        WorkItemId: '',
        RequestId: '',
        RequestStatus: '',
        RequestItems: undefined,
        RequestItem: undefined,
      })),
    ]),
  })
  .transform(({ getRequestItems: root }, ctx): RequestItemsPage => {
    const wrapper = root.RequestItems;
    if (wrapper !== undefined && wrapper !== null && wrapper !== '' && typeof wrapper !== 'object') {
      ctx.addIssue({ code: 'custom', message: 'a list of request items', path: ['getRequestItems', 'RequestItems'] });
      return z.NEVER;
    }
    const listed = Array.isArray(wrapper) ? wrapper : itemRecords((wrapper as { RequestItem?: unknown } | null | undefined)?.RequestItem);
    const raw = listed ?? itemRecords(root.RequestItem) ?? [];
    const checked = keptItems.safeParse(raw.length > MAX_ITEMS_KEPT ? raw.slice(0, MAX_ITEMS_KEPT) : raw);
    if (!checked.success) {
      for (const issue of checked.error.issues.slice(0, 3))
        ctx.addIssue({ code: 'custom', message: issue.message, path: ['getRequestItems', 'RequestItem', ...issue.path] });
      return z.NEVER;
    }
    const records = checked.data;
    const items = records.map(
      (r): RequestItem => ({
        itemId: r.ItemId,
        typeDescription: r.TypeDescription,
        operation: r.Operation,
        entitlementType: r.EntitlementType,
        entitlementName: r.EntitlementName,
        businessSource: r.BusinessSource,
        state: r.State,
        description: r.ItemDescription,
        derivedType: r.DerivedType,
        isChangeToApprove: r.IsChangeToApprove,
        userName: r.UserName,
        userId: r.UserId,
        accountName: r.AccountName,
        fields: r,
      }),
    );
    const count = root.NumRequestItems ?? raw.length;
    return {
      items,
      received: raw.length,
      count,
      total: count > raw.length ? count : undefined,
      workItemId: root.WorkItemId,
      requestId: root.RequestId,
      requestStatus: root.RequestStatus,
    };
  });

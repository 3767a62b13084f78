/**
 * What the service answers, checked with zod and normalised into the shapes the rest of the app
 * uses. Tolerant where service-notes.md says the real service varies (object or list, numbers as
 * strings, extra fields), strict where a wrong guess would mislead a user (a count that is not a
 * number, a record without an id).
 */

import { z } from 'zod';

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

export type RunState = 'New' | 'Running' | 'Completed' | 'Aborted' | 'Unknown';

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

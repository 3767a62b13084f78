import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectBody, findApprovalsBody, loginBody, readApprovalsPage, runStatusBody, toRunStatus } from '../../src/service/schemas.js';

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  WorkItemName: 'Manager Approval',
  WorkItemId: id,
  RequestName: 'Add Access',
  WorkItemCompletedDate: '',
  WorkItemDueDate: '2026-12-01 10:00:00.0',
  ...extra,
});

describe('findApprovals body', () => {
  it('takes one object, a list, or nothing, as a list', () => {
    expect(findApprovalsBody.parse({ findApprovals: { Approval: record('1:a:1'), NumApprovals: 1 } }).approvals).toHaveLength(1);
    expect(
      findApprovalsBody.parse({ findApprovals: { Approval: [record('1:a:1'), record('2:a:1')], NumApprovals: 2 } }).approvals,
    ).toHaveLength(2);
    expect(findApprovalsBody.parse({ findApprovals: { NumApprovals: 0 } })).toEqual({ approvals: [], count: 0 });
    expect(findApprovalsBody.parse({ findApprovals: '' })).toEqual({ approvals: [], count: 0 });
  });

  it('accepts NumApprovals as a string, and counts the records when it is missing', () => {
    expect(findApprovalsBody.parse({ findApprovals: { Approval: record('1:a:1'), NumApprovals: '1' } }).count).toBe(1);
    expect(findApprovalsBody.parse({ findApprovals: { Approval: [record('1:a:1'), record('2:b:2')] } }).count).toBe(2);
  });

  it('refuses a count that is not a whole number', () => {
    expect(findApprovalsBody.safeParse({ findApprovals: { NumApprovals: 'many' } }).success).toBe(false);
    expect(findApprovalsBody.safeParse({ findApprovals: { NumApprovals: -1 } }).success).toBe(false);
  });

  it('keeps unknown fields and normalises names and empty values', () => {
    const page = findApprovalsBody.parse({
      findApprovals: {
        Approval: record('9:x:1', { WorkItemState: 'Pending', RequestId: 42, WorkItemCompletedDate: null }),
        NumApprovals: 1,
      },
    });
    expect(page.approvals[0]).toMatchObject({
      workItemId: '9:x:1',
      workItemName: 'Manager Approval',
      requestName: 'Add Access',
      dueDate: '2026-12-01 10:00:00.0',
      completedDate: '',
      fields: { WorkItemState: 'Pending', RequestId: 42 },
    });
  });

  it('accepts a numeric WorkItemId and refuses a record without one', () => {
    expect(findApprovalsBody.parse({ findApprovals: { Approval: { ...record('x'), WorkItemId: 7 } } }).approvals[0]?.workItemId).toBe('7');
    const { WorkItemId: _drop, ...noId } = record('x');
    expect(findApprovalsBody.safeParse({ findApprovals: { Approval: noId } }).success).toBe(false);
  });

  it('refuses bodies of another shape', () => {
    expect(findApprovalsBody.safeParse({ data: {} }).success).toBe(false);
    expect(findApprovalsBody.safeParse({ findApprovals: { Approval: 'text' } }).success).toBe(false);
    expect(findApprovalsBody.safeParse([]).success).toBe(false);
  });
});

describe('collectEntitlements body', () => {
  it('pairs each run id with its collector, in run-id order', () => {
    const body = collectBody.parse({
      data: { 'run-source-12': 'AD Groups', type: 'collectEntitlements', 'run-id': '11, 12', 'run-source-11': 'AD Accounts' },
    });
    expect(body.data.runs).toEqual([
      { runId: '11', collector: 'AD Accounts' },
      { runId: '12', collector: 'AD Groups' },
    ]);
  });
  it('takes a numeric run-id, and a run without a run-source as an unnamed collector', () => {
    expect(collectBody.parse({ data: { type: 'collectEntitlements', 'run-id': 5 } }).data.runs).toEqual([{ runId: '5', collector: null }]);
  });
  it('answers no runs when there is no run-id', () => {
    expect(collectBody.parse({ data: { type: 'collectEntitlements' } }).data.runs).toEqual([]);
    expect(collectBody.parse({ data: { type: 'collectEntitlements', 'run-id': '' } }).data.runs).toEqual([]);
  });
  it('falls back to the run-source keys when run-id is missing', () => {
    expect(collectBody.parse({ data: { 'run-source-3': 'SAP Roles' } }).data.runs).toEqual([{ runId: '3', collector: 'SAP Roles' }]);
  });
  it('refuses a body without data', () => {
    expect(collectBody.safeParse({ findApprovals: {} }).success).toBe(false);
  });
});

describe('getRunStatus and loginUser bodies', () => {
  it('reads a run status with or without the data wrapper, and keeps unknown states', () => {
    const wrapped = runStatusBody.parse({ data: { 'overall-status': 'Running', 'start-time': '2022-03-24 10:34:01' } });
    expect(toRunStatus('7', wrapped.data)).toEqual({
      runId: '7',
      state: 'Running',
      rawState: 'Running',
      startTime: '2022-03-24 10:34:01',
      completedTime: '',
    });
    const bare = runStatusBody.parse({ 'overall-status': 'Paused' });
    expect(toRunStatus('7', bare.data).state).toBe('Unknown');
    expect(toRunStatus('7', bare.data).rawState).toBe('Paused');
  });
  it('reads the token of a login', () => {
    expect(loginBody.parse({ data: { type: 'loginUser', token: 'ws1:-2:3' } })).toBe('ws1:-2:3');
    expect(loginBody.parse({ token: 'app-token' })).toBe('app-token');
    expect(loginBody.safeParse({ data: { type: 'loginUser' } }).success).toBe(false);
  });
});

describe('readApprovalsPage, findApprovals read without zod', () => {
  const scalar = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constant(''),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant([]),
    fc.constant({}),
  );
  const key = fc.oneof(
    fc.constantFrom(
      'WorkItemName',
      'WorkItemId',
      'RequestName',
      'WorkItemCompletedDate',
      'WorkItemDueDate',
      'RequestedByName',
      'constructor',
      'toString',
    ),
    fc.string({ maxLength: 6 }),
  );
  const record = fc.oneof(
    fc.record({
      WorkItemId: fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.integer()),
      WorkItemName: scalar,
      WorkItemDueDate: scalar,
    }),
    fc.dictionary(key, scalar, { maxKeys: 8 }),
    scalar,
  );
  const answer = fc.oneof(
    fc.record(
      {
        findApprovals: fc.oneof(
          fc.record(
            {
              Approval: fc.oneof(fc.array(record, { maxLength: 4 }), record),
              NumApprovals: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.constantFrom('3', ' 3 ', 'x')),
            },
            { requiredKeys: [] },
          ),
          fc.constant(''),
          scalar,
        ),
      },
      { requiredKeys: [] },
    ),
    scalar,
  );

  it('gives what the schema gives, or leaves the answer to it, never accepting what it refuses', () => {
    fc.assert(
      fc.property(answer, (tree) => {
        // As JSON.parse would give it: no undefined values, no NaN.
        const parsed = JSON.parse(JSON.stringify(tree) ?? 'null');
        const quick = readApprovalsPage(parsed);
        const zod = findApprovalsBody.safeParse(parsed);
        if (quick !== undefined) {
          expect(zod.success).toBe(true);
          expect(quick).toEqual(zod.data);
          quick.approvals.forEach((a, i) => {
            expect(Object.keys(a.fields)).toEqual(Object.keys(zod.data?.approvals[i]?.fields ?? {}));
          });
        }
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the service’s usual answer itself', () => {
    const answer = {
      findApprovals: {
        NumApprovals: 2,
        Approval: [{ WorkItemId: '1:A:1', WorkItemName: 'Step', RequestedByName: 'Ada' }, { WorkItemId: 2 }],
      },
    };
    expect(readApprovalsPage(answer)).toEqual(findApprovalsBody.parse(answer));
    expect(readApprovalsPage({ findApprovals: { Approval: { WorkItemId: '1:A:1' } } })?.approvals).toHaveLength(1);
  });
});

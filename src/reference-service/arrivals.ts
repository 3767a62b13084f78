/**
 * What happens in the service while nobody in Slack is looking: a request made now gives an
 * approver a new pending approval, an approver decides in the service's own pages, an
 * administrator reassigns a work item. The service has no events, so these are how local mode,
 * the tests and the bench make something arrive on a list, or leave it, for countersign to notice.
 * Each is one statement or transaction on the data, as the service's own pages would make it.
 */

import type { Db } from './db.js';
import { HOSTILE_REQUEST_NAMES, requesterRows, serviceZoneOf, WORK_ITEM_NAMES } from './demo.js';
import { sketchRequest } from './requests.js';
import { ENTITLEMENTS, seededRandom } from './seeded.js';
import { formatServiceTimestamp } from './time.js';

/** A pending approval as findApprovals will list it to its approver. */
export interface ArrivedApproval {
  workItemId: string;
  workItemName: string;
  requestId: number;
  requestName: string;
  /** The service user it is assigned to, as the service spells the name. */
  approverId: string;
  /** RequestedByName: `Last, First`. */
  requestedBy: string;
  /** As the service writes them (`YYYY-MM-DD hh:mm:ss.f`, its own zone). */
  requestedAt: string;
  dueAt: string;
  /** The actions its step lists (getApprovalDetails' Actions). */
  actions: readonly string[];
}

export interface ArriveOptions {
  /** The moment it arrives: the service's clock. */
  now: Date;
  /**
   * When the request behind it was made; a few minutes before `now` unless given. A request made
   * last month can reach an approver today (a step after another, a reassignment): it is new to them.
   */
  requestedAt?: Date | undefined;
  /** When it is due; one to seven days after `now`, at a plausible hour, unless given. */
  dueAt?: Date | undefined;
  /** The workflow step (Manager Approval, Security Review…); drawn from the demo's steps unless given. */
  workItemName?: string | undefined;
}

const DAY_MS = 86_400_000;

/** Why an arrival could not be made: the service has no such user. */
export class UnknownServiceUser extends Error {}

/**
 * Makes a new pending approval for `approver` (a service user's name, any case), now: a request by
 * one of the demo's requesters for one of its entitlements, decided as a whole with two actions or
 * more (so that a person trying it can decide it from chat). Its request id follows every other,
 * so it never shares a request, an id or an earlier decision with any approval before it.
 */
export function arriveApproval(db: Db, approver: string, options: ArriveOptions): ArrivedApproval {
  const user = db.prepare<[string], { id: string }>('SELECT id FROM users WHERE id = ? COLLATE NOCASE').get(approver);
  if (user === undefined) throw new UnknownServiceUser(`The service has no user named ${approver}.`);
  const zone = serviceZoneOf(db);
  const requesters = requesterRows();
  const insert = db.prepare(
    `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
       requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
       requested_at, due_at, completed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, NULL)`,
  );
  return db.transaction((): ArrivedApproval => {
    const last = db.prepare<[], { id: number | null }>('SELECT max(request_id) AS id FROM approvals').get()?.id ?? 10_000;
    // The request's content follows from its id (requests.ts): the first id after the last whose request is
    // decided whole with a choice is taken; the ids passed over are never used, as a real service's gaps.
    for (let requestId = last + 1; requestId < last + 1_000; requestId++) {
      const rand = seededRandom(requestId ^ 0xa771e);
      const requester = requesters[Math.floor(rand() * requesters.length)] as (typeof requesters)[number];
      const entitlement = ENTITLEMENTS[Math.floor(rand() * ENTITLEMENTS.length)] as (typeof ENTITLEMENTS)[number];
      const workItemName = options.workItemName ?? (WORK_ITEM_NAMES[Math.floor(rand() * WORK_ITEM_NAMES.length)] as string);
      const requestName = `Add Access for ${requester.last}, ${requester.first}: ${entitlement.name}`;
      const row = {
        request_id: requestId,
        request_name: requestName,
        work_item_name: workItemName,
        requester_id: requester.id,
        requester_first_name: requester.first,
        requester_last_name: requester.last,
        business_source: entitlement.source,
        entitlement_name: entitlement.name,
        entitlement_type: entitlement.type,
      };
      const sketch = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(requestName));
      if (sketch.lineItemApprovalEnabled || sketch.actions.length < 2) continue;
      const nowMs = options.now.getTime();
      const requestedAt = options.requestedAt ?? new Date(nowMs - (2 + Math.floor(rand() * 40)) * 60_000);
      const dueAt = options.dueAt ?? new Date(nowMs + (1 + Math.floor(rand() * 7)) * DAY_MS + Math.floor(rand() * 8) * 3_600_000);
      const workItemId = `${requestId}:${['WPDS', 'WPDA', 'WPRV'][Math.floor(rand() * 3)]}:${1 + Math.floor(rand() * 3)}`;
      const requested = formatServiceTimestamp(requestedAt, zone);
      const due = formatServiceTimestamp(dueAt, zone);
      insert.run(
        workItemId,
        workItemName,
        requestId,
        requestName,
        user.id,
        requester.id,
        requester.first,
        requester.last,
        entitlement.source,
        entitlement.name,
        entitlement.type,
        requested,
        due,
      );
      return {
        workItemId,
        workItemName,
        requestId,
        requestName,
        approverId: user.id,
        requestedBy: `${requester.last}, ${requester.first}`,
        requestedAt: requested,
        dueAt: due,
        actions: sketch.actions,
      };
    }
    throw new Error(`No request after ${last} is decided whole with a choice of actions`);
  })();
}

/** What became of a work item changed in the service's own pages. */
export type ServiceChange = 'changed' | 'not-pending';

/**
 * Its approver decides a pending work item in the service's own pages: completed with `action`
 * (the step's first action unless given), recorded as performWorkItem records a decision, so
 * getApprovalDetails then says how it ended. 'not-pending' when it is not waiting (or not there).
 */
export function decideInService(db: Db, workItemId: string, options: { now: Date; action?: string; comment?: string }): ServiceChange {
  const row = db
    .prepare<[string], Parameters<typeof sketchRequest>[0] & { approver_id: string }>(
      `SELECT request_id, request_name, work_item_name, requester_id, requester_first_name, requester_last_name,
         business_source, entitlement_name, entitlement_type, approver_id
       FROM approvals WHERE work_item_id = ? AND state = 'pending'`,
    )
    .get(workItemId);
  if (row === undefined) return 'not-pending';
  const actions = sketchRequest(row, HOSTILE_REQUEST_NAMES.includes(row.request_name)).actions;
  const action = options.action ?? (actions[0] as string);
  if (!actions.includes(action)) throw new Error(`The action '${action}' is not valid for ${workItemId}: ${actions.join(', ')}`);
  const at = formatServiceTimestamp(options.now, serviceZoneOf(db));
  return db.transaction((): ServiceChange => {
    const done = db
      .prepare("UPDATE approvals SET state = 'completed', completed_at = ? WHERE work_item_id = ? AND state = 'pending'")
      .run(at, workItemId);
    if (done.changes !== 1) return 'not-pending';
    db.prepare('INSERT OR REPLACE INTO decisions (work_item_id, action, comment, decided_by, decided_at) VALUES (?, ?, ?, ?, ?)').run(
      workItemId,
      action,
      options.comment ?? '',
      row.approver_id,
      at,
    );
    return 'changed';
  })();
}

/**
 * An administrator reassigns a pending work item to another service user (any case): it leaves its
 * approver's pending list and arrives on theirs. 'not-pending' when it is not waiting (or not there).
 */
export function reassignInService(db: Db, workItemId: string, to: string): ServiceChange {
  const user = db.prepare<[string], { id: string }>('SELECT id FROM users WHERE id = ? COLLATE NOCASE').get(to);
  if (user === undefined) throw new UnknownServiceUser(`The service has no user named ${to}.`);
  const moved = db.prepare("UPDATE approvals SET approver_id = ? WHERE work_item_id = ? AND state = 'pending'").run(user.id, workItemId);
  return moved.changes === 1 ? 'changed' : 'not-pending';
}

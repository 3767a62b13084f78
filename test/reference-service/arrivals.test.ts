/**
 * Arrivals made in the reference service (a request made now, a decision in its own pages, a
 * reassignment), seen as any client sees them: through findApprovals and getApprovalDetails over HTTP.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnknownServiceUser } from '../../src/reference-service/arrivals.js';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { TestClock } from '../helpers/clock.js';

// 12:00 UTC is 21:00 in Tokyo: the service writes its times on its own zone's clocks.
const clock = new TestClock('2026-11-22T12:00:00Z');
let svc: ReferenceService;
const demo = (label: string) => svc.demoTokens.find((t) => t.label === label)?.token ?? '';

beforeAll(async () => {
  svc = await startReferenceService({ now: clock.now, timeZone: 'Asia/Tokyo' });
});
afterAll(() => svc.close());

interface Listed {
  WorkItemId: string;
  WorkItemName: string;
  RequestName: string;
  RequestedByName: string;
  RequestedDate: string;
  WorkItemDueDate: string;
  WorkItemState: string;
}

async function call(label: string, query: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(`${svc.url}/command.submit?format=json&${query}`, { headers: { authorization: `Bearer ${demo(label)}` } });
  const text = await res.body.text();
  return { status: res.statusCode, body: res.statusCode === 200 ? (JSON.parse(text) as Record<string, unknown>) : { page: text } };
}

/** The approver's pending approvals with this id (none, or the one). */
async function pendingWith(label: string, id: string): Promise<Listed[]> {
  const { body } = await call(label, `cmd=findApprovals&approval-id=${encodeURIComponent(id)}`);
  const found = (body.findApprovals as { Approval?: Listed | Listed[] }).Approval;
  return found === undefined ? [] : Array.isArray(found) ? found : [found];
}

async function details(label: string, id: string) {
  const { status, body } = await call(label, `cmd=getApprovalDetails&approval-id=${encodeURIComponent(id)}`);
  return { status, approval: (body.getApprovalDetails as { Approval?: Record<string, unknown> } | undefined)?.Approval, body };
}

describe('an approval made to arrive', () => {
  it('is on its approver’s pending list at once, a request of the demo’s people and entitlements, made just now and due ahead', async () => {
    const arrived = svc.arrive('Ada.Lovelace');
    expect(arrived.approverId).toBe('ada.lovelace');
    const [listed] = await pendingWith('approver', arrived.workItemId);
    expect(listed).toMatchObject({
      WorkItemId: arrived.workItemId,
      WorkItemName: arrived.workItemName,
      RequestName: arrived.requestName,
      RequestedByName: arrived.requestedBy,
      WorkItemState: 'Pending',
    });
    expect(arrived.requestName).toMatch(/^Add Access for [^,]+, \S+: .+$/);
    expect(arrived.workItemId).toMatch(/^\d+:[A-Z]{4}:\d$/);
    // Written on Tokyo's clocks: made a few minutes before 21:00 on the 22nd, due one to eight days later.
    expect(listed?.RequestedDate).toMatch(/^2026-11-22 20:[0-5]\d:\d\d\.\d$/);
    const due = listed?.WorkItemDueDate ?? '';
    expect(due > '2026-11-23 21:00' && due < '2026-12-01').toBe(true);
    expect(await pendingWith('approver+ops', arrived.workItemId)).toEqual([]);
  });

  it('can be decided from chat: whole, with the actions its step lists', async () => {
    const arrived = svc.arrive('ada.lovelace', { workItemName: 'Security Review' });
    const { approval } = await details('approver', arrived.workItemId);
    expect(approval).toMatchObject({ WorkItemState: 'Available', LineItemApprovalEnabled: false, WorkItemName: 'Security Review' });
    expect(approval?.Actions).toEqual({ ActionName: ['Approved', 'Rejected', 'Needs Info'] });
    expect(arrived.actions).toEqual(['Approved', 'Rejected', 'Needs Info']);
  });

  it('is new each time: another id, another request, after every other', async () => {
    const ids = new Set<string>();
    const requests = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const a = svc.arrive('grace.hopper');
      ids.add(a.workItemId);
      requests.add(a.requestId);
    }
    expect(ids.size).toBe(5);
    expect(requests.size).toBe(5);
    const highest = svc.db.prepare<[], { id: number }>('SELECT max(request_id) AS id FROM approvals').get()?.id;
    expect(Math.max(...requests)).toBe(highest);
  });

  it('may come of a request made long ago, and be due when asked', async () => {
    const arrived = svc.arrive('ada.lovelace', {
      requestedAt: new Date('2026-10-20T03:00:00Z'),
      dueAt: new Date('2026-11-24T00:30:00Z'),
    });
    const [listed] = await pendingWith('approver', arrived.workItemId);
    expect(listed?.RequestedDate).toBe('2026-10-20 12:00:00.0');
    expect(listed?.WorkItemDueDate).toBe('2026-11-24 09:30:00.0');
  });

  it('is refused for a user the service does not have', () => {
    expect(() => svc.arrive('nobody.here')).toThrow(UnknownServiceUser);
  });
});

describe('what the service’s own pages do', () => {
  it('decides a pending approval: off the pending list, completed with the action, as performWorkItem leaves it', async () => {
    const arrived = svc.arrive('ada.lovelace', { workItemName: 'Manager Approval' });
    clock.advance(60_000);
    expect(svc.decideInService(arrived.workItemId, { action: 'Rejected', comment: 'not this quarter' })).toBe('changed');
    expect(await pendingWith('approver', arrived.workItemId)).toEqual([]);
    const { approval } = await details('approver', arrived.workItemId);
    expect(approval).toMatchObject({ WorkItemState: 'Rejected', WorkItemCompletedDate: '2026-11-22 21:01:00.0' });
    expect(approval?.Actions).toBeUndefined();
    // Decided once: the second finds it completed, and neither performWorkItem nor it changes it again.
    expect(svc.decideInService(arrived.workItemId)).toBe('not-pending');
    const perform = await call('approver', `cmd=performWorkItem&workitem-id=${encodeURIComponent(arrived.workItemId)}&action=Accepted`);
    expect(perform.status).toBe(412);
    expect((await details('approver', arrived.workItemId)).approval?.WorkItemState).toBe('Rejected');
  });

  it('decides with the step’s first action unless told, and refuses one the step does not list', async () => {
    const arrived = svc.arrive('ada.lovelace', { workItemName: 'Entitlement Owner Approval' });
    expect(() => svc.decideInService(arrived.workItemId, { action: 'Approved' })).toThrow(/not valid/);
    expect(await pendingWith('approver', arrived.workItemId)).toHaveLength(1);
    expect(svc.decideInService(arrived.workItemId)).toBe('changed');
    expect((await details('approver', arrived.workItemId)).approval?.WorkItemState).toBe('Accepted');
  });

  it('reassigns a pending approval: it leaves one approver’s list and arrives on another’s', async () => {
    const arrived = svc.arrive('ada.lovelace');
    expect(svc.reassign(arrived.workItemId, 'Grace.Hopper')).toBe('changed');
    expect(await pendingWith('approver', arrived.workItemId)).toEqual([]);
    expect(await pendingWith('approver+ops', arrived.workItemId)).toHaveLength(1);
    expect((await details('approver', arrived.workItemId)).status).toBe(412);
    expect(() => svc.reassign(arrived.workItemId, 'nobody.here')).toThrow(UnknownServiceUser);
    svc.decideInService(arrived.workItemId);
    expect(svc.reassign(arrived.workItemId, 'ada.lovelace')).toBe('not-pending');
    expect(svc.reassign('999999:WPDS:1', 'ada.lovelace')).toBe('not-pending');
  });
});

/**
 * getApprovalDetails and getRequestItems: the client against the running reference service, for
 * every answer shape and every error, and the reference service's own promises about its data
 * (seeded, coherent with findApprovals, varied workflows).
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { Secret } from '../../src/runtime/secret.js';
import {
  type Approval,
  createServiceClient,
  InvalidParameterError,
  InvalidTokenError,
  MissingParameterError,
  NotOfferedError,
  NotVisibleError,
  type ServiceClient,
} from '../../src/service/index.js';
import { TestClock } from '../helpers/clock.js';

const clock = new TestClock('2026-11-22T12:00:00Z');
let svc: ReferenceService;
let client: ServiceClient;
const token = (label: string) => new Secret(svc.demoTokens.find((t) => t.label === label)?.token ?? 'missing');
let pending: Approval[];
let completed: Approval[];

beforeAll(async () => {
  svc = await startReferenceService({ now: clock.now });
  client = createServiceClient({ baseUrl: svc.url });
  pending = (await client.findApprovals({ 'page-size': 240 }, token('approver'))).approvals;
  completed = (await client.findApprovals({ state: 'completed', 'page-size': 240 }, token('approver'))).approvals;
});
afterAll(async () => {
  await client.close();
  await svc.close();
});

const PAGE = { pageSize: 20, startPage: 1 };

/** Raw answer of the service, for what the client hides (reason phrase, the exact page). */
async function raw(query: string, label = 'approver') {
  const res = await request(`${svc.url}/command.submit?${query}`, { headers: { authorization: `Bearer ${token(label).reveal()}` } });
  return { status: res.statusCode, reason: res.statusText, body: await res.body.text() };
}

describe('getApprovalDetails', () => {
  it('describes a pending approval as findApprovals lists it, with what its workflow lets be done', async () => {
    const listed = pending[0] as Approval;
    const details = await client.getApprovalDetails(listed.workItemId, token('approver'));
    expect(details).toMatchObject({
      workItemId: listed.workItemId,
      workItemName: listed.workItemName,
      requestName: listed.requestName,
      dueDate: listed.dueDate,
      completedDate: '',
      completedByName: '',
      state: 'Available',
      requestId: String(listed.fields.RequestId),
      requestedByName: listed.fields.RequestedByName,
    });
    expect(details.actions.length).toBeGreaterThanOrEqual(1);
    for (const flag of [details.lineItemApprovalEnabled, details.emailApprovalEnabled, details.hasAttachments, details.reassignDisabled])
      expect(typeof flag).toBe('boolean');
    expect(details.fields.ExtraFields).toBe('');
  });

  it('lists each workflow’s own actions: two, three, or one, never hard-coded', async () => {
    const seen = new Map<string, Set<string>>();
    for (const a of pending.slice(0, 80)) {
      const d = await client.getApprovalDetails(a.workItemId, token('approver'));
      seen.set(d.workItemName, new Set([...(seen.get(d.workItemName) ?? []), d.actions.join('/')]));
    }
    expect(seen.get('Manager Approval')).toEqual(new Set(['Accepted/Rejected']));
    expect(seen.get('Security Review')).toEqual(new Set(['Approved/Rejected/Needs Info']));
    // Some activities may not be cancelled: one action, which the service sends as one string.
    expect(seen.get('Fulfillment Activity')).toEqual(new Set(['Completed/Canceled', 'Completed']));
  });

  it('says who completed a completed one and how, with no actions left', async () => {
    const done = completed[0] as Approval;
    const d = await client.getApprovalDetails(done.workItemId, token('approver'));
    expect(d.completedDate).toBe(done.completedDate);
    expect(d.completedByName).toBe('Lovelace, Ada');
    expect(['Accepted', 'Rejected', 'Approved', 'Completed', 'Canceled']).toContain(d.state);
    expect(d.actions).toEqual([]);
  });

  it('answers the same on every call: the data is seeded', async () => {
    const id = (pending[3] as Approval).workItemId;
    const first = await client.getApprovalDetails(id, token('approver'));
    expect(await client.getApprovalDetails(id, token('approver'))).toEqual(first);
  });

  it('reads booleans and numbers written as strings', async () => {
    svc.setQuirks({ numbersAsStrings: true });
    try {
      const body = await raw(`cmd=getApprovalDetails&format=json&approval-id=${encodeURIComponent((pending[0] as Approval).workItemId)}`);
      expect(body.body).toMatch(/"LineItemApprovalEnabled":"(true|false)"/);
      const d = await client.getApprovalDetails((pending[0] as Approval).workItemId, token('approver'));
      expect(typeof d.lineItemApprovalEnabled).toBe('boolean');
      expect(d.requestId).toMatch(/^\d+$/);
    } finally {
      svc.setQuirks({});
    }
  });

  it('412s without an approval-id, and for one the user may not see, as the service words them', async () => {
    const missing = await raw('cmd=getApprovalDetails&format=json');
    expect(missing.status).toBe(412);
    expect(missing.body).toContain('The approval-id parameter is required.');
    expect(missing.body).toContain('Query String=cmd=getApprovalDetails&amp;format=json');
    // Grace's approval exists, but it is not Ada's: it could not be retrieved, exactly as an unknown id.
    const graces = (await client.findApprovals({ 'page-size': 1 }, token('approver+ops'))).approvals[0] as Approval;
    for (const id of [graces.workItemId, '999999:WPDS:1']) {
      const error = await client.getApprovalDetails(id, token('approver')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotVisibleError);
      expect((error as NotVisibleError).serviceMessage).toBe('The work item could not be retrieved');
      expect((error as NotVisibleError).queryString).toContain('approval-id=');
    }
  });

  it('refuses to send an id that is not of the service’s shape', async () => {
    const before = svc.calls.get('getApprovalDetails') ?? 0;
    for (const id of ['', '12345', 'a:b:c', '1:WPDS:1&state=all', '1:W\u202eX:1', '1:WPDS:1\n'])
      await expect(client.getApprovalDetails(id, token('approver'))).rejects.toBeInstanceOf(InvalidParameterError);
    expect(svc.calls.get('getApprovalDetails') ?? 0).toBe(before);
  });

  it('401s a token that is expired, and one without the command', async () => {
    const id = (pending[0] as Approval).workItemId;
    const expired = await client.getApprovalDetails(id, token('expired')).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(InvalidTokenError);
    expect((expired as InvalidTokenError).expired).toBe(true);
    const narrow = new Secret(svc.tokens.issue('ada.lovelace', ['findApprovals'], { lifespanMs: null, inactivityMs: null }));
    const denied = await client.getApprovalDetails(id, narrow).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(InvalidTokenError);
    expect((denied as InvalidTokenError).expired).toBe(false);
  });

  it('acts for a user with an application token and auth-user-id', async () => {
    const id = (pending[0] as Approval).workItemId;
    const d = await client.getApprovalDetails(id, token('trusted-app'), { onBehalfOf: 'ada.lovelace' });
    expect(d.workItemId).toBe(id);
    await expect(client.getApprovalDetails(id, token('trusted-app'))).rejects.toBeInstanceOf(MissingParameterError);
  });
});

describe('getRequestItems', () => {
  it('lists the request’s items, the first being what the request is named for', async () => {
    const a = pending[0] as Approval;
    const page = await client.getRequestItems({ approvalId: a.workItemId }, PAGE, token('approver'));
    expect(page.workItemId).toBe(a.workItemId);
    expect(page.requestId).toBe(String(a.fields.RequestId));
    expect(page.requestStatus).toBe('Approvals Phase');
    expect(page.count).toBe(page.items.length);
    expect(page.items.length).toBeGreaterThanOrEqual(1);
    expect(page.items[0]).toMatchObject({
      operation: 'Add',
      entitlementName: a.fields.EntitlementName,
      entitlementType: a.fields.EntitlementType,
      businessSource: a.fields.BusinessSource,
      userName: a.fields.RequestedByName,
      state: 'Pending Approval',
      derivedType: 'Direct',
      isChangeToApprove: true,
    });
    expect(page.items[0]?.typeDescription).toBe(`Add user to ${String(a.fields.EntitlementType)}`);
    expect(page.items[0]?.fields).toHaveProperty('UserGroupName');
  });

  it('pages: 1 to 30 items a request, pages that continue each other, and nothing past the end', async () => {
    const counts: number[] = [];
    const operations = new Set<string>();
    const users = new Set<string>();
    for (const a of pending.slice(0, 60)) {
      const all = await client.getRequestItems({ approvalId: a.workItemId }, { pageSize: 100, startPage: 1 }, token('approver'));
      counts.push(all.items.length);
      for (const item of all.items) {
        operations.add(item.operation);
        users.add(item.userName);
      }
    }
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(30);
    expect(Math.max(...counts)).toBeGreaterThan(10);
    expect(operations).toEqual(new Set(['Add', 'Remove', 'Create', 'Modify']));
    expect(users).toContain('Wayne, Bruce');

    const big = pending.find((_a, i) => (counts[i] ?? 0) > 10) as Approval;
    const whole = await client.getRequestItems({ approvalId: big.workItemId }, { pageSize: 100, startPage: 1 }, token('approver'));
    const p1 = await client.getRequestItems({ approvalId: big.workItemId }, { pageSize: 5, startPage: 1 }, token('approver'));
    const p2 = await client.getRequestItems({ approvalId: big.workItemId }, { pageSize: 5, startPage: 2 }, token('approver'));
    expect([...p1.items, ...p2.items].map((i) => i.itemId)).toEqual(whole.items.slice(0, 10).map((i) => i.itemId));
    const past = await client.getRequestItems({ approvalId: big.workItemId }, { pageSize: 100, startPage: 2 }, token('approver'));
    expect(past).toMatchObject({ items: [], count: 0 });
  });

  it('answers one item as an object and several as a list, as the XML conversion does', async () => {
    const items = async (a: Approval, extra: string) =>
      JSON.parse((await raw(`cmd=getRequestItems&format=json${extra}&approval-id=${encodeURIComponent(a.workItemId)}`)).body)
        .getRequestItems as { NumRequestItems: number; RequestItems?: { RequestItem: unknown } };
    const a = pending[0] as Approval;
    expect((await items(a, '&page-size=1')).RequestItems?.RequestItem).toMatchObject({ Operation: 'Add' });
    let several = 0;
    for (const p of pending.slice(0, 20)) {
      const many = await items(p, '&page-size=100');
      if (many.NumRequestItems < 2) continue;
      expect(many.RequestItems?.RequestItem).toHaveLength(many.NumRequestItems);
      several++;
    }
    expect(several).toBeGreaterThan(0);
    const none = await items(a, '&page-size=100&start-page=9');
    expect(none).toEqual({ NumRequestItems: 0, WorkItemId: a.workItemId, RequestId: a.fields.RequestId, RequestStatus: 'Approvals Phase' });
  });

  it('finds a request by its id, for an approver of it only', async () => {
    const a = pending[1] as Approval;
    const byRequest = await client.getRequestItems({ requestId: Number(a.fields.RequestId) }, PAGE, token('approver'));
    const byApproval = await client.getRequestItems({ approvalId: a.workItemId }, PAGE, token('approver'));
    expect(byRequest.items).toEqual(byApproval.items);
    const error = await client.getRequestItems({ requestId: '1' }, PAGE, token('approver')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotVisibleError);
    expect((error as NotVisibleError).serviceMessage).toBe('The change request could not be retrieved');
    const notHers = await client.getRequestItems({ approvalId: '999999:WPDS:1' }, PAGE, token('approver')).catch((e: unknown) => e);
    expect((notHers as NotVisibleError).serviceMessage).toBe('The work item could not be retrieved');
  });

  it('412s without either selector, and 412s a page size out of bounds', async () => {
    const neither = await raw('cmd=getRequestItems&format=json');
    expect(neither.status).toBe(412);
    expect(neither.body).toContain("Either the 'approval-id' or the 'request-id' parameter must be provided.");
    const bounds = await raw(
      `cmd=getRequestItems&format=json&page-size=0&approval-id=${encodeURIComponent((pending[0] as Approval).workItemId)}`,
    );
    expect(bounds.status).toBe(412);
    expect(bounds.body).toContain('Expected a whole number from 1 to 1000');
  });

  it('refuses to send a selector or page out of bounds', async () => {
    const before = svc.calls.get('getRequestItems') ?? 0;
    const id = (pending[0] as Approval).workItemId;
    for (const [selector, page] of [
      [{ approvalId: 'nope' }, PAGE],
      [{ requestId: '12a' }, PAGE],
      [{ requestId: -4 }, PAGE],
      [{ approvalId: id }, { pageSize: 0, startPage: 1 }],
      [{ approvalId: id }, { pageSize: 1001, startPage: 1 }],
      [{ approvalId: id }, { pageSize: 10, startPage: 0 }],
      [{ approvalId: id }, { pageSize: 1.5, startPage: 1 }],
    ] as const)
      await expect(client.getRequestItems(selector, page, token('approver'))).rejects.toBeInstanceOf(InvalidParameterError);
    expect(svc.calls.get('getRequestItems') ?? 0).toBe(before);
  });

  it('reads the XML form of the answer too', async () => {
    svc.setQuirks({ xml: 'always' });
    try {
      const a = pending[0] as Approval;
      const page = await client.getRequestItems({ approvalId: a.workItemId }, PAGE, token('approver'));
      expect(page.items[0]?.operation).toBe('Add');
    } finally {
      svc.setQuirks({});
    }
  });
});

describe('a command switched off', () => {
  it('is answered 404 with its name as the reason phrase, and the client says "not offered" and remembers it', async () => {
    const local = createServiceClient({ baseUrl: svc.url });
    svc.setQuirks({ disabledCommands: ['getApprovalDetails'] });
    try {
      const answer = await raw('cmd=getApprovalDetails&format=json&approval-id=1:A:1');
      expect([answer.status, answer.reason]).toEqual([404, 'getApprovalDetails']);
      const id = (pending[0] as Approval).workItemId;
      const error = await local.getApprovalDetails(id, token('approver')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotOfferedError);
      expect((error as NotOfferedError).remembered).toBe(false);
      expect(local.offers('getApprovalDetails')).toBe(false);
      expect(local.offers('getRequestItems')).toBe(true);
      // The other command still works; this one is not asked for again.
      const calls = svc.calls.get('getApprovalDetails') ?? 0;
      expect((await local.getRequestItems({ approvalId: id }, PAGE, token('approver'))).items.length).toBeGreaterThan(0);
      const again = await local.getApprovalDetails(id, token('approver')).catch((e: unknown) => e);
      expect((again as NotOfferedError).remembered).toBe(true);
      expect(svc.calls.get('getApprovalDetails') ?? 0).toBe(calls);
    } finally {
      svc.setQuirks({});
      await local.close();
    }
  });

  it('switches getRequestItems off the same way', async () => {
    const local = createServiceClient({ baseUrl: svc.url });
    svc.setQuirks({ disabledCommands: ['getRequestItems'] });
    try {
      const id = (pending[0] as Approval).workItemId;
      await expect(local.getRequestItems({ approvalId: id }, PAGE, token('approver'))).rejects.toBeInstanceOf(NotOfferedError);
      expect(local.offers('getRequestItems')).toBe(false);
      expect((await local.getApprovalDetails(id, token('approver'))).workItemId).toBe(id);
    } finally {
      svc.setQuirks({});
      await local.close();
    }
  });
});

/**
 * The client against the running reference service: every parameter, every error, every shape.
 * If the two disagree about the spec, one of these fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { Secret } from '../../src/runtime/secret.js';
import {
  type ApprovalQuery,
  AppSignInError,
  ConflictError,
  createServiceClient,
  InvalidParameterError,
  InvalidTokenError,
  LoginFailedError,
  MissingParameterError,
  NoEligibleCollectorsError,
  NotFoundError,
  type ServiceClient,
} from '../../src/service/index.js';
import { TestClock } from '../helpers/clock.js';

const clock = new TestClock('2026-11-22T12:00:00Z');
let svc: ReferenceService;
let client: ServiceClient;
const token = (label: string) => new Secret(svc.demoTokens.find((t) => t.label === label)?.token ?? 'missing');

beforeAll(async () => {
  svc = await startReferenceService({ now: clock.now, runTimings: { queuedMs: 1_000, runningMs: 5_000 } });
  client = createServiceClient({ baseUrl: svc.url });
});
afterAll(async () => {
  await client.close();
  await svc.close();
});

const find = (query: ApprovalQuery, label = 'approver') => client.findApprovals(query, token(label));

describe('findApprovals', () => {
  it('defaults to 20 pending approvals, due soonest first', async () => {
    const page = await find({});
    expect(page.count).toBe(20);
    expect(page.approvals).toHaveLength(20);
    expect(page.approvals.every((a) => a.completedDate === '' && a.fields.WorkItemState === 'Pending')).toBe(true);
    const due = page.approvals.map((a) => a.dueDate);
    expect([...due].sort()).toEqual(due);
    expect(due[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/);
    expect(page.approvals[0]?.workItemId).toMatch(/^\d+:[A-Z]+:\d+$/);
  });

  it('sorts descending on request', async () => {
    const due = (await find({ sort: 'desc' })).approvals.map((a) => a.dueDate);
    expect([...due].sort().reverse()).toEqual(due);
  });

  it('filters by state', async () => {
    const completed = await find({ state: 'completed', 'page-size': 50 });
    expect(completed.count).toBeGreaterThan(0);
    expect(completed.approvals.every((a) => /^\d{4}-/.test(a.completedDate))).toBe(true);
    const all = await find({ state: 'all', 'page-size': 200 });
    const states = new Set(all.approvals.map((a) => a.fields.WorkItemState));
    expect(states).toEqual(new Set(['Pending', 'Completed']));
  });

  it('pages: page 2 of 5 continues page 1 of 5, and both make page 1 of 10', async () => {
    const ids = async (q: ApprovalQuery) => (await find(q)).approvals.map((a) => a.workItemId);
    const p1 = await ids({ 'page-size': 5, 'start-page': 1 });
    const p2 = await ids({ 'page-size': 5, 'start-page': 2 });
    expect(p1).toHaveLength(5);
    expect(p2).toHaveLength(5);
    expect(await ids({ 'page-size': 10 })).toEqual([...p1, ...p2]);
  });

  it('answers a page past the end with no approvals, and one approval as one', async () => {
    expect(await find({ 'start-page': 999 })).toEqual({ approvals: [], count: 0 });
    const one = await find({ 'page-size': 1 });
    expect(one.count).toBe(1);
    expect(one.approvals).toHaveLength(1);
  });

  const textFilters: Array<[keyof ApprovalQuery, string, string]> = [
    ['entitlement-name', 'domain admins', 'EntitlementName'],
    ['entitlement-type', 'ROLE', 'EntitlementType'],
    ['business-source', 'active directory', 'BusinessSource'],
  ];
  for (const [param, value, field] of textFilters) {
    it(`filters by ${param}, ignoring case`, async () => {
      const page = await find({ [param]: value, state: 'all', 'page-size': 100 });
      expect(page.count).toBeGreaterThan(0);
      expect(page.approvals.every((a) => String(a.fields[field]).toLowerCase() === value.toLowerCase())).toBe(true);
    });
  }

  it('filters by the requester: user-id, user-first-name, user-last-name', async () => {
    const sample = (await find({ state: 'all' })).approvals[0];
    const [last, first] = String(sample?.fields.RequestedByName).split(', ');
    const byLast = await find({ 'user-last-name': last, state: 'all', 'page-size': 100 });
    expect(byLast.approvals.every((a) => String(a.fields.RequestedByName).startsWith(`${last},`))).toBe(true);
    const byFirst = await find({ 'user-first-name': first, state: 'all', 'page-size': 100 });
    expect(byFirst.approvals.every((a) => String(a.fields.RequestedByName).endsWith(`, ${first}`))).toBe(true);
    const userId = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    const byId = await find({ 'user-id': userId, state: 'all', 'page-size': 100 });
    expect(byId.count).toBe(byFirst.count);
  });

  it('finds one approval by approval-id', async () => {
    const target = (await find({ 'start-page': 3 })).approvals[0];
    const page = await find({ 'approval-id': target?.workItemId ?? '' });
    expect(page.approvals.map((a) => a.workItemId)).toEqual([target?.workItemId]);
  });

  it('filters by due, requested and completed dates, whole days inclusive', async () => {
    const due = await find({ 'due-after': '22-nov-2026', 'due-before': '24-nov-2026', state: 'all', 'page-size': 200 });
    expect(due.count).toBeGreaterThan(0);
    expect(due.approvals.every((a) => a.dueDate >= '2026-11-22' && a.dueDate < '2026-11-25')).toBe(true);
    const requested = await find({ 'requested-before': '01-nov-2026', state: 'all', 'page-size': 200 });
    expect(requested.approvals.every((a) => String(a.fields.RequestedDate) < '2026-11-02')).toBe(true);
    const completed = await find({ 'completed-after': '01-oct-2026', state: 'all', 'page-size': 200 });
    expect(completed.count).toBeGreaterThan(0);
    expect(completed.approvals.every((a) => a.completedDate >= '2026-10-01')).toBe(true);
  });

  it('only ever shows the approvals of the token user', async () => {
    const ada = new Set((await find({ state: 'all', 'page-size': 1000 })).approvals.map((a) => a.workItemId));
    const grace = (await find({ state: 'all', 'page-size': 1000 }, 'approver+ops')).approvals.map((a) => a.workItemId);
    expect(ada.size).toBe(240);
    expect(grace).toHaveLength(120);
    expect(grace.some((id) => ada.has(id))).toBe(false);
  });

  it('renders hostile names from the data set unchanged: escaping is the renderer’s job', async () => {
    const names = (await find({ state: 'all', 'page-size': 1000 })).approvals.map((a) => a.requestName);
    expect(names).toContain('<!channel> urgent: Add Access for Bobby Tables');
  });
});

describe('answer shapes the real service is known to give', () => {
  it('reads XML answers, with results and without', async () => {
    const json = await find({ 'page-size': 3 });
    svc.setQuirks({ xml: 'always' });
    try {
      const xml = await find({ 'page-size': 3 });
      expect(xml.count).toBe(3);
      expect(xml.approvals.map((a) => [a.workItemId, a.requestName, a.dueDate, a.completedDate])).toEqual(
        json.approvals.map((a) => [a.workItemId, a.requestName, a.dueDate, a.completedDate]),
      );
      expect(await find({ 'page-size': 1 })).toMatchObject({ count: 1 });
      svc.setQuirks({ xml: 'when-empty' });
      expect(await find({ 'start-page': 500 })).toEqual({ approvals: [], count: 0 });
    } finally {
      svc.setQuirks({});
    }
  });

  it('reads counts and ids written as strings, and keeps the extra fields', async () => {
    svc.setQuirks({ numbersAsStrings: true });
    try {
      const page = await find({ 'page-size': 2 });
      expect(page.count).toBe(2);
      expect(typeof page.approvals[0]?.fields.RequestId).toBe('string');
      expect(Object.keys(page.approvals[0]?.fields ?? {})).toEqual(
        expect.arrayContaining(['WorkItemState', 'RequestId', 'RequestedByName', 'EntitlementName']),
      );
    } finally {
      svc.setQuirks({});
    }
  });
});

describe('tokens', () => {
  it('401s an expired token and a token without the command, telling them apart', async () => {
    const expired = (await find({}, 'expired').catch((e: unknown) => e)) as InvalidTokenError;
    expect(expired).toBeInstanceOf(InvalidTokenError);
    expect(expired.expired).toBe(true);
    expect(expired.serviceMessage).toBe("The token is not valid for the command 'findApprovals'. Token is invalid or expired");
    const denied = (await find({}, 'ops').catch((e: unknown) => e)) as InvalidTokenError;
    expect(denied.expired).toBe(false);
    await expect(client.collectEntitlements({}, token('approver'))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(client.findApprovals({}, new Secret('ws0:-0:0:-0.0'))).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('412s an application token without auth-user-id, naming the parameter and echoing the query', async () => {
    const error = (await find({ sort: 'desc' }, 'trusted-app').catch((e: unknown) => e)) as MissingParameterError;
    expect(error).toBeInstanceOf(MissingParameterError);
    expect(error.parameter).toBe('auth-user-id');
    expect(error.queryString).toBe('cmd=findApprovals&format=json&sort=desc');
  });

  it('logs in, and the token acts as that user until it is idle too long', async () => {
    const t = await client.loginUser({ username: 'ada.lovelace', password: new Secret('demo') });
    expect(t.reveal()).toMatch(/^ws[0-9a-f]+:-[0-9a-f]+:[0-9a-f]+:-[0-9a-f]+\.\d+$/);
    expect((await client.findApprovals({ 'page-size': 1 }, t)).count).toBe(1);
    clock.advance(9 * 60_000);
    expect((await client.findApprovals({ 'page-size': 1 }, t)).count).toBe(1);
    clock.advance(11 * 60_000);
    await expect(client.findApprovals({}, t)).rejects.toMatchObject({ kind: 'invalid-token', expired: true });
  });

  it('ends a token after its lifespan, however busy', async () => {
    const t = await client.loginUser({ username: 'grace.hopper', password: new Secret('demo') });
    for (let minutes = 0; minutes <= 120; minutes += 8) {
      await client.findApprovals({ 'page-size': 1 }, t);
      clock.advance(8 * 60_000);
    }
    await expect(client.findApprovals({}, t)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('checks the auth source, and refuses wrong credentials alike', async () => {
    const ldap = await client.loginUser({ username: 'katherine.johnson', password: new Secret('demo'), authsource: 'corp-ldap' });
    expect((await client.findApprovals({ 'page-size': 1 }, ldap)).count).toBe(1);
    for (const creds of [
      { username: 'katherine.johnson', password: new Secret('demo'), authsource: 'internal' },
      // A directory user must name the directory: without it, the service looks among its own users.
      { username: 'katherine.johnson', password: new Secret('demo') },
      { username: 'ada.lovelace', password: new Secret('wrong') },
      { username: 'nobody', password: new Secret('demo') },
    ]) {
      const error = (await client.loginUser(creds).catch((e: unknown) => e)) as LoginFailedError;
      expect(error).toBeInstanceOf(LoginFailedError);
      expect(error.serviceMessage).toBe('User could not be validated. The username or password may be incorrect.');
    }
  });

  it('ends a token at logoutUser', async () => {
    const t = await client.loginUser({ username: 'ada.lovelace', password: new Secret('demo') });
    await client.logoutUser(t);
    await expect(client.findApprovals({}, t)).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(client.logoutUser(t)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('a trusted application', () => {
  const app = () => ({ clientId: svc.trustedApp.clientId, clientSecret: new Secret(svc.trustedApp.clientSecret) });

  it('signs in with its client id and secret, and refuses wrong ones alike', async () => {
    expect((await client.loginTrustedApp(app())).reveal()).toMatch(/^ws[0-9a-f]+:-/);
    for (const wrong of [
      { clientId: svc.trustedApp.clientId, clientSecret: new Secret('not-the-secret') },
      { clientId: 'someone-else', clientSecret: new Secret(svc.trustedApp.clientSecret) },
    ]) {
      const error = (await client.loginTrustedApp(wrong).catch((e: unknown) => e)) as AppSignInError;
      expect(error).toBeInstanceOf(AppSignInError);
      expect(error.serviceMessage).toBe('The trusted application could not be validated. The client id or client secret may be incorrect.');
    }
  });

  it('acts exactly as the user named by auth-user-id: their approvals, their commands', async () => {
    const t = await client.loginTrustedApp(app());
    const asAda = await client.findApprovals({ 'page-size': 5, sort: 'desc' }, t, { onBehalfOf: 'ada.lovelace' });
    const ada = await client.findApprovals({ 'page-size': 5, sort: 'desc' }, token('approver'));
    expect(asAda.approvals.map((a) => a.workItemId)).toEqual(ada.approvals.map((a) => a.workItemId));
    // Any case, as the service's sign-in takes it.
    expect((await client.findApprovals({ 'page-size': 5, sort: 'desc' }, t, { onBehalfOf: 'Ada.Lovelace' })).count).toBe(5);
    const denied = (await client
      .collectEntitlements({ name: 'AD Accounts' }, t, { onBehalfOf: 'ada.lovelace' })
      .catch((e: unknown) => e)) as InvalidTokenError;
    expect(denied).toBeInstanceOf(InvalidTokenError);
    expect(denied.expired).toBe(false);
    expect(svc.actedFor.at(-1)).toEqual({ command: 'findApprovals', authUserId: 'Ada.Lovelace' });
  });

  it('401s a user the service does not know, 412s without auth-user-id, and a user’s token cannot name another', async () => {
    const t = await client.loginTrustedApp(app());
    const unknown = (await client.findApprovals({}, t, { onBehalfOf: 'no.such.user' }).catch((e: unknown) => e)) as InvalidTokenError;
    expect(unknown).toBeInstanceOf(InvalidTokenError);
    expect(unknown.serviceMessage).toBe("The user 'no.such.user' given by auth-user-id could not be found.");
    expect(unknown.expired).toBe(false);
    await expect(client.findApprovals({}, t)).rejects.toBeInstanceOf(MissingParameterError);
    const impersonation = await client.findApprovals({}, token('approver'), { onBehalfOf: 'grace.hopper' }).catch((e: unknown) => e);
    expect(impersonation).toBeInstanceOf(InvalidParameterError);
  });

  it('has tokens that end like users’ do', async () => {
    const t = await client.loginTrustedApp(app());
    clock.advance(11 * 60_000);
    await expect(client.findApprovals({}, t, { onBehalfOf: 'ada.lovelace' })).rejects.toMatchObject({
      kind: 'invalid-token',
      expired: true,
    });
  });
});

describe('collectEntitlements and getRunStatus', () => {
  it('runs every collector of an application and names each run', async () => {
    const result = await client.collectEntitlements({ application: 'Active Directory' }, token('ops'));
    expect(result.runs.map((r) => r.collector)).toEqual(['AD Accounts', 'AD Groups']);
    expect(result.runs.every((r) => /^\d+$/.test(r.runId))).toBe(true);
  });

  it('runs all collectors when given neither name nor application', async () => {
    clock.advance(60_000);
    const result = await client.collectEntitlements({}, token('approver+ops'));
    expect(result.runs).toHaveLength(7);
    expect(new Set(result.runs.map((r) => r.runId)).size).toBe(7);
  });

  it('refuses to queue a collector that is already queued (409), and accepts it once it runs', async () => {
    clock.advance(60_000);
    await client.collectEntitlements({ name: 'SAP Roles' }, token('ops'));
    await expect(client.collectEntitlements({ name: 'sap roles' }, token('ops'))).rejects.toBeInstanceOf(ConflictError);
    clock.advance(1_500);
    expect((await client.collectEntitlements({ name: 'SAP Roles' }, token('ops'))).runs).toHaveLength(1);
  });

  it('answers no runs for a name that matches nothing, and 404 for an application without collectors', async () => {
    expect(await client.collectEntitlements({ name: 'No Such Collector' }, token('ops'))).toEqual({ runs: [] });
    const error = (await client
      .collectEntitlements({ application: 'Mainframe' }, token('ops'))
      .catch((e: unknown) => e)) as NoEligibleCollectorsError;
    expect(error).toBeInstanceOf(NoEligibleCollectorsError);
    expect(error.application).toBe('Mainframe');
    expect(error.serviceMessage).toBe('No eligible collectors found for the application Mainframe');
    expect(error.queryString).toBe('cmd=collectEntitlements&format=json&application=Mainframe');
  });

  it('selects by name and application together', async () => {
    clock.advance(60_000);
    expect((await client.collectEntitlements({ name: 'AD Groups', application: 'Active Directory' }, token('ops'))).runs).toHaveLength(1);
    await expect(client.collectEntitlements({ name: 'AD Groups', application: 'SAP' }, token('ops'))).rejects.toBeInstanceOf(
      NoEligibleCollectorsError,
    );
  });

  it('reports a run New → Running → Completed, and a tripped breaker as Aborted unless forced', async () => {
    clock.advance(60_000);
    const [plain] = (await client.collectEntitlements({ name: 'AWS IAM' }, token('ops'))).runs;
    clock.advance(1_500);
    const [forced] = (await client.collectEntitlements({ name: 'AWS IAM', force: true }, token('ops'))).runs;
    const status = (run: typeof plain) => client.getRunStatus(run?.runId ?? '', token('ops'));
    expect((await status(forced)).state).toBe('New');
    expect((await status(plain)).state).toBe('Running');
    expect((await status(plain)).startTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    clock.advance(6_000);
    const aborted = await status(plain);
    expect(aborted).toMatchObject({ state: 'Aborted', runId: plain?.runId });
    expect(aborted.completedTime).toMatch(/^\d{4}-/);
    expect((await status(forced)).state).toBe('Completed');
  });

  it('404s an unknown run id', async () => {
    await expect(client.getRunStatus('999999', token('ops'))).rejects.toBeInstanceOf(NotFoundError);
  });
});

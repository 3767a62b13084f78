/** The reference service over raw HTTP: what any client, not only ours, would see. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReferenceDb } from '../../src/reference-service/db.js';
import { DEMO_COLLECTORS, DEMO_USERS, HOSTILE_REQUEST_NAMES, loadDemoData, serviceZoneOf } from '../../src/reference-service/demo.js';
import { type ApprovalRowForRequest, sketchRequest } from '../../src/reference-service/requests.js';
import { type ReferenceService, startReferenceService } from '../../src/reference-service/server.js';
import { TestClock } from '../helpers/clock.js';

const clock = new TestClock();
let svc: ReferenceService;
const demo = (label: string) => svc.demoTokens.find((t) => t.label === label)?.token ?? '';

beforeAll(async () => {
  svc = await startReferenceService({ now: clock.now });
});
afterAll(() => svc.close());

async function get(query: string, label: string | null = 'approver', path = '/command.submit') {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (label) headers.authorization = `Bearer ${demo(label)}`;
  const res = await request(`${svc.url}${path}?${query}`, { headers });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: await res.body.text() };
}

describe('formats', () => {
  it('answers the properties format by default, one comma-separated value per object', async () => {
    const res = await get('cmd=findApprovals&page-size=2');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/plain/);
    const lines = Object.fromEntries(
      res.body
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(lines.NumApprovals).toBe('2');
    expect(lines.WorkItemId?.split(',')).toHaveLength(2);
  });

  it('gives one approval as an object, several as a list, none as absent', async () => {
    const one = JSON.parse((await get('cmd=findApprovals&format=json&page-size=1')).body);
    expect(Array.isArray(one.findApprovals.Approval)).toBe(false);
    expect(one.findApprovals.NumApprovals).toBe(1);
    const two = JSON.parse((await get('cmd=findApprovals&format=json&page-size=2')).body);
    expect(two.findApprovals.Approval).toHaveLength(2);
    const none = JSON.parse((await get('cmd=findApprovals&format=json&start-page=9999')).body);
    expect(none).toEqual({ findApprovals: { NumApprovals: 0 } });
  });

  it('writes collect results as type, run-id and run-source-<id>', async () => {
    const res = await get('cmd=collectEntitlements&format=json&application=GitHub', 'ops');
    const data = JSON.parse(res.body).data;
    expect(data.type).toBe('collectEntitlements');
    expect(data[`run-source-${data['run-id']}`]).toBe('GitHub Org Members');
    const props = await get('cmd=collectEntitlements&name=Workday%20Workers', 'ops');
    expect(props.body).toMatch(/^type=collectEntitlements\nrun-source-\d+=Workday Workers\nrun-id=\d+\n$/);
  });
});

describe('error pages', () => {
  const invalid: Array<[string, RegExp]> = [
    ['state=Pending', /The value 'Pending' of the parameter state is invalid\. Valid values are: pending, completed, all\./],
    ['sort=up', /parameter sort is invalid/],
    ['format=xml', /parameter format is invalid/],
    ['page-size=0', /parameter page-size is invalid\. Expected a whole number from 1 to 1000\./],
    ['page-size=1001', /page-size/],
    ['start-page=-1', /start-page/],
    ['due-after=2026-01-31', /The value '2026-01-31' of the parameter due-after is invalid\. Expected a date such as 31-jan-2026\./],
    ['due-before=31-JAN-2026', /due-before/],
    ['completed-after=30-feb-2026', /completed-after/],
  ];
  for (const [query, message] of invalid) {
    it(`412s ${query}, naming the parameter, with the query string`, async () => {
      const res = await get(`cmd=findApprovals&${query}`);
      expect(res.status).toBe(412);
      expect(res.type).toMatch(/^text\/html/);
      expect(res.body).toMatch(/<title>Error<\/title>/);
      expect(res.body).toMatch(message);
      expect(res.body).toContain(`Query String=cmd=findApprovals&amp;${query}`);
    });
  }

  it('412s collectEntitlements with force=yes', async () => {
    const res = await get('cmd=collectEntitlements&force=yes', 'ops');
    expect(res.status).toBe(412);
    expect(res.body).toContain('parameter force is invalid');
  });

  it('401s without a Query String line, with the spec’s wording', async () => {
    const res = await get('cmd=findApprovals', 'expired');
    expect(res.status).toBe(401);
    expect(res.body).toContain("The token is not valid for the command 'findApprovals'. Token is invalid or expired");
    expect(res.body).not.toContain('Query String');
    expect((await get('cmd=findApprovals', null)).status).toBe(401);
  });

  it('404s with the application named, and escapes the echoed query', async () => {
    const res = await get('cmd=collectEntitlements&application=%3Cscript%3E', 'ops');
    expect(res.status).toBe(404);
    expect(res.body).toContain('No eligible collectors found for the application &lt;script&gt;');
    expect(res.body).not.toContain('<script>');
  });

  it('answers a missing cmd, an unknown cmd, a wrong path and a GET login', async () => {
    expect((await get('format=json')).status).toBe(412);
    const unknown = await get('cmd=deleteEverything');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain("The command 'deleteEverything' is not a valid command.");
    expect((await get('cmd=findApprovals', 'approver', '/other')).status).toBe(404);
    expect((await get('cmd=loginUser')).status).toBe(405);
  });

  it('412s getRunStatus without run-id, 404s a malformed one', async () => {
    expect((await get('cmd=getRunStatus', 'ops')).body).toContain('The parameter run-id is required.');
    const bad = await get('cmd=getRunStatus&run-id=abc', 'ops');
    expect(bad.status).toBe(404);
    expect(bad.body).toContain('The run-id abc is invalid.');
  });

  it('counts calls by command, so tests can prove nothing was sent', async () => {
    const before = svc.calls.get('findApprovals') ?? 0;
    await get('cmd=findApprovals&format=json');
    expect(svc.calls.get('findApprovals')).toBe(before + 1);
  });

  it('plays a slow service', async () => {
    svc.setDelay(300);
    const started = performance.now();
    await get('cmd=findApprovals&format=json');
    svc.setDelay(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('demo data', () => {
  it('is the same for the same seed and moment', () => {
    const rows = () => {
      const db = openReferenceDb();
      loadDemoData(db, new Date('2026-01-01T00:00:00Z'));
      const out = db.prepare('SELECT work_item_id, request_name, due_at, state FROM approvals ORDER BY id').all();
      db.close();
      return out;
    };
    const a = rows();
    expect(a).toHaveLength(420);
    expect(rows()).toEqual(a);
  });

  it('has overdue, due-today and completed approvals for the demo approver, and every collector', () => {
    const count = (sql: string) => (svc.db.prepare(sql).get() as { n: number }).n;
    expect(
      count("SELECT count(*) n FROM approvals WHERE approver_id = 'ada.lovelace' AND state = 'pending' AND due_at < '2026-11-22'"),
    ).toBeGreaterThan(0);
    expect(count("SELECT count(*) n FROM approvals WHERE approver_id = 'ada.lovelace' AND due_at LIKE '2026-11-22%'")).toBeGreaterThan(0);
    expect(count("SELECT count(*) n FROM approvals WHERE approver_id = 'ada.lovelace' AND state = 'completed'")).toBeGreaterThan(0);
    expect(count('SELECT count(*) n FROM collectors')).toBe(DEMO_COLLECTORS.length);
  });

  it('stores only hashes of tokens', () => {
    const stored = svc.db.prepare('SELECT hash FROM tokens').all() as Array<{ hash: string }>;
    expect(stored.length).toBeGreaterThan(0);
    for (const t of svc.demoTokens) expect(stored.some((s) => s.hash === t.token)).toBe(false);
    expect(stored.every((s) => /^[0-9a-f]{64}$/.test(s.hash))).toBe(true);
  });
});

describe('the demo’s first approvals', () => {
  it('show the product to each approver, at any moment it is loaded: decided as a whole, with actions, a few items, named plainly', () => {
    for (const at of ['2026-11-22T12:00:00Z', '2027-03-28T00:30:00Z', '2026-06-01T23:59:00Z']) {
      const db = openReferenceDb();
      loadDemoData(db, new Date(at));
      for (const approver of DEMO_USERS.filter((u) => u.approvals > 0)) {
        const first = db
          .prepare(`SELECT * FROM approvals WHERE approver_id = ? AND state = 'pending' ORDER BY due_at, work_item_id LIMIT 3`)
          .all(approver.id) as Array<ApprovalRowForRequest & { requested_at: string; due_at: string }>;
        expect(first).toHaveLength(3);
        for (const row of first) {
          const request = sketchRequest(row, false);
          expect([approver.id, row.request_name, request.lineItemApprovalEnabled]).toEqual([approver.id, row.request_name, false]);
          expect(request.actions.length).toBeGreaterThanOrEqual(2);
          expect(request.items.length).toBeGreaterThanOrEqual(2);
          expect(HOSTILE_REQUEST_NAMES).not.toContain(row.request_name);
          // Moved with its requested time: still requested before it is due.
          expect(row.requested_at < row.due_at).toBe(true);
        }
      }
      db.close();
    }
  });
});

describe('demo data dates', () => {
  it('are coherent with now and with each other: requested in the past, completed between the request and now, due after the request', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const db = openReferenceDb();
    loadDemoData(db, now);
    const rows = db.prepare('SELECT requested_at, due_at, completed_at, state FROM approvals').all() as Array<{
      requested_at: string;
      due_at: string;
      completed_at: string | null;
      state: string;
    }>;
    db.close();
    const ms = (t: string) => new Date(`${t.replace(' ', 'T')}Z`).getTime();
    expect(rows.length).toBeGreaterThan(400);
    for (const r of rows) {
      expect(ms(r.requested_at)).toBeLessThan(now.getTime());
      expect(ms(r.due_at)).toBeGreaterThan(ms(r.requested_at));
      if (r.completed_at !== null) {
        expect(ms(r.completed_at)).toBeGreaterThan(ms(r.requested_at));
        expect(ms(r.completed_at)).toBeLessThanOrEqual(now.getTime());
      }
      expect(r.completed_at === null).toBe(r.state === 'pending');
    }
  });
});

describe('the zone its times are written in', () => {
  it('writes the same moments on the clocks of the zone it is given, and remembers the zone in its data', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const dues = (timeZone?: string) => {
      const db = openReferenceDb();
      loadDemoData(db, now, { timeZone });
      const rows = db.prepare('SELECT due_at FROM approvals ORDER BY id LIMIT 50').all() as Array<{ due_at: string }>;
      const zone = serviceZoneOf(db);
      db.close();
      return { zone, dues: rows.map((r) => r.due_at) };
    };
    const utc = dues();
    const tokyo = dues('Asia/Tokyo');
    expect(utc.zone).toBe('UTC');
    expect(tokyo.zone).toBe('Asia/Tokyo');
    // Tokyo keeps no summer time: nine hours ahead, every one of them.
    const ms = (t: string) => new Date(`${t.replace(' ', 'T')}Z`).getTime();
    expect(tokyo.dues.map((t, i) => ms(t) - ms(utc.dues[i] as string))).toEqual(utc.dues.map(() => 9 * 3_600_000));
  });

  it('says which zone it writes in, and writes a run’s times in it', async () => {
    const at = new TestClock('2026-11-22T12:00:00Z');
    const ny = await startReferenceService({ now: at.now, timeZone: 'America/New_York', runTimings: { queuedMs: 1000, runningMs: 1000 } });
    try {
      expect(ny.timeZone).toBe('America/New_York');
      expect(serviceZoneOf(ny.db)).toBe('America/New_York');
      const token = ny.demoTokens.find((t) => t.label === 'ops')?.token ?? '';
      const call = async (query: string) =>
        JSON.parse(
          await (await request(`${ny.url}/command.submit?${query}`, { headers: { authorization: `Bearer ${token}` } })).body.text(),
        );
      const runId = (await call('cmd=collectEntitlements&format=json&name=AD%20Accounts')).data['run-id'];
      at.advance(5000);
      const status = (await call(`cmd=getRunStatus&format=json&run-id=${runId}`)).data;
      // 12:00 UTC is 07:00 in New York.
      expect(status['start-time']).toBe('2026-11-22 07:00:01');
      expect(status['completed-time']).toBe('2026-11-22 07:00:02');
    } finally {
      await ny.close();
    }
    await expect(startReferenceService({ timeZone: 'Mars/Olympus_Mons' })).rejects.toThrow('Unknown time zone: Mars/Olympus_Mons');
  });
});

describe('run ids', () => {
  it('are not given out again by a demo data set loaded later (local mode restarts with fresh data)', async () => {
    const first = await startReferenceService({ now: () => new Date('2026-11-22T10:00:00Z') });
    const second = await startReferenceService({ now: () => new Date('2026-11-22T10:05:00Z') });
    const start = async (svc: ReferenceService) => {
      const token = svc.demoTokens.find((t) => t.label === 'ops')?.token ?? '';
      const res = await request(`${svc.url}/command.submit?cmd=collectEntitlements&format=json&name=AD%20Accounts`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await res.body.json()) as { data: { 'run-id': string } }).data['run-id'];
    };
    try {
      const a = await start(first);
      const b = await start(second);
      expect(Number(b)).toBeGreaterThan(Number(a));
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('performWorkItem (this service’s own shape: inferred, docs/reference-service.md says so)', () => {
  const details = async (id: string, label = 'approver') =>
    JSON.parse((await get(`cmd=getApprovalDetails&format=json&approval-id=${encodeURIComponent(id)}`, label)).body).getApprovalDetails
      .Approval;
  const pending = async (label = 'approver') => {
    const found = JSON.parse((await get('cmd=findApprovals&format=json&page-size=50', label)).body).findApprovals.Approval as Array<{
      WorkItemId: string;
    }>;
    for (const a of found) {
      const d = await details(a.WorkItemId, label);
      if (d.LineItemApprovalEnabled === false && Array.isArray(d.Actions?.ActionName))
        return d as { WorkItemId: string; Actions: { ActionName: string[] } };
    }
    throw new Error('no pending approval with several actions');
  };
  const post = async (query: string, body: string, contentType: string, label = 'approver') => {
    const res = await request(`${svc.url}/command.submit?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo(label)}`, 'content-type': contentType },
      body,
    });
    return { status: res.statusCode, body: await res.body.text() };
  };

  it('completes the caller’s pending item with a listed action, from the query, keeping the comment', async () => {
    const item = await pending();
    const action = item.Actions.ActionName[1] as string;
    const res = await get(
      `cmd=performWorkItem&format=json&workitem-id=${encodeURIComponent(item.WorkItemId)}&action=${encodeURIComponent(action)}&comment=Not%20needed`,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data).toMatchObject({ type: 'performWorkItem', 'workitem-id': item.WorkItemId, action });
    const after = await details(item.WorkItemId);
    expect(after).toMatchObject({ WorkItemState: action, WorkItemCompletedByName: 'Lovelace, Ada' });
    expect(after.WorkItemCompletedDate).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d$/);
    expect(after.Actions).toBeUndefined();
    expect(svc.db.prepare('SELECT comment FROM decisions WHERE work_item_id = ?').get(item.WorkItemId)).toEqual({ comment: 'Not needed' });
    // Decided once: a second decision finds it no longer pending.
    const again = await get(`cmd=performWorkItem&workitem-id=${encodeURIComponent(item.WorkItemId)}&action=${encodeURIComponent(action)}`);
    expect(again.status).toBe(412);
    expect(again.body).toContain('The work item could not be retrieved');
  });

  it('writes the completed time on the service’s clocks, as every other time it writes', async () => {
    const at = new TestClock('2026-11-22T12:00:00Z');
    const ny = await startReferenceService({ now: at.now, timeZone: 'America/New_York' });
    try {
      const token = ny.demoTokens.find((t) => t.label === 'approver')?.token ?? '';
      const call = async (query: string) =>
        JSON.parse(
          await (
            await request(`${ny.url}/command.submit?format=json&${query}`, { headers: { authorization: `Bearer ${token}` } })
          ).body.text(),
        );
      const found = call('cmd=findApprovals&page-size=50').then((r) => r.findApprovals.Approval as Array<{ WorkItemId: string }>);
      let item: { WorkItemId: string; Actions: { ActionName: string[] } } | undefined;
      for (const a of await found) {
        const d = (await call(`cmd=getApprovalDetails&approval-id=${encodeURIComponent(a.WorkItemId)}`)).getApprovalDetails.Approval;
        if (d.LineItemApprovalEnabled === false && Array.isArray(d.Actions?.ActionName)) {
          item = d;
          break;
        }
      }
      if (item === undefined) throw new Error('no pending approval with several actions');
      const id = encodeURIComponent(item.WorkItemId);
      const done = await call(`cmd=performWorkItem&workitem-id=${id}&action=${encodeURIComponent(item.Actions.ActionName[0] as string)}`);
      // 12:00 UTC is 07:00 in New York.
      expect(done.data['completed-date']).toBe('2026-11-22 07:00:00.0');
      const after = (await call(`cmd=getApprovalDetails&approval-id=${id}`)).getApprovalDetails.Approval;
      expect(after.WorkItemCompletedDate).toBe('2026-11-22 07:00:00.0');
    } finally {
      await ny.close();
    }
  });

  it('takes its fields from a POSTed XML body too', async () => {
    const item = await pending();
    const action = item.Actions.ActionName[0] as string;
    const res = await post(
      'cmd=performWorkItem&format=json',
      `<workitem-id>${item.WorkItemId}</workitem-id><action>${action}</action><comment>Fine &amp; dandy</comment>`,
      'application/xml',
    );
    expect(res.status).toBe(200);
    expect(svc.db.prepare('SELECT action, comment FROM decisions WHERE work_item_id = ?').get(item.WorkItemId)).toEqual({
      action,
      comment: 'Fine & dandy',
    });
  });

  it('412s an item that is not the caller’s, an action the step does not list, and a missing parameter; 401s a token without the command', async () => {
    const item = await pending();
    const id = encodeURIComponent(item.WorkItemId);
    const others = await get(`cmd=performWorkItem&workitem-id=${id}&action=${item.Actions.ActionName[0]}`, 'approver+ops');
    expect([others.status, others.body.includes('could not be retrieved')]).toEqual([412, true]);
    const unlisted = await get(`cmd=performWorkItem&workitem-id=${id}&action=Escalated`);
    expect(unlisted.status).toBe(412);
    expect(unlisted.body).toContain("The action 'Escalated' is not valid for the work item.");
    expect((await get('cmd=performWorkItem&action=Accepted')).body).toContain('The workitem-id parameter is required.');
    const ops = await get(`cmd=performWorkItem&workitem-id=${id}&action=${item.Actions.ActionName[0]}`, 'ops');
    expect(ops.status).toBe(401);
    expect(ops.body).toContain("The token is not valid for the command 'performWorkItem'.");
    // None of them decided it.
    expect((await details(item.WorkItemId)).WorkItemCompletedDate).toBe('');
  });

  it('can answer late, having decided: the caller’s deadline passes with the decision made', async () => {
    const item = await pending();
    svc.setQuirks({ lateAnswers: { performWorkItem: 300 } });
    try {
      const started = performance.now();
      const res = await get(
        `cmd=performWorkItem&workitem-id=${encodeURIComponent(item.WorkItemId)}&action=${encodeURIComponent(item.Actions.ActionName[0] as string)}`,
      );
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      svc.setQuirks({});
    }
  });
});

describe('sessions', () => {
  const signIn = async (svc: ReferenceService) => {
    const res = await request(`${svc.url}/command.submit?cmd=loginTrustedApp&format=json`, {
      method: 'POST',
      headers: { clientid: svc.trustedApp.clientId, clientsecret: svc.trustedApp.clientSecret, 'content-type': 'application/json' },
    });
    return ((await res.body.json()) as { data: { token: string } }).data.token;
  };
  const find = async (svc: ReferenceService, token: string) => {
    const res = await request(`${svc.url}/command.submit?cmd=findApprovals&format=json&page-size=1&auth-user-id=ada.lovelace`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.statusCode, body: await res.body.text() };
  };

  it('kept in one instance’s memory: another instance over the same data does not know them, and a restart forgets them', async () => {
    const db = openReferenceDb();
    loadDemoData(db, clock.now());
    const a = await startReferenceService({ db, now: clock.now, sessions: 'instance' });
    const b = await startReferenceService({ db, now: clock.now, sessions: 'instance', trustedApp: a.trustedApp });
    try {
      const fromA = await signIn(a);
      expect((await find(a, fromA)).status).toBe(200);
      const onB = await find(b, fromA);
      expect(onB.status).toBe(401);
      expect(onB.body).toContain("The token is not valid for the command 'findApprovals'. Token is invalid or expired");
      const fromB = await signIn(b);
      expect((await find(b, fromB)).status).toBe(200);
      expect((await find(a, fromB)).status).toBe(401);
      // Nothing of either reached the shared data.
      expect(db.prepare('SELECT count(*) AS n FROM tokens').get()).toEqual({ n: 0 });

      a.forgetSessions();
      expect((await find(a, fromA)).status).toBe(401);
      expect((await find(b, fromB)).status).toBe(200);
      expect((await find(a, await signIn(a))).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
      db.close();
    }
  });

  it('of trusted applications end when revoked, users’ do not; signing in again gives a token that works', async () => {
    const appToken = await signIn(svc);
    expect((await find(svc, appToken)).status).toBe(200);
    svc.revokeAppSessions();
    expect((await find(svc, appToken)).body).toContain('Token is invalid or expired');
    expect((await get('cmd=findApprovals&format=json&page-size=1')).status).toBe(200);
    expect((await find(svc, await signIn(svc))).status).toBe(200);
  });

  it('of trusted applications end as soon as issued under a lifespan of 0, until the setting changes', async () => {
    svc.setAppTokenPolicy({ lifespanMs: 0, inactivityMs: null });
    try {
      expect((await find(svc, await signIn(svc))).body).toContain('Token is invalid or expired');
    } finally {
      svc.setAppTokenPolicy({ lifespanMs: 120 * 60_000, inactivityMs: 10 * 60_000 });
    }
    expect((await find(svc, await signIn(svc))).status).toBe(200);
  });
});

describe('what a request says, before and after it is decided', () => {
  it('does not change when it is decided: only its state, who completed it and when, and what can still be done', async () => {
    const own = await startReferenceService({ now: new TestClock('2026-11-22T12:00:00Z').now });
    try {
      const token = own.demoTokens.find((t) => t.label === 'approver')?.token ?? '';
      const call = async (query: string) => {
        const res = await request(`${own.url}/command.submit?format=json&${query}`, { headers: { authorization: `Bearer ${token}` } });
        expect(res.statusCode).toBe(200);
        return JSON.parse(await res.body.text());
      };
      const read = async (id: string) => {
        const approval = (await call(`cmd=getApprovalDetails&approval-id=${encodeURIComponent(id)}`)).getApprovalDetails.Approval;
        const items = (await call(`cmd=getRequestItems&approval-id=${encodeURIComponent(id)}&page-size=1000`)).getRequestItems;
        return { approval, items };
      };
      // What may change: the state, when and by whom it was completed, and the ways out of a step that is done.
      const content = ({ approval, items }: Awaited<ReturnType<typeof read>>) => {
        const { WorkItemState, WorkItemCompletedDate, WorkItemCompletedByName, Actions, ...rest } = approval;
        const { RequestStatus, RequestItems, ...head } = items;
        const list = RequestItems === undefined ? [] : [RequestItems.RequestItem].flat();
        return { rest, head, items: list.map(({ State, ...item }: Record<string, unknown>) => item) };
      };
      const pending = (await call('cmd=findApprovals&page-size=1000')).findApprovals.Approval as Array<{ WorkItemId: string }>;
      expect(pending.length).toBeGreaterThan(100);
      const before = new Map<string, Awaited<ReturnType<typeof read>>>();
      for (const { WorkItemId: id } of pending) before.set(id, await read(id));
      // Each decided with one of its actions in turn, so that every kind of ending is seen.
      let n = 0;
      for (const [id, { approval }] of before) {
        const actions = [approval.Actions?.ActionName ?? []].flat() as string[];
        const action = actions[n++ % actions.length] as string;
        const done = await call(
          `cmd=performWorkItem&workitem-id=${encodeURIComponent(id)}&action=${encodeURIComponent(action)}&comment=ok`,
        );
        expect(done.data.action).toBe(action);
      }
      for (const [id, was] of before) {
        const now = await read(id);
        expect(now.approval.WorkItemCompletedDate).not.toBe('');
        expect(content(now), id).toEqual(content(was));
      }
    } finally {
      await own.close();
    }
  });
});

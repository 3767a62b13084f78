/**
 * getApprovalDetails and getRequestItems against stub servers: what is sent (exactly, and nothing
 * when it would be wrong), every shape the XML-to-JSON conversion may give, and the errors,
 * "not offered" included, with the hour after which the command is tried again.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/runtime/secret.js';
import {
  DETAILS_MAX_BODY_BYTES,
  InvalidParameterError,
  MAX_ITEMS_KEPT,
  MissingParameterError,
  NOT_OFFERED_RECHECK_MS,
  NotFoundError,
  NotOfferedError,
  NotVisibleError,
  UnexpectedResponseError,
} from '../../src/service/index.js';
import { withStub } from '../helpers/service-stub.js';
import { sendBody, sendHtml } from '../helpers/stub-server.js';

const TOKEN = new Secret('ws3101abc:-28aff589:18a2758240d:-7c4e0.57');
const PAGE = { pageSize: 10, startPage: 1 };

const json = (value: unknown) => (_req: unknown, res: ServerResponse) => sendBody(res, 200, JSON.stringify(value));
const details = (approval: Record<string, unknown>) => json({ getApprovalDetails: { Approval: approval } });
const items = (root: unknown) => json({ getRequestItems: root });

describe('getApprovalDetails: what is sent', () => {
  it('asks for one approval by its id, percent-encoded, with auth-user-id for an application token', async () => {
    const { stub, client } = await withStub(details({ WorkItemId: '20512:WP DS:1' }));
    await client.getApprovalDetails('20512:WPDS:1', TOKEN);
    await client.getApprovalDetails('20512:W&P:1', TOKEN, { onBehalfOf: 'ada.lovelace' });
    await client.getApprovalDetails('20512:WP DS:1', TOKEN);
    expect(stub.requests.map((r) => r.url)).toEqual([
      '/aveksa/command.submit?cmd=getApprovalDetails&format=json&approval-id=20512%3AWPDS%3A1',
      '/aveksa/command.submit?cmd=getApprovalDetails&format=json&approval-id=20512%3AW%26P%3A1&auth-user-id=ada.lovelace',
      '/aveksa/command.submit?cmd=getApprovalDetails&format=json&approval-id=20512%3AWP%20DS%3A1',
    ]);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN.reveal()}`);
  });

  it('sends nothing for an id not of the service’s shape', async () => {
    const { stub, client } = await withStub(details({}));
    for (const id of ['', '1', '1:2', 'x:WPDS:1', '1:WPDS:y', '1: WPDS:1', '1:WP\nDS:1', `1:${'W'.repeat(65)}:1`, '1:W\u0000:1'])
      await expect(client.getApprovalDetails(id, TOKEN)).rejects.toBeInstanceOf(InvalidParameterError);
    expect(stub.requests).toEqual([]);
  });
});

describe('getApprovalDetails: what is accepted', () => {
  it('reads a full record as the real service captures show it', async () => {
    const { client } = await withStub(
      details({
        WorkItemId: '20512:WPDS:1',
        WorkItemName: 'Manager Approval',
        WorkItemDueDate: '2026-11-30 10:00:00.0',
        WorkItemCompletedDate: '',
        WorkItemCompletedByName: '',
        WorkItemState: 'Available',
        WorkItemReassignDisabled: false,
        RequestId: 20512,
        RequestName: 'Add Access for Wayne, Bruce',
        RequestedByName: 'AveksaAdmin,',
        RequestDescription: 'Line one\nLine two',
        RequestNotes: '',
        RequestHasAttachments: true,
        EmailApprovalEnabled: 'false',
        LineItemApprovalEnabled: 'TRUE',
        ExtraFields: '',
        Actions: { ActionName: ['Rejected', 'Accepted'] },
        SomethingNew: { nested: 1 },
      }),
    );
    const d = await client.getApprovalDetails('20512:WPDS:1', TOKEN);
    expect(d).toMatchObject({
      workItemId: '20512:WPDS:1',
      state: 'Available',
      reassignDisabled: false,
      requestId: '20512',
      requestedByName: 'AveksaAdmin,',
      description: 'Line one\nLine two',
      hasAttachments: true,
      emailApprovalEnabled: false,
      lineItemApprovalEnabled: true,
      actions: ['Rejected', 'Accepted'],
    });
    expect(d.fields.SomethingNew).toEqual({ nested: 1 });
  });

  it('takes one ActionName as a string, none as none, and tolerates odd wrappers', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ ActionName: 'Completed' }, ['Completed']],
      [{ ActionName: ['Approved', 'Rejected', 'Needs Info'] }, ['Approved', 'Rejected', 'Needs Info']],
      ['', []],
      [undefined, []],
      [{}, []],
      [
        [{ ActionName: 'A' }, { ActionName: ['B', 'A'] }],
        ['A', 'B'],
      ],
      ['Accepted', ['Accepted']],
    ];
    let i = 0;
    const { client } = await withStub((_req, res) => {
      const [actions] = cases[i++] as [unknown, string[]];
      sendBody(res, 200, JSON.stringify({ getApprovalDetails: { Approval: { WorkItemId: '1:A:1', Actions: actions } } }));
    });
    for (const [, expected] of cases) expect((await client.getApprovalDetails('1:A:1', TOKEN)).actions).toEqual(expected);
  });

  it('reads booleans as words or numbers, and leaves unreadable ones unsaid', async () => {
    const { client } = await withStub(
      details({ WorkItemId: '1:A:1', LineItemApprovalEnabled: 1, EmailApprovalEnabled: 'no', RequestHasAttachments: 'maybe' }),
    );
    const d = await client.getApprovalDetails('1:A:1', TOKEN);
    expect([d.lineItemApprovalEnabled, d.emailApprovalEnabled, d.hasAttachments, d.reassignDisabled]).toEqual([
      true,
      false,
      undefined,
      undefined,
    ]);
  });

  it('takes a list of one record, a record without the Approval wrapper, and fills in an id left out', async () => {
    let i = 0;
    const bodies = [
      { getApprovalDetails: { Approval: [{ WorkItemId: '1:A:1', WorkItemName: 'first' }, { WorkItemId: '2:A:1' }] } },
      { getApprovalDetails: { WorkItemId: '1:A:1', WorkItemName: 'bare' } },
      { getApprovalDetails: { Approval: { WorkItemName: 'no id' } } },
    ];
    const { client } = await withStub((_req, res) => sendBody(res, 200, JSON.stringify(bodies[i++])));
    expect((await client.getApprovalDetails('1:A:1', TOKEN)).workItemName).toBe('first');
    expect((await client.getApprovalDetails('1:A:1', TOKEN)).workItemName).toBe('bare');
    expect((await client.getApprovalDetails('7:B:2', TOKEN)).workItemId).toBe('7:B:2');
  });

  it('reads XML and the properties format of one record', async () => {
    let i = 0;
    const { client } = await withStub((_req, res) => {
      if (i++ === 0)
        return sendBody(
          res,
          200,
          '<getApprovalDetails><Approval><WorkItemId>1:A:1</WorkItemId><LineItemApprovalEnabled>true</LineItemApprovalEnabled><Actions><ActionName>Accepted</ActionName><ActionName>Rejected</ActionName></Actions></Approval></getApprovalDetails>',
          'application/xml',
        );
      sendBody(res, 200, 'WorkItemId=1:A:1\nRequestName=Add Access\nActionName=Completed,Canceled\n', 'text/plain');
    });
    expect(await client.getApprovalDetails('1:A:1', TOKEN)).toMatchObject({
      lineItemApprovalEnabled: true,
      actions: ['Accepted', 'Rejected'],
    });
    expect(await client.getApprovalDetails('1:A:1', TOKEN)).toMatchObject({
      requestName: 'Add Access',
      actions: ['Completed', 'Canceled'],
    });
  });

  it('refuses an answer that holds no approval', async () => {
    let i = 0;
    const bodies = ['{"getApprovalDetails":{}}', '{"something":"else"}', '', '{"getApprovalDetails":{"Approval":[]}}'];
    const { client } = await withStub((_req, res) => sendBody(res, 200, bodies[i++] as string));
    for (let n = 0; n < bodies.length; n++)
      await expect(client.getApprovalDetails('1:A:1', TOKEN)).rejects.toBeInstanceOf(UnexpectedResponseError);
  });
});

describe('getRequestItems', () => {
  it('sends the selector and the page exactly, and nothing out of bounds', async () => {
    const { stub, client } = await withStub(items({ NumRequestItems: 0 }));
    await client.getRequestItems({ approvalId: '20512:WPDS:1' }, { pageSize: 10, startPage: 3 }, TOKEN);
    await client.getRequestItems({ requestId: 20512 }, PAGE, TOKEN);
    await client.getRequestItems({ requestId: '20512' }, { pageSize: 1000, startPage: 1 }, TOKEN, { onBehalfOf: 'ada' });
    expect(stub.requests.map((r) => r.url)).toEqual([
      '/aveksa/command.submit?cmd=getRequestItems&format=json&approval-id=20512%3AWPDS%3A1&page-size=10&start-page=3',
      '/aveksa/command.submit?cmd=getRequestItems&format=json&request-id=20512&page-size=10&start-page=1',
      '/aveksa/command.submit?cmd=getRequestItems&format=json&request-id=20512&page-size=1000&start-page=1&auth-user-id=ada',
    ]);
    const bad: Array<[unknown, unknown]> = [
      [{}, PAGE],
      [{ approvalId: '1:A:1', requestId: '1' }, PAGE],
      [{ requestId: '1e3' }, PAGE],
      [{ requestId: 0 }, PAGE],
      [{ approvalId: '1:A:1' }, { pageSize: 0, startPage: 1 }],
      [{ approvalId: '1:A:1' }, { pageSize: 10, startPage: 1_000_001 }],
      [{ approvalId: '1:A:1' }, { pageSize: 10 }],
    ];
    for (const [selector, page] of bad)
      await expect(client.getRequestItems(selector as never, page as never, TOKEN)).rejects.toBeInstanceOf(InvalidParameterError);
    expect(stub.requests).toHaveLength(3);
  });

  it('takes RequestItem as an object, a list, or missing; numbers and booleans typed or as strings; unknown fields kept', async () => {
    const item = (id: number | string, extra: Record<string, unknown> = {}) => ({
      ItemId: id,
      TypeDescription: 'Add user to group',
      Operation: 'Add',
      EntitlementType: 'group',
      EntitlementName: 'Domain Admins',
      BusinessSource: 'Active Directory',
      State: 'Pending Approval',
      DerivedType: 'Direct',
      IsChangeToApprove: 'true',
      UserName: 'Wayne, Bruce',
      UserId: 'bwayne',
      AccountName: 'bwayne',
      ...extra,
    });
    const bodies = [
      {
        NumRequestItems: '1',
        RequestId: 20512,
        WorkItemId: '20512:WPDS:1',
        RequestStatus: 'Approvals Phase',
        RequestItems: { RequestItem: item('1') },
      },
      { NumRequestItems: 2, RequestItems: { RequestItem: [item(1, { GlobalRoleName: 'x' }), item(2, { IsChangeToApprove: false })] } },
      { NumRequestItems: 0 },
      { NumRequestItems: 0, RequestItems: '' },
      '',
      { RequestItems: [item(5)] },
      { RequestItem: item(6) },
    ];
    let i = 0;
    const { client } = await withStub((_req, res) => sendBody(res, 200, JSON.stringify({ getRequestItems: bodies[i++] })));
    const first = await client.getRequestItems({ approvalId: '20512:WPDS:1' }, PAGE, TOKEN);
    expect(first).toMatchObject({
      count: 1,
      total: undefined,
      requestId: '20512',
      workItemId: '20512:WPDS:1',
      requestStatus: 'Approvals Phase',
    });
    expect(first.items[0]).toMatchObject({ itemId: '1', userName: 'Wayne, Bruce', isChangeToApprove: true, operation: 'Add' });
    const second = await client.getRequestItems({ approvalId: '20512:WPDS:1' }, PAGE, TOKEN);
    expect(second.items.map((x) => [x.itemId, x.isChangeToApprove, x.fields.GlobalRoleName])).toEqual([
      ['1', true, 'x'],
      ['2', false, undefined],
    ]);
    for (let n = 0; n < 3; n++) expect((await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).items).toEqual([]);
    expect((await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).items.map((x) => x.itemId)).toEqual(['5']);
    expect((await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).items.map((x) => x.itemId)).toEqual(['6']);
  });

  it('reads a count larger than the answer as the request’s total', async () => {
    const { client } = await withStub(items({ NumRequestItems: 57, RequestItems: { RequestItem: [{ ItemId: 1 }, { ItemId: 2 }] } }));
    expect(await client.getRequestItems({ requestId: 1 }, { pageSize: 2, startPage: 1 }, TOKEN)).toMatchObject({ count: 57, total: 57 });
  });

  it('reads an empty or XML answer with no items as no items, and refuses an unreadable count', async () => {
    let i = 0;
    const { client } = await withStub((_req, res) => {
      const n = i++;
      if (n === 0) return sendBody(res, 200, '', 'application/json');
      if (n === 1) return sendBody(res, 200, '<getRequestItems><NumRequestItems>0</NumRequestItems></getRequestItems>', 'application/xml');
      sendBody(res, 200, JSON.stringify({ getRequestItems: { NumRequestItems: 'lots' } }));
    });
    expect((await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).items).toEqual([]);
    expect((await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).items).toEqual([]);
    await expect(client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).rejects.toBeInstanceOf(UnexpectedResponseError);
  });
});

describe('answers too large to read at once', () => {
  it('refuses an answer over 1 MiB, for either command, with a typed error that says so; findApprovals keeps its own limit', async () => {
    const big = JSON.stringify({
      getApprovalDetails: { Approval: { WorkItemId: '1:A:1', RequestDescription: 'x'.repeat(DETAILS_MAX_BODY_BYTES) } },
    });
    const { client } = await withStub((_req, res) => sendBody(res, 200, big));
    const refused = await client.getApprovalDetails('1:A:1', TOKEN).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnexpectedResponseError);
    expect(refused).toMatchObject({ tooLargeBytes: DETAILS_MAX_BODY_BYTES, detail: expect.stringContaining('larger than 1048576 bytes') });
    await expect(client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).rejects.toMatchObject({ tooLargeBytes: DETAILS_MAX_BODY_BYTES });
    const justUnder = JSON.stringify({
      getApprovalDetails: { Approval: { WorkItemId: '1:A:1', RequestDescription: 'x'.repeat(DETAILS_MAX_BODY_BYTES - 100) } },
    });
    const { client: second } = await withStub((_req, res) => sendBody(res, 200, justUnder));
    expect((await second.getApprovalDetails('1:A:1', TOKEN)).description).toHaveLength(DETAILS_MAX_BODY_BYTES - 100);
  });

  it('checks the first approval of a list only, and keeps a bounded number of items while counting them all', async () => {
    // Records past the ones kept would fail the schema (an object for an id): they are never checked.
    const many = [
      { WorkItemId: '1:A:1', RequestName: 'first' },
      ...Array.from({ length: 20_000 }, () => ({ WorkItemId: { not: 'an id' } })),
    ];
    const { client } = await withStub(json({ getApprovalDetails: { Approval: many } }));
    expect(await client.getApprovalDetails('1:A:1', TOKEN)).toMatchObject({ workItemId: '1:A:1', requestName: 'first' });
    const rows = [
      ...Array.from({ length: MAX_ITEMS_KEPT }, (_, i) => ({ ItemId: i + 1 })),
      ...Array.from({ length: 20_000 }, () => ({ ItemId: { no: 1 } })),
    ];
    let count: number | undefined;
    const { client: itemsClient } = await withStub((_req, res) =>
      sendBody(
        res,
        200,
        JSON.stringify({
          getRequestItems: { ...(count === undefined ? {} : { NumRequestItems: count }), RequestItems: { RequestItem: rows } },
        }),
      ),
    );
    const page = await itemsClient.getRequestItems({ requestId: 1 }, PAGE, TOKEN);
    expect(page.items).toHaveLength(MAX_ITEMS_KEPT);
    expect(page.items.at(-1)?.itemId).toBe(String(MAX_ITEMS_KEPT));
    expect(page).toMatchObject({ received: rows.length, count: rows.length, total: undefined });
    count = 90_000;
    expect(await itemsClient.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).toMatchObject({
      received: rows.length,
      count: 90_000,
      total: 90_000,
    });
  });

  it('refuses an answer nested deeper than any the service gives, before parsing it', async () => {
    const depth = 100_000;
    const deep = `{"getApprovalDetails":{"Approval":{"WorkItemId":"1:W:1","Actions":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
    const { client } = await withStub((_req, res) => sendBody(res, 200, deep));
    // What can be seen: a refusal that says why, not a parse that runs out of stack or holds the
    // loop (how long the refusal takes is `npm run bench -- parsers`).
    await expect(client.getApprovalDetails('1:W:1', TOKEN)).rejects.toMatchObject({
      kind: 'unexpected-response',
      detail: expect.stringContaining('nested deeper than'),
    });
    // Brackets inside strings are text, not nesting.
    const { client: text } = await withStub(details({ WorkItemId: '1:W:1', RequestDescription: '['.repeat(1000) }));
    expect((await text.getApprovalDetails('1:W:1', TOKEN)).description).toHaveLength(1000);
  });
});

describe('errors', () => {
  it('turns both 412 "required" messages into a missing parameter, and "could not be retrieved" into not visible', async () => {
    const messages = [
      'The approval-id parameter is required.',
      "Either the 'approval-id' or the 'request-id' parameter must be provided.",
      'The work item could not be retrieved',
      'The change request could not be retrieved',
    ];
    let i = 0;
    const { client } = await withStub((_req, res) => sendHtml(res, 412, messages[i++] as string, 'cmd=x'));
    const first = await client.getApprovalDetails('1:A:1', TOKEN).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(MissingParameterError);
    expect((first as MissingParameterError).parameter).toBe('approval-id');
    const second = await client.getRequestItems({ approvalId: '1:A:1' }, PAGE, TOKEN).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(MissingParameterError);
    expect((second as MissingParameterError).parameter).toBe('approval-id');
    const third = await client.getApprovalDetails('1:A:1', TOKEN).catch((e: unknown) => e);
    expect(third).toBeInstanceOf(NotVisibleError);
    expect((third as NotVisibleError).queryString).toBe('cmd=x');
    await expect(client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).rejects.toBeInstanceOf(NotVisibleError);
  });

  it('says "not offered" for a 404 whose reason phrase is the command, remembers it for an hour, then asks again', async () => {
    let now = 1_000_000;
    let off = true;
    const { stub, client } = await withStub(
      (req, res) => {
        const cmd = new URL(req.url ?? '', 'http://x').searchParams.get('cmd') ?? '';
        if (off && cmd === 'getApprovalDetails') {
          res.writeHead(404, 'getApprovalDetails', { 'content-type': 'text/html' });
          return res.end('<html><head><title>Error</title></head><body><p>getApprovalDetails</p></body></html>');
        }
        sendBody(
          res,
          200,
          JSON.stringify(
            cmd === 'getApprovalDetails' ? { getApprovalDetails: { Approval: { WorkItemId: '1:A:1' } } } : { getRequestItems: '' },
          ),
        );
      },
      { now: () => now },
    );
    expect(client.offers('getApprovalDetails')).toBe(true);
    const error = await client.getApprovalDetails('1:A:1', TOKEN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotOfferedError);
    expect((error as NotOfferedError).status).toBe(404);
    expect(client.offers('getApprovalDetails')).toBe(false);
    expect(client.offers('getRequestItems')).toBe(true);
    await client.getRequestItems({ requestId: 1 }, PAGE, TOKEN);
    // Within the hour nothing is sent: the answer would be the same.
    now += NOT_OFFERED_RECHECK_MS - 1;
    await expect(client.getApprovalDetails('1:A:1', TOKEN)).rejects.toMatchObject({ kind: 'not-offered', remembered: true });
    expect(stub.requests.filter((r) => r.url.includes('getApprovalDetails'))).toHaveLength(1);
    // An administrator switched it on: after the hour it is offered, and asked for, again.
    off = false;
    now += 1;
    expect(client.offers('getApprovalDetails')).toBe(true);
    expect((await client.getApprovalDetails('1:A:1', TOKEN)).workItemId).toBe('1:A:1');
    expect(stub.requests.filter((r) => r.url.includes('getApprovalDetails'))).toHaveLength(2);
  });

  it('tells "not offered" from any other 404', async () => {
    let i = 0;
    const { client } = await withStub((_req, res) => {
      const n = i++;
      if (n === 0) return sendHtml(res, 404, 'Not here');
      if (n === 1) return sendHtml(res, 404, "The command 'getRequestItems' is not a valid command.");
      res.writeHead(404, 'findApprovals', { 'content-type': 'text/html' });
      res.end('<html><head><title>Error</title></head><body><p>x</p></body></html>');
    });
    await expect(client.getApprovalDetails('1:A:1', TOKEN)).rejects.toBeInstanceOf(NotFoundError);
    expect(client.offers('getApprovalDetails')).toBe(true);
    await expect(client.getRequestItems({ requestId: 1 }, PAGE, TOKEN)).rejects.toBeInstanceOf(NotOfferedError);
    // Another command's name is no answer about this one.
    await expect(client.getApprovalDetails('1:A:1', TOKEN)).rejects.toBeInstanceOf(NotFoundError);
  });
});

/**
 * approvalDetails with a scripted service and a real in-memory store: whose credentials are used,
 * what each service answer becomes, and what is remembered on the link.
 */

import { describe, expect, it } from 'vitest';
import { approvalDetails, detailsOffered, ITEMS_PAGE_SIZE } from '../../src/approvals/details.js';
import { Secret } from '../../src/runtime/secret.js';
import {
  InvalidTokenError,
  NotOfferedError,
  NotVisibleError,
  type RequestItemsPage,
  ServiceUnavailableError,
} from '../../src/service/index.js';
import { failing, fakeDeps, fakeDetails, fakeService } from '../helpers/fakes.js';

const ADA = { teamId: 'T1', userId: 'UADA' };
const ID = '10001:WPDS:1';
const PAGE: RequestItemsPage = {
  items: [],
  received: 0,
  count: 0,
  total: undefined,
  workItemId: ID,
  requestId: '10001',
  requestStatus: 'Approvals Phase',
};

const link = async (t: ReturnType<typeof fakeDeps>) => (await t.deps.store.listLinks(ADA)).find((l) => l.command === 'findApprovals');

describe('approvalDetails', () => {
  it('asks for the details and the page of items together, with the reader’s own token, and notes the link as working', async () => {
    const t = fakeDeps({ service: fakeService({ items: async () => PAGE }) });
    await t.link('UADA');
    await t.link('UEVE');
    const outcome = await approvalDetails(t.deps, ADA, ID, 3);
    expect(outcome).toEqual({
      kind: 'details',
      details: fakeDetails({ workItemId: ID }),
      items: { kind: 'page', page: 3, pageSize: ITEMS_PAGE_SIZE, items: PAGE },
    });
    expect(t.fake.calls).toEqual([
      { command: 'getApprovalDetails', approvalId: ID, token: 'token-of-UADA' },
      {
        command: 'getRequestItems',
        selector: { approvalId: ID },
        page: { pageSize: ITEMS_PAGE_SIZE, startPage: 3 },
        token: 'token-of-UADA',
      },
    ]);
    expect(await link(t)).toMatchObject({ lastOutcome: 'ok' });
  });

  it('uses the link for this workspace, and no one else’s: not linked means no call', async () => {
    const t = fakeDeps();
    await t.link('UEVE');
    expect(await approvalDetails(t.deps, ADA, ID)).toEqual({ kind: 'not-linked' });
    expect(t.fake.calls).toEqual([]);
    await t.deps.store.setToken({ teamId: '', userId: 'UADA' }, ['findApprovals'], new Secret('any-workspace'), 'admin', t.deps.now());
    await approvalDetails(t.deps, ADA, ID);
    expect(t.fake.calls.map((c) => 'token' in c && c.token)).toEqual(['any-workspace', 'any-workspace']);
  });

  it('says "not visible" for a 412 "could not be retrieved"', async () => {
    const gone = new NotVisibleError({
      command: 'getApprovalDetails',
      status: 412,
      serviceMessage: 'The work item could not be retrieved',
    });
    const t = fakeDeps({
      service: fakeService({ ...failing('getApprovalDetails', gone), ...failing('getRequestItems', gone) }),
    });
    await t.link('UADA');
    expect(await approvalDetails(t.deps, ADA, ID)).toEqual({ kind: 'not-visible' });
  });

  it('says "not offered" when the service lacks getApprovalDetails, and reports what the client remembers', async () => {
    let offered = true;
    const t = fakeDeps({
      service: fakeService({
        details: async () => {
          offered = false;
          throw new NotOfferedError({ command: 'getApprovalDetails', status: 404 });
        },
        offers: () => offered,
      }),
    });
    await t.link('UADA');
    expect(detailsOffered(t.deps)).toBe(true);
    expect(await approvalDetails(t.deps, ADA, ID)).toEqual({ kind: 'not-offered' });
    expect(detailsOffered(t.deps)).toBe(false);
  });

  it('still shows the details when only the items cannot be had, saying why', async () => {
    const down = new ServiceUnavailableError('timeout', 'slow', { command: 'getRequestItems' });
    const t = fakeDeps({
      service: fakeService({
        items: async (selector) => {
          if ('requestId' in selector) throw new Error('unexpected');
          throw down;
        },
      }),
    });
    await t.link('UADA');
    expect(await approvalDetails(t.deps, ADA, ID)).toMatchObject({ kind: 'details', items: { kind: 'failed', error: down } });
    const off = fakeDeps({
      service: fakeService(failing('getRequestItems', new NotOfferedError({ command: 'getRequestItems', status: 404 }))),
    });
    await off.link('UADA');
    expect(await approvalDetails(off.deps, ADA, ID)).toMatchObject({ kind: 'details', items: { kind: 'not-offered' } });
  });

  it('fails on an expired token and marks the link refused; a token only barred from this command leaves the link alone', async () => {
    const expired = new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage: 'Token is invalid or expired' });
    const t = fakeDeps({
      service: fakeService(failing('getApprovalDetails', expired)),
    });
    await t.link('UADA');
    expect(await approvalDetails(t.deps, ADA, ID)).toEqual({ kind: 'failed', error: expired });
    expect(await link(t)).toMatchObject({ lastOutcome: 'rejected' });

    const barred = new InvalidTokenError({
      command: 'getApprovalDetails',
      status: 401,
      serviceMessage: "The token is not valid for the command 'getApprovalDetails'. ",
    });
    const u = fakeDeps({
      service: fakeService(failing('getApprovalDetails', barred)),
    });
    await u.link('UADA');
    expect(await approvalDetails(u.deps, ADA, ID)).toEqual({ kind: 'failed', error: barred });
    expect((await link(u))?.lastOutcome).toBeUndefined();
  });

  it('says the items are not permitted when the service bars only getRequestItems, and leaves the link as the details call found it', async () => {
    const barredItems = () =>
      new InvalidTokenError({
        command: 'getRequestItems',
        status: 401,
        serviceMessage: "The token is not valid for the command 'getRequestItems'. ",
      });
    const script = {
      items: async () => {
        // Answered after the details, so that a note of it would be the last word on the link.
        await new Promise((r) => setTimeout(r, 5));
        throw barredItems();
      },
    };
    const tokens = fakeDeps({ service: fakeService(script) });
    await tokens.link('UADA');
    expect(await approvalDetails(tokens.deps, ADA, ID)).toMatchObject({ kind: 'details', items: { kind: 'not-permitted' } });
    expect(await link(tokens)).toMatchObject({ lastOutcome: 'ok' });

    const trusted = fakeDeps({ trusted: true, service: fakeService({ ...script, loginApp: async () => new Secret('app-token') }) });
    await trusted.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', trusted.deps.now());
    expect(await approvalDetails(trusted.deps, ADA, ID)).toMatchObject({ kind: 'details', items: { kind: 'not-permitted' } });
    expect(await trusted.deps.store.getIdentity(ADA)).toMatchObject({ lastOutcome: 'ok' });
  });

  it('in the trusted mode, notes the identity refused only when the service refuses to act for the user, not for a command barred', async () => {
    const refusing = (serviceMessage: string) =>
      fakeDeps({
        trusted: true,
        service: fakeService({
          loginApp: async () => new Secret('app-token'),
          details: async () => {
            throw new InvalidTokenError({ command: 'getApprovalDetails', status: 401, serviceMessage });
          },
        }),
      });
    const barred = refusing("The token is not valid for the command 'getApprovalDetails'. ");
    await barred.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', barred.deps.now());
    expect(await approvalDetails(barred.deps, ADA, ID)).toMatchObject({ kind: 'failed' });
    expect((await barred.deps.store.getIdentity(ADA))?.lastOutcome).toBeUndefined();
    const unknown = refusing("The user 'ada.lovelace' given by auth-user-id could not be found.");
    await unknown.deps.store.setIdentity(ADA, { serviceUser: 'ada.lovelace', authsource: undefined }, 'login', unknown.deps.now());
    expect(await approvalDetails(unknown.deps, ADA, ID)).toMatchObject({ kind: 'failed' });
    expect(await unknown.deps.store.getIdentity(ADA)).toMatchObject({ lastOutcome: 'rejected' });
  });

  it('answers "failed" when its own database is away, and calls nothing', async () => {
    const t = fakeDeps();
    await t.link('UADA');
    await t.deps.store.close();
    expect(await approvalDetails(t.deps, ADA, ID)).toMatchObject({ kind: 'failed' });
    expect(t.fake.calls).toEqual([]);
  });
});

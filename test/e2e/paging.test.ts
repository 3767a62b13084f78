/**
 * Paging a list whose length the service never says, end to end: 20 pending approvals, 10 to a page.
 * Each page says which of the list it shows and that more may follow while it is full; Next from
 * the last full page finds nothing and offers the way back, Previous page; a short page offers no
 * Next and says how many there are in all; completed approvals say what their order is by.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_ACTIONS } from '../../src/render/approvals.js';
import { buttonsOf, textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.link('UADA', 'approver');
  // Ada's pending approvals: exactly twenty.
  h.service.db.prepare("DELETE FROM approvals WHERE approver_id = 'ada.lovelace' AND state = 'pending'").run();
  const insert = h.service.db.prepare(
    `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
       requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
       requested_at, due_at, completed_at)
     VALUES (?, 'Manager Approval', ?, ?, 'ada.lovelace', 'alan.turing', 'Alan', 'Turing', 'Active Directory', 'VPN Users', 'group',
       'pending', '2026-11-20 09:00:00.0', ?, NULL)`,
  );
  for (let i = 0; i < 20; i++)
    insert.run(`${80_000 + i}:WPDS:1`, 80_000 + i, `Request ${i}`, `2030-01-${String(i + 1).padStart(2, '0')} 10:00:00.0`);
});
afterAll(() => h.close());

type Page = Awaited<ReturnType<Harness['slack']['waitForResponses']>>[number];

async function command(text: string): Promise<Page> {
  const sent = await h.command('UADA', '/approvals', text);
  return (await h.slack.waitForResponses(sent.responseId, 1))[0] as Page;
}

async function click(page: Page, text: string): Promise<Page> {
  const button = buttonsOf(page).find((b) => b.text === text);
  expect(button, `${text} on the page`).toBeDefined();
  const sent = await h.click('UADA', button?.action_id ?? '', button?.value);
  return (await h.slack.waitForResponses(sent.responseId, 1))[0] as Page;
}

const paging = (page: Page) =>
  buttonsOf(page)
    .filter((b) => Object.values(PAGE_ACTIONS).includes(b.action_id as never))
    .map((b) => b.text);

describe('paging a list the service does not count', () => {
  it('says which of the list each page shows, and that more may follow while pages are full', async () => {
    const first = await command('page-size:10');
    expect(textOf(first)).toContain('no filters · by due date, soonest first · 1–10, 10 per page, more may follow');
    expect(paging(first)).toEqual(['Next page']);
    const second = await click(first, 'Next page');
    expect(textOf(second)).toContain('Pending approvals · page 2');
    expect(textOf(second)).toContain('11–20, 10 per page, more may follow');
    expect(paging(second)).toEqual(['Previous page', 'Next page']);

    // The last page was full, so Next was honest that more may follow; past the end, the way back is the page before.
    const past = await click(second, 'Next page');
    expect(textOf(past)).toContain('Nothing on page 3: the list ends before it.');
    expect(paging(past)).toEqual(['First page', 'Previous page']);
    const back = await click(past, 'Previous page');
    expect(textOf(back)).toContain('Pending approvals · page 2');
    expect(textOf(back)).toContain('`80019:WPDS:1`');
  });

  it('offers no Next on a short page, and says how many there are in all', async () => {
    const short = await command('page-size:8 start-page:3');
    expect(textOf(short)).toContain('17–20 of 20');
    expect(paging(short)).toEqual(['Previous page']);
    const all = await command('page-size:25');
    expect(textOf(all)).toContain('· 20 in all');
    expect(paging(all)).toEqual([]);
  });

  it('says completed approvals come by due date, the service’s only order', async () => {
    expect(textOf(await command('completed sort:desc'))).toContain('by due date, latest first (the service sorts by nothing else)');
  });
});

/**
 * Times end to end: a Command Service in New York (the reference service writing New York time,
 * COMMAND_SERVICE_TIME_ZONE=America/New_York) and an approver in Berlin. Every time she is shown is
 * Berlin time, named; what is overdue is decided on the real clock; a relative date filter covers
 * the days it says and the page says which; the digest and Home show every group.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETAILS_ACTIONS } from '../../src/render/details-controls.js';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { buttonsOf, textOf, viewsSent } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

// Tuesday 1 December 2026, 13:00 in Berlin, 07:00 in New York. From mid-November to mid-January
// neither city keeps summer time: Berlin is six hours ahead throughout the demo data.
let clock: TestClock;
let h: Harness;
beforeAll(async () => {
  clock = new TestClock('2026-12-01T12:00:00Z');
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, timeZone: 'America/New_York', demoTokenLifetimeMs: 30 * 86_400_000 },
    env: { COMMAND_SERVICE_TIME_ZONE: 'America/New_York', REMIND_WINDOW: '3d' },
    reminders: { spreadMs: 0 },
    startScheduler: false,
  });
  h.slack.timeZones.set('UBERLIN', 'Europe/Berlin');
  await h.link('UBERLIN', 'approver');
  // Due at 05:00 in New York today: 11:00 in Berlin, two hours ago.
  h.service.db
    .prepare(
      `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
         requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
         requested_at, due_at, completed_at)
       VALUES ('99001:WPDS:1', 'Manager Approval', 99001, 'Earlier today', 'ada.lovelace', 'alan.turing', 'Alan', 'Turing',
         'Active Directory', 'VPN Users', 'group', 'pending', '2026-11-25 09:00:00.0', '2026-12-01 05:00:00.0', NULL)`,
    )
    .run();
});
afterAll(() => h.close());

async function answer(text: string): Promise<string> {
  const sent = await h.command('UBERLIN', '/approvals', text);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  return textOf(body);
}

const ids = (text: string) => [...text.matchAll(/`(\d+:[A-Z]+:\d+)`/g)].map((m) => m[1] as string);
const dueAt = (id: string) =>
  (h.service.db.prepare('SELECT due_at FROM approvals WHERE work_item_id = ?').get(id) as { due_at: string }).due_at;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A New York time of this season as Berlin reads it: six hours later. Worked out here, not by the app's code. */
function inBerlin(newYork: string): string {
  const [day, time] = newYork.split(' ') as [string, string];
  const at = new Date(`${day}T${time.slice(0, 8)}Z`);
  at.setUTCHours(at.getUTCHours() + 6);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${WEEKDAYS[at.getUTCDay()]} ${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} Berlin time`;
}

describe('a New York service read in Berlin', () => {
  it('shows every due time in Berlin time, named', async () => {
    const text = await answer('page-size:20');
    const listed = ids(text);
    expect(listed.length).toBeGreaterThan(5);
    for (const id of listed) expect(text).toContain(`Due ${inBerlin(dueAt(id))}`);
    expect(text).not.toContain('service time');
  });

  it('shows completed times in Berlin time too', async () => {
    const text = await answer('completed page-size:5');
    const listed = ids(text);
    expect(listed.length).toBe(5);
    for (const id of listed) {
      const row = h.service.db.prepare('SELECT completed_at FROM approvals WHERE work_item_id = ?').get(id) as { completed_at: string };
      expect(text).toContain(`Completed ${inBerlin(row.completed_at)}`);
    }
  });

  it('calls a time that passed earlier today overdue, by its hours, and not “due today”', async () => {
    const text = await answer('approval-id:99001:WPDS:1');
    expect(text).toContain('Due Tue 1 Dec 2026, 11:00 Berlin time (*overdue by 2 hours*)');
    expect(text).not.toContain('due today');
  });

  it('takes due-before:7d as the seven days from today, and says where they end on her clock', async () => {
    const text = await answer('due-before:7d page-size:100 sort:desc');
    // Today (Tuesday the 1st) and the six days after it: New York's days to Monday the 7th, which ends at 06:00 on the 8th in Berlin.
    expect(text).toContain('due before Tue 8 Dec 2026, 06:00 Berlin time');
    expect(text).not.toContain('07-dec-2026');
    const latest = ids(text)[0] as string;
    expect(dueAt(latest) < '2026-12-08').toBe(true);
    expect(dueAt(latest) >= '2026-12-07').toBe(true);
  });

  it('shows the same times in the Details modal', async () => {
    const sent = await h.command('UBERLIN', '/approvals', 'approval-id:99001:WPDS:1');
    const [page] = await h.slack.waitForResponses(sent.responseId, 1);
    const details = buttonsOf(page).find((b) => b.action_id === DETAILS_ACTIONS.open);
    const opened = viewsSent(h.slack, 'views.update').length;
    await h.click('UBERLIN', DETAILS_ACTIONS.open, details?.value);
    await eventually('views.update', () => viewsSent(h.slack, 'views.update').length !== opened, 5000);
    const view = viewsSent(h.slack, 'views.update').at(-1)?.view as { blocks: unknown[] };
    expect(visible(view.blocks as never)).toContain('Due Tue 1 Dec 2026, 11:00 Berlin time (*overdue by 2 hours*)');
  });

  it('shows every group on Home, each counted, in Berlin time', async () => {
    const before = h.slack.apiCalls.filter((c) => c.method === 'views.publish').length;
    await h.event('UBERLIN', { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: '1.2' });
    await eventually('views.publish', () => h.slack.apiCalls.filter((c) => c.method === 'views.publish').length !== before, 5000);
    const call = h.slack.apiCalls.filter((c) => c.method === 'views.publish').at(-1);
    const view = JSON.parse(new URLSearchParams(call?.body ?? '').get('view') ?? '{}') as { blocks: unknown[] };
    const text = visible(view.blocks as never);
    expect(text).toMatch(
      // New York's days start at 06:00 in Berlin: the groups, like the dates of /approvals, follow them.
      /\*\d+\+? pending\* · :red_circle: \*\d+\+? overdue\* · \d+\+? due before 06:00 tomorrow · \d+\+? due before Fri 4 Dec, 06:00 · \d+\+? due later/,
    );
    expect(text).toContain(':red_circle: *Overdue*');
    expect(text).toContain(':large_blue_circle: *Due later*');
    expect(text).toContain('its days, which these groups and the dates of `/approvals` follow, run from 06:00 to 06:00 Berlin time.');
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} 2026, \d{2}:\d{2} Berlin time \(\*overdue by \d+ days\*\)/);
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} 2026, \d{2}:\d{2} Berlin time \(due in \d+ days\)/);
    expect(text).not.toContain('service time');
    expect(view.blocks.length).toBeLessThanOrEqual(100);
  });

  it('sends a digest that shows every group that has any, in Berlin time, with the command for the rest', async () => {
    await answer('remind daily 14:00');
    clock.advance(3_600_000 + 30_000);
    expect(await h.app.reminders.tick()).toMatchObject({ taken: 1, sent: 1 });
    const digest = h.slack.posted().filter((p) => p.channel === 'UBERLIN')[0];
    const text = visible(digest?.blocks as never);
    expect(digest?.text).toMatch(
      /^\d+\+? approvals need you: \d+ overdue, \d+ due before 06:00 tomorrow, \d+ due before Fri 4 Dec, 06:00$/,
    );
    expect(text).toContain(':red_circle: *Overdue*');
    expect(text).toMatch(/Due \w{3} \d{1,2} \w{3} 2026, \d{2}:\d{2} Berlin time \(\*overdue by \d+ days\*\)/);
    expect(text).toContain(':large_blue_circle: *Due before Fri 4 Dec, 06:00*');
    expect(text).toMatch(/…and \d+ more overdue: `\/approvals` lists them first\./);
    expect(text).not.toContain('service time');
    expect(digest?.blocks.length).toBeLessThanOrEqual(50);
  });
});

/**
 * Home far from the service's zone, end to end: a Command Service keeping London time, Grace in Los
 * Angeles (behind it) and Ada in Tokyo (ahead of it). What Home counts as due in its first groups,
 * the rows it shows under them and the command it offers for them mean the same approvals: the
 * command, typed, lists every one of them, and nothing more but what is already overdue.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { eventually } from '../helpers/eventually.js';
import { textOf } from '../helpers/fake-slack.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { visible } from '../helpers/visible.js';

// Friday 27 November 2026, 17:00 in London: 09:00 in Los Angeles, 02:00 on Saturday in Tokyo.
let clock: TestClock;
let h: Harness;
beforeAll(async () => {
  clock = new TestClock('2026-11-27T17:00:00Z');
  h = await startHarness({
    now: clock.now,
    reference: { now: clock.now, timeZone: 'Europe/London', demoTokenLifetimeMs: 30 * 86_400_000 },
    env: { COMMAND_SERVICE_TIME_ZONE: 'Europe/London', REMIND_WINDOW: '3d' },
    startScheduler: false,
  });
  h.slack.timeZones.set('UGRACE', 'America/Los_Angeles');
  h.slack.timeZones.set('UADA', 'Asia/Tokyo');
  await h.link('UGRACE', 'approver+ops');
  await h.link('UADA', 'approver');
  // Grace's and Ada's pending approvals, due every 50 minutes from a day ago to four days ahead, in London time.
  h.service.db.prepare("DELETE FROM approvals WHERE approver_id IN ('grace.hopper', 'ada.lovelace') AND state = 'pending'").run();
  const insert = h.service.db.prepare(
    `INSERT INTO approvals (work_item_id, work_item_name, request_id, request_name, approver_id, requester_id,
       requester_first_name, requester_last_name, business_source, entitlement_name, entitlement_type, state,
       requested_at, due_at, completed_at)
     VALUES (?, 'Manager Approval', ?, ?, ?, 'alan.turing', 'Alan', 'Turing', 'Active Directory', 'VPN Users', 'group',
       'pending', '2026-11-20 09:00:00.0', ?, NULL)`,
  );
  const london = new Intl.DateTimeFormat('sv-SE', {
    timeZone: 'Europe/London',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const start = clock.now().getTime() - 86_400_000;
  for (const [n, approver] of [
    [0, 'grace.hopper'],
    [1, 'ada.lovelace'],
  ] as const) {
    for (let i = 0; i < 140; i++) {
      const id = 90_000 + n * 1000 + i;
      insert.run(`${id}:WPDS:1`, id, `Request ${id}`, approver, `${london.format(new Date(start + i * 50 * 60_000))}.0`);
    }
  }
});
afterAll(() => h.close());

async function home(userId: string): Promise<string> {
  const published = () => h.slack.apiCalls.filter((c) => c.method === 'views.publish');
  const before = published().length;
  await h.event(userId, { type: 'app_home_opened', channel: 'D1', tab: 'home', event_ts: `${before}.2` });
  await eventually('Home published', () => published().length > before, 5000);
  const view = JSON.parse(new URLSearchParams(published().at(-1)?.body ?? '').get('view') ?? '{}') as { blocks: unknown[] };
  return visible(view.blocks as never);
}

/** A group of Home: its heading's words, its count, the ids shown under it, and the command offered for the rest. */
function group(text: string, title: RegExp): { count: number; ids: string[]; command: string | undefined } {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => title.test(l));
  expect(at, `${title} on Home`).toBeGreaterThan(-1);
  const count = Number(/\((\d+)\)$/.exec(lines[at] as string)?.[1]);
  const ids: string[] = [];
  let command: string | undefined;
  for (const line of lines.slice(at + 1)) {
    if (/^:\w+: \*/.test(line) || line.startsWith('[Refresh]')) break;
    const id = /^`(\d+:WPDS:1)`/.exec(line);
    if (id) ids.push(id[1] as string);
    const more = /^…and \d+ more .+?: `([^`]+)`/.exec(line);
    if (more) command = more[1];
  }
  return { count, ids, command };
}

async function listed(userId: string, command: string): Promise<{ waiting: string[]; overdue: string[] }> {
  const sent = await h.command(userId, '/approvals', `${command.replace(/^\/approvals /, '')} page-size:100`);
  const [body] = await h.slack.waitForResponses(sent.responseId, 1);
  const entries = textOf(body).split(/\n(?=\*Request )/);
  const ids = (overdue: boolean) =>
    entries
      .filter((e) => e.includes('overdue by') === overdue)
      .flatMap((e) => [...e.matchAll(/`(\d+:WPDS:1)`/g)].map((m) => m[1] as string));
  return { waiting: ids(false), overdue: ids(true) };
}

describe('Home far from the service’s zone', () => {
  it('in Los Angeles: today’s group ends where the service’s day does, and its command lists exactly its approvals', async () => {
    const text = await home('UGRACE');
    expect(text).toContain(
      'The Command Service counts days in London time: its days, which these groups and the dates of `/approvals` follow, run from 16:00 to 16:00 Los Angeles time.',
    );
    const today = group(text, /^:large_orange_circle: \*Due before 16:00 today\* \(\d+\)$/);
    expect(today.command).toBe('/approvals due-after:today due-before:today');
    const list = await listed('UGRACE', today.command as string);
    expect(list.waiting).toHaveLength(today.count);
    for (const id of today.ids) expect(list.waiting).toContain(id);
    // Everything else the command lists is overdue already: counted in the overdue group, not today's.
    const summary =
      /\* · :red_circle: \*(\d+) overdue\* · (\d+) due before 16:00 today · (\d+) due before Sun 29 Nov, 16:00 · (\d+)\+? due later/.exec(
        text,
      );
    expect(summary?.[2]).toBe(String(today.count));

    const soon = group(text, /^:large_blue_circle: \*Due before Sun 29 Nov, 16:00\* \(\d+\)$/);
    expect(soon.command).toBe('/approvals due-after:tomorrow due-before:3d');
    const soonList = await listed('UGRACE', soon.command as string);
    expect(soonList.overdue).toEqual([]);
    expect(soonList.waiting).toHaveLength(soon.count);
    for (const id of soon.ids) expect(soonList.waiting).toContain(id);
  });

  it('in Tokyo, before the service’s day has begun: today’s group holds what is due before it, and its command lists those too', async () => {
    const text = await home('UADA');
    // 02:00 on Saturday in Tokyo; London's Saturday starts at 09:00 there.
    expect(text).toContain('run from 09:00 to 09:00 Tokyo time.');
    const today = group(text, /^:large_orange_circle: \*Due before 09:00 tomorrow\* \(\d+\)$/);
    expect(today.command).toBe('/approvals due-after:yesterday due-before:today');
    const list = await listed('UADA', today.command as string);
    expect(list.waiting).toHaveLength(today.count);
    for (const id of today.ids) expect(list.waiting).toContain(id);
  });
});

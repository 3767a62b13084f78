/**
 * Home's and the digest's groups against the commands they offer, in every zone: a group holds
 * exactly the approvals not yet overdue that its command lists, the command read as /approvals
 * reads it and its dates applied as the service applies them (whole days of its own calendar).
 */

import { describe, expect, it } from 'vitest';
import { groupByDue } from '../../src/approvals/due.js';
import { parseApprovalsCommand } from '../../src/parse/approvals.js';
import { groupBlocks, groupCommand, groupWords } from '../../src/render/due.js';
import type { Approval } from '../../src/service/index.js';
import { readServiceDate } from '../../src/time/days.js';
import { type DueGroup, type TimeFrame, timeFrame } from '../../src/time/frame.js';
import { instantOf } from '../../src/time/zones.js';
import { visible } from '../helpers/visible.js';

const WINDOW = 3;
const two = (n: number) => String(n).padStart(2, '0');

/** Approvals due every 23 minutes, from two days before `now` to six after, written on the service's clock. */
function approvalsAround(now: Date, serviceZone: string): Approval[] {
  const out: Approval[] = [];
  for (let t = now.getTime() - 2 * 86_400_000, i = 0; t < now.getTime() + 6 * 86_400_000; t += 23 * 60_000, i++) {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone: serviceZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(new Date(t));
    const p = (type: string) => parts.find((x) => x.type === type)?.value ?? '';
    out.push({
      workItemId: `${i}:W:1`,
      workItemName: 'W',
      requestName: `R${i}`,
      dueDate: `${p('year')}-${p('month')}-${p('day')} ${p('hour')}:${p('minute')}:${p('second')}.0`,
      completedDate: '',
      fields: {},
    });
  }
  return out;
}

/** What the service lists for a command: its due dates, whole days of the service's calendar, both ends included. */
function listedBy(command: string, approvals: readonly Approval[], frame: TimeFrame): Set<string> {
  const zones = frame.serviceZone === undefined ? undefined : { user: frame.zone, service: frame.serviceZone };
  const parsed = parseApprovalsCommand(command.replace(/^\/approvals ?/, ''), frame.today, zones);
  if (parsed.kind !== 'query') throw new Error(`${command} is not a query`);
  const day = (text: string | undefined) => {
    const d = text === undefined ? undefined : readServiceDate(text);
    return d === undefined ? undefined : `${d.year}-${two(d.month)}-${two(d.day)}`;
  };
  const after = day(parsed.query['due-after']);
  const before = day(parsed.query['due-before']);
  return new Set(
    approvals
      .filter((a) => {
        const written = a.dueDate.slice(0, 10);
        return (after === undefined || written >= after) && (before === undefined || written <= before);
      })
      .map((a) => a.workItemId),
  );
}

/** Overdue on the real clock: the instant the service wrote has passed. */
function overdue(a: Approval, frame: TimeFrame): boolean {
  const [d, t] = a.dueDate.split(' ') as [string, string];
  const [year, month, day] = d.split('-').map(Number) as [number, number, number];
  const [hour, minute, second] = t.slice(0, 8).split(':').map(Number) as [number, number, number];
  return instantOf({ year, month, day, hour, minute, second }, frame.serviceZone ?? 'UTC') < frame.now;
}

const CASES: Array<[string, string, string]> = [
  // [the reader's zone, the service's, a UTC instant]: behind the service, ahead of it, half hours, and agreeing.
  ['America/Los_Angeles', 'Europe/London', '2026-11-27T17:00:00Z'], // 09:00 in Los Angeles
  ['America/Los_Angeles', 'Europe/London', '2026-11-28T01:30:00Z'], // 17:30 in Los Angeles: the service's today has ended
  ['Asia/Tokyo', 'Europe/London', '2026-11-27T03:00:00Z'], // 12:00 in Tokyo
  ['Asia/Tokyo', 'Europe/London', '2026-11-26T22:00:00Z'], // 07:00 in Tokyo: the service's today has not begun
  ['Asia/Kolkata', 'America/New_York', '2026-11-27T10:00:00Z'],
  ['America/St_Johns', 'Europe/London', '2026-11-27T13:00:00Z'],
  ['Europe/London', 'Europe/London', '2026-11-27T19:00:00Z'],
  ['Europe/Berlin', 'America/New_York', '2026-03-09T12:00:00Z'], // New York in summer time, Berlin not yet
];

describe('the groups and the commands they offer', () => {
  it.each(CASES)('hold the same approvals, for a reader in %s and a service in %s, at %s', (zone, serviceZone, at) => {
    const frame = timeFrame(new Date(at), zone, serviceZone);
    const approvals = approvalsAround(frame.now, serviceZone);
    const groups = groupByDue(approvals, frame, WINDOW);
    for (const g of ['today', 'soon', 'later'] as DueGroup[]) {
      const { command } = groupCommand(g, WINDOW, frame);
      const listed = listedBy(command, approvals, frame);
      const expected = approvals.filter((a) => listed.has(a.workItemId) && !overdue(a, frame)).map((a) => a.workItemId);
      expect(
        groups[g].approvals.map((a) => a.workItemId),
        `${g}: ${command}`,
      ).toEqual(expected);
    }
    // Nothing is lost between the groups: every approval not overdue is in one of them.
    const grouped = groups.today.approvals.length + groups.soon.approvals.length + groups.later.approvals.length;
    expect(grouped).toBe(approvals.filter((a) => !overdue(a, frame)).length);
  });

  it('names the groups by where they end on the reader’s clock when the service’s days start at another hour, and says why', () => {
    // 09:00 on Friday 27 November in Los Angeles; the service keeps London time, whose days start at 16:00 there.
    const frame = timeFrame(new Date('2026-11-27T17:00:00Z'), 'America/Los_Angeles', 'Europe/London');
    expect(groupWords('today', frame, WINDOW).title).toBe(':large_orange_circle: *Due before 16:00 today*');
    expect(groupWords('soon', frame, WINDOW).title).toBe(':large_blue_circle: *Due before Sun 29 Nov, 16:00*');
    expect(groupWords('soon', frame, 2).phrase).toBe('due before 16:00 tomorrow');
    const approvals = approvalsAround(frame.now, 'Europe/London');
    const text = visible(
      groupBlocks({
        groups: groupByDue(approvals, frame, WINDOW, 'later'),
        order: ['overdue', 'today', 'soon', 'later'],
        room: 20,
        frame,
        windowDays: WINDOW,
        links: undefined,
        details: undefined,
      }),
    );
    expect(text).toContain(
      'The Command Service counts days in London time: its days, which these groups and the dates of `/approvals` follow, run from 16:00 to 16:00 Los Angeles time.',
    );
    expect(text).toMatch(/…and \d+ more due before 16:00 today: `\/approvals due-after:today due-before:today` lists today’s\./);
    // Every row is marked as its group's heading is: orange under today's, though some are due tomorrow on her calendar.
    let heading: string | undefined;
    const marks: string[] = [];
    for (const line of text.split('\n')) {
      const head = /^:(\w+): \*Due/.exec(line) ?? /^:(\w+): \*Overdue/.exec(line);
      if (head) heading = head[1];
      const row = /^:(\w+): Due /.exec(line);
      if (row) marks.push(`${heading}=${row[1]}`);
    }
    expect(marks.length).toBeGreaterThan(10);
    for (const m of marks) expect(m.split('=')[0]).toBe(m.split('=')[1]);
  });

  it('names them by days alone where the service’s days meet the reader’s', () => {
    const london = timeFrame(new Date('2026-11-27T19:00:00Z'), 'Europe/London', 'Europe/London');
    expect(groupWords('today', london, WINDOW).title).toBe(':large_orange_circle: *Due today*');
    expect(groupWords('soon', london, WINDOW).title).toBe(':large_blue_circle: *Due by Sun 29 Nov*');
    const unknown = timeFrame(new Date('2026-11-27T19:00:00Z'), 'Asia/Tokyo', undefined);
    expect(groupWords('today', unknown, WINDOW).title).toBe(':large_orange_circle: *Due today*');
  });
});

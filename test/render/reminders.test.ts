import { describe, expect, it } from 'vitest';
import { groupByDue } from '../../src/approvals/due.js';
import { buildDigest } from '../../src/reminders/digest.js';
import type { Message } from '../../src/render/blocks.js';
import { DIGEST_MAX_ENTRIES, renderDigest, renderReminderSet } from '../../src/render/reminders.js';
import type { Approval } from '../../src/service/index.js';
import type { DueGroup } from '../../src/time/frame.js';
import { timeFrame } from '../../src/time/frame.js';
import { visible } from '../helpers/visible.js';

/** Monday 23 November 2026, 08:30 in New York; the service's times as written (its zone not given). */
const FRAME = timeFrame(new Date('2026-11-23T13:30:00Z'), 'America/New_York', undefined);
const schedule = { days: 'weekdays' as const, minuteOfDay: 510, timeZone: 'America/New_York' };
const due = (day: string, i = 0): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'W',
  requestName: `R${i}`,
  dueDate: `${day} 10:00:00.0`,
  completedDate: '',
  fields: {},
});
/** What a reminder would send: nothing at all when nothing is due. `full`: the fetch came back full, ending in that group. */
const digest = (approvals: Approval[], full?: DueGroup, frame = FRAME) => {
  const built = buildDigest({
    groups: groupByDue(approvals, frame, 3, full),
    frame,
    windowDays: 3,
    schedule,
    fullList: { userId: 'U1', query: {} },
  });
  return built && renderDigest(built, undefined);
};
const sections = (m: Message | undefined) =>
  (m?.blocks ?? []).flatMap((b) => (b.type === 'section' ? [(b as { text: { text: string } }).text.text] : []));

describe('renderDigest', () => {
  it('is nothing at all when nothing is overdue or due within the window', () => {
    expect(digest([])).toBeUndefined();
    expect(digest([due('2026-11-26'), due('2027-01-01'), { ...due('2026-11-23'), dueDate: 'soon' }])).toBeUndefined();
  });

  it('groups overdue, due today and due within the window (today and the two days after it), leaving out later ones', () => {
    const m = digest([due('2026-11-20', 1), due('2026-11-23', 2), due('2026-11-24', 3), due('2026-11-25', 4), due('2026-11-26', 5)]);
    expect(m?.text).toBe('4 approvals need you: 1 overdue, 1 due today, 2 due by Wed 25 Nov');
    expect(sections(m)).toEqual([
      ':red_circle: *Overdue* (1)',
      ':large_orange_circle: *Due today* (1)',
      ':large_blue_circle: *Due by Wed 25 Nov* (2)',
    ]);
    const text = JSON.stringify(m?.blocks);
    expect(text).not.toContain('*R5*');
    expect(text).toContain('every weekday at 08:30 New York time');
    expect(text).toContain('digest:full-list');
    // Times as the service wrote them, and said to be the service's.
    expect(visible(m?.blocks)).toContain('Due Tue 24 Nov 2026, 10:00 service time (due tomorrow)');
  });

  it('says one approval in the singular', () => {
    expect(digest([due('2026-11-23', 1)])?.blocks[0]).toMatchObject({ text: { text: '1 approval needs you' } });
  });

  it('shows every group when many are overdue: each counted, with its first approvals, and the command for the rest', () => {
    // Regression: 60 overdue filled the digest, and the 40 due soon were not even named.
    const many = Array.from({ length: 100 }, (_, i) => due(i < 60 ? '2026-11-01' : i < 64 ? '2026-11-23' : '2026-11-24', i));
    const m = digest(many, 'soon');
    expect(m?.blocks.length).toBeLessThanOrEqual(50);
    const text = visible(m?.blocks);
    expect(sections(m)).toEqual([
      ':red_circle: *Overdue* (60)',
      ':large_orange_circle: *Due today* (4)',
      ':large_blue_circle: *Due by Wed 25 Nov* (36+)',
    ]);
    expect(text.match(/\*R\d+\*/g)).toHaveLength(DIGEST_MAX_ENTRIES);
    // Shared out: all 4 of today's, and the rest of the room split between the other two.
    expect(text).toContain('*R60*');
    expect(text).toContain('*R63*');
    expect(text).toContain('*R64*');
    expect(text).toContain('…and 54 more overdue: `/approvals` lists them first.');
    expect(text).not.toContain('more due today');
    expect(text).toContain('…and 31+ more due by Wed 25 Nov: `/approvals due-after:tomorrow due-before:3d` lists them.');
    expect(m?.text).toBe('100+ approvals need you: 60 overdue, 4 due today, 36+ due by Wed 25 Nov');
  });

  it('decides overdue on the real clock when the service’s zone is known, and shows its times in the reader’s', () => {
    // 08:30 in New York; the service writes Berlin time. 10:00 Berlin is 04:00 in New York: already past.
    const ny = timeFrame(new Date('2026-11-23T13:30:00Z'), 'America/New_York', 'Europe/Berlin');
    const m = digest([due('2026-11-23', 1), { ...due('2026-11-23', 2), dueDate: '2026-11-23 22:00:00.0' }], undefined, ny);
    expect(sections(m)).toEqual([':red_circle: *Overdue* (1)', ':large_orange_circle: *Due before 18:00 today* (1)']);
    expect(visible(m?.blocks)).toContain('Due Mon 23 Nov 2026, 04:00 New York time (*overdue by 4 hours*)');
    expect(visible(m?.blocks)).toContain('Due Mon 23 Nov 2026, 16:00 New York time (due today)');
  });

  it('with a window of one day, speaks of today alone, and not of a “soon” that cannot be', () => {
    const built = buildDigest({
      groups: groupByDue([due('2026-11-20', 1), due('2026-11-23', 2), due('2026-11-24', 3)], FRAME, 1),
      frame: FRAME,
      windowDays: 1,
      schedule,
      fullList: { userId: 'U1', query: {} },
    });
    const m = built && renderDigest(built, undefined);
    expect(m?.text).toBe('2 approvals need you: 1 overdue, 1 due today');
    expect(visible(m?.blocks)).not.toMatch(/soon|Due by/);
  });

  it('says there may be more when the group’s count is not known whole', () => {
    const m = buildDigest({
      groups: {
        overdue: { approvals: [due('2026-11-01', 1)], more: true },
        today: { approvals: [], more: false },
        soon: { approvals: [], more: true },
        later: { approvals: [], more: true },
      },
      frame: FRAME,
      windowDays: 2,
      schedule,
      fullList: { userId: 'U1', query: {} },
    });
    const text = visible(m ? renderDigest(m, undefined).blocks : []);
    expect(text).toContain(':red_circle: *Overdue* (1+)');
    expect(text).toContain('There may be more overdue: `/approvals` lists them first.');
    expect(text).toContain(':large_blue_circle: *Due tomorrow* (0+)');
    expect(text).toContain('There may be more due tomorrow: `/approvals due-after:tomorrow due-before:2d` lists them.');
  });
});

describe('renderReminderSet', () => {
  it('says when the first digest comes, in the user’s zone, and what is missing', () => {
    const m = renderReminderSet({
      kind: 'set',
      schedule,
      nextAt: new Date('2026-11-23T13:30:00Z'),
      windowDays: 1,
      zoneGuessed: true,
      notLinked: true,
    });
    const text = JSON.stringify(m);
    expect(text).toContain('Next: *Mon 23 Nov 2026, 08:30 New York time*');
    expect(text).toContain('due within 1 day.');
    expect(text).toContain('times are in UTC');
    expect(text).toContain('/approvals login');
    expect(m.text).toContain('every weekday at 08:30 New York time');
    expect(m.text).not.toContain(':alarm_clock:');
  });
});

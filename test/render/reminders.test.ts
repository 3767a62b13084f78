import { describe, expect, it } from 'vitest';
import { buildDigest } from '../../src/reminders/digest.js';
import { DIGEST_MAX_ENTRIES, renderDigest, renderReminderSet } from '../../src/render/reminders.js';
import type { Approval } from '../../src/service/index.js';
import { visible } from '../helpers/visible.js';

const TODAY = { year: 2026, month: 11, day: 23 };
const schedule = { days: 'weekdays' as const, minuteOfDay: 510, timeZone: 'America/New_York' };
const due = (day: string, i = 0): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'W',
  requestName: `R${i}`,
  dueDate: `${day} 10:00:00.0`,
  completedDate: '',
  fields: {},
});
/** What a reminder would send: nothing at all when nothing is due. */
const digest = (approvals: Approval[], more = false) => {
  const built = buildDigest({ approvals, more, today: TODAY, windowDays: 3, schedule, fullList: { userId: 'U1', query: {} } });
  return built && renderDigest(built, undefined);
};

describe('renderDigest', () => {
  it('is nothing at all when nothing is overdue or due within the window', () => {
    expect(digest([])).toBeUndefined();
    expect(digest([due('2026-11-27'), due('2027-01-01'), { ...due('2026-11-23'), dueDate: 'soon' }])).toBeUndefined();
  });

  it('groups overdue, due today and due within the window, leaving out later ones', () => {
    const m = digest([due('2026-11-20', 1), due('2026-11-23', 2), due('2026-11-24', 3), due('2026-11-26', 4), due('2026-11-27', 5)]);
    const text = JSON.stringify(m?.blocks);
    expect(m?.text).toBe('4 approvals need you: 1 overdue, 1 due today, 2 due soon');
    expect(text.indexOf('*Overdue* (1)')).toBeLessThan(text.indexOf('*Due today* (1)'));
    expect(text.indexOf('*Due today* (1)')).toBeLessThan(text.indexOf('*Due in the next 3 days* (2)'));
    expect(text).not.toContain('*R5*');
    expect(text).toContain('every weekday at 08:30 (America/New_York)');
    expect(text).toContain('digest:full-list');
  });

  it('says one approval in the singular', () => {
    expect(digest([due('2026-11-23', 1)])?.blocks[0]).toMatchObject({ text: { text: '1 approval needs you' } });
  });

  it('shows at most DIGEST_MAX_ENTRIES, within 50 blocks, and says how many more', () => {
    const many = Array.from({ length: 100 }, (_, i) => due(i < 60 ? '2026-11-01' : '2026-11-24', i));
    const m = digest(many, true);
    expect(m?.blocks.length).toBeLessThanOrEqual(50);
    expect(visible(m?.blocks).match(/\*R\d+\*/g)).toHaveLength(DIGEST_MAX_ENTRIES);
    expect(visible(m?.blocks)).toContain(`…and ${100 - DIGEST_MAX_ENTRIES}+ more.`);
    expect(m?.text).toContain('100+ approvals need you');
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
    expect(text).toContain('Next: *Mon 23 Nov, 08:30*');
    expect(text).toContain('due within 1 day.');
    expect(text).toContain('times are in UTC');
    expect(text).toContain('/approvals login');
    expect(m.text).toContain('America/New_York');
    expect(m.text).not.toContain(':alarm_clock:');
  });
});

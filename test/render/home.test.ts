import { describe, expect, it } from 'vitest';
import { HOME_COUNT_WINDOW, renderHome } from '../../src/render/home.js';
import type { Approval } from '../../src/service/index.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const due = (day: string, i = 0): Approval => ({
  workItemId: `${i}:W:1`,
  workItemName: 'W',
  requestName: `R${i}`,
  dueDate: `${day} 10:00:00.0`,
  completedDate: '',
  fields: {},
});
const link = {
  teamId: 'T1',
  userId: 'U1',
  linkedAt: new Date('2026-11-01T00:00:00Z'),
  source: 'login' as const,
  lastUsedAt: undefined,
  lastOutcome: undefined,
};
const links = [
  { ...link, command: 'findApprovals' as const },
  { ...link, command: 'collectEntitlements' as const },
];
const commands = ['findApprovals', 'collectEntitlements'] as const;

describe('renderHome', () => {
  it('counts overdue, due today and due later this week from the user’s today', () => {
    const pending = [
      due('2026-11-20', 1),
      due('2026-11-21', 2),
      due('2026-11-22', 3),
      due('2026-11-23', 4),
      due('2026-11-29', 5),
      due('2026-11-30', 6),
    ];
    const view = renderHome({ links, commands, approvals: { pending, page: 1, today: TODAY } });
    expect(JSON.stringify(view)).toContain('*6 pending* · :red_circle: *2 overdue* · 1 due today · 2 more this week');
  });

  it('marks counts that may go on past the window with +', () => {
    const pending = Array.from({ length: HOME_COUNT_WINDOW }, (_, i) => due('2026-11-01', i));
    const view = renderHome({ links, commands, approvals: { pending, page: 10, today: TODAY } });
    expect(JSON.stringify(view)).toContain(`*${HOME_COUNT_WINDOW}+ pending* · :red_circle: *${HOME_COUNT_WINDOW}+ overdue*`);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view)).toContain('home:previous');
    expect(JSON.stringify(view)).not.toContain('home:next');
  });

  it('says when nothing waits, and shows the problem instead of a list when there is one', () => {
    expect(JSON.stringify(renderHome({ links, commands, approvals: { pending: [], page: 1, today: TODAY } }))).toContain(
      'Nothing waits for you.',
    );
    const problem = JSON.stringify(renderHome({ links, commands, problem: 'The Command Service cannot be reached right now.' }));
    expect(problem).toContain(':warning: The Command Service cannot be reached right now.');
    expect(problem).toContain('Link again');
  });

  it('asks an unlinked user to link, and shows no list', () => {
    const view = JSON.stringify(renderHome({ links: [], commands }));
    expect(view).toContain('Link your account to see the approvals waiting for you here.');
    expect(view).toContain('"text":"Link your account"');
  });
});

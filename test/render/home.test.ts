import { describe, expect, it } from 'vitest';
import { approvalPages } from '../../src/config.js';
import { HOME_COUNT_WINDOW, type HomeOutcome } from '../../src/home/home.js';
import { translateFailure } from '../../src/render/errors.js';
import { type HomeInput, renderHome as render } from '../../src/render/home.js';
import { ServiceUnavailableError } from '../../src/service/errors.js';
import type { Approval } from '../../src/service/index.js';
import { visible } from '../helpers/visible.js';

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

/** The Home tab for a use-case outcome, as the adapter renders it on TODAY. */
function renderHome(
  input: Partial<HomeOutcome> & Partial<Pick<HomeInput, 'problem' | 'approvalLinks'>> & { commands: HomeInput['commands'] },
) {
  const { problem, approvalLinks, commands: shown, ...outcome } = input;
  return render({ outcome: { links: [], ...outcome }, today: TODAY, commands: shown, problem, approvalLinks });
}

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
    const view = renderHome({ links, commands, approvals: { pending, page: 1 } });
    expect(visible(view.blocks)).toContain('*6 pending* · :red_circle: *2 overdue* · 1 due today · 2 more this week');
  });

  it('marks counts that may go on past the window with +', () => {
    const pending = Array.from({ length: HOME_COUNT_WINDOW }, (_, i) => due('2026-11-01', i));
    const view = renderHome({ links, commands, approvals: { pending, page: 10 } });
    expect(visible(view.blocks)).toContain(`*${HOME_COUNT_WINDOW}+ pending* · :red_circle: *${HOME_COUNT_WINDOW}+ overdue*`);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(view)).toContain('home:previous');
    expect(JSON.stringify(view)).not.toContain('home:next');
  });

  it('says when nothing waits, and shows the problem instead of a list when there is one', () => {
    expect(visible(renderHome({ links, commands, approvals: { pending: [], page: 1 } }).blocks)).toContain('Nothing waits for you.');
    const failure = new ServiceUnavailableError('network', 'refused', { command: 'findApprovals' });
    const translated = translateFailure(failure, { slash: '/approvals', command: 'findApprovals', userId: 'U1', reference: 'r1' });
    const problem = visible(renderHome({ links, commands, problem: translated.message }).blocks);
    expect(problem).toContain(':electric_plug: The Command Service cannot be reached right now. Try again in a few minutes.');
    expect(problem).toContain('[Link again]');
  });

  it('shows an unlinked user how to link, and nothing else', () => {
    const view = renderHome({ links: [], commands });
    const text = visible(view.blocks);
    expect(text).toContain('Welcome to countersign');
    expect(text).toContain('[Link your account]');
    expect(text).not.toContain('Your approvals');
    expect(text).not.toContain('[Unlink]');
    expect(view.blocks).toHaveLength(4);
  });

  it('shows one approval with its due date, and no paging', () => {
    const view = renderHome({ links, commands, approvals: { pending: [due('2026-11-25', 7)], page: 1 } });
    const text = visible(view.blocks);
    expect(text).toContain('*1 pending* · :red_circle: *0 overdue* · 0 due today · 1 more this week');
    expect(text).toContain('*R7*');
    expect(text).toContain('due in 3 days');
    expect(text).not.toContain('[Next →]');
    expect(text).not.toContain('[← Previous]');
  });

  it('marks overdue approvals and pages many, ten at a time', () => {
    const pending = Array.from({ length: 25 }, (_, i) => due(i < 5 ? '2026-11-19' : '2026-12-15', i));
    const view = renderHome({ links, commands, approvals: { pending, page: 1 } });
    const text = visible(view.blocks);
    expect(text).toContain('*25 pending* · :red_circle: *5 overdue*');
    expect(text.match(/overdue by 3 days/g)).toHaveLength(5);
    expect(text.match(/\*R\d+\*/g)).toHaveLength(10);
    expect(JSON.stringify(view)).toContain('home:next');
    const last = visible(renderHome({ links, commands, approvals: { pending, page: 3 } }).blocks);
    expect(last.match(/\*R\d+\*/g)).toHaveLength(5);
    expect(last).not.toContain('[Next →]');
  });

  it('gives each approval an Open button when the service’s page is known, with the id URL-encoded', () => {
    const view = renderHome({
      links,
      commands,
      approvals: { pending: [due('2026-11-25', 7)], page: 1 },
      approvalLinks: approvalPages('https://igl.example.com/aveksa/main?WorkItemId={WorkItemId}'),
    });
    const open = view.blocks
      .flatMap((b) =>
        b.type === 'actions'
          ? ((b as { elements: unknown[] }).elements as Array<{ action_id: string; url?: string; text: { text: string } }>)
          : [],
      )
      .find((e) => e.action_id === 'approval:open');
    expect(open?.text.text).toBe('Open');
    expect(open?.url).toBe('https://igl.example.com/aveksa/main?WorkItemId=7%3AW%3A1');
  });

  it('offers Unlink behind an “are you sure?”, and says what the reminder is', () => {
    const at = new Date('2026-11-23T08:30:00Z');
    const reminder = {
      ...link,
      days: 'weekdays' as const,
      minuteOfDay: 510,
      timeZone: 'Europe/London',
      nextAt: at,
      dueAt: at,
      pausedAt: undefined,
      sentFor: undefined,
    };
    const view = renderHome({ links, commands, reminder: { reminder, paused: false } });
    const text = visible(view.blocks);
    expect(text).toContain('every weekday at 08:30 (Europe/London) · next Mon 23 Nov, 08:30');
    const unlink = view.blocks
      .flatMap((b) => (b.type === 'actions' ? (b as { elements: unknown[] }).elements : []))
      .find((e) => (e as { action_id?: string }).action_id === 'home:unlink') as { confirm?: { title: { text: string } }; style?: string };
    expect(unlink.style).toBe('danger');
    expect(unlink.confirm?.title.text).toBe('Unlink your account?');
  });
});

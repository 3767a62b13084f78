import { describe, expect, it } from 'vitest';
import { DUE_FETCH, groupByDue } from '../../src/approvals/due.js';
import { approvalPages } from '../../src/config.js';
import type { HomeOutcome } from '../../src/home/home.js';
import { translateFailure } from '../../src/render/errors.js';
import { HOME_ACTIONS, HOME_MAX_ENTRIES, type HomeInput, renderHome as render, unlinkText } from '../../src/render/home.js';
import { ServiceUnavailableError } from '../../src/service/errors.js';
import type { Approval } from '../../src/service/index.js';
import { type DueGroup, timeFrame } from '../../src/time/frame.js';
import { visible } from '../helpers/visible.js';

/** Sunday 22 November 2026, 07:00 in London; the service's times as written (its zone not given). */
const FRAME = timeFrame(new Date('2026-11-22T07:00:00Z'), 'Europe/London', undefined);
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

/** Pending approvals as the use case groups them; `fullFrom`: the fetch came back full, ending in that group. */
const grouped = (pending: Approval[], fullFrom?: DueGroup) => groupByDue(pending, FRAME, 3, fullFrom);

/** The Home tab for a use-case outcome, as the adapter renders it on FRAME's day, with a window of 3 days. */
function renderHome(
  input: Partial<HomeOutcome> & Partial<Pick<HomeInput, 'problem' | 'approvalLinks'>> & { commands: HomeInput['commands'] },
) {
  const { problem, approvalLinks, commands: shown, ...outcome } = input;
  return render({ outcome: { links: [], ...outcome }, frame: FRAME, windowDays: 3, commands: shown, problem, approvalLinks });
}
const sections = (view: { blocks: unknown[] }) =>
  (view.blocks as Array<{ type: string; text?: { text: string } }>).flatMap((b) => (b.type === 'section' ? [b.text?.text ?? ''] : []));

describe('renderHome', () => {
  it('counts each group, overdue, due today, due soon and later, from the user’s today', () => {
    const pending = [
      due('2026-11-20', 1),
      due('2026-11-21', 2),
      due('2026-11-22', 3),
      due('2026-11-23', 4),
      due('2026-11-24', 5),
      due('2026-11-25', 6),
      due('2026-11-30', 7),
    ];
    const view = renderHome({ links, commands, approvals: grouped(pending) });
    expect(visible(view.blocks)).toContain('*7 pending* · :red_circle: *2 overdue* · 1 due today · 2 due by Tue 24 Nov · 2 due later');
    expect(sections(view).slice(1, 5)).toEqual([
      ':red_circle: *Overdue* (2)',
      ':large_orange_circle: *Due today* (1)',
      ':large_blue_circle: *Due by Tue 24 Nov* (2)',
      ':large_blue_circle: *Due later* (2)',
    ]);
    expect(visible(view.blocks)).toContain('Due Sun 22 Nov 2026, 10:00 service time (due today)');
  });

  it('leaves out of its groups and counts what was decided from chat, and shows one decided from Home a moment ago first, as decided', () => {
    const pending = [due('2026-11-20', 1), due('2026-11-21', 2), due('2026-11-22', 3), due('2026-11-23', 4)];
    const at = new Date('2026-11-22T06:55:00Z');
    const view = render({
      outcome: { links, approvals: grouped(pending) },
      frame: FRAME,
      windowDays: 3,
      commands,
      details: true,
      decided: {
        marks: new Map([
          ['1:W:1', { action: 'Rejected', at, userId: 'U1' }],
          ['3:W:1', { action: 'Accepted', at, userId: 'U2' }],
          ['9:W:1', { action: 'Rejected', at, userId: 'U1' }],
        ]),
        readerId: 'U1',
      },
      justDecided: [due('2026-11-19', 9)],
    });
    const text = visible(view.blocks);
    expect(text).toContain('*2 pending* · :red_circle: *1 overdue* · 0 due today · 1 due by Tue 24 Nov · 0 due later');
    expect(sections(view).slice(1, 3)).toEqual([':red_circle: *Overdue* (1)', ':large_blue_circle: *Due by Tue 24 Nov* (1)']);
    expect(text).not.toMatch(/\*R[13]\*/);
    // Decided from Home: first, said so in the reader's words and zone, with no Details to decide it again.
    expect(text.indexOf('*R9*')).toBeGreaterThan(-1);
    expect(text.indexOf('*R9*')).toBeLessThan(text.indexOf('*R2*'));
    expect(text).toContain('*Rejected* by you');
    expect(text).toContain('Due Thu 19 Nov 2026, 10:00 service time');
    const details = JSON.stringify(view).match(/"action_id":"approval:details"/g) ?? [];
    expect(details).toHaveLength(2);
  });

  it('shows every group however many are overdue, with the command that lists the rest, within 100 blocks', () => {
    // Regression: Home listed the soonest ten, and with many overdue showed nothing else.
    const pending = [
      ...Array.from({ length: 70 }, (_, i) => due('2026-11-01', i)),
      ...Array.from({ length: 3 }, (_, i) => due('2026-11-22', 70 + i)),
      ...Array.from({ length: 12 }, (_, i) => due('2026-11-23', 73 + i)),
      ...Array.from({ length: 15 }, (_, i) => due('2026-12-15', 85 + i)),
    ];
    expect(pending).toHaveLength(DUE_FETCH);
    const view = renderHome({ links, commands, approvals: grouped(pending, 'later') });
    const text = visible(view.blocks);
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(text.match(/\*R\d+\*/g)).toHaveLength(HOME_MAX_ENTRIES);
    expect(text).toContain('*100+ pending* · :red_circle: *70 overdue* · 3 due today · 12 due by Tue 24 Nov · 15+ due later');
    expect(text).toContain('…and 64 more overdue: `/approvals` lists them first.');
    expect(text).not.toContain('more due today');
    expect(text).toContain('…and 6 more due by Tue 24 Nov: `/approvals due-after:tomorrow due-before:3d` lists them.');
    expect(text).toContain('…and 10+ more due later: `/approvals due-after:3d` lists them.');
    expect(JSON.stringify(view)).not.toContain('home:next');
  });

  it('says when nothing waits, and shows the problem instead of a list when there is one', () => {
    expect(visible(renderHome({ links, commands, approvals: grouped([]) }).blocks)).toContain('Nothing waits for you.');
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

  it('shows one approval with its due date, only the group it is in, and Refresh', () => {
    const view = renderHome({ links, commands, approvals: grouped([due('2026-11-25', 7)]) });
    const text = visible(view.blocks);
    expect(text).toContain('*1 pending* · :red_circle: *0 overdue* · 0 due today · 0 due by Tue 24 Nov · 1 due later');
    expect(sections(view)[1]).toBe(':large_blue_circle: *Due later* (1)');
    expect(text).toContain('*R7*');
    expect(text).toContain('due in 3 days');
    expect(text).toContain('[Refresh]');
    expect(text).not.toContain('more due later');
  });

  it('gives each approval an Open button when the service’s page is known, with the id URL-encoded', () => {
    const view = renderHome({
      links,
      commands,
      approvals: grouped([due('2026-11-25', 7)]),
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
    expect(text).toContain('every weekday at 08:30 London time · next Mon 23 Nov 2026, 08:30 London time');
    const unlink = view.blocks
      .flatMap((b) => (b.type === 'actions' ? (b as { elements: unknown[] }).elements : []))
      .find((e) => (e as { action_id?: string }).action_id === 'home:unlink') as { confirm?: { title: { text: string } }; style?: string };
    expect(unlink.style).toBe('danger');
    expect(unlink.confirm?.title.text).toBe('Unlink your account?');
  });
});

describe('Unlink’s dialog', () => {
  const unlinkConfirm = (view: { blocks: unknown[] }) =>
    (view.blocks as Array<{ type: string; elements?: Array<{ action_id: string; confirm?: { text: { text: string } } }> }>)
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === HOME_ACTIONS.unlink)?.confirm?.text.text;

  it('says what goes, link by link: a sign-in by its account, a pasted token, and a token an admin linked for every workspace', () => {
    const signIn = { ...link, command: 'findApprovals' as const, account: { serviceUser: 'katherine.johnson', authsource: 'corp-ldap' } };
    const adminAnywhere = { ...link, teamId: '', source: 'admin' as const, command: 'collectEntitlements' as const };
    expect(unlinkText({ links: [signIn, adminAnywhere], identity: undefined })).toBe(
      'countersign forgets your sign-in as “katherine.johnson” (its session at the service ends) and the token an admin linked for you in every workspace, and acts for you no more until you link again. Your reminder pauses.',
    );
    const view = renderHome({ links: [signIn, adminAnywhere], commands });
    expect(unlinkConfirm(view)).toBe(unlinkText({ links: [signIn, adminAnywhere], identity: undefined }));
    expect(unlinkText({ links: [{ ...link, source: 'pasted', command: 'findApprovals' }], identity: undefined })).toContain(
      'forgets the token you pasted,',
    );
  });

  it('names the identity in the trusted mode, and who linked it', () => {
    const identity = {
      teamId: 'T1',
      userId: 'U1',
      serviceUser: 'oscar.ops',
      authsource: undefined,
      source: 'admin' as const,
      linkedAt: new Date('2026-11-01T00:00:00Z'),
      lastUsedAt: undefined,
      lastOutcome: undefined,
    };
    expect(unlinkText({ links: [], identity })).toBe(
      'countersign forgets who you are in the Command Service (“oscar.ops”, linked by an admin), and acts for you no more until you link again. Your reminder pauses.',
    );
  });
});

describe('renderHome’s switch for new approvals', () => {
  const buttonsOf = (view: { blocks: unknown[] }) =>
    (view.blocks as Array<{ type: string; accessory?: { action_id: string; value?: string; text: { text: string } } }>).flatMap((b) =>
      b.accessory ? [b.accessory] : [],
    );

  it('says it is on, with the quiet hours in the reader’s zone, and offers to turn it off', () => {
    const view = renderHome({ links, commands, notify: { enabled: true, quiet: { startMinute: 19 * 60, endMinute: 8 * 60 } } });
    expect(visible(view.blocks)).toContain('*New approvals* :bell: On: a direct message when one arrives for you');
    expect(visible(view.blocks)).toContain('Quiet hours 19:00–08:00 London time');
    expect(buttonsOf(view)).toEqual([
      expect.objectContaining({ action_id: HOME_ACTIONS.notify, value: 'off', text: expect.objectContaining({ text: 'Turn off' }) }),
    ]);
  });

  it('says it is off, and offers to turn it on', () => {
    const view = renderHome({ links, commands, notify: { enabled: false, quiet: undefined } });
    expect(visible(view.blocks)).toContain('*New approvals* :no_bell: Off');
    expect(buttonsOf(view)).toEqual([expect.objectContaining({ action_id: HOME_ACTIONS.notify, value: 'on' })]);
  });

  it('says nothing of it where the installation has arrival messages off', () => {
    const view = renderHome({ links, commands });
    expect(visible(view.blocks)).not.toContain('New approvals');
    expect(buttonsOf(view)).toEqual([]);
  });
});

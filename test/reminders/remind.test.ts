/**
 * `/approvals remind` as a use case, with a real in-memory store and the fixed clock of fakeDeps
 * (Sunday 22 November 2026, 06:30 UTC): what is stored, in which zone, and what the outcome says.
 */

import { describe, expect, it } from 'vitest';
import { remind } from '../../src/reminders/remind.js';
import { fakeDeps } from '../helpers/fakes.js';

const NOW = new Date('2026-11-22T06:30:00Z');
const ADA = { teamId: 'T1', userId: 'UADA' };
const SHOW = { kind: 'remind', action: 'show' } as const;
const OFF = { kind: 'remind', action: 'off' } as const;
const set = (days: 'daily' | 'weekdays', minuteOfDay: number) => ({ kind: 'remind', action: 'set', days, minuteOfDay }) as const;

describe('remind set', () => {
  it('schedules in the zone given, and stores it', async () => {
    const t = fakeDeps();
    await t.link();
    // Sunday: the next weekday 09:00 in London is Monday's (GMT in November).
    expect(await remind(t.deps, ADA, set('weekdays', 540), 'Europe/London')).toEqual({
      kind: 'set',
      schedule: { days: 'weekdays', minuteOfDay: 540, timeZone: 'Europe/London' },
      nextAt: new Date('2026-11-23T09:00:00Z'),
      windowDays: 3,
      zoneGuessed: false,
      notLinked: false,
    });
    expect(await t.deps.store.getReminder(ADA)).toEqual({
      ...ADA,
      days: 'weekdays',
      minuteOfDay: 540,
      timeZone: 'Europe/London',
      nextAt: new Date('2026-11-23T09:00:00Z'),
      dueAt: new Date('2026-11-23T09:00:00Z'),
      pausedAt: undefined,
      sentFor: undefined,
    });
  });

  it('reads the time in the user’s zone', async () => {
    const t = fakeDeps();
    await t.link();
    const outcome = await remind(t.deps, ADA, set('daily', 17 * 60 + 30), 'America/New_York');
    // 17:30 EST on the same Sunday.
    expect(outcome).toMatchObject({ kind: 'set', nextAt: new Date('2026-11-22T22:30:00Z'), zoneGuessed: false });
  });

  it('falls back to UTC when the zone is not known, and says it guessed', async () => {
    const t = fakeDeps();
    await t.link();
    expect(await remind(t.deps, ADA, set('daily', 540), undefined)).toEqual({
      kind: 'set',
      schedule: { days: 'daily', minuteOfDay: 540, timeZone: 'UTC' },
      nextAt: new Date('2026-11-22T09:00:00Z'),
      windowDays: 3,
      zoneGuessed: true,
      notLinked: false,
    });
    expect((await t.deps.store.getReminder(ADA))?.timeZone).toBe('UTC');
  });

  it('sets it for someone not linked for findApprovals, saying so', async () => {
    const t = fakeDeps();
    await t.link('UEVE');
    expect(await remind(t.deps, ADA, set('daily', 6 * 60), 'UTC')).toMatchObject({
      kind: 'set',
      // 06:00 has passed today: tomorrow's.
      nextAt: new Date('2026-11-23T06:00:00Z'),
      notLinked: true,
    });
    expect((await t.deps.store.getReminder(ADA))?.nextAt).toEqual(new Date('2026-11-23T06:00:00Z'));
    expect(await t.deps.store.getReminder({ teamId: 'T1', userId: 'UEVE' })).toBeUndefined();
  });

  it('replaces the schedule the user had', async () => {
    const t = fakeDeps();
    await t.link();
    await remind(t.deps, ADA, set('daily', 540), 'UTC');
    await remind(t.deps, ADA, set('weekdays', 600), 'Europe/Paris');
    expect(await t.deps.store.getReminder(ADA)).toMatchObject({
      days: 'weekdays',
      minuteOfDay: 600,
      timeZone: 'Europe/Paris',
      nextAt: new Date('2026-11-23T09:00:00Z'),
    });
  });
});

describe('remind show', () => {
  it('shows no reminder when there is none', async () => {
    const t = fakeDeps();
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toEqual({ kind: 'shown', reminder: undefined, windowDays: 3 });
  });

  it('shows the reminder, paused after a pause until the user links again', async () => {
    const t = fakeDeps();
    await t.link('UADA', 'T1', new Date('2026-11-20T00:00:00Z'));
    await remind(t.deps, ADA, set('daily', 540), 'UTC');
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toEqual({
      kind: 'shown',
      reminder: {
        ...ADA,
        days: 'daily',
        minuteOfDay: 540,
        timeZone: 'UTC',
        nextAt: new Date('2026-11-22T09:00:00Z'),
        dueAt: new Date('2026-11-22T09:00:00Z'),
        pausedAt: undefined,
        sentFor: undefined,
        paused: false,
      },
      windowDays: 3,
    });

    await t.deps.store.pauseReminder(ADA, NOW);
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toMatchObject({ reminder: { pausedAt: NOW, paused: true } });
    // Setting a new time does not lift the pause; linking again does.
    await remind(t.deps, ADA, set('daily', 600), 'UTC');
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toMatchObject({ reminder: { minuteOfDay: 600, paused: true } });
    await t.link('UADA', 'T1', new Date(NOW.getTime() + 1000));
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toMatchObject({ reminder: { paused: false } });
  });

  it('shows it paused when the user has unlinked', async () => {
    const t = fakeDeps();
    await remind(t.deps, ADA, set('daily', 540), 'UTC');
    await t.deps.store.pauseReminder(ADA, NOW);
    expect(await remind(t.deps, ADA, SHOW, 'UTC')).toMatchObject({ kind: 'shown', reminder: { paused: true } });
  });
});

describe('remind off', () => {
  it('stops the reminder, and says whether there was one', async () => {
    const t = fakeDeps();
    await remind(t.deps, ADA, set('daily', 540), 'UTC');
    expect(await remind(t.deps, ADA, OFF, 'UTC')).toEqual({ kind: 'stopped', had: true });
    expect(await t.deps.store.getReminder(ADA)).toBeUndefined();
    expect(await remind(t.deps, ADA, OFF, 'UTC')).toEqual({ kind: 'stopped', had: false });
  });

  it('stops only the asker’s reminder', async () => {
    const t = fakeDeps();
    const eve = { teamId: 'T1', userId: 'UEVE' };
    await remind(t.deps, ADA, set('daily', 540), 'UTC');
    await remind(t.deps, eve, set('daily', 540), 'UTC');
    await remind(t.deps, ADA, OFF, 'UTC');
    expect(await t.deps.store.getReminder(eve)).toMatchObject({ userId: 'UEVE', minuteOfDay: 540 });
  });
});

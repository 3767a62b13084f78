/** `/approvals remind …`: set, show or stop the user's digest reminder. */

import type { Deps } from '../deps.js';
import type { RemindCommand } from '../parse/remind.js';
import type { Principal, Reminder } from '../store/index.js';
import { type ReminderSchedule, reminderPaused } from './schedule.js';

/** What setting a reminder needs of the scheduler: its window, and when a new reminder would fire. */
export interface ReminderPlanner {
  readonly windowDays: number;
  plan(who: Principal, schedule: ReminderSchedule, after: Date): { nextAt: Date; dueAt: Date };
}

export interface ReminderDeps extends Deps {
  reminders: ReminderPlanner;
}

export type RemindOutcome =
  | { kind: 'shown'; reminder: (Reminder & { paused: boolean }) | undefined; windowDays: number }
  | { kind: 'stopped'; had: boolean }
  | { kind: 'set'; schedule: ReminderSchedule; nextAt: Date; windowDays: number; zoneGuessed: boolean; notLinked: boolean };

/** `zone`: the user's time zone as the chat platform knows it; UTC (said so) when it does not. */
export async function remind(deps: ReminderDeps, who: Principal, command: RemindCommand, zone: string | undefined): Promise<RemindOutcome> {
  const windowDays = deps.reminders.windowDays;
  switch (command.action) {
    case 'show': {
      const r = await deps.store.getReminder(who);
      const linked = r ? await deps.credentials.credentialsFor(who, 'findApprovals') : undefined;
      return { kind: 'shown', reminder: r ? { ...r, paused: reminderPaused(r, linked) } : undefined, windowDays };
    }
    case 'off': {
      const had = await deps.store.deleteReminder(who);
      deps.logger.info({ user: who.userId, had }, 'reminder stopped');
      return { kind: 'stopped', had };
    }
    case 'set': {
      const schedule = { days: command.days, minuteOfDay: command.minuteOfDay, timeZone: zone ?? 'UTC' };
      const { nextAt, dueAt } = deps.reminders.plan(who, schedule, deps.now());
      await deps.store.setReminder({ ...who, ...schedule, nextAt, dueAt });
      const linked = await deps.credentials.credentialsFor(who, 'findApprovals');
      deps.logger.info({ user: who.userId, days: schedule.days, minute: schedule.minuteOfDay, zone: schedule.timeZone }, 'reminder set');
      return { kind: 'set', schedule, nextAt, windowDays, zoneGuessed: zone === undefined, notLinked: linked === undefined };
    }
  }
}

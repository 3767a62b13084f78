/** `/approvals remind …`: set, show or stop the user's digest reminder. */

import type { RemindCommand } from '../parse/remind.js';
import { reminderPaused } from '../reminders/scheduler.js';
import { renderReminderOff, renderReminderSet, renderReminderShow } from '../render/reminders.js';
import type { Principal } from '../store/index.js';
import type { Deps } from './deps.js';
import { ephemeral } from './respond.js';
import type { Respond } from './response-url.js';

export async function remind(deps: Deps, who: Principal, command: RemindCommand, respond: Respond): Promise<void> {
  const windowDays = deps.reminders.windowDays;
  switch (command.action) {
    case 'show': {
      const r = await deps.store.getReminder(who);
      const linked = r ? await deps.store.getToken(who, 'findApprovals') : undefined;
      return void (await respond(ephemeral(renderReminderShow(r ? { ...r, paused: reminderPaused(r, linked) } : undefined, windowDays))));
    }
    case 'off': {
      const had = await deps.store.deleteReminder(who);
      deps.logger.info({ user: who.userId, had }, 'reminder stopped');
      return void (await respond(ephemeral(renderReminderOff(had))));
    }
    case 'set': {
      const zone = await deps.timeZones.lookup(who.userId);
      const schedule = { days: command.days, minuteOfDay: command.minuteOfDay, timeZone: zone ?? 'UTC' };
      const { nextAt, dueAt } = deps.reminders.plan(who, schedule, deps.now());
      await deps.store.setReminder({ ...who, ...schedule, nextAt, dueAt });
      const linked = await deps.store.getToken(who, 'findApprovals');
      deps.logger.info({ user: who.userId, days: schedule.days, minute: schedule.minuteOfDay, zone: schedule.timeZone }, 'reminder set');
      return void (await respond(
        ephemeral(renderReminderSet({ schedule, nextAt, windowDays, zoneGuessed: zone === undefined, notLinked: linked === undefined })),
      ));
    }
  }
}

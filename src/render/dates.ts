/**
 * Service timestamps for people: "Mon 24 Nov 2026, 10:00", and how that day stands against the
 * reader's today ("overdue by 3 days", "due today"). Wall-clock values from the service are shown
 * as written, since the service does not say its zone.
 */

import { type CalendarDay, daysFromToday } from '../parse/dates.js';
import { parseServiceTimestamp } from '../service/timestamps.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Mon 24 Nov 2026, 10:00". By hand, not date-fns format: it runs for every approval shown, and was a hot spot under load. */
export function readableTimestamp(value: string): string | undefined {
  const t = parseServiceTimestamp(value);
  if (t === undefined) return undefined;
  const weekday = WEEKDAYS[new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay()];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${weekday} ${t.day} ${MONTHS[t.month - 1]} ${t.year}, ${two(t.hour)}:${two(t.minute)}`;
}

/**
 * "overdue by 3 days", "due today", "due tomorrow", "due in 5 days", with `days` from today (negative
 * when overdue) for those who count; undefined for an unreadable date.
 */
export function dueRelative(value: string, today: CalendarDay): { text: string; overdue: boolean; days: number } | undefined {
  const days = daysFromToday(value, today);
  if (days === undefined) return undefined;
  if (days < 0) return { text: `overdue by ${-days} day${days === -1 ? '' : 's'}`, overdue: true, days };
  if (days === 0) return { text: 'due today', overdue: false, days };
  if (days === 1) return { text: 'due tomorrow', overdue: false, days };
  return { text: `due in ${days} days`, overdue: false, days };
}

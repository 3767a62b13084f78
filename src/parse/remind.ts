/**
 * The reminder grammar, after `/approvals remind`:
 *   (nothing) | show | off | [daily|weekdays] [time]
 * Times are 24-hour (`9:00`, `09:30`, `17:45`) or with am/pm (`9am`, `5:30pm`). Pure: no clock,
 * no zone; the handler applies the user's Slack time zone.
 */

import type { RemindDays } from '../store/types.js';
import { type Invalid, invalid } from './result.js';
import { nearest } from './suggest.js';
import type { Word } from './tokenize.js';

export type RemindCommand =
  | { kind: 'remind'; action: 'show' }
  | { kind: 'remind'; action: 'off' }
  | { kind: 'remind'; action: 'set'; days: RemindDays; minuteOfDay: number };

export const REMIND_USAGE = '/approvals remind [daily|weekdays] [09:00] | remind off | remind show';
export const DEFAULT_REMIND_MINUTE = 9 * 60;

const EXAMPLE = '/approvals remind weekdays 09:00';
const WORDS = ['show', 'off', 'daily', 'weekdays'] as const;

/** `9`, `09:30`, `17:45`, `9am`, `9:30 pm` (as one word), `12pm` = noon, `12am` = midnight. */
export function parseClockTime(text: string): number | undefined {
  const m = /^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/i.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.toLowerCase().replace(/\./g, '');
  if (minute > 59) return undefined;
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  } else if (hour > 23) return undefined;
  return hour * 60 + minute;
}

/** `words` are those after `remind`. */
export function parseRemind(words: readonly Word[]): RemindCommand | Invalid {
  // "9 am" typed as two words is one time.
  const texts: string[] = [];
  for (const w of words) {
    if (w.key !== undefined || w.quoted) return invalid(`“${w.text}” is not part of a reminder.`, EXAMPLE);
    const lower = w.text.toLowerCase();
    const last = texts.length - 1;
    if (/^(am|pm|a\.m\.|p\.m\.)$/.test(lower) && last >= 0 && /^\d{1,2}([:.h]\d{2})?$/.test(texts[last] as string)) texts[last] += lower;
    else texts.push(lower);
  }
  const [first, second, ...rest] = texts;
  if (first === undefined || (first === 'show' && second === undefined)) return { kind: 'remind', action: 'show' };
  if (first === 'off' || first === 'stop' || first === 'none') {
    return second === undefined
      ? { kind: 'remind', action: 'off' }
      : invalid(`remind ${first} takes nothing after it.`, '/approvals remind off');
  }
  if (first === 'show') return invalid('remind show takes nothing after it.', '/approvals remind show');

  let days: RemindDays = 'daily';
  let timeText: string | undefined;
  if (first === 'daily' || first === 'weekdays') {
    days = first;
    timeText = second;
    if (rest.length > 0) return invalid(`“${rest.join(' ')}” is more than a reminder needs.`, EXAMPLE);
  } else if (/^\d/.test(first)) {
    timeText = first;
    if (second !== undefined) return invalid(`“${second}” is more than a reminder needs: the days go before the time.`, EXAMPLE);
  } else {
    const meant = nearest(first, WORDS);
    return invalid(`I don't understand “${first}” in a reminder. Say daily or weekdays, then a time.`, EXAMPLE, meant);
  }
  if (timeText === undefined) return { kind: 'remind', action: 'set', days, minuteOfDay: DEFAULT_REMIND_MINUTE };
  const minuteOfDay = parseClockTime(timeText);
  if (minuteOfDay === undefined) {
    return invalid(`“${timeText}” is not a time of day. Write it as 09:00, 17:30 or 9am.`, EXAMPLE);
  }
  return { kind: 'remind', action: 'set', days, minuteOfDay };
}

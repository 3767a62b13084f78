/**
 * The grammar of arrival messages' setting, after `/approvals notify`:
 *   (nothing) | show | on | off | quiet HH:MM-HH:MM | quiet off
 * Times are those of reminders (`19:00`, `7pm`); a range may wrap midnight (`19:00-08:00`), and may
 * be typed with spaces or `to` (`19:00 - 08:00`, `7pm to 8am`). Pure: the quiet hours are minutes
 * of the approver's own day, and the scheduler reads them in their zone.
 */

import { parseClockTime } from './remind.js';
import { type Invalid, invalid } from './result.js';
import { nearest } from './suggest.js';
import type { Word } from './tokenize.js';

export type NotifyCommand =
  | { kind: 'notify'; action: 'show' }
  | { kind: 'notify'; action: 'switch'; enabled: boolean }
  /** `quiet: null` ends the quiet hours. */
  | { kind: 'notify'; action: 'quiet'; quiet: { startMinute: number; endMinute: number } | null };

export const NOTIFY_USAGE = '/approvals notify [on|off] | notify quiet 19:00-08:00 | notify quiet off';

const QUIET_EXAMPLE = '/approvals notify quiet 19:00-08:00';
const WORDS = ['show', 'on', 'off', 'quiet'] as const;
/** Dashes people type between two times: a hyphen, an en or em dash, a minus sign. */
const DASH = /[-–—−]/;

/** `words` are those after `notify`. */
export function parseNotify(words: readonly Word[]): NotifyCommand | Invalid {
  for (const w of words) {
    if (w.key !== undefined || w.quoted) return invalid(`“${w.text.slice(0, 60)}” is not part of the notify setting.`, NOTIFY_USAGE);
  }
  const texts = words.map((w) => w.text.toLowerCase());
  const [first, ...rest] = texts;
  if (first === undefined) return { kind: 'notify', action: 'show' };
  switch (first) {
    case 'show':
    case 'on':
    case 'off':
      if (rest.length > 0)
        return invalid(
          `notify ${first} takes nothing after it; “${rest.join(' ').slice(0, 60)}” is too much.`,
          `/approvals notify ${first}`,
        );
      return first === 'show' ? { kind: 'notify', action: 'show' } : { kind: 'notify', action: 'switch', enabled: first === 'on' };
    case 'quiet':
      return parseQuiet(rest);
    default: {
      const meant = nearest(first, WORDS);
      return invalid(`I don't understand “${first.slice(0, 60)}” after notify. Say on, off, or quiet with hours.`, NOTIFY_USAGE, meant);
    }
  }
}

function parseQuiet(words: readonly string[]): NotifyCommand | Invalid {
  if (words.length === 0) return invalid('notify quiet needs the hours to be quiet, from and to, or off.', QUIET_EXAMPLE);
  if (words[0] === 'off' || words[0] === 'none') {
    return words.length === 1
      ? { kind: 'notify', action: 'quiet', quiet: null }
      : invalid(`notify quiet ${words[0]} takes nothing after it.`, '/approvals notify quiet off');
  }
  const range = splitRange(words);
  if (range === undefined)
    return invalid(`“${words.join(' ').slice(0, 60)}” is not a range of hours: write from and to, with a dash between.`, QUIET_EXAMPLE);
  const startMinute = parseClockTime(range[0]);
  if (startMinute === undefined)
    return invalid(`“${range[0].slice(0, 30)}” is not a time of day. Write it as 19:00 or 7pm.`, QUIET_EXAMPLE);
  const endMinute = parseClockTime(range[1]);
  if (endMinute === undefined) return invalid(`“${range[1].slice(0, 30)}” is not a time of day. Write it as 08:00 or 8am.`, QUIET_EXAMPLE);
  if (startMinute === endMinute)
    return invalid('Quiet hours that start and end at the same time are no hours at all; to stop messages, say notify off.', QUIET_EXAMPLE);
  return { kind: 'notify', action: 'quiet', quiet: { startMinute, endMinute } };
}

/** The two times of `19:00-08:00`, `19:00 - 08:00`, `19:00 to 08:00`, `7pm-8am`; undefined for any other shape. */
function splitRange(words: readonly string[]): [string, string] | undefined {
  const joined =
    words.length === 3 && (words[1] === 'to' || (DASH.test(words[1] as string) && (words[1] as string).length === 1))
      ? `${words[0]}-${words[2]}`
      : words.join('');
  // "7 pm-8 am" typed with spaces: what is left once they are gone is read as one range.
  const parts = joined.split(DASH);
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return [parts[0] as string, parts[1] as string];
}

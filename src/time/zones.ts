/**
 * Wall clocks in IANA time zones, on @date-fns/tz: what an instant reads in a zone, and which
 * instant a zone's wall clock means. Pure: the zone is always given, never the machine's.
 *
 * Only tzOffset is used: a wall clock is the instant moved by the zone's offset then. TZDate's
 * wall-clock constructor goes through the machine's own zone, and for a time that happens twice
 * (clocks going back) its answer changes with it; the rule for those is ours and stated below.
 * What the runtime says of a zone is kept (offsets by day, labels): the answers are the same.
 */

import { tzOffset } from '@date-fns/tz';

export interface WallTime {
  year: number;
  /** 1–12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

/** An IANA zone name: letters, digits, _ + - and slashes (`Europe/Berlin`, `UTC`, `Etc/GMT+5`); a bare offset such as +01:00 is not one. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const known = new Map<string, boolean>();

/**
 * The runtime's own name for an IANA zone it knows (`europe/berlin` is Europe/Berlin); undefined for
 * anything else, an offset such as +01:00 included (a fixed offset is wrong half the year).
 */
export function canonicalZone(name: string): string | undefined {
  if (name.length > 64 || !ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Whether this runtime knows `name` as an IANA time zone. */
export function isTimeZone(name: string): boolean {
  let ok = known.get(name);
  if (ok === undefined) {
    ok = name.length <= 64 && ZONE_NAME.test(name) && !Number.isNaN(tzOffset(name, new Date(0)));
    if (known.size < 5000) known.set(name, ok);
  }
  return ok;
}

/** The zone itself, or UTC for one this runtime does not know (a Slack profile may name anything). */
export function zoneOrUtc(zone: string | undefined): string {
  return zone !== undefined && isTimeZone(zone) ? zone : 'UTC';
}

const DAY_MS = 86_400_000;

/** The zone's offset from UTC at an instant, in milliseconds, as the runtime's zone data gives it. */
function offsetAskedMs(zone: string, instant: number): number {
  return Math.round(tzOffset(zone, new Date(instant)) * 60_000);
}

/** Each zone's offset by UTC day, for the days it holds all day; NaN for a day its offset changes in. */
const days = new Map<string, Map<number, number>>();
const DAYS_PER_ZONE = 20_000;

/**
 * The zone's offset from UTC at an instant, in milliseconds. Asking the runtime costs a few
 * microseconds, and a page's times asked it a dozen times each (11 µs a time), so what it says is
 * kept by UTC day: a day whose offset is the same at its start and at the next day's start holds
 * that offset all day, since a zone changes its offset at most once within a day (instantOf rests
 * on this as well, and wallClock now too). A day with a change in it is asked about every time.
 */
function offsetMs(zone: string, instant: number): number {
  if (!Number.isFinite(instant)) return offsetAskedMs(zone, instant);
  const day = Math.floor(instant / DAY_MS);
  let zoneDays = days.get(zone);
  let offset = zoneDays?.get(day);
  if (offset === undefined) {
    const start = offsetAskedMs(zone, day * DAY_MS);
    offset = start === offsetAskedMs(zone, (day + 1) * DAY_MS) ? start : Number.NaN;
    if (zoneDays === undefined) {
      // Zones are checked names (isTimeZone), at most a few thousand.
      if (days.size >= 5000) days.clear();
      zoneDays = new Map();
      days.set(zone, zoneDays);
    }
    // Fifty years of days, then forgotten all at once: the times asked about cluster around now.
    if (zoneDays.size >= DAYS_PER_ZONE) zoneDays.clear();
    zoneDays.set(day, offset);
  }
  return Number.isNaN(offset) ? offsetAskedMs(zone, instant) : offset;
}

/** What a wall clock in `zone` reads at `instant` (UTC's for an unknown zone). */
export function wallClock(instant: Date, zone: string): WallTime & { weekday: number } {
  const t = instant.getTime();
  const d = new Date(t + offsetMs(zoneOrUtc(zone), t));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * The instant at which `zone`'s clocks read `wall`. A time that happens twice (clocks going back)
 * is taken the first time; a time that does not happen (clocks going forward) is taken as the same
 * distance past the jump, as a clock nobody changed would read it: 02:30 on a night that skips
 * 02:00–03:00 becomes 03:30.
 */
export function instantOf(wall: WallTime, zone: string): Date {
  const z = zoneOrUtc(zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // A zone changes its offset at most once within a day or so: the offsets a day either side are the two it can have.
  const before = asUtc - offsetMs(z, asUtc - DAY_MS);
  const after = asUtc - offsetMs(z, asUtc + DAY_MS);
  const matches = [before, after].filter((t) => t + offsetMs(z, t) === asUtc);
  return new Date(matches.length > 0 ? Math.min(...matches) : before);
}

/** The instant a calendar day starts in a zone (its first moment, which is not always 00:00). */
export function startOfDay(day: CalendarDay, zone: string): Date {
  return instantOf({ ...day, hour: 0, minute: 0, second: 0 }, zone);
}

export function addCalendarDays(day: CalendarDay, n: number): CalendarDay {
  const d = new Date(Date.UTC(day.year, day.month - 1, day.day + n));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export function calendarDaysBetween(from: CalendarDay, to: CalendarDay): number {
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / DAY_MS);
}

const labels = new Map<string, string>();

/**
 * How to name a zone after a time: "Berlin time", "New York time", "UTC". People know the city
 * their Slack profile names; an abbreviation (CET, IST) can mean several zones.
 */
export function zoneLabel(zone: string): string {
  let label = labels.get(zone);
  if (label === undefined) {
    label = labelOf(zone);
    if (labels.size < 5000) labels.set(zone, label);
  }
  return label;
}

function labelOf(zone: string): string {
  if (zone === 'UTC' || zone === 'Etc/UTC' || zone === 'Etc/Universal' || zone === 'UCT' || zone === 'Zulu') return 'UTC';
  const last = zone.split('/').at(-1) ?? zone;
  // Etc/GMT+5 and its kin are offsets with a name, with the sign the other way round: say the offset itself.
  const etc = /^GMT([+-])(\d{1,2})$/.exec(last);
  if (zone.startsWith('Etc/') && etc) return `UTC${etc[1] === '+' ? '−' : '+'}${etc[2]}`;
  if (zone.startsWith('Etc/') || last === 'GMT') return 'UTC';
  return `${last.replace(/_/g, ' ')} time`;
}

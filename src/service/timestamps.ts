/**
 * The service writes timestamps as `YYYY-MM-DD hh:mm:ss.f` (approvals) or `YYYY-MM-DD hh:mm:ss`
 * (runs), in the service's local time with no zone. They are kept as wall-clock parts so that
 * nothing pretends to know the zone: a renderer shows them as written, only more readably.
 */

export interface ServiceTimestamp {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/** Longer than any timestamp, padding included: such a value is not read at all. */
const MAX_TIMESTAMP_LENGTH = 64;

export function parseServiceTimestamp(value: string): ServiceTimestamp | undefined {
  if (value.length > MAX_TIMESTAMP_LENGTH) return undefined;
  const m = TIMESTAMP.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return undefined;
  return { year, month, day, hour, minute, second };
}

/** Reading a command's options: one wrong option said on one line, with the help to read; the CLI's own forms of ids, dates and numbers. */

import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of a command, or a UsageError in countersign's words (parseArgs says "argument is
 * ambiguous" of `--limit -1`, and points to `--` for an unknown option). A value that starts with a
 * dash and then no letter (`-1`, `-7d`) is taken as the value it is, so that its own check says what
 * is wrong with it; positionals are refused here unless the command takes them.
 */
export function parseOptions<T extends Options>(label: string, args: string[], options: T, takesPositionals = false) {
  const valued = new Set(Object.entries(options).flatMap(([name, o]) => (o.type === 'string' ? [`--${name}`] : [])));
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (valued.has(arg) && next !== undefined && /^-[^A-Za-z-]/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: joined, options, strict: true, allowPositionals: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const option = /'(-[^' ]+)/.exec(message)?.[1] ?? 'an option';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`${label} has no option ${option}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new UsageError(valued.has(option) ? `${option} needs a value` : `${option} takes no value`);
    throw error;
  }
  if (!takesPositionals && parsed.positionals.length > 0)
    throw new UsageError(`${label} takes options only, not '${parsed.positionals.join(' ')}'`);
  return parsed;
}

export const USER_ID = /^[UW][A-Z0-9]{2,}$/;
export const TEAM_ID = /^[TE][A-Z0-9]{2,}$/;

/** `7d`, `24h`, `30m` ago, or a date (`2026-11-01`, or a full ISO time). */
export function parseSince(value: string, now: Date): Date {
  const relative = /^(\d{1,5})([dhm])$/.exec(value);
  if (relative) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'];
    return new Date(now.getTime() - Number(relative[1]) * unit);
  }
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--since takes 7d, 24h, 30m or a date such as 2026-11-01, not '${value}'`);
  return at;
}

export function positiveInt(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not '${value}'`);
  return n;
}

/** `--latency`: `200ms`, `1.5s`, `1s` or `0`, up to a minute. */
export function latencyMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{1,5}(?:\.\d{1,3})?)(ms|s)$|^0$/.exec(value.trim());
  const ms = m === null ? Number.NaN : m[0] === '0' ? 0 : Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
  if (!Number.isFinite(ms) || ms > 60_000)
    throw new UsageError(`--latency takes a duration from 0 to 60s, like 200ms or 1.5s, not '${value}'`);
  return ms;
}

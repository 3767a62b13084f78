/**
 * A small structured logger: JSON lines, levels, child bindings. It redacts by key name
 * (token, password, authorization, secret) and prints Secret values as "[redacted]", so a
 * careless `logger.info({ token })` still leaks nothing.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  child(bindings: LogFields): Logger;
}

const SENSITIVE_KEY = /token|password|passwd|secret|authorization|cookie|signature/i;
const REDACTED = '[redacted]';

function scrub(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[deep]';
  if (value instanceof Error) {
    const out: LogFields = { type: value.name, message: value.message };
    for (const [k, v] of Object.entries(value)) out[k] = SENSITIVE_KEY.test(k) ? REDACTED : scrub(v, depth + 1);
    if (value.cause !== undefined) out.cause = scrub(value.cause, depth + 1);
    return out;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) out[k] = SENSITIVE_KEY.test(k) ? REDACTED : scrub(v, depth + 1);
  return out;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stderr by default, so that stdout stays free for a CLI's output. */
  write?: (line: string) => void;
  now?: () => Date;
  bindings?: LogFields;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const bindings = options.bindings ?? {};
  const emit = (level: LogLevel, fields: LogFields, message: string): void => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const record = {
      time: now().toISOString(),
      level,
      msg: message,
      ...(scrub(bindings, 0) as LogFields),
      ...(scrub(fields, 0) as LogFields),
    };
    write(JSON.stringify(record));
  };
  return {
    debug: (f, m) => emit('debug', f, m),
    info: (f, m) => emit('info', f, m),
    warn: (f, m) => emit('warn', f, m),
    error: (f, m) => emit('error', f, m),
    child: (more) => createLogger({ ...options, bindings: { ...bindings, ...more } }),
  };
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};

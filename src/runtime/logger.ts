/**
 * Structured JSON logs through pino: levels, child bindings, and the request being served (id,
 * user, command) added to every line written while serving it, background work included, by way
 * of AsyncLocalStorage. Redaction is the logger's own: any key that names a secret (token,
 * password, authorization…) at any depth is written as "[redacted]", and Secret values print so
 * too, so a careless `logger.info({ token })` still leaks nothing.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  child(bindings: LogFields): Logger;
  /** Runs `work` with these fields on every line it logs, however deep and however late (until its promises settle). */
  withContext<T>(fields: LogFields, work: () => T): T;
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
  /** Where lines go (one JSON object each, no newline); stderr by default, so that stdout stays free for a CLI's output. */
  write?: (line: string) => void;
  now?: () => Date;
  bindings?: LogFields;
}

function wrap(p: pino.Logger, context: AsyncLocalStorage<LogFields>): Logger {
  return {
    debug: (f, m) => p.debug(f, m),
    info: (f, m) => p.info(f, m),
    warn: (f, m) => p.warn(f, m),
    error: (f, m) => p.error(f, m),
    child: (bindings) => wrap(p.child(bindings), context),
    withContext: (fields, work) => context.run({ ...context.getStore(), ...fields }, work),
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const context = new AsyncLocalStorage<LogFields>();
  const now = options.now ?? (() => new Date());
  const write = options.write;
  const destination = write
    ? { write: (chunk: string) => write(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk) }
    : pino.destination({ dest: 2, sync: true });
  const p = pino(
    {
      level: options.level ?? 'info',
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"time":"${now().toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => scrub(bindings, 0) as LogFields,
        log: (fields) => scrub(fields, 0) as LogFields,
      },
      // The request's fields come first, so that a line's own fields win where both name one.
      mixin: () => context.getStore() ?? {},
      mixinMergeStrategy: (mergeObject, mixinObject) => ({ ...mixinObject, ...mergeObject }),
    },
    destination,
  );
  return wrap(options.bindings ? p.child(options.bindings) : p, context);
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
  withContext: (_fields, work) => work(),
};

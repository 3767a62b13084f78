/**
 * Structured JSON logs through pino: levels, and fields bound to a logger (a component's name, or
 * the request being served: its id, user and command), written on every line it logs. A request's
 * logger is passed along with the request's other dependencies, to the work after the ack too.
 * Redaction is the logger's own: any key that names a secret (token, password, authorization,
 * response_url…) at any depth is written as "[redacted]", Secret values print so too, and a
 * response_url inside any string (a message, a field, an error, a debug line of Bolt's quoting a
 * request body) is cut out, so a careless `logger.info({ token })` still leaks nothing.
 */

import pino from 'pino';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  /** A logger that writes these fields on every line too; a line's own fields win where both name one. */
  child(bindings: LogFields): Logger;
}

const SENSITIVE_KEY = /token|password|passwd|secret|authorization|cookie|signature|response_?url/i;
/** The verdict for each key seen: the same few keys are logged over and over. */
const keyVerdicts = new Map<string, boolean>();

function sensitive(key: string): boolean {
  let verdict = keyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = SENSITIVE_KEY.test(key);
    if (keyVerdicts.size < 10_000) keyVerdicts.set(key, verdict);
  }
  return verdict;
}
const REDACTED = '[redacted]';

/** A URL, plain, percent-encoded or with JSON's escaped slashes, up to what ends it in text, JSON or escaped JSON. */
const URL_IN_TEXT = /https?(?::(?:\\?\/){2}|%3A%2F%2F)(?:[^\s"'<>\\]|\\\/)+/gi;
/**
 * A response_url: Slack's (hooks.slack.com, or GovSlack's) or a stand-in's (…/response/…). For as
 * long as it lives, whoever holds it can answer as the app in that conversation.
 */
const RESPONSE_URL = /hooks\.slack(?:-gov)?\.com|(?:\\?\/|%2F)response(?:\\?\/|%2F)/i;
/** Slack's host without a scheme before it. */
const BARE_HOOK = /hooks\.slack(?:-gov)?\.com(?:\\?\/|%2F)(?:[^\s"'<>\\]|\\\/)*/gi;
const REDACTED_URL = '[redacted response_url]';

/** The text with every response_url in it replaced. */
export function redactResponseUrls(text: string): string {
  if (!/http|hooks\.slack/i.test(text)) return text;
  return text.replace(URL_IN_TEXT, (url) => (RESPONSE_URL.test(url) ? REDACTED_URL : url)).replace(BARE_HOOK, REDACTED_URL);
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactResponseUrls(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[deep]';
  if (value instanceof Error) {
    const out: LogFields = { type: value.name, message: redactResponseUrls(value.message) };
    for (const [k, v] of Object.entries(value)) out[k] = sensitive(k) ? REDACTED : scrub(v, depth + 1);
    if (value.cause !== undefined) out.cause = scrub(value.cause, depth + 1);
    return out;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: LogFields = {};
  for (const [k, v] of Object.entries(value)) out[k] = sensitive(k) ? REDACTED : scrub(v, depth + 1);
  return out;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go (one JSON object each, no newline); stderr by default, so that stdout stays free for a CLI's output. */
  write?: (line: string) => void;
  now?: () => Date;
  bindings?: LogFields;
}

/**
 * Bound fields are merged into each line rather than made a pino child: a request's logger is made
 * for every request and writes a line or two, so building a child (its bindings serialised up
 * front) would cost more than it saves. Lines below the level cost nothing but the level check.
 */
function wrap(p: pino.Logger, bound: LogFields | undefined): Logger {
  const line =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void => {
      if (!p.isLevelEnabled(level)) return;
      // Bound fields were scrubbed once, when bound; a line's own are scrubbed as it is written.
      const own = scrub(fields, 0) as LogFields;
      p[level](bound === undefined ? own : { ...bound, ...own }, redactResponseUrls(message));
    };
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (bindings) => {
      const scrubbed = scrub(bindings, 0) as LogFields;
      return wrap(p, bound === undefined ? scrubbed : { ...bound, ...scrubbed });
    },
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
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
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return wrap(p, options.bindings === undefined ? undefined : (scrub(options.bindings, 0) as LogFields));
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};

/**
 * For an event that comes in bursts (Slack's 429s at 09:00): it is said at most once a minute,
 * with how many times it happened since it was last said, instead of a line each time.
 */
export class SaidOncePerMinute {
  #saidAt = Number.NEGATIVE_INFINITY;
  #unsaid = 0;

  /** Counts one at `at` (ms, on any one clock): how many to say now, this one included, or undefined within a minute of the last said. */
  count(at: number): number | undefined {
    this.#unsaid++;
    if (at - this.#saidAt < 60_000) return undefined;
    const times = this.#unsaid;
    this.#saidAt = at;
    this.#unsaid = 0;
    return times;
  }
}

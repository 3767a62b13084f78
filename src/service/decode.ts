/**
 * One decoder for every answer: status first (status.ts), then the format the body is actually in
 * (the service may ignore format=json: JSON, XML or its properties format, each made into the tree
 * format=json would have given), then the schema. Anything unexpected becomes an
 * UnexpectedResponseError whose detail holds a short excerpt for the log, the request's secrets
 * taken out.
 */

import type { z } from 'zod';
import { UnexpectedResponseError } from './errors.js';
import { excerpt, parseProperties, parseXml } from './formats.js';
import { looksLikeHtml, parseErrorPage } from './html.js';
import { type ErrorContext, errorFor } from './status.js';
import type { RawResponse } from './transport.js';

/** How one command's answer is read, besides its schema. */
export interface Reading<S extends z.ZodType> {
  schema: S;
  /** The properties format's key=value pairs as the tree format=json would give. */
  fromProperties: (props: Map<string, string>) => unknown;
  context?: ErrorContext;
  /** Past this depth a JSON body is refused before it is parsed; no limit when absent. */
  maxDepth?: number | undefined;
  /** The schema's answer for the usual shape, read without it; undefined: ask the schema. */
  quick?: ((tree: unknown) => z.infer<S> | undefined) | undefined;
  /**
   * false: nothing of the body is quoted when it cannot be read, only its length and shape. A
   * sign-in's answer holds a token, which no redaction of the request's own secrets would catch.
   */
  quote?: boolean | undefined;
}

/** What a body looks like, without a word of it: its length and the kind of text it starts as. */
function shapeOf(text: string): string {
  const kind = text === '' ? 'empty' : text.startsWith('{') || text.startsWith('[') ? 'JSON' : text.startsWith('<') ? 'markup' : 'text';
  return `a body of ${text.length} characters (${kind}), not quoted: a sign-in's answer may hold a token`;
}

export function decode<S extends z.ZodType>(command: string, res: RawResponse, reading: Reading<S>): z.infer<S> {
  if (res.status < 200 || res.status >= 300) throw errorFor(command, res, reading.context ?? {});
  const text = res.body.replace(/^\uFEFF/, '').trim();
  const details = { command, status: res.status };
  const quote = reading.quote !== false;
  // What goes into the error comes from the answer with the request's secrets taken out, before it is cut short.
  const unreadable = quote
    ? (what: string) => new UnexpectedResponseError(res.redact(`${what}; body starts: ${excerpt(res.redact(text))}`), details)
    : // Only our own words: what was wrong, by kind, and the body's shape.
      (what: string) => new UnexpectedResponseError(`${what}; ${shapeOf(text)}`, details);
  const tree = treeOf(command, res, text, reading, quote, unreadable);
  const quickly = reading.quick?.(tree);
  if (quickly !== undefined) return quickly;
  const parsed = reading.schema.safeParse(tree);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      // A schema's message may quote the value it refused: for an answer not to be quoted, only where and what kind.
      .map((i) => `${i.path.join('.') || 'body'}: ${quote ? i.message : i.code}`)
      .join('; ');
    throw unreadable(issues);
  }
  return parsed.data;
}

/** The body as the tree format=json would have given, whatever format it came in. */
function treeOf(
  command: string,
  res: RawResponse,
  text: string,
  reading: Reading<z.ZodType>,
  quote: boolean,
  unreadable: (what: string) => UnexpectedResponseError,
): unknown {
  if (text === '') {
    // Seen from the real service for zero approvals, and read the same way for a page of no request
    // items; for any other command an empty answer says nothing.
    if (command !== 'findApprovals' && command !== 'getRequestItems') throw unreadable('empty body');
    return { [command]: '' };
  }
  if (text.startsWith('{') || text.startsWith('[')) {
    const { maxDepth } = reading;
    if (maxDepth !== undefined && nestedDeeperThan(text, maxDepth)) throw unreadable(`JSON nested deeper than ${maxDepth} levels`);
    try {
      return JSON.parse(text);
    } catch {
      // JSON.parse's own message quotes the body around the fault, where a secret may be cut in two.
      throw unreadable('not valid JSON');
    }
  }
  if (text.startsWith('<') && looksLikeHtml(text)) {
    throw unreadable(
      quote
        ? `HTML page with status ${res.status}: ${excerpt(parseErrorPage(res.redact(text)).message)}`
        : `HTML page with status ${res.status}`,
    );
  }
  const read = text.startsWith('<')
    ? (body: string) => {
        const xml = parseXml(body);
        return { [xml.name]: xml.value };
      }
    : (body: string) => reading.fromProperties(parseProperties(body));
  try {
    return read(text);
  } catch (error) {
    // The parser's message quotes the body: it is told again from the body with the secrets out.
    if (!quote) throw unreadable(text.startsWith('<') ? 'not valid XML' : 'not key=value lines');
    throw unreadable(failureOf(() => read(res.redact(text))) ?? res.redact((error as Error).message));
  }
}

/**
 * Whether JSON text nests objects and lists deeper than `max`, in one pass that stops there:
 * JSON.parse of a body that is all brackets holds the event loop for a long time.
 */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The message of what `work` throws, or undefined when it does not. */
function failureOf(work: () => unknown): string | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The properties format of findApprovals: one key per field, a comma-separated value per object.
 * A value that itself holds commas cannot be split safely; then the body is refused, not guessed.
 */
export function approvalsFromProperties(props: Map<string, string>): unknown {
  const countText = props.get('NumApprovals') ?? props.get('findApprovals.NumApprovals');
  const count = countText === undefined ? Number.NaN : Number(countText);
  if (!Number.isInteger(count) || count < 0) throw new SyntaxError('properties body without a NumApprovals count');
  const records: Array<Record<string, string>> = Array.from({ length: count }, () => ({}));
  for (const [rawKey, value] of props) {
    const key = rawKey.replace(/^findApprovals\./, '').replace(/^Approval\./, '');
    if (key === 'NumApprovals') continue;
    const parts = count === 1 ? [value] : value.split(',');
    if (parts.length !== count) throw new SyntaxError(`properties value of ${key} does not split into ${count} values`);
    parts.forEach((part, i) => {
      (records[i] as Record<string, string>)[key] = part;
    });
  }
  return { findApprovals: { NumApprovals: count, ...(count > 0 ? { Approval: records } : {}) } };
}

/** The properties format of one approval record: its keys as they are, ActionName as a comma list. */
export function detailsFromProperties(props: Map<string, string>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [rawKey, value] of props) {
    const key = rawKey.replace(/^getApprovalDetails\./, '').replace(/^Approval\./, '');
    if (key === 'ActionName' || key === 'Actions.ActionName' || key === 'Actions') record.Actions = { ActionName: value.split(',') };
    else record[key] = value;
  }
  return record;
}

/** The properties format of an answer that is one flat record under `data` (collectEntitlements, getRunStatus, the logins). */
export function dataFromProperties(props: Map<string, string>): unknown {
  return { data: Object.fromEntries(props) };
}

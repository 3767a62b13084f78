/**
 * The decision call, as the operator states it (DECISION_REQUEST, DECISION_REQUEST_BODY): no public
 * source gives performWorkItem's parameters, which the product shows only to its administrators, so
 * countersign sends exactly what it is told, with the approval, the action and the comment put
 * where the placeholders are, each escaped for where it goes. Read here, once, at start (config.ts
 * says what is wrong, naming the variable); filled in here for each decision. Pure.
 */

import { escapeXmlValue } from './formats.js';

export const PLACEHOLDERS = ['id', 'action', 'comment'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** A template as parts: text as written, and the places values go. */
export type TemplatePart = { text: string } | { value: Placeholder };

export type BodyType = 'application/xml' | 'application/json' | 'application/x-www-form-urlencoded';

export interface DecisionCall {
  method: 'GET' | 'POST';
  /** Sent as cmd. */
  command: string;
  /** The query's parameters in order; a value's text parts are as the operator wrote them, percent-decoded. */
  query: ReadonlyArray<{ name: string; value: readonly TemplatePart[] }>;
  /** Set when the query names format itself; otherwise format=json is added. */
  setsFormat: boolean;
  body?: { type: BodyType; template: readonly TemplatePart[] } | undefined;
}

/** What a decision fills the placeholders with. */
export interface DecisionValues {
  id: string;
  action: string;
  comment: string;
}

/**
 * What the service answered a decision with. Its answer's body is not documented, so no 2xx makes a
 * decision done by itself: the caller reads the approval afterwards. What the body says of itself is
 * kept, when it states a failure in so many words (`{"status":"error",…}`), to be told and recorded.
 */
export interface DecisionAnswer {
  status: number;
  /** The failure the body states, in its own words (an excerpt, secrets taken out); undefined when it states none. */
  saysError?: string | undefined;
}

/** The call filled in: what the client sends, its values escaped for where they go. */
export interface FilledCall {
  method: 'GET' | 'POST';
  command: string;
  /** Parameters before the client adds format and auth-user-id; percent-encoded by the client. */
  params: Array<readonly [string, string]>;
  body?: { contentType: BodyType; text: string } | undefined;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

const NAME = /^[A-Za-z0-9._~-]{1,64}$/;
/** Added by countersign to every call: an operator who names them would be overridden or doubled. */
const RESERVED: Record<string, string> = {
  cmd: 'cmd is the command (the word before ?), so the query must not set it',
  'auth-user-id': 'auth-user-id is added by countersign in the trusted-application mode, from the store only, so the query must not set it',
};

/** Text and placeholders; `{name}` of a letter-led word is a placeholder, any other brace is text (JSON's own braces). */
export function parseTemplate(text: string): Parsed<TemplatePart[]> {
  const parts: TemplatePart[] = [];
  const placeholder = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;
  let last = 0;
  for (const m of text.matchAll(placeholder)) {
    const name = m[1] as string;
    if (!(PLACEHOLDERS as readonly string[]).includes(name))
      return { ok: false, problem: `has an unknown placeholder {${name}} (known: {id}, {action}, {comment})` };
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ value: name as Placeholder });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return { ok: true, value: parts };
}

const uses = (parts: readonly TemplatePart[], p: Placeholder) => parts.some((part) => 'value' in part && part.value === p);

/** DECISION_REQUEST: `METHOD COMMAND?QUERY`. */
export function parseDecisionRequest(text: string): Parsed<Omit<DecisionCall, 'body'>> {
  const m = /^(\S+)\s+([^?\s]+)(?:\?(\S*))?$/.exec(text.trim());
  if (m === null) return { ok: false, problem: 'must be METHOD COMMAND?QUERY, with one space after the method and none in the query' };
  const method = (m[1] as string).toUpperCase();
  if (method !== 'GET' && method !== 'POST') return { ok: false, problem: `has the method ${m[1]}: it must be GET or POST` };
  const command = m[2] as string;
  if (!/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(command))
    return { ok: false, problem: `names the command ${JSON.stringify(command)}: a command is a word of letters and digits` };
  const query: Array<{ name: string; value: TemplatePart[] }> = [];
  for (const pair of (m[3] ?? '').split('&').filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const raw = eq < 0 ? '' : pair.slice(eq + 1);
    if (!NAME.test(name))
      return { ok: false, problem: `has the parameter name ${JSON.stringify(name)}: names are letters, digits, . _ ~ -` };
    const lower = name.toLowerCase();
    if (RESERVED[lower] !== undefined) return { ok: false, problem: `sets ${name}: ${RESERVED[lower]}` };
    if (query.some((q) => q.name.toLowerCase() === lower)) return { ok: false, problem: `sets the parameter ${name} twice` };
    const template = parseTemplate(raw);
    if (!template.ok) return template;
    const value: TemplatePart[] = [];
    for (const part of template.value) {
      if ('value' in part) {
        value.push(part);
        continue;
      }
      // Text is written as it goes in a URL; it is read here and encoded again when sent, so %20 and a space mean one thing.
      try {
        value.push({ text: decodeURIComponent(part.text.replace(/\+/g, ' ')) });
      } catch {
        return { ok: false, problem: `has a broken percent-encoding in the value of ${name}` };
      }
    }
    query.push({ name, value });
  }
  return {
    ok: true,
    value: { method, command, query, setsFormat: query.some((q) => q.name.toLowerCase() === 'format') },
  };
}

/** DECISION_REQUEST_BODY: its first character says what it is. */
export function parseDecisionBody(text: string): Parsed<NonNullable<DecisionCall['body']>> {
  const template = parseTemplate(text);
  if (!template.ok) return template;
  const first = text.trimStart().charAt(0);
  const type: BodyType = first === '<' ? 'application/xml' : first === '{' ? 'application/json' : 'application/x-www-form-urlencoded';
  if (type === 'application/json') {
    // Each value is written as JSON string content, so each placeholder must sit inside quotes.
    const sample = fill(template.value, { id: '1:A:1', action: 'Accepted', comment: 'x"y' }, (v) => JSON.stringify(v).slice(1, -1));
    try {
      JSON.parse(sample);
    } catch {
      return {
        ok: false,
        problem: 'starts with { but is not JSON once its placeholders are filled in (each goes inside quotes: "{comment}")',
      };
    }
  }
  return { ok: true, value: { type, template: template.value } };
}

/** Both variables together: the method takes a body or not, and {id} and {action} are somewhere. */
export function parseDecisionCall(
  request: string,
  body: string | undefined,
): Parsed<DecisionCall> & { variable?: 'DECISION_REQUEST' | 'DECISION_REQUEST_BODY' } {
  const head = parseDecisionRequest(request);
  if (!head.ok) return { ...head, variable: 'DECISION_REQUEST' };
  let parsedBody: DecisionCall['body'];
  if (body !== undefined) {
    if (head.value.method !== 'POST')
      return {
        ok: false,
        problem: `is set, and DECISION_REQUEST's method is ${head.value.method}: a body needs POST`,
        variable: 'DECISION_REQUEST_BODY',
      };
    const b = parseDecisionBody(body);
    if (!b.ok) return { ...b, variable: 'DECISION_REQUEST_BODY' };
    parsedBody = b.value;
  }
  const call: DecisionCall = { ...head.value, body: parsedBody };
  const all = [...call.query.flatMap((q) => q.value), ...(call.body?.template ?? [])];
  for (const p of ['id', 'action'] as const)
    if (!uses(all, p))
      return {
        ok: false,
        problem: `has no {${p}}${body === undefined ? '' : ', nor has DECISION_REQUEST_BODY'}: the call must say which ${p === 'id' ? 'approval (its WorkItemId)' : 'action'} it decides`,
        variable: 'DECISION_REQUEST',
      };
  return { ok: true, value: call };
}

function fill(parts: readonly TemplatePart[], values: DecisionValues, escapeValue: (v: string) => string): string {
  return parts.map((p) => ('text' in p ? p.text : escapeValue(values[p.value]))).join('');
}

const BODY_ESCAPE: Record<BodyType, (v: string) => string> = {
  'application/xml': escapeXmlValue,
  'application/json': (v) => JSON.stringify(v).slice(1, -1),
  'application/x-www-form-urlencoded': encodeURIComponent,
};

/** The call for one decision: query values raw (the client percent-encodes them), the body's escaped for its type. */
export function fillDecisionCall(call: DecisionCall, values: DecisionValues): FilledCall {
  return {
    method: call.method,
    command: call.command,
    params: call.query.map((q) => [q.name, fill(q.value, values, (v) => v)] as const),
    body:
      call.body === undefined
        ? undefined
        : { contentType: call.body.type, text: fill(call.body.template, values, BODY_ESCAPE[call.body.type]) },
  };
}

/**
 * The /approvals grammar (docs/using.md, "The /approvals grammar"):
 *   /approvals [pending|completed|all] [key:value …] | show <approval-id> | remind … | notify … | help | login | logout | whoami
 * Pure: text and the user's today in, a validated ApprovalQuery (or a help, login, logout, or an
 * Invalid naming the bad part) out. Nothing reaches the service unless it passes here and then
 * the client's own schema.
 */

import {
  APPROVAL_STATES,
  type ApprovalParameter,
  type ApprovalQuery,
  approvalIdSchema,
  approvalQuerySchema,
  SORT_ORDERS,
  unsafeCharacter,
} from '../service/query.js';
import { readableDay, serviceDateText, serviceDay, type Zones } from '../time/days.js';
import type { CalendarDay } from '../time/zones.js';
import { DATE_FORMS, type DateInput, readDateInput, resolveDateInput } from './dates.js';
import { type NotifyCommand, parseNotify } from './notify.js';
import { parseRemind, type RemindCommand } from './remind.js';
import { type Invalid, invalid } from './result.js';
import { nearest } from './suggest.js';
import { tokenize, type Word } from './tokenize.js';

export type ApprovalsCommand =
  | { kind: 'help' }
  | { kind: 'login' }
  | { kind: 'logout' }
  | { kind: 'whoami' }
  | { kind: 'query'; query: ApprovalQuery }
  /** One approval's details, in a modal. */
  | { kind: 'show'; approvalId: string }
  /**
   * "approve 10114:WPDS:2" and its kin: approvals are decided from their Details, never typed, so
   * this is answered with the way there (the id, when the one typed is one).
   */
  | { kind: 'decide'; verb: string; approvalId: string | undefined }
  | RemindCommand
  | NotifyCommand
  | Invalid;

/** The largest page a user may ask for: more would not make a readable chat message. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

type KeySpec =
  | { kind: 'text'; example: string }
  | { kind: 'date'; example: string }
  | { kind: 'int'; min: number; max: number; example: string }
  | { kind: 'enum'; values: readonly string[]; example: string };

export const APPROVAL_KEYS: Readonly<Record<ApprovalParameter, KeySpec>> = {
  'approval-id': { kind: 'text', example: 'approval-id:10198:WPDS:1' },
  'business-source': { kind: 'text', example: 'business-source:"Active Directory"' },
  'completed-after': { kind: 'date', example: 'completed-after:-30d' },
  'completed-before': { kind: 'date', example: 'completed-before:today' },
  'due-after': { kind: 'date', example: 'due-after:today' },
  'due-before': { kind: 'date', example: 'due-before:7d' },
  'entitlement-name': { kind: 'text', example: 'entitlement-name:"Domain Admins"' },
  'entitlement-type': { kind: 'text', example: 'entitlement-type:group' },
  'page-size': { kind: 'int', min: 1, max: MAX_PAGE_SIZE, example: 'page-size:20' },
  'requested-after': { kind: 'date', example: 'requested-after:2026-01-31' },
  'requested-before': { kind: 'date', example: 'requested-before:31-jan-2026' },
  sort: { kind: 'enum', values: SORT_ORDERS, example: 'sort:desc' },
  'start-page': { kind: 'int', min: 1, max: 100_000, example: 'start-page:2' },
  state: { kind: 'enum', values: APPROVAL_STATES, example: 'state:completed' },
  'user-first-name': { kind: 'text', example: 'user-first-name:Jane' },
  'user-id': { kind: 'text', example: 'user-id:jdoe' },
  'user-last-name': { kind: 'text', example: 'user-last-name:"van Rossum"' },
};

const KEY_NAMES = Object.keys(APPROVAL_KEYS) as ApprovalParameter[];
const SUBCOMMANDS = ['help', 'login', 'logout', 'whoami', 'remind', 'notify', 'show'] as const;

/**
 * Words people type to decide an approval, as a command: each is answered with the way to decide
 * one (its Details), never sent. Not "complete": "completed" is a state, and a query.
 */
const DECIDE_WORDS = new Set([
  'approve',
  'approved',
  'accept',
  'accepted',
  'reject',
  'rejected',
  'deny',
  'denied',
  'decline',
  'declined',
  'decide',
  'decision',
]);
const MAX_TEXT = 256;

export const APPROVALS_USAGE =
  '/approvals [pending|completed|all] [key:value …] | show <approval-id> | remind [daily|weekdays] [09:00|off|show] | notify [on|off|quiet HH:MM-HH:MM] | help | login | logout | whoami';

export const SHOW_EXAMPLE = '/approvals show 10198:WPDS:1';

/** A date filter's key. */
type DateParameter = `${'completed' | 'due' | 'requested'}-${'after' | 'before'}`;

/** A date filter as typed and read, not yet counted from the user's today. */
interface DateFilter {
  typed: string;
  date: DateInput;
}

/**
 * /approvals as read from its text, before anyone's today is known: every word checked, every
 * message for bad input said, and only the dates of a query left to count (resolveApprovalsCommand).
 * What a command is (help, a query, show…) is known here, so the rate limit and the modals that must
 * open at once need nothing more.
 */
export type ApprovalsForm =
  | Exclude<ApprovalsCommand, { kind: 'query' }>
  | {
      kind: 'query';
      /** The filters other than dates, as they will be sent. */
      values: Readonly<Record<string, string | number>>;
      dates: Readonly<Partial<Record<DateParameter, DateFilter>>>;
    };

type QueryForm = Extract<ApprovalsForm, { kind: 'query' }>;

/**
 * `today` is the user's; with `zones` (the user's and the service's, COMMAND_SERVICE_TIME_ZONE) the
 * days typed are sent as the service's days nearest to them, since the service reads a date as a
 * day of its own calendar. The text is read once (readApprovalsCommand) and its dates counted
 * from `today` (resolveApprovalsCommand): a caller that learns the user's today later keeps the form.
 */
export function parseApprovalsCommand(text: string, today: CalendarDay, zones?: Zones): ApprovalsCommand {
  return resolveApprovalsCommand(readApprovalsCommand(text), today, zones);
}

export function readApprovalsCommand(text: string): ApprovalsForm {
  const tokens = tokenize(text);
  if (!tokens.ok) return invalid(`${capitalise(tokens.problem)}.`, '/approvals entitlement-name:"Domain Admins"');
  const words = tokens.words;
  const first = words[0];
  if (first && !first.key && !first.quoted) {
    const sub = first.text.toLowerCase();
    if (sub === 'help' || sub === '?') return { kind: 'help' };
    if (sub === 'login' || sub === 'logout' || sub === 'whoami') {
      const extra = words[1];
      if (extra === undefined) return { kind: sub };
      return invalid(`${sub} takes nothing after it; “${extra.text.slice(0, 60)}” is one word too many.`, `/approvals ${sub}`);
    }
    if (sub === 'remind' || sub === 'reminder' || sub === 'reminders') return parseRemind(words.slice(1));
    if (sub === 'notify' || sub === 'notifications') return parseNotify(words.slice(1));
    if (sub === 'show' || sub === 'details') return parseShow(words.slice(1));
    if (DECIDE_WORDS.has(sub)) return decidePointer(sub, words[1]);
  }
  return readFilters(words);
}

/** The words of a query, each a state or a key:value filter, checked in the order typed: the first bad one is said. */
function readFilters(words: readonly Word[]): QueryForm | Invalid {
  const values: Record<string, string | number> = {};
  const dates: Partial<Record<DateParameter, DateFilter>> = {};
  for (const [index, word] of words.entries()) {
    if (word.key === undefined) {
      const bare = word.text.toLowerCase();
      if (!word.quoted && (APPROVAL_STATES as readonly string[]).includes(bare)) {
        if (values.state !== undefined && values.state !== bare)
          return invalid(`Choose one state: ${values.state} or ${bare}.`, '/approvals completed');
        values.state = bare;
        continue;
      }
      return strayWord(words, index);
    }
    if (!Object.hasOwn(APPROVAL_KEYS, word.key)) {
      const meant = nearest(word.key, KEY_NAMES);
      return invalid(
        `“${word.key}” is not a filter I know.`,
        meant ? `/approvals ${APPROVAL_KEYS[meant].example}` : '/approvals help',
        meant,
      );
    }
    const key = word.key as ApprovalParameter;
    const spec = APPROVAL_KEYS[key];
    const given = values[key] !== undefined || dates[key as DateParameter] !== undefined;
    if (given && !(key === 'state' && values.state === word.value.toLowerCase())) {
      return invalid(`${key} is given twice.`, `/approvals ${spec.example}`);
    }
    const value = word.value.trim();
    if (value === '') return invalid(`${key} has no value.`, `/approvals ${spec.example}`);
    if (spec.kind === 'date') {
      const date = readDateInput(value, key.endsWith('-after') ? 'after' : 'before');
      if (!date.ok) return invalid(`${key}: ${date.problem}. Dates can be ${DATE_FORMS}.`, `/approvals ${spec.example}`);
      dates[key as DateParameter] = { typed: value, date: date.date };
      continue;
    }
    const read = readValue(key, spec, value);
    if (typeof read === 'object') return read;
    values[key] = read;
  }
  return { kind: 'query', values, dates };
}

/** A filter's value other than a date, as it will be sent; an Invalid naming what is wrong with it. */
function readValue(key: ApprovalParameter, spec: Exclude<KeySpec, { kind: 'date' }>, value: string): string | number | Invalid {
  switch (spec.kind) {
    case 'text': {
      if (value.length > MAX_TEXT) return invalid(`${key} is longer than ${MAX_TEXT} characters.`, `/approvals ${spec.example}`);
      const unsafe = unsafeCharacter(value);
      if (unsafe !== undefined) return invalid(`${key} contains ${unsafe}.`, `/approvals ${spec.example}`);
      return value;
    }
    case 'int': {
      const n = /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isInteger(n) || n < spec.min || n > spec.max) {
        return invalid(`${key}:${value} is not a whole number from ${spec.min} to ${spec.max}.`, `/approvals ${spec.example}`);
      }
      return n;
    }
    case 'enum': {
      const lower = value.toLowerCase();
      if (!spec.values.includes(lower)) {
        return invalid(
          `${key} can be ${spec.values.join(', ')}, not “${value}”.`,
          `/approvals ${spec.example}`,
          nearest(lower, spec.values),
        );
      }
      return lower;
    }
  }
}

/** A word of a query that is neither a state nor key:value: why, as nearly as the words around it tell. */
function strayWord(words: readonly Word[], index: number): Invalid {
  const word = words[index] as Word;
  const bare = word.text.toLowerCase();
  // Most often the rest of a value that has a space in it: say how to write that.
  const before = words[index - 1];
  const spec = before?.key === undefined ? undefined : APPROVAL_KEYS[before.key as ApprovalParameter];
  if (before?.key !== undefined && !before.quoted && spec?.kind === 'text') {
    const whole = words
      .slice(index - 1)
      .filter((w, i) => i === 0 || w.key === undefined)
      .map((w, i) => (i === 0 ? w.value : w.text))
      .join(' ');
    return invalid(
      `“${word.text}” looks like the rest of ${before.key}'s value. A value with spaces goes in quotes.`,
      `/approvals ${before.key}:"${whole.slice(0, 120)}"`,
    );
  }
  // A subcommand after filters: it is a command of its own, and must come first.
  if (!word.quoted && [...SUBCOMMANDS, 'details'].includes(bare))
    return invalid(
      `“${word.text}” is a command of its own: it comes first, without filters.`,
      bare === 'show'
        ? SHOW_EXAMPLE
        : bare === 'remind'
          ? '/approvals remind weekdays 09:00'
          : bare === 'notify'
            ? '/approvals notify off'
            : `/approvals ${bare}`,
    );
  const meant = word.quoted ? undefined : nearest(bare, [...APPROVAL_STATES, ...SUBCOMMANDS]);
  return invalid(
    `I don't understand “${word.text}”. Filters are written key:value.`,
    '/approvals pending due-before:7d entitlement-name:"Domain Admins"',
    meant,
  );
}

/** The command, its dates counted from the user's `today` (and sent as the service's days, `zones` given). */
export function resolveApprovalsCommand(form: ApprovalsForm, today: CalendarDay, zones?: Zones): ApprovalsCommand {
  if (form.kind !== 'query') return form;
  const query: Record<string, string | number> = { ...form.values };
  /** The dates as typed and as the user's days, for a message about them. */
  const days: Partial<Record<DateParameter, { typed: string; day: CalendarDay }>> = {};
  for (const [key, { typed, date }] of Object.entries(form.dates) as Array<[DateParameter, DateFilter]>) {
    const resolved = resolveDateInput(typed, date, today);
    if (!resolved.ok)
      return invalid(`${key}: ${resolved.problem}. Dates can be ${DATE_FORMS}.`, `/approvals ${APPROVAL_KEYS[key].example}`);
    days[key] = { typed, day: resolved.day };
    query[key] = zones ? serviceDateText(serviceDay(resolved.day, zones)) : resolved.value;
  }
  for (const prefix of ['completed', 'due', 'requested'] as const) {
    const after = days[`${prefix}-after`];
    const before = days[`${prefix}-before`];
    if (after !== undefined && before !== undefined && dayValue(after.day) > dayValue(before.day)) {
      return invalid(
        `${prefix}-after:${after.typed} (${readableDay(after.day)}) is later than ${prefix}-before:${before.typed} (${readableDay(before.day)}), so nothing could match.`,
        `/approvals ${prefix}-after:-7d ${prefix}-before:today`,
      );
    }
  }
  if (query['page-size'] === undefined) query['page-size'] = DEFAULT_PAGE_SIZE;

  // The client's schema is the last word on what may be sent; a failure here is a bug in this parser.
  const checked = approvalQuerySchema.safeParse(query);
  if (!checked.success) return invalid(`That query cannot be sent: ${checked.error.issues[0]?.message ?? 'invalid'}.`, '/approvals help');
  return { kind: 'query', query: checked.data };
}

/** `show <approval-id>` (or `show approval-id:<id>`): the id as /approvals lists it, copied with or without its backticks. */
function parseShow(words: readonly Word[]): Extract<ApprovalsCommand, { kind: 'show' }> | Invalid {
  const [word, extra] = words;
  if (word === undefined) return invalid('Say which approval to show, by its id as /approvals lists it.', SHOW_EXAMPLE);
  if (extra !== undefined) {
    // An id whose text part holds a space, typed without quotes, arrives as several words.
    const joined = words.map((w) => w.text).join(' ');
    if (word.key === undefined && !approvalIdSchema.safeParse(word.text).success && approvalIdSchema.safeParse(joined).success)
      return invalid('An approval id with spaces in it goes in quotes.', `/approvals show "${joined}"`);
    return invalid(`show takes one approval id; “${extra.text.slice(0, 60)}” is one word too many.`, SHOW_EXAMPLE);
  }
  if (word.key !== undefined && word.key !== 'approval-id')
    return invalid(`“${word.text.slice(0, 60)}” is not an approval id.`, SHOW_EXAMPLE, nearest(word.key, ['approval-id']));
  const id = word.value.trim().replace(/^`+|`+$/g, '');
  if (!approvalIdSchema.safeParse(id).success) {
    const unsafe = unsafeCharacter(id);
    return invalid(
      unsafe === undefined
        ? `“${id.slice(0, 60)}” is not an approval id: an id is a number, a name and a number, separated by colons, such as 10198:WPDS:1.`
        : `The approval id contains ${unsafe}.`,
      SHOW_EXAMPLE,
    );
  }
  return { kind: 'show', approvalId: id };
}

/** `approve <id>`: the id, when what follows the word is one (copied with its backticks, or as approval-id:…). */
function decidePointer(verb: string, word: Word | undefined): Extract<ApprovalsCommand, { kind: 'decide' }> {
  const id = word === undefined || (word.key !== undefined && word.key !== 'approval-id') ? '' : word.value.trim().replace(/^`+|`+$/g, '');
  return { kind: 'decide', verb, approvalId: approvalIdSchema.safeParse(id).success ? id : undefined };
}

/** Re-validates a query that came back from a button, exactly as if it had been typed. */
export function revalidateApprovalQuery(value: unknown): ApprovalQuery | undefined {
  const checked = approvalQuerySchema.safeParse(value);
  if (!checked.success) return undefined;
  const size = checked.data['page-size'];
  return size !== undefined && size > MAX_PAGE_SIZE ? undefined : checked.data;
}

const dayValue = (d: CalendarDay) => Date.UTC(d.year, d.month - 1, d.day);

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

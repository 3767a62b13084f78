/**
 * The /collect grammar (docs/using.md, "/collect"):
 *   /collect [collector name] [name:"…"] [application:"…"] [force] | history [n] | help | login | logout | whoami
 * Bare words make the collector's name (`/collect AD Accounts`); `force` alone is the flag
 * (quote it to mean a collector called force). A first word that is exactly a subcommand (help,
 * history, login, logout, whoami, in any case) is the subcommand, whatever follows: a collector whose
 * name begins with one is quoted, so that a typo never reaches the service as a collector's name.
 * Starting every collector, or forcing, needs a confirmation: those are the two ways to do a lot of
 * damage with one line.
 */

import { type CollectQuery, collectQuerySchema, unsafeCharacter } from '../service/query.js';
import { type Invalid, invalid } from './result.js';
import { nearest } from './suggest.js';
import { tokenize, type Word } from './tokenize.js';

export type ConfirmReason = 'all-collectors' | 'force';

export type CollectCommand =
  | { kind: 'help' }
  | { kind: 'login' }
  | { kind: 'logout' }
  | { kind: 'whoami' }
  | { kind: 'history'; limit: number }
  | { kind: 'run'; query: CollectQuery; confirm: ConfirmReason[] }
  | Invalid;

const KEYS = ['name', 'application', 'force'] as const;
const MAX_TEXT = 256;

export const COLLECT_USAGE =
  '/collect [collector name] [name:"…"] [application:"…"] [force] | history [n] | help | login | logout | whoami';
export const DEFAULT_HISTORY = 10;
export const MAX_HISTORY = 50;

/** Words a user typed, cut short for a message. */
function excerpt(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const QUOTES = /["“”„]/;

/** How to mean a collector whose name begins with a subcommand: quote it. Only when the words could be such a name. */
function quoteHint(words: readonly Word[]): string {
  if (words.some((w) => w.key !== undefined || w.quoted)) return '';
  const name = words.map((w) => w.text).join(' ');
  if (QUOTES.test(name) || name.length > 120) return '';
  return ` A collector called “${name}”? Quote its name: /collect "${name}".`;
}

export function parseCollectCommand(text: string): CollectCommand {
  const tokens = tokenize(text);
  if (!tokens.ok)
    return invalid(`${tokens.problem.charAt(0).toUpperCase()}${tokens.problem.slice(1)}.`, '/collect application:"Active Directory"');
  const words = tokens.words;
  const first = words[0];
  // The subcommand is the exact first word, in any case, unquoted: `/collect "History Sync"` is a collector.
  const sub = first && !first.key && !first.quoted ? first.text.toLowerCase() : undefined;
  if (sub === 'help' || sub === '?') return { kind: 'help' };
  if (sub === 'login' || sub === 'logout' || sub === 'whoami') {
    if (words.length === 1) return { kind: sub };
    const extra = words.slice(1);
    const many = extra.length === 1 ? 'one word' : `${extra.length} words`;
    return invalid(
      `${sub} takes nothing after it; “${excerpt(extra.map((w) => w.text).join(' '))}” is ${many} too many.${quoteHint(words)}`,
      `/collect ${sub}`,
    );
  }
  if (sub === 'history') {
    const [, count, ...rest] = words;
    if (count === undefined) return { kind: 'history', limit: DEFAULT_HISTORY };
    const n = !count.key && /^\d{1,3}$/.test(count.text) ? Number(count.text) : Number.NaN;
    if (rest.length > 0 || !(n >= 1 && n <= MAX_HISTORY)) {
      const hint = /^\d+$/.test(count.text) ? '' : quoteHint(words);
      return invalid(`history takes how many to show, from 1 to ${MAX_HISTORY}.${hint}`, '/collect history 20');
    }
    return { kind: 'history', limit: n };
  }

  const bareName: string[] = [];
  let name: string | undefined;
  let application: string | undefined;
  let force: boolean | undefined;
  for (const word of words) {
    if (word.key === undefined) {
      if (!word.quoted && word.text.toLowerCase() === 'force') {
        force = true;
        continue;
      }
      bareName.push(word.text);
      continue;
    }
    const value = word.value.trim();
    switch (word.key) {
      case 'name':
      case 'application': {
        if (value === '')
          return invalid(`${word.key} has no value.`, `/collect ${word.key}:"${word.key === 'name' ? 'AD Accounts' : 'Active Directory'}"`);
        if ((word.key === 'name' ? name : application) !== undefined)
          return invalid(`${word.key} is given twice.`, '/collect name:"AD Accounts"');
        if (word.key === 'name') name = value;
        else application = value;
        break;
      }
      case 'force': {
        const flag = { true: true, yes: true, false: false, no: false }[value.toLowerCase()];
        if (flag === undefined) return invalid(`force can be true or false, not “${value}”.`, '/collect application:AWS force');
        force = flag;
        break;
      }
      default: {
        const meant = nearest(word.key, KEYS);
        return invalid(
          `“${word.key}” is not an option of /collect.`,
          meant === 'application' ? '/collect application:"Active Directory"' : '/collect name:"AD Accounts"',
          meant,
        );
      }
    }
  }
  if (bareName.length > 0) {
    if (name !== undefined)
      return invalid(`Give the collector's name once: “${bareName.join(' ')}” or name:“${name}”.`, '/collect "AD Accounts"');
    name = bareName.join(' ');
  }
  for (const [label, value] of [
    ['name', name],
    ['application', application],
  ] as const) {
    if (value !== undefined && value.length > MAX_TEXT)
      return invalid(`The ${label} is longer than ${MAX_TEXT} characters.`, '/collect "AD Accounts"');
    const unsafe = value === undefined ? undefined : unsafeCharacter(value);
    if (unsafe !== undefined) return invalid(`The ${label} contains ${unsafe}.`, '/collect "AD Accounts"');
  }

  const query: CollectQuery = {};
  if (name !== undefined) query.name = name;
  if (application !== undefined) query.application = application;
  if (force !== undefined) query.force = force;
  const checked = collectQuerySchema.safeParse(query);
  if (!checked.success) return invalid(`That request cannot be sent: ${checked.error.issues[0]?.message ?? 'invalid'}.`, '/collect help');
  const confirm: ConfirmReason[] = [];
  if (name === undefined && application === undefined) confirm.push('all-collectors');
  if (force === true) confirm.push('force');
  return { kind: 'run', query: checked.data, confirm };
}

/**
 * The text that asks for `query`, as a user would type it (`/collect AD Accounts force`), for a
 * suggestion; undefined when no form reads back as the same query (a name holding quotes, say).
 */
export function collectCommandText(query: CollectQuery): string | undefined {
  const rest = [
    ...(query.application === undefined ? [] : [`application:"${query.application}"`]),
    ...(query.force === true ? ['force'] : []),
  ];
  const forms =
    query.name === undefined
      ? [rest]
      : [
          [query.name, ...rest],
          [`name:"${query.name}"`, ...rest],
        ];
  for (const form of forms) {
    const text = form.join(' ');
    const parsed = parseCollectCommand(text);
    if (
      parsed.kind === 'run' &&
      parsed.query.name === query.name &&
      parsed.query.application === query.application &&
      (parsed.query.force === true) === (query.force === true)
    )
      return `/collect ${text}`.trimEnd();
  }
  return undefined;
}

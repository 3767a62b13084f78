/**
 * The layout's rules, in one place: what each part of src/ owns and what it may import.
 * test/layout/boundaries.test.ts holds every import of src/ to them, and holds the table in
 * docs/architecture.md ("What each folder owns") to the table `layoutTable()` renders from them, so
 * the rules and their documentation cannot part. Moving a folder, or adding one, is an edit here
 * and the table pasted from the test's failure message: nothing else.
 */

export interface Part {
  /** What src/ holds of it: folders ('parse/') and files ('config.ts'), paths under src/. */
  paths: readonly string[];
  /** How other rows name the whole part when it has several paths ('the use cases'). */
  label?: string;
  /** What it owns, as the docs table says it (markdown, one cell). */
  owns: string;
  /**
   * What it may import code from, besides itself: parts' paths, a file of one ('service/query.ts'),
   * or Slack's packages ('@slack/*', '@slack/types'). 'everything' for the composition root.
   * Other packages are free, but for what `pure` refuses.
   */
  code: readonly string[] | 'everything';
  /** What it may import types from only (`import type`): they carry no code. */
  types?: readonly string[];
  /** No value import, however indirect, may reach a module that does I/O. */
  pure?: boolean;
  /** Why the rule is as it is, said with a violation. */
  why: string;
}

export const USE_CASES = ['approvals/', 'collections/', 'accounts/', 'reminders/', 'arrivals/', 'home/'] as const;

/** Packages that do I/O: a pure part reaches none of them, nor slack/. */
export const IO_MODULES = [
  'node:http',
  'node:https',
  'node:net',
  'node:tls',
  'node:dgram',
  'node:fs',
  'node:child_process',
  'undici',
  'pg',
  'better-sqlite3',
  '#sqlite',
  'pino',
  'prom-client',
  'ws',
  '@slack/bolt',
  '@slack/web-api',
  '@slack/socket-mode',
] as const;

/** The packages whose use the layout confines (the adapter's): any other package is a part's own business. */
export const CONFINED_PACKAGES = '@slack/';

export const LAYOUT: readonly Part[] = [
  {
    paths: ['config.ts'],
    owns: 'the environment → a frozen `Config`, a union by mode (`local`, `http`, `socket`): each mode’s type says what it requires, so nothing downstream asks again',
    code: ['runtime/', 'service/decision-call.ts', 'service/query.ts', 'time/'],
    why: 'the configuration reads its values with the service’s pure readers (the decision call, query values) and the zones of time/, and nothing else of the app',
  },
  {
    paths: ['main.ts'],
    owns: 'the composition root: builds the deps, the Slack app, the workers; picks local, HTTP or Socket Mode',
    code: 'everything',
    why: 'it composes everything',
  },
  {
    paths: ['time/'],
    owns: 'zones, wall clocks and days; the service’s times read for a reader (`frame.ts`); the ways a time and a day are written (`write.ts`, `days.ts`): one pure place that parse/, render/, config and the CLI all use',
    code: [],
    pure: true,
    why: 'time is below everything that reads or writes one: it imports nothing of the app',
  },
  {
    paths: ['parse/'],
    owns: 'text and button values → validated requests; the grammars, dates in the user’s zone, suggestions (pure)',
    code: ['runtime/', 'service/', 'store/', 'time/'],
    pure: true,
    why: 'reading what a user typed does no I/O: it uses the service’s and the store’s pure words only',
  },
  {
    paths: ['render/'],
    owns: 'outcomes → Block Kit and words; the one error translator (`errors.ts`); Slack’s limits (pure)',
    code: ['parse/', 'service/', 'store/', 'time/', ...USE_CASES],
    types: ['@slack/types'],
    pure: true,
    why: 'drawing an outcome does no I/O: it reads the use cases’ outcomes, and knows Slack by its block types only',
  },
  {
    paths: USE_CASES,
    label: 'the use cases',
    owns: 'the use cases: plain input + deps → a typed outcome; policies and rules (a collection’s start: its pure plan `start-plan.ts`, its execution `start-execution.ts`, its audit steps `start-record.ts`)',
    code: ['domain/', 'parse/', 'runtime/', 'service/', 'store/', 'time/'],
    types: ['config.ts', 'deps.ts'],
    why: 'a use case knows nothing of Slack and returns an outcome for the adapter to render',
  },
  {
    paths: ['deps.ts'],
    owns: '`Deps`: what every use case is given (store, service client, credentials, clock, logger…)',
    code: [],
    types: ['domain/', 'runtime/', 'service/', 'store/'],
    why: 'Deps names the layers below the use cases, never a use case or the adapter',
  },
  {
    paths: ['domain/'],
    owns: 'the words `store/` and `service/` share: `Principal`, the service’s command names, `CollectQuery`, run states',
    code: [],
    why: 'domain/ is below everything: it imports nothing of the app',
  },
  {
    paths: ['service/'],
    owns: 'the only code that speaks HTTP to the Command Service: transport (undici pool, timeouts, retry), decoding (JSON/XML/properties, HTML error pages, zod), commands, typed errors',
    code: ['domain/', 'runtime/', 'time/'],
    why: 'the lower layers import no feature, adapter or renderer, nor Deps; what service/ shares with store/ is in domain/',
  },
  {
    paths: ['store/'],
    owns: 'SQLite and PostgreSQL behind one interface; one schema with numbered migrations; encryption of tokens; pure claim rules; the audit trail’s rows and how they fold back into attempts and decisions (`audit.ts`)',
    code: ['domain/', 'runtime/'],
    types: ['config.ts'],
    why: 'the lower layers import no feature, adapter or renderer, nor Deps; what store/ shares with service/ is in domain/',
  },
  {
    paths: ['slack/'],
    owns: 'the adapter, in four folders: `transport/` (the Bolt app, the receiver, the one middleware that routes each request), `handlers/` (one per command, action, view and event: ack, parse, call a use case, hand the outcome to a surface), `surfaces/` (one module per thing a person sees, and the one place a failure becomes words), `web-api/` (what is sent to Slack, paced as it asks)',
    code: [...USE_CASES, 'domain/', 'parse/', 'render/', 'runtime/', 'service/', 'store/', 'time/', '@slack/*'],
    types: ['config.ts', 'deps.ts'],
    why: 'the adapter stands on the use cases and the pure parts; only main.ts composes it',
  },
  {
    paths: ['runtime/'],
    owns: 'background work after the ack, the shutdown sequence, logger, metrics, ticker, ids, `Secret`',
    code: ['domain/'],
    why: 'the lower layers import no feature, adapter or renderer, nor Deps',
  },
  {
    paths: ['reference-service/'],
    owns: 'a runnable Command Service (the spec and the service’s notes), for local mode and tests',
    code: [],
    why: 'the reference service stands alone, as a vendor’s server would',
  },
  {
    paths: ['playground/'],
    owns: 'local mode: demo users, the Slack stand-in and its page',
    code: ['config.ts', 'parse/', 'reference-service/', 'render/', 'runtime/', 'store/', 'time/'],
    why: 'the playground starts the reference service and stands in for Slack: it checks the app’s blocks as Slack would, and never reaches into the adapter',
  },
  {
    paths: ['admin/', 'cli.ts'],
    owns: 'the admin CLI (`cli.ts` is its process), everything it takes from the process injected',
    code: ['collections/', 'config.ts', 'reference-service/', 'runtime/', 'service/', 'store/', 'time/', '@slack/web-api'],
    why: 'the CLI works on the store and the service directly, without the adapter; it asks Slack only for users’ names (users.info), with the bot token',
  },
];

/** The part a module of src/ belongs to: the one whose path matches it longest. */
export function partOf(file: string, layout: readonly Part[] = LAYOUT): Part | undefined {
  let best: { part: Part; length: number } | undefined;
  for (const part of layout)
    for (const path of part.paths)
      if ((file === path || (path.endsWith('/') && file.startsWith(path))) && path.length > (best?.length ?? -1))
        best = { part, length: path.length };
  return best?.part;
}

/** Whether an entry of a part's `code` or `types` covers an import's target (a module of src/ or a package). */
export function covers(entry: string, target: string): boolean {
  if (entry.endsWith('*')) return target.startsWith(entry.slice(0, -1));
  return target === entry || (entry.endsWith('/') && target.startsWith(entry));
}

const ticked = (s: string) => `\`${s}\``;

/** A list of entries as the table says it: a part's paths, when all are there, by its label. */
function entries(list: readonly string[], layout: readonly Part[]): string[] {
  const left = [...list];
  const out: string[] = [];
  for (const part of layout) {
    if (part.label === undefined || !part.paths.every((p) => left.includes(p))) continue;
    for (const p of part.paths) left.splice(left.indexOf(p), 1);
    out.push(part.label);
  }
  return [...out, ...left.map(ticked)];
}

/** The "may import" cell of a part. */
export function mayImport(part: Part, layout: readonly Part[] = LAYOUT): string {
  const own = part.label !== undefined ? ['one another'] : [];
  const code = part.code === 'everything' ? ['everything'] : [...own, ...entries(part.code, layout)];
  const said = [code.length > 0 ? code.join(', ') : 'nothing of the app'];
  if (part.types !== undefined && part.types.length > 0) said.push(`types only: ${entries(part.types, layout).join(', ')}`);
  if (part.pure === true) said.push('nothing that reaches I/O, however indirectly');
  return said.join('; ');
}

/** The table docs/architecture.md shows under "What each folder owns", rendered from the rules. */
export function layoutTable(layout: readonly Part[] = LAYOUT): string {
  const rows = layout.map((part) => {
    const name = part.paths.map(ticked).join(', ');
    return `| ${name} | ${part.owns} | ${mayImport(part, layout)} |`;
  });
  return ['| folder | owns | may import |', '|---|---|---|', ...rows].join('\n');
}

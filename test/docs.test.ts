/**
 * The documentation holds to the repository: README.md and docs/*.md are read as a newcomer would
 * follow them, and everything they point at is checked against what is there.
 * - every relative link resolves to a file inside the repository, and every #anchor to a heading;
 * - every `countersign …` command shown (inline or in a code block) is one the CLI's usage lists,
 *   with options that command's usage lists;
 * - every `npm run <script>` is a script of package.json, and every `npm run bench -- <suite>` a suite;
 * - every environment variable named is one src/config.ts reads (or, for tests, benchmarks and CI,
 *   one their code reads), and every variable config.ts reads has its section in docs/configuration.md;
 * - nothing points outside the repository (a clone has no ../shared);
 * - README's quick start is the install and test that CI runs;
 * - lists that mirror the code say what the code has: every reason the receiver refuses a request for
 *   (with its status), every metric src/ registers, every bench suite.
 * The checks are plain functions of the text, so the first tests below show each one failing.
 */

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Env, loadConfig, VARIABLES } from '../src/config.js';
import { REFUSALS } from '../src/slack/transport/receiver.js';
import { cli } from './helpers/cli.js';
import { ROOT } from './helpers/spawn.js';

/** A markdown file: its path from the repository's root, and its text. */
interface Doc {
  path: string;
  text: string;
}

interface Parts {
  /** Lines outside fenced code, with inline code spans blanked out. */
  prose: string[];
  /** The contents of inline code spans outside fenced code (a table's `\|` read as `|`). */
  inline: string[];
  /** The lines inside fenced code blocks. */
  code: string[];
  /** Headings outside fenced code, as written. */
  headings: string[];
}

function partsOf(text: string): Parts {
  const parts: Parts = { prose: [], inline: [], code: [], headings: [] };
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (opener !== null && line.trim().startsWith(fence)) fence = undefined;
      else parts.code.push(line);
      continue;
    }
    if (opener !== null) {
      fence = opener[1];
      continue;
    }
    if (/^#{1,6}\s/.test(line)) parts.headings.push(line.replace(/^#{1,6}\s+/, '').trim());
    parts.prose.push(
      line.replace(/(`+)(.+?)\1/g, (_, _ticks: string, inside: string) => {
        parts.inline.push(inside.replace(/\\\|/g, '|').trim());
        return 'code';
      }),
    );
  }
  return parts;
}

/** GitHub's anchor for a heading: its text as rendered, lower case, punctuation but - and _ dropped, spaces as -. */
function slugOf(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*\*?/g, '');
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a document, repeated headings numbered as GitHub numbers them. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of partsOf(text).headings) {
    const slug = slugOf(heading);
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** Relative links (and images) that do not lead to a file of the repository, or to a heading of it. */
function brokenLinks(docs: readonly Doc[], root: string): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const line of partsOf(doc.text).prose) {
      for (const m of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1] as string;
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
        const [path = '', anchor] = target.split('#', 2);
        if (path === '') {
          if (!anchorsOf(doc.text).has(anchor ?? '')) problems.push(`${doc.path}: ${target}: no heading #${anchor} here`);
          continue;
        }
        const file = resolve(root, dirname(doc.path), decodeURIComponent(path));
        const inside = relative(root, file);
        if (inside.startsWith('..') || inside.startsWith(sep)) {
          problems.push(`${doc.path}: ${target} points outside the repository`);
          continue;
        }
        if (!existsSync(file)) {
          problems.push(`${doc.path}: ${target}: no file ${inside}`);
          continue;
        }
        if (anchor === undefined) continue;
        if (!file.endsWith('.md') || statSync(file).isDirectory()) {
          problems.push(`${doc.path}: ${target}: an anchor into a file that is not markdown`);
          continue;
        }
        if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor))
          problems.push(`${doc.path}: ${target}: ${inside} has no heading #${anchor}`);
      }
    }
  }
  return problems;
}

/** Text that sends a reader outside the repository: the project's shared folder is not in a clone. */
function outsidePointers(docs: readonly Doc[]): string[] {
  return docs.flatMap((doc) => (/\.\.\/shared\b/.test(doc.text) ? [`${doc.path}: points at ../shared, which a clone does not have`] : []));
}

/** The CLI's usage read into its commands ("tokens set", "service") and the options each takes. */
function commandsOfUsage(usage: string): Map<string, Set<string>> {
  const commands = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  const body = usage.split(/^Commands:$/m)[1]?.split(/^Examples:$/m)[0] ?? '';
  for (const line of body.split('\n')) {
    if (/^ {2}\S/.test(line)) {
      const words = line.trim().split(/\s+/);
      const name = words.filter((_, i) => words.slice(0, i + 1).every((w) => /^[a-z]+$/.test(w))).join(' ');
      current = new Set();
      commands.set(name, current);
      for (const o of line.matchAll(/--[a-z][a-z-]*/g)) current.add(o[0]);
    } else if (current !== undefined && /^ {4,}[[-]/.test(line)) {
      for (const o of line.matchAll(/--[a-z][a-z-]*/g)) current.add(o[0]);
    } else if (!/^ {5,}\S/.test(line)) current = undefined;
  }
  return commands;
}

/** `countersign …` as shown: inline, or a line of a code block (after a prompt, `npx`, or variables set for it). */
function shownCommands(doc: Doc): string[] {
  const { inline, code } = partsOf(doc.text);
  const shown: string[] = [];
  for (const span of inline) {
    const m = /^(?:npx\s+)?countersign\s+(.+)$/.exec(span);
    if (m) shown.push(m[1] as string);
  }
  for (const line of code) {
    const m = /^\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*(?:npx\s+)?countersign\s+(.+)$/.exec(line);
    if (m) shown.push(m[1] as string);
  }
  return shown;
}

/** Commands the CLI does not have, or options their command does not take. */
function unknownCommands(docs: readonly Doc[], usage: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const shown of shownCommands(doc)) {
      // What the shell does with it (redirections, pipes, comments) is not the CLI's.
      const words =
        shown
          .split(/\s+(?:[<>|#;]|&&|>>)\s*|\s+#/)[0]
          ?.trim()
          .split(/\s+/) ?? [];
      if (words.length === 0 || /^(…|\.\.\.|<)/.test(words[0] as string)) continue;
      const command = `countersign ${words.join(' ')}`;
      const name = [words.slice(0, 2).join(' '), words[0] as string].find((n) => usage.has(n));
      if (name === undefined) {
        problems.push(`${doc.path}: ${command}: the CLI has no command ${words.slice(0, 2).join(' ')}`);
        continue;
      }
      const takes = usage.get(name) as Set<string>;
      for (const word of words) {
        const option = /^\[?(--[a-z][a-z-]*)/.exec(word)?.[1];
        if (option !== undefined && option !== '--help' && !takes.has(option))
          problems.push(`${doc.path}: ${command}: ${name} takes no ${option}`);
      }
    }
  }
  return problems;
}

/** `npm run <script>` that package.json does not have, and `npm run bench -- <suite>` that bench/ does not. */
function unknownScripts(docs: readonly Doc[], scripts: ReadonlySet<string>, suites: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const doc of docs) {
    for (const m of doc.text.matchAll(/\bnpm run ([a-z][\w:-]*)/g))
      if (!scripts.has(m[1] as string)) problems.push(`${doc.path}: npm run ${m[1]}: package.json has no such script`);
    for (const m of doc.text.matchAll(/\bnpm (start|test)\b/g))
      if (!scripts.has(m[1] as string)) problems.push(`${doc.path}: npm ${m[1]}: package.json has no such script`);
    for (const m of doc.text.matchAll(/\bnpm run bench \[?-- ([a-z|\\]+)/g))
      for (const suite of (m[1] as string).split(/\\?\|/))
        if (suite !== '' && !suites.has(suite)) problems.push(`${doc.path}: npm run bench -- ${suite}: bench/ has no such suite`);
  }
  return problems;
}

const VARIABLE = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

/** Variables named that nothing reads: a typo, or a variable that went away. */
function unknownVariables(docs: readonly Doc[], config: ReadonlySet<string>, others: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const doc of docs)
    for (const name of new Set(doc.text.match(VARIABLE) ?? []))
      if (!config.has(name) && !others.has(name))
        problems.push(`${doc.path}: ${name} is read by neither src/config.ts nor the tests, benchmarks or CI`);
  return problems;
}

/** Variables config.ts reads that docs/configuration.md has no section for. */
function undocumentedVariables(configuration: string, config: ReadonlySet<string>): string[] {
  const headings = new Set(partsOf(configuration).headings.map((h) => h.replace(/`/g, '')));
  return [...config].filter((name) => !headings.has(name)).map((name) => `docs/configuration.md has no section for ${name}`);
}

/** Table cells too long to read: a cell says one thing, and the paragraph below says the rest. */
function longCells(docs: readonly Doc[], max: number): string[] {
  const problems: string[] = [];
  for (const doc of docs)
    for (const line of partsOf(doc.text).prose)
      if (line.startsWith('|'))
        for (const cell of line.split(/(?<!\\)\|/))
          if (cell.trim().length > max)
            problems.push(`${doc.path}: a table cell of ${cell.trim().length} characters: ${cell.trim().slice(0, 60)}…`);
  return problems;
}

/** The rows of the first table under a heading: its cells, the header and the rule left out. */
function tableUnder(text: string, heading: string): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => /^#{1,6}\s/.test(l) && l.replace(/^#{1,6}\s+/, '').trim() === heading);
  if (at < 0) return [];
  const start = lines.findIndex((l, i) => i > at && l.startsWith('|'));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && (lines[i] as string).startsWith('|'); i++)
    rows.push(
      (lines[i] as string)
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  return rows;
}

/** What a list in the docs says that the code does not, and what the code has that the list leaves out. */
function listDifferences(what: string, documented: ReadonlyMap<string, string>, actual: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [name, value] of actual) {
    if (!documented.has(name)) problems.push(`${what}: ${name} is not documented`);
    else if (documented.get(name) !== value)
      problems.push(`${what}: ${name} is documented as ${documented.get(name)}, the code has ${value}`);
  }
  for (const name of documented.keys()) if (!actual.has(name)) problems.push(`${what}: ${name} is documented, the code has none`);
  return problems;
}

/** The refusals docs/operating.md explains: reason → status. */
function documentedRefusals(operating: string): Map<string, string> {
  return new Map(
    tableUnder(operating, 'Requests refused before the app').map(([reason = '', status = '']) => [reason.replace(/`/g, ''), status]),
  );
}

/** The metrics docs/operating.md lists, by name (the process's own, `…_*`, left out). */
function documentedMetrics(operating: string): Map<string, string> {
  const names = tableUnder(operating, 'Metrics').flatMap(([cell = '']) =>
    [...cell.matchAll(/`(countersign_[a-z_]+)[{`]/g)].map((m) => m[1] as string),
  );
  return new Map(names.map((n) => [n, 'a metric']));
}

// ---------------------------------------------------------------------------------------------------

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const DOCS: Doc[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].map((path) => ({ path, text: read(path) }));

/**
 * What config.ts reads: every variable of its table, and every name loadConfig asks its env for, in
 * local mode and in HTTP mode (so that a variable read only in one of them is found too).
 */
function configVariables(): Set<string> {
  const names = new Set<string>();
  for (const name of VARIABLES) names.add(name);
  const probe = (values: Record<string, string>) => {
    const env = new Proxy(values, {
      get(target, key) {
        if (typeof key === 'string' && /^[A-Z]/.test(key)) names.add(key);
        return typeof key === 'string' ? target[key] : undefined;
      },
    });
    loadConfig(env as Env);
  };
  probe({});
  probe({
    SLACK_BOT_TOKEN: 'xoxb-1234-5678-abcdef',
    SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99eeeddd85a5',
    COMMAND_SERVICE_URL: 'https://igl.example.com/aveksa',
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  });
  return names;
}

/** Variables read by the tests, the benchmarks and CI, which docs/development.md and docs/benchmarks.md name. */
function otherVariables(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs|js)$/.test(path) && path !== 'test/docs.test.ts')
        for (const m of read(path).matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1] as string);
    }
  };
  walk('test');
  walk('bench');
  for (const m of read('.ci/run').matchAll(/\b([A-Z][A-Z0-9_]+)=/g)) names.add(m[1] as string);
  return names;
}

function benchSuites(): Set<string> {
  const block = /const suites[^{]*\{([^}]*)\}/.exec(read('bench/index.ts'))?.[1] ?? '';
  return new Set([...block.matchAll(/^\s*([a-z]+):/gm)].map((m) => m[1] as string));
}

async function cliUsage(): Promise<Map<string, Set<string>>> {
  const run = cli(['help']);
  expect(await run.exited).toBe(0);
  return commandsOfUsage(run.stdout());
}

describe('the documentation checks', () => {
  const doc = (text: string, path = 'docs/example.md'): Doc => ({ path, text });

  it('find a broken link, a missing anchor, a link out of the repository, and ../shared', () => {
    const broken = doc(
      [
        'See [using](using.md#dates-and-times), [nothing](no-such-file.md), [a heading](using.md#no-such-heading),',
        '[the spec](../../shared/spec/command-service.md), [here](#a-heading-here) and [not here](#elsewhere).',
        '',
        '## A heading here',
      ].join('\n'),
    );
    expect(brokenLinks([broken], ROOT)).toEqual([
      'docs/example.md: no-such-file.md: no file docs/no-such-file.md',
      'docs/example.md: using.md#no-such-heading: docs/using.md has no heading #no-such-heading',
      'docs/example.md: ../../shared/spec/command-service.md points outside the repository',
      'docs/example.md: #elsewhere: no heading #elsewhere here',
    ]);
    expect(outsidePointers([doc('as ../shared/DESIGN.md says')])).toHaveLength(1);
  });

  it('read anchors as GitHub makes them', () => {
    expect(slugOf('The trusted application’s secret')).toBe('the-trusted-applications-secret');
    expect(slugOf('`DECISION_REQUEST`')).toBe('decision_request');
    expect(slugOf('Digests at scale (`npm run bench -- digests`)')).toBe('digests-at-scale-npm-run-bench----digests');
    expect(slugOf('/collect history')).toBe('collect-history');
    expect(anchorsOf('## Logs\n```sh\n# not a heading\n```\n## Logs')).toEqual(new Set(['logs', 'logs-1']));
  });

  it('find a command the CLI lacks, and an option its command does not take', async () => {
    const usage = await cliUsage();
    const shown = doc(
      [
        'Run `countersign tokens set --user U1 --command all < token.txt`, then `countersign tokens purge`.',
        '```sh',
        'npx countersign audit --since 7d --color   # the table',
        'countersign …',
        '```',
      ].join('\n'),
    );
    expect(unknownCommands([shown], usage)).toEqual([
      'docs/example.md: countersign tokens purge: the CLI has no command tokens purge',
      'docs/example.md: countersign audit --since 7d --color: audit takes no --color',
    ]);
  });

  it('find an unknown script, bench suite or variable, and a long table cell', () => {
    const text = 'npm run lint, npm run deploy, `npm run bench -- client|speed`, npm test; COMMAND_SERVICE_URL and COMMAND_SERVICE_URI';
    expect(unknownScripts([doc(text)], new Set(['lint', 'test', 'bench']), new Set(['client']))).toEqual([
      'docs/example.md: npm run deploy: package.json has no such script',
      'docs/example.md: npm run bench -- speed: bench/ has no such suite',
    ]);
    expect(unknownVariables([doc(text)], new Set(['COMMAND_SERVICE_URL']), new Set())).toEqual([
      'docs/example.md: COMMAND_SERVICE_URI is read by neither src/config.ts nor the tests, benchmarks or CI',
    ]);
    expect(undocumentedVariables('## `PORT`', new Set(['PORT', 'LOG_LEVEL']))).toEqual([
      'docs/configuration.md has no section for LOG_LEVEL',
    ]);
    expect(longCells([doc(`| a | ${'x'.repeat(50)} |`)], 40)).toHaveLength(1);
  });
  it('find a refusal reason or a metric the docs leave out, list wrongly, or list that the code has not', () => {
    const operating = [
      '## Metrics',
      '',
      '| metric | what |',
      '|---|---|',
      '| `countersign_requests_total{type}` | requests |',
      '| `countersign_gone_total` | gone |',
      '| `countersign_process_*` | the process |',
      '',
      '### Requests refused before the app',
      '',
      '| reason | status | what happened |',
      '|---|---|---|',
      '| `stale` | 401 | old |',
      '| `busy` | 429 | full |',
      '| `gone` | 410 | never was |',
    ].join('\n');
    expect(documentedRefusals(operating)).toEqual(
      new Map([
        ['stale', '401'],
        ['busy', '429'],
        ['gone', '410'],
      ]),
    );
    const code = new Map([
      ['stale', '401'],
      ['busy', '503'],
      ['draining', '503'],
    ]);
    expect(listDifferences('refusals', documentedRefusals(operating), code)).toEqual([
      'refusals: busy is documented as 429, the code has 503',
      'refusals: draining is not documented',
      'refusals: gone is documented, the code has none',
    ]);
    expect([...documentedMetrics(operating).keys()]).toEqual(['countersign_requests_total', 'countersign_gone_total']);
    expect(tableUnder(operating, 'No such heading')).toEqual([]);
  });
});

describe('README.md and docs/', () => {
  it('link only to files and headings that exist in the repository', () => {
    expect(DOCS.map((d) => d.path)).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/service-contract.md']));
    expect(brokenLinks(DOCS, ROOT)).toEqual([]);
  });

  it('point nowhere outside the repository, and neither do comments in src/, test/ and bench/', () => {
    expect(outsidePointers(DOCS)).toEqual([]);
    const sources: Doc[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && path !== 'test/docs.test.ts') sources.push({ path, text: read(path) });
      }
    };
    for (const dir of ['src', 'test', 'bench']) walk(dir);
    expect(outsidePointers(sources)).toEqual([]);
  });

  it('show only countersign commands and options the CLI has', async () => {
    const usage = await cliUsage();
    expect([...usage.keys()]).toEqual(expect.arrayContaining(['tokens set', 'service', 'audit', 'keys rotate', 'help']));
    expect(unknownCommands(DOCS, usage)).toEqual([]);
  });

  it('name only npm scripts of package.json and bench suites that exist', () => {
    const scripts = new Set(Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts));
    const suites = benchSuites();
    expect(suites).toContain('digests');
    expect(unknownScripts(DOCS, scripts, suites)).toEqual([]);
  });

  it('name only environment variables that are read, and document every one config.ts reads', () => {
    const config = configVariables();
    expect(config).toContain('COMMAND_SERVICE_URL');
    expect(config).toContain('DECISION_REQUEST');
    expect(unknownVariables(DOCS, config, otherVariables())).toEqual([]);
    expect(undocumentedVariables(read('docs/configuration.md'), config)).toEqual([]);
  });

  it('keep table cells short enough to read', () => {
    expect(longCells(DOCS, 400)).toEqual([]);
  });

  it('give the quick start CI runs: install and start, install and test', () => {
    const readme = partsOf(read('README.md')).code.map((l) => l.replace(/\s+#.*$/, '').trim());
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    const ci = read('.ci/run')
      .split('\n')
      .map((l) => l.trim());
    expect(ci.indexOf('npm ci')).toBeGreaterThan(-1);
    expect(ci.indexOf('npm test')).toBe(ci.indexOf('npm ci') + 1);
  });
  it('explain every reason the receiver refuses a request for, with its status, and no other', () => {
    const actual = new Map(Object.entries(REFUSALS).map(([reason, status]) => [reason, String(status)]));
    expect(actual.size).toBeGreaterThan(5);
    expect(listDifferences('docs/operating.md, requests refused', documentedRefusals(read('docs/operating.md')), actual)).toEqual([]);
    // Each reason listed is one the receiver gives (its type keeps it from giving any other).
    const receiver = read('src/slack/transport/receiver.ts');
    expect([...actual.keys()].filter((reason) => !receiver.includes(`reason: '${reason}'`))).toEqual([]);
  });

  it('list every metric src/ registers, and no other', () => {
    const registered = new Map<string, string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts'))
          for (const m of read(path).matchAll(/'(countersign_[a-z_]+[a-z])'/g)) registered.set(m[1] as string, 'a metric');
      }
    };
    walk('src');
    expect(registered.size).toBeGreaterThan(3);
    expect(listDifferences('docs/operating.md, metrics', documentedMetrics(read('docs/operating.md')), registered)).toEqual([]);
  });
  it('list every bench suite in docs/benchmarks.md, a page of method and figures rather than run logs', () => {
    const benchmarks = read('docs/benchmarks.md');
    const listed = tableUnder(benchmarks, 'How the benches run').map(([suite = '']) => suite.replace(/`/g, ''));
    expect(new Set(listed)).toEqual(benchSuites());
    // Run logs go to commit messages or docs/benchmarks-history.md; this page says what holds now.
    expect(benchmarks.trimEnd().split('\n').length).toBeLessThan(200);
  });
});

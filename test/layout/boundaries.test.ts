/**
 * The layout's rules (test/layout/rules.ts, shown in docs/architecture.md, "What each folder owns"),
 * checked on the imports of every source file, so that an import pointing the wrong way fails here
 * and not in a review:
 * - every module of src/ belongs to a part of the layout, and every part's paths are there;
 * - a part imports only what its rule lists (code, or types only), Slack's packages included;
 * - pure parts (parse/, render/) reach no I/O, however indirectly;
 * - docs/architecture.md's table is the one rendered from the rules;
 * - no module of src/ is in an import cycle (type-only imports included), but for those KNOWN_CYCLES lists,
 *   and no folder of src/ is either.
 */

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';
import { CONFINED_PACKAGES, covers, IO_MODULES, LAYOUT, layoutTable, mayImport, type Part, partOf } from './rules.js';

interface Import {
  /** A path under src/ (e.g. 'render/blocks.ts') or a package / node: name. */
  target: string;
  /** Erased at compile time: carries no code, so no I/O. */
  typeOnly: boolean;
}

type Graph = ReadonlyMap<string, readonly Import[]>;

const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file; a named import is type-only when `import type` or every name is marked `type`. */
function importsOf(text: string, fileUnderSrc: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const specifier = (m[4] ?? m[5]) as string;
    const names = m[3] ?? '';
    const braces = /\{([^}]*)\}/.exec(names);
    const allTyped =
      braces !== null &&
      !/^[\w$]+\s*,/.test(names) &&
      braces[1]
        ?.split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '')
        .every((n) => n.startsWith('type ')) === true;
    const typeOnly = m[2] !== undefined || allTyped;
    const target = specifier.startsWith('.')
      ? relative(SRC, resolve(dirname(join(SRC, fileUnderSrc)), specifier.replace(/\.js$/, '.ts')))
          .split('\\')
          .join('/')
      : specifier;
    found.push({ target, typeOnly });
  }
  return found;
}

/** A module of src/ (imports are resolved to their .ts path), not a package or a node: built-in. */
const ofSrc = (target: string) => target.endsWith('.ts');

/** Where a module of src/ or a package stands in the layout: whether a part's rule must allow it. */
const ruled = (target: string) => ofSrc(target) || target.startsWith(CONFINED_PACKAGES);

/**
 * Every import the layout does not allow, one line each saying which rule; and every module of src/
 * outside the layout, and every path of the layout that src/ does not have (`exists` tells).
 */
function layoutViolations(graph: Graph, layout: readonly Part[] = LAYOUT, exists: (path: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (const part of layout)
    for (const path of part.paths)
      if (!exists(path)) out.push(`the layout names ${path}, which src/ does not have: test/layout/rules.ts is out of date`);
  for (const [file, imports] of graph) {
    const part = partOf(file, layout);
    if (part === undefined) {
      out.push(`${file} belongs to no part of the layout: give it one in test/layout/rules.ts (and the table in docs/architecture.md)`);
      continue;
    }
    for (const { target, typeOnly } of imports) {
      if (!ruled(target) || part.code === 'everything' || partOf(target, layout) === part) continue;
      const allowed = part.code.some((e) => covers(e, target)) || (typeOnly && (part.types ?? []).some((e) => covers(e, target)));
      if (allowed) continue;
      const name = part.label ?? part.paths.join(', ');
      out.push(`${file} imports ${target}${typeOnly ? ' (types)' : ''}: ${part.why} (${name} may import ${mayImport(part, layout)})`);
    }
  }
  // Pure parts: follow value imports to their end; none may reach a module that does I/O, nor the adapter.
  for (const file of graph.keys()) {
    if (partOf(file, layout)?.pure !== true) continue;
    const seen = new Set<string>();
    const walk = (at: string, path: string[]): void => {
      for (const { target, typeOnly } of graph.get(at) ?? []) {
        if (typeOnly) continue;
        if ((IO_MODULES as readonly string[]).includes(target) || target.startsWith('slack/')) {
          out.push(`${file} reaches ${target} through ${[...path, target].join(' → ')}: a pure part does no I/O`);
          continue;
        }
        if (!seen.has(target) && graph.has(target)) {
          seen.add(target);
          walk(target, [...path, target]);
        }
      }
    };
    walk(file, [file]);
  }
  return out;
}

/** The table between the markers in docs/architecture.md. */
function documentedTable(text: string): string | undefined {
  return /<!-- layout-table[^>]*-->\n([\s\S]*?)\n<!-- \/layout-table -->/.exec(text)?.[1]?.trim();
}

/**
 * Every import cycle among the modules under src/, type-only imports included: a cycle of types
 * still ties the modules together (neither can be read, moved or tested without the other), and
 * the review that asked for this found store/ and service/ tied by types alone. One line per
 * strongly connected set of modules, as one cycle through them, shortest first.
 */
/**
 * Cycles there were when the check came, each to be broken by the work that owns its folder (the
 * playground's split); a cycle not listed here fails the test.
 */
const KNOWN_CYCLES: string[] = [];

function importCycles(graph: Graph): string[] {
  const edges = (file: string) => [...new Set((graph.get(file) ?? []).map((i) => i.target).filter((t) => graph.has(t)))];
  // Tarjan's strongly connected components, iteratively: the graph is a few hundred modules, but recursion needs no bound here.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ file: string; targets: string[]; at: number }> = [{ file: root, targets: edges(root), at: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as (typeof work)[number];
      const target = frame.targets[frame.at++];
      if (target !== undefined) {
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ file: target, targets: edges(target), at: 0 });
        } else if (onStack.has(target)) low.set(frame.file, Math.min(low.get(frame.file) as number, index.get(target) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file) as number, low.get(frame.file) as number));
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.file);
        if (component.length > 1 || edges(frame.file).includes(frame.file)) components.push(component);
      }
    }
  }
  return components.map((component) => `import cycle: ${cycleThrough(component, edges).join(' → ')}`).sort();
}

/**
 * The same graph one level up: each folder of src/ (or file at its top) one node, an import from
 * one to another an arrow. A cycle here is layers that point both ways, even when no module is in
 * a cycle: store/types.ts once imported service/index.ts while service/credentials.ts imported
 * store/types.ts.
 */
function folderGraph(graph: Graph): Graph {
  const folder = (file: string) => (file.includes('/') ? `${file.slice(0, file.indexOf('/'))}/` : file);
  const folders = new Map<string, Import[]>();
  for (const [file, imports] of graph) {
    const from = folder(file);
    const arrows = folders.get(from) ?? [];
    for (const { target, typeOnly } of imports)
      if (graph.has(target) && folder(target) !== from) arrows.push({ target: folder(target), typeOnly });
    folders.set(from, arrows);
  }
  return folders;
}

/** One shortest cycle inside a strongly connected set, from its first module in sort order back to it. */
function cycleThrough(component: string[], edges: (file: string) => string[]): string[] {
  const inside = new Set(component);
  const start = [...component].sort()[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i] as string;
    for (const target of edges(at)) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const path = [at];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, at);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

function projectGraph(): Graph {
  return new Map(
    sourceFiles(SRC).map((path) => {
      const file = relative(SRC, path).split('\\').join('/');
      return [file, importsOf(readFileSync(path, 'utf8'), file)] as const;
    }),
  );
}

describe('layout', () => {
  it('has every import pointing the way the layout says, and every module in a part of it', () => {
    const graph = projectGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(layoutViolations(graph, LAYOUT, (path) => existsSync(join(SRC, path)))).toEqual([]);
  });

  it('is shown in docs/architecture.md as the rules say', () => {
    const expected = layoutTable();
    const shown = documentedTable(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
    expect(
      shown,
      `docs/architecture.md's table between <!-- layout-table --> and <!-- /layout-table --> differs from the rules in test/layout/rules.ts; it should read:\n\n${expected}\n`,
    ).toBe(expected);
  });

  it('has no import cycle among the modules of src/, type-only imports included', () => {
    expect(importCycles(projectGraph()).filter((cycle) => !KNOWN_CYCLES.includes(cycle))).toEqual([]);
  });

  it('has no cycle among the folders of src/: the layers point one way', () => {
    expect(importCycles(folderGraph(projectGraph()))).toEqual([]);
  });

  it('catches each kind of wrong import (the rules can fail)', () => {
    const graph: Graph = new Map<string, Import[]>([
      [
        'collections/start.ts',
        [
          { target: 'slack/deps.ts', typeOnly: true },
          { target: 'render/collect.ts', typeOnly: false },
          { target: 'config.ts', typeOnly: false },
          { target: 'config.ts', typeOnly: true },
          { target: 'approvals/due.ts', typeOnly: false },
        ],
      ],
      ['approvals/search.ts', [{ target: '@slack/types', typeOnly: true }]],
      ['store/sqlite.ts', [{ target: 'reminders/schedule.ts', typeOnly: true }]],
      ['config.ts', [{ target: 'slack/app.ts', typeOnly: false }]],
      [
        'render/collect.ts',
        [
          { target: 'collections/io.ts', typeOnly: false },
          { target: 'service/index.ts', typeOnly: true },
          { target: '@slack/types', typeOnly: true },
          { target: '@slack/web-api', typeOnly: true },
        ],
      ],
      ['collections/io.ts', [{ target: 'undici', typeOnly: false }]],
      ['reference-service/server.ts', [{ target: 'runtime/logger.ts', typeOnly: false }]],
      ['main.ts', [{ target: 'slack/app.ts', typeOnly: false }]],
      ['store/types.ts', [{ target: 'service/index.ts', typeOnly: true }]],
      ['service/credentials.ts', [{ target: 'deps.ts', typeOnly: true }]],
      ['domain/index.ts', [{ target: 'runtime/secret.ts', typeOnly: true }]],
      [
        'deps.ts',
        [
          { target: 'store/index.ts', typeOnly: true },
          { target: 'store/index.ts', typeOnly: false },
          { target: 'approvals/decide.ts', typeOnly: true },
        ],
      ],
      ['playground/server.ts', [{ target: 'slack/receiver.ts', typeOnly: false }]],
      ['nowhere/x.ts', []],
    ]);
    const found = layoutViolations(graph, LAYOUT, (path) => path !== 'home/');
    const said = (file: string, target: string) => found.filter((v) => v.startsWith(`${file} imports ${target}`));
    expect(found).toContain('the layout names home/, which src/ does not have: test/layout/rules.ts is out of date');
    expect(found).toContain(
      'nowhere/x.ts belongs to no part of the layout: give it one in test/layout/rules.ts (and the table in docs/architecture.md)',
    );
    expect(said('collections/start.ts', 'slack/deps.ts')[0]).toMatch(
      /^collections\/start\.ts imports slack\/deps\.ts \(types\): a use case knows nothing of Slack .* \(the use cases may import one another, /,
    );
    expect(said('collections/start.ts', 'render/collect.ts')).toHaveLength(1);
    // config.ts for its types only: code from it is refused, its types are not; one use case may import another.
    expect(said('collections/start.ts', 'config.ts')).toEqual([expect.stringMatching(/^collections\/start\.ts imports config\.ts: /)]);
    expect(said('collections/start.ts', 'approvals/due.ts')).toEqual([]);
    expect(said('approvals/search.ts', '@slack/types')).toHaveLength(1);
    expect(said('store/sqlite.ts', 'reminders/schedule.ts')).toHaveLength(1);
    expect(said('config.ts', 'slack/app.ts')).toHaveLength(1);
    // render/ knows Slack by its block types only.
    expect(said('render/collect.ts', '@slack/types')).toEqual([]);
    expect(said('render/collect.ts', '@slack/web-api')).toHaveLength(1);
    expect(found).toContain(
      'render/collect.ts reaches undici through render/collect.ts → collections/io.ts → undici: a pure part does no I/O',
    );
    expect(said('reference-service/server.ts', 'runtime/logger.ts')).toEqual([
      'reference-service/server.ts imports runtime/logger.ts: the reference service stands alone, as a vendor’s server would (reference-service/ may import nothing of the app)',
    ]);
    expect(said('store/types.ts', 'service/index.ts')).toHaveLength(1);
    expect(said('service/credentials.ts', 'deps.ts')).toHaveLength(1);
    expect(said('domain/index.ts', 'runtime/secret.ts')).toHaveLength(1);
    // Deps names store/ for its types only.
    expect(said('deps.ts', 'store/index.ts')).toEqual([expect.stringMatching(/^deps\.ts imports store\/index\.ts: Deps names/)]);
    expect(said('deps.ts', 'approvals/decide.ts')).toHaveLength(1);
    expect(said('playground/server.ts', 'slack/receiver.ts')).toHaveLength(1);
    expect(found.some((v) => v.startsWith('main.ts'))).toBe(false);
    expect(found).toHaveLength(17);
  });

  it('renders the table from the rules: labels for parts of several folders, types apart, purity said', () => {
    const layout: Part[] = [
      { paths: ['a/', 'b/'], label: 'the letters', owns: 'letters', code: ['c.ts'], types: ['d/'], why: 'w' },
      { paths: ['c.ts'], owns: 'a file', code: [], why: 'w' },
      { paths: ['d/'], owns: 'pure things', code: ['a/', 'b/', 'c.ts', '@x/*'], pure: true, why: 'w' },
      { paths: ['main.ts'], owns: 'the root', code: 'everything', why: 'w' },
    ];
    expect(layoutTable(layout)).toBe(
      [
        '| folder | owns | may import |',
        '|---|---|---|',
        '| `a/`, `b/` | letters | one another, `c.ts`; types only: `d/` |',
        '| `c.ts` | a file | nothing of the app |',
        '| `d/` | pure things | the letters, `c.ts`, `@x/*`; nothing that reaches I/O, however indirectly |',
        '| `main.ts` | the root | everything |',
      ].join('\n'),
    );
    expect(partOf('a/x/y.ts', layout)?.owns).toBe('letters');
    expect(partOf('c.ts/x.ts', layout)).toBeUndefined();
    // The longest path wins: a folder given a rule of its own inside another's.
    expect(partOf('slack/transport/receiver.ts', [...LAYOUT, { paths: ['slack/transport/'], owns: 't', code: [], why: 'w' }])?.owns).toBe(
      't',
    );
    expect(documentedTable('# Doc\n<!-- layout-table: made from the rules -->\n| a |\n|---|\n<!-- /layout-table -->\nmore')).toBe(
      '| a |\n|---|',
    );
    expect(documentedTable('# Doc without it')).toBeUndefined();
  });

  it('finds an import cycle, types included, however long, between modules and between folders, and none where there is none', () => {
    const graph = new Map<string, Import[]>([
      ['store/types.ts', [{ target: 'service/index.ts', typeOnly: true }]],
      ['service/index.ts', [{ target: 'service/credentials.ts', typeOnly: false }]],
      [
        'service/credentials.ts',
        [
          { target: 'store/types.ts', typeOnly: true },
          { target: 'runtime/secret.ts', typeOnly: true },
        ],
      ],
      ['runtime/secret.ts', [{ target: 'node:crypto', typeOnly: false }]],
      ['render/a.ts', [{ target: 'render/a.ts', typeOnly: false }]],
      ['render/b.ts', [{ target: 'render/c.ts', typeOnly: false }]],
      ['render/c.ts', [{ target: 'render/d.ts', typeOnly: false }]],
      ['render/d.ts', [{ target: 'render/b.ts', typeOnly: true }]],
      ['parse/x.ts', [{ target: 'render/b.ts', typeOnly: false }]],
    ]);
    expect(importCycles(graph)).toEqual([
      'import cycle: render/a.ts → render/a.ts',
      'import cycle: render/b.ts → render/c.ts → render/d.ts → render/b.ts',
      'import cycle: service/credentials.ts → store/types.ts → service/index.ts → service/credentials.ts',
    ]);
    expect(importCycles(folderGraph(graph))).toEqual(['import cycle: service/ → store/ → service/']);
    graph.set('render/d.ts', []);
    graph.set('render/a.ts', []);
    graph.set('store/types.ts', [{ target: 'domain/index.ts', typeOnly: true }]);
    expect(importCycles(graph)).toEqual([]);
    // No module is in a cycle, yet the two folders still import each other: as store/ and service/ did.
    graph.set('store/types.ts', [{ target: 'service/index.ts', typeOnly: true }]);
    graph.set('service/index.ts', [{ target: 'service/query.ts', typeOnly: false }]);
    graph.set('service/query.ts', []);
    expect(importCycles(graph)).toEqual([]);
    expect(importCycles(folderGraph(graph))).toEqual(['import cycle: service/ → store/ → service/']);
  });

  it('reads type-only imports as such, and everything else as code', () => {
    expect(importsOf("import type { A } from './a.js';", 'render/x.ts')).toEqual([{ target: 'render/a.ts', typeOnly: true }]);
    expect(importsOf("import { type A, type B } from '../parse/b.js';", 'render/x.ts')).toEqual([{ target: 'parse/b.ts', typeOnly: true }]);
    expect(importsOf("import { type A, b } from 'undici';", 'render/x.ts')).toEqual([{ target: 'undici', typeOnly: false }]);
    expect(importsOf("import Database, { type Statement } from 'better-sqlite3';", 'store/x.ts')).toEqual([
      { target: 'better-sqlite3', typeOnly: false },
    ]);
    expect(importsOf("export * from './types.js';\nconst m = await import('../slack/app.js');", 'store/index.ts')).toEqual([
      { target: 'store/types.ts', typeOnly: false },
      { target: 'slack/app.ts', typeOnly: false },
    ]);
  });
});

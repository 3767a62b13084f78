/**
 * The layout's rules (docs/architecture.md, "What each folder owns"), checked on the imports of every source
 * file, so that an import pointing the wrong way fails here and not in a review:
 * - parse/ and render/ reach no I/O, however indirectly;
 * - use cases (approvals/, collections/, accounts/, reminders/, home/) import nothing of Slack,
 *   and leave rendering to the adapter;
 * - nothing below slack/ imports it: only main.ts composes it;
 * - runtime/, service/ and store/ import no feature, adapter or renderer;
 * - the reference service stands alone, as a vendor's server would.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

interface Import {
  /** A path under src/ (e.g. 'render/blocks.ts') or a package / node: name. */
  target: string;
  /** Erased at compile time: carries no code, so no I/O. */
  typeOnly: boolean;
}

type Graph = ReadonlyMap<string, readonly Import[]>;

const SRC = join(ROOT, 'src');
const USE_CASES = ['approvals/', 'collections/', 'accounts/', 'reminders/', 'home/'];
const IO_MODULES = [
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
  'pino',
  'prom-client',
  'ws',
  '@slack/bolt',
  '@slack/web-api',
  '@slack/socket-mode',
];

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

function layoutViolations(graph: Graph): string[] {
  const out: string[] = [];
  const under = (file: string, ...dirs: string[]) => dirs.some((d) => file.startsWith(d));
  for (const [file, imports] of graph) {
    for (const { target, typeOnly } of imports) {
      const says = (rule: string) => out.push(`${file} imports ${target}${typeOnly ? ' (types)' : ''}: ${rule}`);
      if (under(file, ...USE_CASES)) {
        if (target.startsWith('slack/') || target.startsWith('@slack/')) says('a use case knows nothing of Slack');
        if (target.startsWith('render/')) says('a use case returns an outcome; the adapter renders it');
      }
      if (target.startsWith('slack/') && !under(file, 'slack/') && file !== 'main.ts') says('only main.ts composes the Slack adapter');
      if (under(file, 'runtime/', 'service/', 'store/')) {
        if (under(target, 'slack/', 'render/', 'parse/', 'playground/', 'reference-service/', ...USE_CASES) || target === 'main.ts')
          says('the lower layers import no feature, adapter or renderer');
      }
      if (under(file, 'reference-service/') && !target.startsWith('reference-service/') && !/^(node:|[a-z@])/.test(target))
        says('the reference service stands alone');
    }
  }
  // parse/ and render/: follow value imports to their end; none may reach a module that does I/O.
  for (const file of graph.keys()) {
    if (!under(file, 'parse/', 'render/')) continue;
    const seen = new Set<string>();
    const walk = (at: string, path: string[]): void => {
      for (const { target, typeOnly } of graph.get(at) ?? []) {
        if (typeOnly) continue;
        if (IO_MODULES.includes(target) || target.startsWith('slack/')) {
          out.push(`${file} reaches ${target} through ${[...path, target].join(' → ')}: parse/ and render/ do no I/O`);
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

function projectGraph(): Graph {
  return new Map(
    sourceFiles(SRC).map((path) => {
      const file = relative(SRC, path).split('\\').join('/');
      return [file, importsOf(readFileSync(path, 'utf8'), file)] as const;
    }),
  );
}

describe('layout', () => {
  it('has every import pointing the way docs/architecture.md says', () => {
    const graph = projectGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(layoutViolations(graph)).toEqual([]);
  });

  it('catches each kind of wrong import (the rules can fail)', () => {
    const graph: Graph = new Map<string, Import[]>([
      [
        'collections/start.ts',
        [
          { target: 'slack/deps.ts', typeOnly: true },
          { target: 'render/collect.ts', typeOnly: false },
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
        ],
      ],
      ['collections/io.ts', [{ target: 'undici', typeOnly: false }]],
      ['reference-service/server.ts', [{ target: 'runtime/logger.ts', typeOnly: false }]],
      ['main.ts', [{ target: 'slack/app.ts', typeOnly: false }]],
    ]);
    const found = layoutViolations(graph);
    expect(found).toHaveLength(7);
    expect(found.join('\n')).toContain('render/collect.ts reaches undici through render/collect.ts → collections/io.ts → undici');
    expect(found.some((v) => v.startsWith('main.ts'))).toBe(false);
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

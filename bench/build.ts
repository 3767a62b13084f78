/**
 * Compiles a checkout with its own TypeScript settings into data/bench/build/<name>, so that the
 * apps a benchmark compares run as `npm start` runs them (tsc's JavaScript), not through tsx's
 * loader, whose output wraps every named closure in a helper call. Incremental: a build of an
 * unchanged checkout takes a moment.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.js';

export function buildTree(tree: string, name: string, entries: readonly string[]): string {
  const out = join(ROOT, 'data', 'bench', 'build', name);
  mkdirSync(out, { recursive: true });
  const config = {
    extends: join(tree, 'tsconfig.json'),
    compilerOptions: {
      noEmit: false,
      rootDir: tree,
      outDir: out,
      sourceMap: true,
      declaration: false,
      incremental: true,
      tsBuildInfoFile: join(out, '.tsbuildinfo'),
    },
    files: entries.map((entry) => join(tree, entry)),
    include: [],
  };
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const started = performance.now();
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(out, 'tsconfig.json')], {
    encoding: 'utf8',
  });
  // Type errors still emit JavaScript; they are shown, not fatal (a baseline may be mid-change).
  if (tsc.status !== 0) console.log(`tsc reported problems in ${tree}:\n${(tsc.stdout + tsc.stderr).split('\n').slice(0, 10).join('\n')}`);
  const seconds = (performance.now() - started) / 1000;
  if (seconds > 2) console.log(`compiled ${tree} into ${out} in ${seconds.toFixed(0)} s`);
  return out;
}

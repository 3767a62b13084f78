/**
 * The SQLite module ('#sqlite', sqlite.js): the build of better-sqlite3 that runs on this Node.js.
 * better-sqlite3 12 aborts the process on Node 24 as soon as a statement it made is collected
 * ("RemoveEnvironmentCleanupHook: Assertion (env) != nullptr"), open database or closed; 13 does
 * not load on Node 20. CI runs this on both lines.
 */

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import Database from '#sqlite';
import { childEnv, ROOT } from '../helpers/spawn.js';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

describe('the SQLite module', () => {
  it('is better-sqlite3 13 from Node 22 on, and 12 on Node 20', () => {
    const name = major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
    expect(Database).toBe(require(name));
    expect((require(`${name}/package.json`) as { version: string }).version).toMatch(major >= 22 ? /^13\./ : /^12\./);
  });

  it('lets the statements it made be collected, of an open database and of a closed one, and the process ends well', () => {
    // Statements made and dropped (as db.pragma and one-off queries make them), then enough
    // garbage that the collector runs while the process goes on.
    const script = `
      import Database from '#sqlite';
      const open = new Database(':memory:');
      const closed = new Database(':memory:');
      for (let i = 0; i < 200; i++) { open.prepare('SELECT ?').get(i); closed.prepare('SELECT ?').get(i); }
      closed.close();
      let junk = [];
      for (let i = 0; i < 2000; i++) junk.push(new Array(10000).fill(i));
      junk = null;
      setTimeout(() => { open.close(); console.log('still running'); }, 200);
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
    expect(run.stderr).not.toContain('Assertion failed');
    expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      signal: null,
      stdout: 'still running',
    });
  });
});

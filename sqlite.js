// better-sqlite3, the build that runs on this Node.js: 13 (Node-API, prebuilt in its package) on
// Node 22 and later; 12 on Node 20, where 13 crashes on load. 12 must not run on Node 24: its
// objects are node::ObjectWrap, whose destructor aborts the process from Node 24.19 on whenever a
// statement is garbage-collected ("RemoveEnvironmentCleanupHook: Assertion (env) != nullptr").
// Both are optional dependencies, so that npm installs 13 only where its engines allow it, and a
// build of 12 that fails where it is not used does not fail the install. Imported as '#sqlite'
// (package.json "imports"): the store and the reference service share no module, and share this.
// Goes, with better-sqlite3-node20, once Node 20 leaves "engines".
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const name = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

function load() {
  try {
    return require(name);
  } catch (error) {
    if (error?.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes(name)) throw error;
    throw new Error(
      `the SQLite module for Node.js ${process.version} (${name}) is not installed: npm ci could not install it. ` +
        'Installing it needs Python 3, make and, where no prebuilt one can be fetched, a C++ compiler (README.md, Quick start); ' +
        'run npm ci again and read what it says of better-sqlite3.',
      { cause: error },
    );
  }
}

export default load();

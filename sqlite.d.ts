// The types of better-sqlite3 (the same API in 12 and 13): see sqlite.js.
import Database from 'better-sqlite3';

export default Database;

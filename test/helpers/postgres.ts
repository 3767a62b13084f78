/**
 * The PostgreSQL server for tests: TEST_DATABASE_URL, or the machine's own at 127.0.0.1:5432
 * (database test) as the OS user, as psql would connect. Tests that need it are skipped, saying
 * so, where none answers; CI has one.
 */
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import pg from 'pg';

export const PG_URL = process.env.TEST_DATABASE_URL ?? `postgres://${encodeURIComponent(userInfo().username)}@127.0.0.1:5432/test`;

export async function postgresAvailable(what: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    // CI sets REQUIRE_POSTGRES: there the PostgreSQL half must run, not quietly skip.
    if (process.env.REQUIRE_POSTGRES === '1')
      throw new Error(`${what}: PostgreSQL is required but ${PG_URL} did not answer: ${(error as Error).message}`);
    console.warn(`${what} skipped: no PostgreSQL at ${PG_URL} (${(error as Error).message})`);
    return false;
  }
}

/** A fresh schema, so that runs never see each other's rows; its URL sets the search_path. */
export async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `countersign_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    url: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

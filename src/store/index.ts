/**
 * Opens the store that DATABASE_URL names, with the encryption key the configuration gives or,
 * in local mode, a key generated once into the data directory (readable by its owner only).
 */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { Secret } from '../runtime/secret.js';
import { generateKey } from './cipher.js';
import { PostgresStore } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export * from './types.js';

export function localKeyPath(config: Config): string {
  const base = config.database.kind === 'sqlite' ? dirname(resolve(config.database.path)) : resolve('data');
  return join(base, 'encryption.key');
}

export function resolveEncryptionKey(config: Config): Secret {
  if (config.mode !== 'local') return config.tokenEncryptionKey;
  if (config.tokenEncryptionKey) return config.tokenEncryptionKey;
  const path = localKeyPath(config);
  if (existsSync(path)) return new Secret(readFileSync(path, 'utf8').trim());
  mkdirSync(dirname(path), { recursive: true });
  const key = generateKey();
  writeFileSync(path, `${key.reveal()}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** `now`: the app's clock (the CLI's), which also dates the migrations applied on opening. */
export async function openStore(config: Config, now: () => Date): Promise<Store> {
  const key = resolveEncryptionKey(config);
  const previous = config.tokenEncryptionKeyPrevious;
  if (config.database.kind === 'sqlite') return new SqliteStore(config.database.path, key, previous, now);
  return PostgresStore.open(config.database.url, key, previous, undefined, now);
}

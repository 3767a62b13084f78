/** `countersign keys rotate`: every stored token re-encrypted under the new key, and what is left of the old. */

import { loadConfig } from '../config.js';
import { openStore } from '../store/index.js';
import { type CliIo, UsageError } from './io.js';
import { printable } from './output.js';

export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'rotate' || rest.length > 0) throw new UsageError(`keys takes rotate, not '${[action, ...rest].join(' ')}'`);
  const config = loadConfig(io.env);
  const store = await openStore(config, () => io.now());
  try {
    const rotated = await store.rotateKeys();
    // Every stored token is under the current key now: what was not re-encrypted already was.
    const total = (await store.keyUsage()).reduce((sum, k) => sum + k.tokens, 0);
    io.stderr.write(rotationReport(rotated, total - rotated, config.tokenEncryptionKeyPrevious !== undefined));
    return 0;
  } catch (error) {
    if ((error as { name?: string }).name === 'DecryptError') {
      io.stderr.write(
        `countersign: ${printable((error as Error).message)}. Set TOKEN_ENCRYPTION_KEY_PREVIOUS to the key those tokens were written with; nothing was changed.\n`,
      );
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

export const tokens = (n: number) => `${n} token${n === 1 ? '' : 's'}`;

/** What keys rotate did, and whether TOKEN_ENCRYPTION_KEY_PREVIOUS is still needed (instances still on the old key write with it). */
function rotationReport(rotated: number, already: number, previousSet: boolean): string {
  const once = 'once every instance of countersign runs with this TOKEN_ENCRYPTION_KEY';
  if (rotated === 0) {
    const none =
      already === 0
        ? 'no tokens are stored'
        : `${already === 1 ? 'the one stored token is' : `all ${already} stored tokens are`} already under the current key (TOKEN_ENCRYPTION_KEY)`;
    return `Nothing to re-encrypt: ${none}.\n${
      previousSet
        ? `TOKEN_ENCRYPTION_KEY_PREVIOUS reads none of them: it can be removed ${once}.`
        : 'TOKEN_ENCRYPTION_KEY_PREVIOUS is not set, and no stored token needs it.'
    }\n`;
  }
  const before = already === 0 ? 'none was' : `${already} ${already === 1 ? 'was' : 'were'}`;
  return (
    `Re-encrypted ${tokens(rotated)} from the previous key (TOKEN_ENCRYPTION_KEY_PREVIOUS) to the current one (TOKEN_ENCRYPTION_KEY); ${before} already under the current key.\n` +
    `Every stored token is now under TOKEN_ENCRYPTION_KEY: TOKEN_ENCRYPTION_KEY_PREVIOUS can be removed ${once}.\n`
  );
}

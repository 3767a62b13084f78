import { randomBytes } from 'node:crypto';

/**
 * Unpredictable ids (confirmation ids are capabilities) from a buffer of random bytes filled 4 KB
 * at a time: a call to the CSPRNG for each id cost a few percent of the CPU under load.
 */
export function randomIds(): () => string {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset + 12 > pool.length) {
      pool = randomBytes(4096);
      offset = 0;
    }
    offset += 12;
    return pool.subarray(offset - 12, offset).toString('base64url');
  };
}

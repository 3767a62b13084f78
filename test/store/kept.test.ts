/**
 * Decrypted tokens kept in memory go when their time is up, whether or not anyone asks for them
 * again: a user who runs one command and never returns must not leave their token on the heap.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Secret } from '../../src/runtime/secret.js';
import { Kept } from '../../src/store/kept.js';
import { Keyring } from '../../src/store/keyring.js';
import { LinkCache } from '../../src/store/link-cache.js';

let clock = 0;
const now = () => clock;
const pass = (ms: number) => {
  clock += ms;
  vi.advanceTimersByTime(ms);
};

beforeEach(() => {
  clock = 1_000;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => vi.useRealTimers());

describe('Kept', () => {
  it('answers within its time, wrapping a kept undefined, and not after', () => {
    const kept = new Kept<string | undefined>(1_000, 10, now);
    kept.set('a', 'A');
    kept.set('none', undefined);
    expect(kept.get('a')?.value).toBe('A');
    expect(kept.get('none')).toEqual({ value: undefined, until: expect.any(Number) });
    clock += 1_000;
    expect(kept.get('a')).toBeUndefined();
  });

  it('drops what is past its time though nobody asks again, and stops sweeping when empty', () => {
    const kept = new Kept<string>(60_000, 10, now);
    kept.set('a', 'A');
    pass(30_000);
    kept.set('b', 'B');
    pass(30_000);
    expect(kept.size).toBe(1);
    pass(60_000);
    expect(kept.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('makes room past its limit by dropping what is past its time first', () => {
    const kept = new Kept<string>(1_000, 2, now);
    kept.set('old', 'x');
    clock += 1_000;
    kept.set('new', 'y');
    kept.set('newer', 'z');
    expect(kept.get('new')?.value).toBe('y');
    expect(kept.size).toBe(2);
  });
});

describe('the caches that hold tokens', () => {
  it('LinkCache: an entry goes after a minute, unread', () => {
    const cache = new LinkCache<string>(now);
    cache.get(7, 'U1');
    cache.set(7, 'U1', 'token');
    expect(cache.size).toBe(1);
    pass(120_000);
    expect(cache.size).toBe(0);
  });

  it('Keyring: a decrypted token goes after its minutes, unread', () => {
    const keys = new Keyring(new Secret(Buffer.alloc(32, 7).toString('base64')), undefined, now);
    const who = { teamId: 'T1', userId: 'U1' };
    const stored = keys.encrypt(new Secret('the-token'), who, 'findApprovals');
    expect(keys.decrypt(stored, who, 'findApprovals').reveal()).toBe('the-token');
    expect(keys.decryptedKept).toBe(1);
    pass(10 * 60_000);
    expect(keys.decryptedKept).toBe(0);
  });
});

/** What the start-up key check decides from the stored tokens' keys: refuse, warn, or nothing. */
import { describe, expect, it } from 'vitest';
import { judgeKeyUsage } from '../../src/store/key-check.js';

const group = (keyId: string, readable: boolean, tokens = 2, users = ['UADA (T1)']) => ({ keyId, tokens, readable, users });

describe('judgeKeyUsage', () => {
  it('says nothing with no tokens, or when every one is readable', () => {
    expect(judgeKeyUsage([], 'aaaaaaaaaaaa')).toEqual({});
    expect(judgeKeyUsage([group('aaaaaaaaaaaa', true), group('bbbbbbbbbbbb', true)], 'aaaaaaaaaaaa')).toEqual({});
  });

  it('refuses when the configured keys read none, naming the variables, the key ids, a few users and what to do', () => {
    const verdict = judgeKeyUsage([group('bbbbbbbbbbbb', false, 5, ['U1', 'U2', 'U3'])], 'aaaaaaaaaaaa');
    expect(verdict.warn).toBeUndefined();
    expect(verdict.refuse).toMatch(
      /^TOKEN_ENCRYPTION_KEY \(key id aaaaaaaaaaaa\) cannot read any of the 5 stored tokens \(written with key id bbbbbbbbbbbb; users U1, U2, U3, …\)/,
    );
    expect(verdict.refuse).toContain('TOKEN_ENCRYPTION_KEY_PREVIOUS');
    expect(verdict.refuse).toContain('countersign keys rotate');
  });

  it('warns, and lets the app start, when only some are unreadable', () => {
    const verdict = judgeKeyUsage([group('aaaaaaaaaaaa', true), group('cccccccccccc', false, 1, ['UBOB'])], 'aaaaaaaaaaaa');
    expect(verdict.refuse).toBeUndefined();
    expect(verdict.warn).toMatch(
      /reads 1 stored token \(written with key id cccccccccccc; users UBOB\): those users are asked to link again/,
    );
  });
});

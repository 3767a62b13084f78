/**
 * How an attempt's reason is put in words. The trail holds reasons as fields (store/types.ts
 * AttemptReason); the sentences earlier releases wrote are read into fields once, by migration 7
 * (test/store/legacy-audit.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { explainAttempt, outcomeWords, reasonParts } from '../../src/collections/explain.js';
import type { AttemptReason } from '../../src/store/index.js';

const AT = new Date('2026-11-22T08:41:45.849Z');

describe('explainAttempt', () => {
  it('tells the reason of an attempt that did not start, and none for one that started', () => {
    const cooldown: AttemptReason = { kind: 'cooldown', userId: 'U0DEMOOSCAR', at: AT, offered: false };
    expect(explainAttempt({ outcome: 'refused', reason: cooldown })).toEqual(cooldown);
    expect(explainAttempt({ outcome: 'cancelled', reason: { kind: 'not-again' } })).toEqual({ kind: 'not-again' });
    expect(explainAttempt({ outcome: 'refused', reason: { kind: 'other', text: 'something new' } })).toEqual({
      kind: 'other',
      text: 'something new',
    });
    // A start whose earlier steps were refused (a cooldown, then Start anyway) started: nothing to explain.
    expect(explainAttempt({ outcome: 'started', reason: cooldown })).toBeUndefined();
    expect(explainAttempt({ outcome: 'unanswered', reason: undefined })).toBeUndefined();
  });
});

describe('reasonParts', () => {
  it('says who had started what held a cooldown: the collector, where it was part of a bigger target', () => {
    expect(reasonParts({ kind: 'cooldown', userId: 'U0DEMOOSCAR', at: AT, offered: false })).toEqual([
      { user: 'U0DEMOOSCAR' },
      ' had started it ',
      { time: AT },
    ]);
    // Part of a bigger target held: which collector, so that history can say who started what.
    expect(reasonParts({ kind: 'cooldown', userId: 'U0DEMOOSCAR', at: AT, offered: true, collector: 'AD; Accounts' })).toEqual([
      { user: 'U0DEMOOSCAR' },
      ' had started collector AD; Accounts ',
      { time: AT },
      '; Start anyway was offered, not taken',
    ]);
  });

  it('words a refusal by what the service said: a command not granted, a user unknown, a token refused, countersign’s own sign-in', () => {
    const why = (error: string, message: string) => {
      const reason = explainAttempt({ outcome: 'failed', reason: { kind: 'service', error, message } });
      return reason === undefined ? undefined : reasonParts(reason);
    };
    expect(why('invalid-token', "The token is not valid for the command 'collectEntitlements'. ")).toEqual([
      'the service does not let them run collectEntitlements; an administrator of the service grants it',
    ]);
    expect(why('invalid-token', "The user 'ada' given by auth-user-id could not be found.")).toEqual([
      'the service does not know the user they are linked as',
    ]);
    expect(why('invalid-token', "The token is not valid for the command 'collectEntitlements'. Token is invalid or expired")).toEqual([
      'the service refused their token',
    ]);
    expect(why('app-sign-in', "The token is not valid for the command 'collectEntitlements'. Token is invalid or expired")).toEqual([
      'the Command Service refused countersign’s own sign-in (an administrator is needed)',
    ]);
  });
});

describe('outcomeWords', () => {
  it('words every outcome the trail folds to, and keeps one a newer release wrote as it was stored', () => {
    expect(outcomeWords('nothing-matched')).toBe('matched no collector');
    expect(outcomeWords('unanswered')).toBe('asked to confirm, no answer');
    expect(outcomeWords('confirmed')).toBe('confirmed, not started yet');
    expect(outcomeWords('sent')).toBe('sent to the service, no answer recorded');
    expect(outcomeWords('postponed')).toBe('postponed');
  });
});

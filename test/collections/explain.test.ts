import { describe, expect, it } from 'vitest';
import { explainAttempt, reasonParts } from '../../src/collections/explain.js';

describe('explainAttempt', () => {
  it('reads back every detail the use case writes', () => {
    const read = (outcome: 'refused' | 'failed' | 'cancelled', detail: string) => explainAttempt({ outcome, detail });
    expect(read('refused', 'not an allowed channel (allowed: C0OPS, C0SEC)')).toEqual({
      kind: 'channel',
      allowedChannels: ['C0OPS', 'C0SEC'],
    });
    expect(read('refused', 'not an allowed user')).toEqual({ kind: 'user' });
    expect(read('refused', 'may not force')).toEqual({ kind: 'force' });
    expect(read('refused', 'not linked')).toEqual({ kind: 'not-linked' });
    expect(read('refused', 'cooldown: started by U0DEMOOSCAR at 2026-11-22T08:41:45.849Z')).toEqual({
      kind: 'cooldown',
      userId: 'U0DEMOOSCAR',
      at: new Date('2026-11-22T08:41:45.849Z'),
      offered: false,
      collector: undefined,
    });
    expect(read('refused', 'cooldown: started by U0DEMOOSCAR at 2026-11-22T08:41:45.849Z; offered start anyway')).toEqual({
      kind: 'cooldown',
      userId: 'U0DEMOOSCAR',
      at: new Date('2026-11-22T08:41:45.849Z'),
      offered: true,
      collector: undefined,
    });
    // Part of a bigger target held: which collector, so that history can say who started what.
    expect(
      read('refused', 'cooldown: started by U0DEMOOSCAR at 2026-11-22T08:41:45.849Z; offered start anyway; collector AD; Accounts'),
    ).toEqual({
      kind: 'cooldown',
      userId: 'U0DEMOOSCAR',
      at: new Date('2026-11-22T08:41:45.849Z'),
      offered: true,
      collector: 'AD; Accounts',
    });
    expect(read('failed', 'no-eligible-collectors: No eligible collectors found for the application X')).toEqual({
      kind: 'service',
      error: 'no-eligible-collectors',
      message: 'No eligible collectors found for the application X',
    });
    expect(read('failed', 'internal error')).toEqual({ kind: 'internal' });
    expect(read('cancelled', 'cancelled at the confirmation')).toEqual({ kind: 'cancelled' });
    expect(read('cancelled', 'did not start it again within the cooldown')).toEqual({ kind: 'not-again' });
  });

  it('keeps what it does not know as written, and has nothing to say without a detail', () => {
    expect(explainAttempt({ outcome: 'refused', detail: 'something new' })).toEqual({ kind: 'other', text: 'something new' });
    expect(explainAttempt({ outcome: 'started', detail: undefined })).toBeUndefined();
  });

  it('words a refusal by what the service said: a command not granted, a user unknown, a token refused, countersign’s own sign-in', () => {
    const why = (detail: string) => {
      const reason = explainAttempt({ outcome: 'failed', detail });
      return reason === undefined ? undefined : reasonParts(reason);
    };
    expect(why("invalid-token: The token is not valid for the command 'collectEntitlements'. ")).toEqual([
      'the service does not let them run collectEntitlements; an administrator of the service grants it',
    ]);
    expect(why("invalid-token: The user 'ada' given by auth-user-id could not be found.")).toEqual([
      'the service does not know the user they are linked as',
    ]);
    expect(why("invalid-token: The token is not valid for the command 'collectEntitlements'. Token is invalid or expired")).toEqual([
      'the service refused their token',
    ]);
    expect(why("app-sign-in: The token is not valid for the command 'collectEntitlements'. Token is invalid or expired")).toEqual([
      'the Command Service refused countersign’s own sign-in (an administrator is needed)',
    ]);
  });
});

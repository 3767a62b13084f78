/** Migration 7 reads the sentences earlier releases wrote into the fields the trail now holds: every one they wrote. */
import { describe, expect, it } from 'vitest';
import { carryAttempt, legacyReason } from '../../src/store/legacy-audit.js';

describe('legacyReason', () => {
  it('reads back every detail earlier releases wrote', () => {
    const read = (outcome: 'refused' | 'failed' | 'cancelled', detail: string) => legacyReason(outcome, detail);
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
    });
    expect(read('refused', 'cooldown: started by U0DEMOOSCAR at 2026-11-22T08:41:45.849Z; offered start anyway')).toEqual({
      kind: 'cooldown',
      userId: 'U0DEMOOSCAR',
      at: new Date('2026-11-22T08:41:45.849Z'),
      offered: true,
    });
    // The release just before the structured trail named the collector held, where it was part of a bigger target.
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

  it('keeps what it does not know as written', () => {
    expect(legacyReason('refused', 'something new')).toEqual({ kind: 'other', text: 'something new' });
    expect(legacyReason('refused', 'conflict: words')).toEqual({ kind: 'other', text: 'conflict: words' });
  });
});

describe('carryAttempt', () => {
  const row = {
    id: 'a1',
    at: '1795000000000',
    team_id: 'T1',
    channel_id: 'C1',
    user_id: 'UOPS',
    query: '{"name":"AD Accounts"}',
    runs: '[{"runId":"7","collector":"AD Accounts"}]',
  };
  const data = (values: unknown[]) => JSON.parse(values[9] as string);

  it('makes each row the step it last recorded, at the time it was written, under an id that says where it came from', () => {
    const started = carryAttempt({
      ...row,
      outcome: 'started',
      detail: 'left out: AD Groups, SAP Roles; started again within the cooldown: AWS IAM',
    });
    expect(started.slice(0, 9)).toEqual([
      '001795000000000-carried-a1',
      1795000000000,
      'collection',
      'a1',
      'answered',
      'T1',
      'UOPS',
      'C1',
      '',
    ]);
    expect(data(started)).toEqual({
      query: { name: 'AD Accounts' },
      runs: [{ runId: '7', collector: 'AD Accounts' }],
      leftOut: ['AD Groups', 'SAP Roles'],
      ranAgain: ['AWS IAM'],
    });
    expect(carryAttempt({ ...row, outcome: 'unanswered', detail: null })[4]).toBe('asked');
    expect(data(carryAttempt({ ...row, outcome: 'nothing-matched', detail: null }))).toMatchObject({ runs: [] });
    const refused = carryAttempt({ ...row, outcome: 'refused', detail: 'cooldown: started by UADA at 2026-11-22T08:41:45.849Z' });
    expect([refused[4], data(refused).reason]).toEqual([
      'refused',
      { kind: 'cooldown', userId: 'UADA', at: '2026-11-22T08:41:45.849Z', offered: false },
    ]);
    const failed = carryAttempt({ ...row, outcome: 'failed', detail: 'conflict: Already queued' });
    expect([failed[4], data(failed)]).toEqual([
      'failed',
      { query: { name: 'AD Accounts' }, reason: { kind: 'service', error: 'conflict', message: 'Already queued' }, maybeStarted: true },
    ]);
    expect(data(carryAttempt({ ...row, outcome: 'cancelled', detail: 'cancelled at the confirmation' })).reason).toEqual({
      kind: 'cancelled',
    });
  });

  it('keeps a row it cannot read whole: an unreadable query or runs become empty, not a failed migration', () => {
    const odd = carryAttempt({ ...row, query: 'not json', runs: '{', outcome: 'started', detail: null });
    expect(data(odd)).toEqual({ query: {}, runs: [], leftOut: [], ranAgain: [] });
  });
});

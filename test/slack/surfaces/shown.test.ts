/**
 * What an instance remembers of what it drew: kept a while and within a bound, so that a decision
 * redraws from it, and forgotten after response_url's half hour.
 */
import { describe, expect, it } from 'vitest';
import { ShownMemory } from '../../../src/slack/surfaces/shown.js';
import { TestClock } from '../../helpers/clock.js';

const page = (n: number) => ({ query: { 'start-page': n, state: 'pending' as const }, approvals: [] });

describe('ShownMemory', () => {
  it('keeps what was drawn for half an hour, the latest of each place', () => {
    const clock = new TestClock();
    const shown = new ShownMemory(clock.now);
    shown.drewPage('UADA', { ...page(2), approvals: [] });
    shown.drewPage('UADA', page(2));
    // By user and query, however its keys are ordered: not by the response_url it went to.
    expect(shown.page('UADA', { state: 'pending', 'start-page': 2 })).toEqual(page(2));
    expect(shown.page('UGRACE', page(2).query)).toBeUndefined();
    expect(shown.page('UADA', page(1).query)).toBeUndefined();
    clock.advance(30 * 60_000);
    expect(shown.page('UADA', page(2).query)).toEqual(page(2));
    clock.advance(1);
    expect(shown.page('UADA', page(2).query)).toBeUndefined();
  });

  it('forgets the oldest past its bound, and keeps a page of items but not a failure to show them', () => {
    const shown = new ShownMemory(new TestClock().now, 2);
    for (const n of [1, 2, 3]) shown.drewPage('UADA', page(n));
    expect([1, 2, 3].map((n) => shown.page('UADA', page(n).query)?.query['start-page'])).toEqual([undefined, 2, 3]);
    shown.drewItems('UADA', '1:A:1', 1, { kind: 'failed', error: new Error('down') });
    expect(shown.items('UADA', '1:A:1', 1)).toBeUndefined();
    const items = {
      kind: 'page' as const,
      page: 1,
      pageSize: 10,
      items: { items: [], received: 0, count: 0, total: undefined, workItemId: '', requestId: '', requestStatus: '' },
    };
    shown.drewItems('UADA', '1:A:1', 1, items);
    expect(shown.items('UADA', '1:A:1', 1)).toBe(items);
    expect(shown.items('UGRACE', '1:A:1', 1)).toBeUndefined();
  });
});

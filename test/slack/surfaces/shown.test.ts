/**
 * What an instance remembers of what it drew: kept a while and within a bound, so that a decision
 * redraws from it, and forgotten after response_url's half hour.
 */
import { describe, expect, it } from 'vitest';
import { ShownMemory } from '../../../src/slack/surfaces/shown.js';
import { TestClock } from '../../helpers/clock.js';

const page = (n: number) => ({ query: { 'start-page': n }, approvals: [] });

describe('ShownMemory', () => {
  it('keeps what was drawn for half an hour, the latest of each place', () => {
    const clock = new TestClock();
    const shown = new ShownMemory(clock.now);
    shown.drewPage('https://hooks.slack.test/1', page(1));
    shown.drewPage('https://hooks.slack.test/1', page(2));
    expect(shown.page('https://hooks.slack.test/1')).toEqual(page(2));
    clock.advance(30 * 60_000);
    expect(shown.page('https://hooks.slack.test/1')).toEqual(page(2));
    clock.advance(1);
    expect(shown.page('https://hooks.slack.test/1')).toBeUndefined();
  });

  it('forgets the oldest past its bound, and keeps a page of items but not a failure to show them', () => {
    const shown = new ShownMemory(new TestClock().now, 2);
    for (const n of [1, 2, 3]) shown.drewPage(`u${n}`, page(n));
    expect([shown.page('u1'), shown.page('u2'), shown.page('u3')].map((p) => p?.query)).toEqual([
      undefined,
      { 'start-page': 2 },
      { 'start-page': 3 },
    ]);
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

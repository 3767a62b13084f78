/**
 * What an instance remembers of what it drew: kept a while and within a bound, so that a decision
 * redraws from it, and forgotten after response_url's half hour.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Approval } from '../../../src/service/schemas.js';
import { ShownMemory } from '../../../src/slack/surfaces/shown.js';
import { TestClock } from '../../helpers/clock.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

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

  it('keeps of a page what the list draws, not the approvals the service answered with', async () => {
    const shown = new ShownMemory(new TestClock().now);
    const query = { state: 'pending' as const };
    // Made apart, so that nothing but the memory could hold them once drawn.
    const draw = () => {
      const approval: Approval = {
        workItemId: '10198:WPDS:1',
        workItemName: 'Manager Approval',
        requestName: 'Add Access for Wayne, Bruce',
        dueDate: '2026-11-20 09:00:00.0',
        completedDate: '',
        fields: { RequestedByName: 'Wayne, Bruce', EntitlementName: 'Domain Admins', Notes: 'x'.repeat(100_000) },
      };
      shown.drewPage('UADA', { query, approvals: [approval] });
      return new WeakRef(approval);
    };
    const drawn = draw();
    // A WeakRef's target is held until the task that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(drawn.deref()).toBeUndefined();
    expect(shown.page('UADA', query)?.approvals).toEqual([
      {
        workItemId: '10198:WPDS:1',
        workItemName: 'Manager Approval',
        requestName: 'Add Access for Wayne, Bruce',
        dueDate: '2026-11-20 09:00:00.0',
        completedDate: '',
        fields: { RequestedByName: 'Wayne, Bruce' },
      },
    ]);
  });
});

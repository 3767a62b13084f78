/**
 * The plan of a start, from data alone: no store, no service, no clock. What startCollection does
 * with it (the claims, the calls, the trail) is tested in start.test.ts and the end-to-end tests.
 */

import { describe, expect, it } from 'vitest';
import { catalogOf } from '../../src/collections/coverage.js';
import { cooldownKeys, type Held, maybeStarted, nothingMatched, planStart, unclaimedRuns } from '../../src/collections/start-plan.js';
import { cooldownReason, failureReason } from '../../src/collections/start-record.js';
import { ConflictError, ServiceUnavailableError } from '../../src/service/errors.js';
import type { CollectAttempt } from '../../src/store/index.js';

const AT = new Date('2026-11-22T06:30:00Z');
const by = (userId: string, collector?: string): Held => ({ collector, holder: { userId, channelId: 'C1', at: AT } });

/** The trail as the store lists it, newest first: each start's query and the collectors its runs named. */
function catalog(...starts: Array<[query: CollectAttempt['query'], collectors: string[]]>) {
  return catalogOf(
    starts.map(([query, collectors], i) => ({
      query,
      runs: collectors.map((collector, j) => ({ runId: `${i}-${j}`, collector, state: undefined })),
    })) as unknown as CollectAttempt[],
  );
}

describe('cooldownKeys', () => {
  it('takes a named collector’s key alone, and a name-less target’s own key after each collector it is known to cover', () => {
    expect(cooldownKeys({ name: 'AD Accounts' }, { collectors: ['AD Accounts'], exact: true })).toEqual([
      { key: 'collector=ad accounts', collector: 'AD Accounts' },
    ]);
    const keys = cooldownKeys({ application: 'Active Directory' }, { collectors: ['AD Accounts', 'AD Groups'], exact: true });
    expect(keys.map((k) => k.collector)).toEqual(['AD Accounts', 'AD Groups', undefined]);
    expect(keys[2]?.key).not.toMatch(/^collector=/);
  });
});

describe('planStart', () => {
  const app = { application: 'Active Directory' };
  const both = { collectors: ['AD Accounts', 'AD Groups'], exact: true };

  it('starts what was asked when nothing is held', () => {
    expect(planStart({ name: 'AD Accounts' }, { collectors: ['AD Accounts'], exact: true }, [])).toEqual({
      kind: 'start',
      asked: [{ name: 'AD Accounts' }],
    });
  });

  it('starts the rest of an exactly known target by name, leaving out the collector held', () => {
    expect(planStart(app, both, [by('UEVE', 'AD Accounts')])).toEqual({
      kind: 'start',
      asked: [{ ...app, name: 'AD Groups' }],
    });
  });

  it('starts nothing when the whole target is held, or all of it, or the rest is not known', () => {
    expect(planStart(app, both, [by('UEVE')])).toEqual({ kind: 'held', query: app, unknownRest: false });
    expect(planStart(app, both, [by('UEVE', 'AD Accounts'), by('UEVE', 'AD Groups')])).toMatchObject({ kind: 'held' });
    expect(planStart(app, { collectors: ['AD Accounts'], exact: false }, [by('UEVE', 'AD Accounts')])).toEqual({
      kind: 'held',
      query: app,
      unknownRest: true,
    });
  });

  it('names a held collector as the service first named it', () => {
    expect(planStart({ name: 'ad  accounts' }, { collectors: ['AD Accounts'], exact: true }, [by('UEVE', 'AD Accounts')])).toEqual({
      kind: 'held',
      query: { name: 'AD Accounts' },
      unknownRest: false,
    });
  });
});

describe('cooldownReason', () => {
  it('names who holds the whole target first, and the collector only for a bigger target', () => {
    expect(cooldownReason({ application: 'X' }, [by('UEVE', 'A'), by('UOSCAR')], true)).toEqual({
      kind: 'cooldown',
      userId: 'UOSCAR',
      at: AT,
      offered: true,
    });
    expect(cooldownReason({ application: 'X' }, [by('UEVE', 'A')], false)).toEqual({
      kind: 'cooldown',
      userId: 'UEVE',
      at: AT,
      offered: false,
      collector: 'A',
    });
    expect(cooldownReason({ name: 'A' }, [by('UEVE', 'A')], false)).not.toHaveProperty('collector');
  });
});

describe('nothingMatched', () => {
  const known = catalog([{ name: 'AD Accounts' }, ['AD Accounts']], [{ name: 'Workday Workers' }, ['Workday Workers']]);

  it('lists the known collectors and the nearest to the name asked for', () => {
    expect(nothingMatched({ name: 'AD Acounts' }, known)).toEqual({
      known: ['AD Accounts', 'Workday Workers'],
      meant: 'AD Accounts',
      retry: undefined,
    });
  });

  it('offers the command meant for a misspelt force, and then no other name', () => {
    expect(nothingMatched({ name: 'ad accounts forse' }, known)).toMatchObject({ retry: '/collect AD Accounts force', meant: undefined });
  });
});

describe('unclaimedRuns', () => {
  it('lists each collector the service ran that the start did not claim, once, by its first recorded name', () => {
    const known = catalog([{ name: 'AD Accounts' }, ['AD Accounts']]);
    const found = [
      { runId: '1', collector: 'ad accounts' },
      { runId: '2', collector: 'AD Groups' },
      { runId: '3', collector: 'AD Groups' },
      { runId: '4', collector: null },
      { runId: '5', collector: 'Held Already' },
    ];
    expect(unclaimedRuns(found, ['collector=held already'], known)).toEqual([
      { key: 'collector=ad accounts', collector: 'AD Accounts' },
      { key: 'collector=ad groups', collector: 'AD Groups' },
    ]);
  });
});

describe('a failed start', () => {
  it('may have started runs once the service answered, or when its request may have reached it', () => {
    const timeout = new ServiceUnavailableError('timeout', 'no answer in time', { command: 'collectEntitlements' });
    const refused = new ServiceUnavailableError('network', 'connection refused', { command: 'collectEntitlements' });
    const conflict = new ConflictError({ command: 'collectEntitlements', status: 409, serviceMessage: 'Already queued' });
    expect(maybeStarted(timeout, false)).toBe(true);
    expect(maybeStarted(refused, false)).toBe(false);
    expect(maybeStarted(conflict, false)).toBe(false);
    expect(maybeStarted(new Error('store down'), true)).toBe(true);
  });

  it('is recorded as the service’s error with its words, or as internal', () => {
    const conflict = new ConflictError({ command: 'collectEntitlements', status: 409, serviceMessage: 'Already queued' });
    expect(failureReason(conflict)).toEqual({ kind: 'service', error: 'conflict', message: 'Already queued' });
    expect(failureReason(new Error('secret detail'))).toEqual({ kind: 'internal' });
  });
});

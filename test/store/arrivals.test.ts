/**
 * The arrivals' store methods, on SQLite (always) and PostgreSQL (when a server answers, as in
 * stores.test.ts): watches made by linking and parked until the next link, leases across two
 * instances, a check's changes written only by the lease holder, each arrival recorded once, the
 * DMs read back for redrawing, pruning, and the relink message claimed once per link.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/runtime/secret.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { KeptSummary, Store } from '../../src/store/types.js';
import { freshSchema, postgresAvailable } from '../helpers/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'countersign-arrivals-'));
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const c of cleanups) await c();
});
const KEY = new Secret(Buffer.alloc(32, 7).toString('base64'));
const TOKEN = new Secret('ws3101aaaa:-28aff589:18a2758240d:-7c4e0.57');
const ADA = { teamId: 'T1', userId: 'UADA' };
const at = new Date('2026-11-22T10:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let n = 0;

const summary = (id: string): KeptSummary => ({
  approvalId: id,
  workItemName: `Manager Approval <${id}>`,
  requestName: 'Access to "Payroll" & more',
  requestedBy: 'Lovelace, Ada',
  dueDate: '2026-11-30 17:00:00.0',
});

const backends: Record<string, { available: boolean; open(): Promise<() => Promise<Store>> }> = {
  sqlite: {
    available: true,
    async open() {
      const path = join(dir, `a${++n}.db`);
      return async () => new SqliteStore(path, KEY);
    },
  },
  postgres: {
    available: await postgresAvailable('PostgreSQL arrivals store tests'),
    async open() {
      const db = await freshSchema();
      cleanups.push(db.drop);
      return () => PostgresStore.open(new Secret(db.url), KEY);
    },
  },
};

for (const [name, backend] of Object.entries(backends)) {
  describe.skipIf(!backend.available)(`${name} store: arrivals`, () => {
    it('watches an approver once they link for findApprovals (either mode), on by default; off, quiet hours, and on again, which primes', async () => {
      const store = await (await backend.open())();
      expect(await store.notifySetting('UADA')).toBeUndefined();
      await store.setToken(ADA, ['collectEntitlements'], TOKEN, 'admin', at);
      expect(await store.notifySetting('UADA')).toBeUndefined();
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'login', at);
      expect(await store.notifySetting('UADA')).toEqual({ enabled: true, quiet: undefined });
      await store.setIdentity({ teamId: 'T1', userId: 'UBOB' }, { serviceUser: 'bob', authsource: undefined }, 'login', at);
      expect(await store.notifySetting('UBOB')).toEqual({ enabled: true, quiet: undefined });

      const [first] = await store.claimDueArrivalWatches(at, 'a', later(1000), later(300_000), 1);
      expect(first).toMatchObject({ userId: 'UADA', teamId: 'T1', prime: true, dueAt: at, nextAt: later(300_000) });
      expect(await store.saveArrivalCheck('UADA', 'a', at, { primed: true, add: [], back: [], gone: [] })).toEqual({ announced: [] });

      expect(await store.setNotify(ADA, { quiet: { startMinute: 19 * 60, endMinute: 8 * 60 } }, at)).toEqual({
        enabled: true,
        quiet: { startMinute: 1140, endMinute: 480 },
      });
      expect(await store.setNotify(ADA, { enabled: false }, later(2000))).toEqual({
        enabled: false,
        quiet: { startMinute: 1140, endMinute: 480 },
      });
      // Off: never claimed, however due.
      expect(await store.claimDueArrivalWatches(later(600_000), 'a', later(601_000), later(900_000), 10)).toEqual([
        expect.objectContaining({ userId: 'UBOB' }),
      ]);
      // On again: due at once, and its check primes.
      await store.setNotify(ADA, { enabled: true }, later(700_000));
      expect(await store.claimDueArrivalWatches(later(700_000), 'b', later(701_000), later(999_000), 10)).toEqual([
        expect.objectContaining({ userId: 'UADA', prime: true, dueAt: later(700_000), quiet: { startMinute: 1140, endMinute: 480 } }),
      ]);
      // Already on: switching on again changes nothing.
      expect(await store.setNotify(ADA, { quiet: null }, later(700_000))).toEqual({ enabled: true, quiet: undefined });
      await store.setNotify(ADA, { enabled: true }, later(701_000));
      expect(await store.claimDueArrivalWatches(later(702_000), 'b', later(703_000), later(999_000), 10)).toEqual([]);
      // A user who never linked may still choose: the choice is kept for when they do.
      expect(await store.setNotify({ teamId: 'T1', userId: 'UEVE' }, { enabled: false }, at)).toEqual({ enabled: false, quiet: undefined });
      await store.setToken({ teamId: 'T1', userId: 'UEVE' }, ['findApprovals'], TOKEN, 'login', later(1000));
      expect(await store.notifySetting('UEVE')).toEqual({ enabled: false, quiet: undefined });
      await store.close();
    });

    it('leases each due watch to one taker of many on two instances, moving its next check on in the same statement, and again once the lease runs out', async () => {
      const open = await backend.open();
      const stores = [await open(), await open()] as [Store, Store];
      for (let i = 0; i < 20; i++)
        await stores[0].setToken({ teamId: 'T1', userId: `U${i}` }, ['findApprovals'], TOKEN, 'admin', later(-i * 1000));
      const lease = later(60_000);
      const takes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (stores[i % 2] as Store).claimDueArrivalWatches(at, `owner-${i}`, lease, later(300_000), 5)),
      );
      const taken = takes.flat().map((w) => w.userId);
      expect(taken).toHaveLength(20);
      expect(new Set(taken).size).toBe(20);
      // Not due again until their next check, whatever the lease.
      expect(await stores[1].claimDueArrivalWatches(later(120_000), 'late', later(180_000), later(400_000), 100)).toEqual([]);
      // A check under way keeps its lease; the rest are taken again once due and their leases ran out.
      const busy = takes.findIndex((t) => t.length > 0);
      const underWay = (takes[busy] ?? []).map((w) => w.userId);
      expect(await stores[0].renewArrivalLeases('someone-else', underWay, later(600_000))).toBe(0);
      expect(await stores[0].renewArrivalLeases(`owner-${busy}`, underWay, later(600_000))).toBe(underWay.length);
      const again = await stores[1].claimDueArrivalWatches(later(300_000), 'late', later(360_000), later(600_000), 100);
      expect(again).toHaveLength(20 - underWay.length);
      expect(again.map((w) => w.userId)).not.toContain(underWay[0]);
      expect(again.every((w) => w.dueAt.getTime() === later(300_000).getTime())).toBe(true);
      for (const s of stores) await s.close();
    });

    it('parks a watch whose token was refused until the user links again, unless they linked during the check', async () => {
      const store = await (await backend.open())();
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'login', at);
      const [w] = await store.claimDueArrivalWatches(at, 'a', later(1000), later(300_000), 1);
      await store.saveArrivalCheck('UADA', 'a', at, { primed: true, add: [], back: [], gone: [] });
      expect(await store.pauseArrivalWatch('UADA', 'b', w?.nextAt ?? at)).toBe(false);
      expect(await store.pauseArrivalWatch('UADA', 'a', w?.nextAt ?? at)).toBe(true);
      expect(await store.claimDueArrivalWatches(later(86_400_000), 'a', later(86_401_000), later(86_700_000), 10)).toEqual([]);
      // Linking again wakes it, and its first check primes.
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'login', later(90_000_000));
      const [woken] = await store.claimDueArrivalWatches(later(90_000_000), 'a', later(90_001_000), later(90_300_000), 1);
      expect(woken).toMatchObject({ userId: 'UADA', prime: true });
      // Linked again while the check that found the token refused was under way: not parked.
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'login', later(90_000_500));
      expect(await store.pauseArrivalWatch('UADA', 'a', woken?.nextAt ?? at)).toBe(false);
      await store.close();
    });

    it('writes a check only for its lease holder, records each arrival once, moves held ones to a message, and reads the DM back', async () => {
      const open = await backend.open();
      const [store, other] = [await open(), await open()];
      await store.setToken(ADA, ['findApprovals'], TOKEN, 'login', at);
      await store.claimDueArrivalWatches(at, 'a', later(60_000), later(300_000), 1);
      const prime = { primed: true, add: [{ status: 'primed' as const, summary: summary('1:W:1') }], back: [], gone: [] };
      expect(await store.saveArrivalCheck('UADA', 'b', at, prime)).toBeUndefined();
      expect(await store.arrivalItems('UADA')).toEqual([]);
      expect(await store.saveArrivalCheck('UADA', 'a', at, prime)).toEqual({ announced: [] });
      await store.saveArrivalCheck('UADA', 'a', later(1000), {
        primed: false,
        add: [{ status: 'held', summary: summary('2:W:1') }],
        back: [],
        gone: [],
      });
      const approvals = ['2:W:1', '3:W:1', '1:W:1', '4:W:1'].map((id) => ({ summary: summary(id), actions: ['Approve', 'Reject'] }));
      const announce = { messageId: 'm1', teamId: 'T1', approvals, listed: 2, afterQuiet: true };
      // The held one moves to the message; the primed one is not announced again; the new ones are.
      expect(await other.saveArrivalCheck('UADA', 'a', later(2000), { primed: false, add: [], back: [], gone: [], announce })).toEqual({
        announced: ['2:W:1', '3:W:1', '4:W:1'],
      });
      // Another check announcing the same: nothing recorded twice, and no second message.
      expect(
        await store.saveArrivalCheck('UADA', 'a', later(3000), {
          primed: false,
          add: [],
          back: [],
          gone: [],
          announce: { ...announce, messageId: 'm2' },
        }),
      ).toEqual({ announced: [] });
      // Not posted yet: nothing to redraw.
      expect(await store.arrivalMessages(['m1', 'm2'])).toEqual([]);
      await store.setArrivalMessage('m1', 'D0ADA', '1700000000.000100');
      const [message] = await other.arrivalMessages(['m1', 'm2']);
      expect(message).toMatchObject({
        id: 'm1',
        userId: 'UADA',
        teamId: 'T1',
        channel: 'D0ADA',
        ts: '1700000000.000100',
        more: 1,
        afterQuiet: true,
      });
      expect(message?.entries.map((e) => [e.approvalId, e.status, e.actions, e.summary])).toEqual([
        ['2:W:1', 'announced', ['Approve', 'Reject'], summary('2:W:1')],
        ['3:W:1', 'announced', ['Approve', 'Reject'], summary('3:W:1')],
      ]);
      const items = new Map((await store.arrivalItems('UADA')).map((i) => [i.approvalId, i]));
      expect([...items.keys()].sort()).toEqual(['1:W:1', '2:W:1', '3:W:1', '4:W:1']);
      expect(items.get('1:W:1')).toMatchObject({ status: 'primed', actions: [], messageId: undefined, goneAt: undefined });
      expect(items.get('4:W:1')).toMatchObject({ status: 'announced', messageId: 'm1' });

      // Decided from Slack: every DM listing it; then gone at a check keeps the decision, and one gone otherwise says when.
      const decided = { action: 'Approve', by: 'UBOB', at: later(4000) };
      const listing = await other.decideArrival('3:W:1', decided);
      expect(listing.map((m) => m.id)).toEqual(['m1']);
      expect(listing[0]?.entries[1]?.decided).toEqual(decided);
      expect(await other.decideArrival('4:W:1', decided)).toEqual([]);
      await store.saveArrivalCheck('UADA', 'a', later(5000), {
        primed: false,
        add: [],
        back: [],
        gone: [
          { approvalId: '3:W:1', decided: undefined },
          { approvalId: '2:W:1', decided: undefined },
          { approvalId: '1:W:1', decided: undefined },
        ],
      });
      const [redrawn] = await store.arrivalMessages(['m1']);
      expect(redrawn?.entries.map((e) => [e.approvalId, e.goneAt, e.decided])).toEqual([
        ['2:W:1', later(5000), undefined],
        ['3:W:1', later(5000), decided],
      ]);
      // Back on the list: remembered, not new.
      await store.saveArrivalCheck('UADA', 'a', later(6000), { primed: false, add: [], back: ['1:W:1'], gone: [] });
      expect((await store.arrivalItems('UADA')).find((i) => i.approvalId === '1:W:1')?.goneAt).toBeUndefined();
      // Slack can no longer update it: redrawn no more.
      await other.forgetArrivalMessage('m1');
      expect(await store.arrivalMessages(['m1'])).toEqual([]);
      // Pruned: approvals gone long ago, and the DMs that list nothing kept.
      expect(await store.pruneArrivals(later(5500))).toBe(2);
      expect((await store.arrivalItems('UADA')).map((i) => i.approvalId).sort()).toEqual(['1:W:1', '4:W:1']);
      for (const s of [store, other]) await s.close();
    });

    it('claims the "link again" message once per link, whichever feature asks first, on two instances', async () => {
      const open = await backend.open();
      const stores = [await open(), await open()] as [Store, Store];
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (stores[i % 2] as Store).claimRelinkNotice(ADA, at, later(i))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // The same user in another workspace is the same person, told once.
      expect(await stores[0].claimRelinkNotice({ teamId: 'T2', userId: 'UADA' }, at, later(10))).toBe(false);
      expect(await stores[1].claimRelinkNotice(ADA, later(60_000), later(70_000))).toBe(true);
      expect(await stores[0].claimRelinkNotice(ADA, later(60_000), later(80_000))).toBe(false);
      for (const s of stores) await s.close();
    });
  });
}

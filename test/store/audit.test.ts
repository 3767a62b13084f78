/** The audit trail is evidence: the app only ever appends to it, and reads each attempt back from its steps. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditIds, type CollectRow, foldAttempts } from '../../src/store/audit.js';

describe('the audit trail', () => {
  it('is never updated or deleted by the app: no statement anywhere in src/ changes or removes its rows', () => {
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const offending = files.filter((f) =>
      /(UPDATE\s+audit_events|DELETE\s+FROM\s+audit_events|DROP\s+TABLE\s+audit_events|TRUNCATE\s+audit_events)/i.test(
        readFileSync(join('src', f), 'utf8'),
      ),
    );
    expect(offending).toEqual([]);
  });

  it('gives rows ids that sort as one process wrote them, within a millisecond too', () => {
    const ids = new AuditIds();
    const at = new Date('2026-11-22T10:00:00Z');
    const written = Array.from({ length: 20 }, () => ids.next(at));
    expect([...written].sort()).toEqual(written);
    expect(ids.next(new Date(at.getTime() + 1)) > (written.at(-1) as string)).toBe(true);
    expect(new Set(written).size).toBe(20);
  });

  it('folds an attempt from its steps whatever order the database returned them in', () => {
    const row = (id: string, at: number, step: string, data: object): CollectRow => ({
      id,
      at: String(at),
      kind: 'collection',
      subject: 'a1',
      step,
      team_id: 'T1',
      user_id: 'UOPS',
      channel_id: 'C1',
      approval_id: '',
      data: JSON.stringify({ query: { name: 'AD Accounts' }, ...data }),
    });
    const rows = [
      row('3', 2_000, 'failed', { reason: { kind: 'service', error: 'conflict', message: 'queued' }, maybeStarted: false }),
      row('1', 1_000, 'asked', {}),
      row('2', 2_000, 'sent', {}),
    ];
    expect(foldAttempts(rows)).toEqual([
      {
        id: 'a1',
        at: new Date(1_000),
        lastAt: new Date(2_000),
        teamId: 'T1',
        channelId: 'C1',
        userId: 'UOPS',
        query: { name: 'AD Accounts' },
        outcome: 'failed',
        reason: { kind: 'service', error: 'conflict', message: 'queued' },
        leftOut: [],
        ranAgain: [],
        runs: [],
        steps: [
          { step: 'asked', at: new Date(1_000) },
          { step: 'sent', at: new Date(2_000) },
          { step: 'failed', at: new Date(2_000) },
        ],
        watch: undefined,
      },
    ]);
  });
});

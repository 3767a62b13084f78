/**
 * Property tests of both grammars: whatever is typed, the parser answers (a result or an Invalid),
 * never throws, and anything it would send passes the client's own schema.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { APPROVAL_KEYS, parseApprovalsCommand } from '../../src/parse/approvals.js';
import { parseCollectCommand } from '../../src/parse/collect.js';
import { approvalIdSchema, approvalQuerySchema, collectQuerySchema } from '../../src/service/query.js';

const TODAY = { year: 2026, month: 11, day: 22 };

/** Text built from the grammar's own pieces, so that the fuzz reaches deep, plus arbitrary noise. */
const piece = fc.oneof(
  fc.constantFrom(
    ...Object.keys(APPROVAL_KEYS),
    'name',
    'application',
    'force',
    'state',
    'pending',
    'completed',
    'all',
    'help',
    'login',
    'whoami',
    'remind',
    'show',
    '20512:WPDS:1',
    'history',
    'daily',
    'weekdays',
    'off',
    '9am',
    '09:30',
    '25:00',
  ),
  fc.constantFrom(
    ':',
    '=',
    '"',
    '“',
    '”',
    "'",
    '’',
    ' ',
    '  ',
    '\t',
    '\n',
    '-',
    '7d',
    '-7d',
    'today',
    '2026-02-30',
    '31-JAN-2026',
    '0',
    '101',
    'x&force=true',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
);

describe('grammar properties', () => {
  it('/approvals: every input gets an answer, and every query is valid per the client schema', () => {
    fc.assert(
      fc.property(text, (input) => {
        const r = parseApprovalsCommand(input, TODAY);
        expect(['help', 'login', 'logout', 'whoami', 'query', 'show', 'remind', 'invalid']).toContain(r.kind);
        if (r.kind === 'query') expect(approvalQuerySchema.safeParse(r.query).success).toBe(true);
        if (r.kind === 'show') expect(approvalIdSchema.safeParse(r.approvalId).success).toBe(true);
        if (r.kind === 'remind' && r.action === 'set') {
          expect(Number.isInteger(r.minuteOfDay) && r.minuteOfDay >= 0 && r.minuteOfDay < 1440).toBe(true);
        }
        if (r.kind === 'invalid') {
          expect(r.problem.length).toBeGreaterThan(0);
          expect(r.example.startsWith('/approvals')).toBe(true);
        }
      }),
      { numRuns: 3000, seed: 20261122 },
    );
  });

  it('/collect: every input gets an answer, every run is valid, and everything-or-force always asks first', () => {
    fc.assert(
      fc.property(text, (input) => {
        const r = parseCollectCommand(input);
        expect(['help', 'login', 'logout', 'whoami', 'history', 'run', 'invalid']).toContain(r.kind);
        if (r.kind === 'history') expect(r.limit >= 1 && r.limit <= 50).toBe(true);
        if (r.kind === 'run') {
          expect(collectQuerySchema.safeParse(r.query).success).toBe(true);
          const everything = r.query.name === undefined && r.query.application === undefined;
          expect(r.confirm.includes('all-collectors')).toBe(everything);
          expect(r.confirm.includes('force')).toBe(r.query.force === true);
        }
      }),
      { numRuns: 3000, seed: 20261122 },
    );
  });
});

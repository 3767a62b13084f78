/**
 * `/approvals show <id>`, and what Details controls and the details modal carry back: read as
 * strictly as anything typed, since it comes back through Slack.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApprovalsCommand } from '../../src/parse/approvals.js';
import {
  decodeDetailsButton,
  decodeDetailsMetadata,
  decodeDetailsSelect,
  decodeDetailsState,
  isCarriableApprovalId,
  parseApprovalId,
} from '../../src/parse/details.js';
import { detailsSelect, encodeDetailsMetadata, encodeDetailsValue } from '../../src/render/details-controls.js';
import type { Approval } from '../../src/service/index.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const parse = (text: string) => parseApprovalsCommand(text, TODAY);

describe('/approvals show', () => {
  it('takes one approval id as /approvals lists it: bare, quoted, in backticks, or as approval-id:', () => {
    for (const text of [
      'show 20512:WPDS:1',
      'SHOW "20512:WPDS:1"',
      'show `20512:WPDS:1`',
      'show approval-id:20512:WPDS:1',
      'details 20512:WPDS:1',
    ])
      expect(parse(text)).toEqual({ kind: 'show', approvalId: '20512:WPDS:1' });
  });

  it('says what is wrong and shows the right form, suggesting show for a slip', () => {
    expect(parse('show')).toMatchObject({
      kind: 'invalid',
      problem: expect.stringContaining('Say which approval'),
      example: '/approvals show 10198:WPDS:1',
    });
    expect(parse('show 20512')).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('is not an approval id') });
    expect(parse('show 1:A:1 2:B:2')).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('one word too many') });
    expect(parse('show 20512:WP DS:1')).toMatchObject({ kind: 'invalid', example: '/approvals show "20512:WP DS:1"' });
    expect(parse('show "20512:WP DS:1"')).toEqual({ kind: 'show', approvalId: '20512:WP DS:1' });
    expect(parse('show aproval-id:1:A:1')).toMatchObject({ kind: 'invalid', suggestion: 'approval-id' });
    expect(parse('show 1:A\u202e:1')).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('bidirectional') });
    expect(parse('shwo 1:A:1')).toMatchObject({ kind: 'invalid', suggestion: 'show' });
  });
});

describe('approval ids', () => {
  it('accepts the service’s shape only: <number>:<text>:<number>, the text as the contract leaves it', () => {
    expect(parseApprovalId(' 20512:WPDS:1 ')).toBe('20512:WPDS:1');
    // The contract does not say what the text part holds: spaces and colons inside it are kept.
    for (const good of ['1:WP DS:1', '20512:a:b:1', '1:WPDS:1:2', `1:${'x'.repeat(64)}:1`, '1:x:1'])
      expect(parseApprovalId(good)).toBe(good);
    for (const bad of [
      '',
      '20512',
      '12345',
      '20512:WPDS',
      'x:WPDS:1',
      '1::1',
      '1:a:b',
      '1: WPDS:1',
      '1:WPDS :1',
      '1:WP\tDS:1',
      '1:WP\nDS:1',
      '1:WP\u202eDS:1',
      `1:${'x'.repeat(65)}:1`,
    ])
      expect(parseApprovalId(bad)).toBeUndefined();
  });
});

describe('what Details controls carry', () => {
  const query = { state: 'completed' as const, 'page-size': 5 };

  it('round-trips every origin through a button value and the modal’s metadata', () => {
    for (const origin of [
      { kind: 'page' as const, owner: 'UADA', query },
      { kind: 'home' as const },
      { kind: 'digest' as const },
      { kind: 'typed' as const },
    ]) {
      expect(decodeDetailsButton(encodeDetailsValue('1:A:1', origin))).toEqual({ approvalId: '1:A:1', origin });
      const state = { approvalId: '1:A:1', origin, page: 3, responseUrl: 'https://hooks.slack.com/actions/T/1/x' };
      expect(decodeDetailsMetadata(encodeDetailsMetadata(state))).toEqual(state);
      expect(decodeDetailsState(JSON.parse(JSON.stringify(state)))).toEqual(state);
    }
  });

  it('re-validates a page’s query as if typed: one that would not pass loses Refresh, not the click', () => {
    for (const q of [{ 'page-size': 5000 }, { 'auth-user-id': 'ada' }, { state: 'everything' }])
      expect(decodeDetailsButton(JSON.stringify({ a: '1:A:1', o: 'p', u: 'UADA', q }))).toEqual({
        approvalId: '1:A:1',
        origin: { kind: 'page' },
      });
    expect(decodeDetailsButton(JSON.stringify({ a: '1:A:1', o: 'p', u: 'not-a-user', q: {} }))).toEqual({
      approvalId: '1:A:1',
      origin: { kind: 'page' },
    });
  });

  it('refuses what did not come from us', () => {
    for (const value of [
      undefined,
      '',
      'not json',
      '{}',
      '{"a":"1:A:1"}',
      '{"a":"1:A:1","o":"x"}',
      '{"a":"nope","o":"h"}',
      `{"a":"1:A:1","o":"h","x":"${'y'.repeat(2000)}"}`,
    ])
      expect(decodeDetailsButton(value)).toBeUndefined();
    expect(decodeDetailsMetadata('{"a":"1:A:1","o":"h","p":0}')).toBeUndefined();
    expect(decodeDetailsMetadata('{"a":"1:A:1","o":"h","p":1.5}')).toBeUndefined();
    expect(decodeDetailsMetadata('{"a":"1:A:1","o":"h","p":2,"r":"javascript:alert(1)"}')).toEqual({
      approvalId: '1:A:1',
      origin: { kind: 'home' },
      page: 2,
      responseUrl: undefined,
    });
  });

  it('keeps a button within 2,000 characters and the metadata within 3,000, giving up the query first', () => {
    const long = {
      ...query,
      'entitlement-name': 'x'.repeat(256),
      'business-source': 'y'.repeat(256),
      'user-id': 'z'.repeat(256),
      'user-first-name': 'w'.repeat(256),
      'user-last-name': 'v'.repeat(256),
      'entitlement-type': 'u'.repeat(256),
      'approval-id': 't'.repeat(256),
    };
    const origin = { kind: 'page' as const, owner: 'UADA', query: long };
    const value = encodeDetailsValue('1:A:1', origin);
    expect(value?.length).toBeLessThanOrEqual(2000);
    const state = { approvalId: '1:A:1', origin, page: 1, responseUrl: `https://hooks.slack.com/${'r'.repeat(900)}` };
    const metadata = encodeDetailsMetadata(state);
    expect(metadata.length).toBeLessThanOrEqual(3000);
    expect(decodeDetailsMetadata(metadata)?.approvalId).toBe('1:A:1');
  });

  it('reads the "Details of…" select: the id from the option, the page from the block id when it fits', () => {
    const approvals = [1, 2, 3].map(
      (i): Approval => ({
        workItemId: `${i}:A:1`,
        workItemName: 's',
        requestName: `Request ${i}`,
        dueDate: '',
        completedDate: '',
        fields: {},
      }),
    );
    const block = detailsSelect(approvals, 'UADA', query);
    expect(block?.block_id?.length).toBeLessThanOrEqual(255);
    expect(decodeDetailsSelect(block?.block_id, '2:A:1')).toEqual({ approvalId: '2:A:1', origin: { kind: 'page', owner: 'UADA', query } });
    const crowded = detailsSelect(approvals, 'UADA', { ...query, 'entitlement-name': 'x'.repeat(250) });
    expect(crowded?.block_id).toBe('details');
    expect(decodeDetailsSelect(crowded?.block_id, '2:A:1')).toEqual({ approvalId: '2:A:1', origin: { kind: 'page' } });
    expect(decodeDetailsSelect('details|{not json', '2:A:1')).toEqual({ approvalId: '2:A:1', origin: { kind: 'page' } });
    expect(decodeDetailsSelect(block?.block_id, 'nope')).toBeUndefined();
  });
});

describe('the shortcuts of a page of Details buttons', () => {
  it('carries an id exactly when parseApprovalId gives it back as it is', () => {
    const id = fc.oneof(
      fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 70 }), fc.nat()).map(([a, b, c]) => `${a}:${b}:${c}`),
      fc.string({ maxLength: 30 }),
      fc.constantFrom(' 1:A:1', '1:A:1 ', '`1:A:1`', '1:A\u202e:1', '1: :1', '1:A:1\n'),
    );
    fc.assert(
      fc.property(id, (text) => {
        expect(isCarriableApprovalId(text)).toBe(parseApprovalId(text) === text);
      }),
      { numRuns: 5_000 },
    );
  });

  it('writes a value as JSON.stringify writes the whole, whatever the id, for the origin made once per page', () => {
    const origin = {
      kind: 'page' as const,
      owner: 'UADA',
      query: { state: 'completed' as const, 'entitlement-name': 'Ünïcode "quoted" \\' },
    };
    for (const id of ['1:A:1', '10198:WPDS:1', '1:"é\\x":2'])
      expect(encodeDetailsValue(id, origin)).toBe(JSON.stringify([id, 'UADA', origin.query]));
    expect(encodeDetailsValue('1:A:1', { kind: 'page' })).toBe('["1:A:1"]');
    expect(encodeDetailsValue('1:A:1', { kind: 'home' })).toBe('{"a":"1:A:1","o":"h"}');
  });

  it('reads a page’s Details as posted before the short form, so that buttons already in Slack keep working', () => {
    const query = { state: 'completed' as const, 'page-size': 5 };
    expect(decodeDetailsButton(JSON.stringify({ a: '1:A:1', o: 'p', u: 'UADA', q: query }))).toEqual({
      approvalId: '1:A:1',
      origin: { kind: 'page', owner: 'UADA', query },
    });
    expect(decodeDetailsButton('{"a":"1:A:1","o":"p"}')).toEqual({ approvalId: '1:A:1', origin: { kind: 'page' } });
    // The short form read as strictly: an array of another length, or with a bad id, did not come from us.
    for (const value of ['[]', '["1:A:1","UADA"]', '["nope","UADA",{}]', '[1,"UADA",{}]', '["1:A:1","UADA",{},1]'])
      expect(decodeDetailsButton(value)).toBeUndefined();
    expect(decodeDetailsButton('["1:A:1","not-a-user",{}]')).toEqual({ approvalId: '1:A:1', origin: { kind: 'page' } });
  });
});

import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import { Secret } from '../../src/runtime/secret.js';

describe('Secret', () => {
  const secret = new Secret('ws123:-abc:def');
  it('never prints its value', () => {
    expect(String(secret)).toBe('[redacted]');
    expect(`${secret}`).toBe('[redacted]');
    expect(JSON.stringify({ secret })).toBe('{"secret":"[redacted]"}');
    expect(inspect({ secret })).not.toContain('ws123');
  });
  it('gives the value to reveal() only', () => {
    expect(secret.reveal()).toBe('ws123:-abc:def');
  });
});

describe('logger', () => {
  it('writes JSON lines at or above its level, with bindings', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (l) => lines.push(l), now: () => new Date('2026-01-01T00:00:00Z') }).child({
      command: 'findApprovals',
    });
    logger.debug({ a: 1 }, 'hidden');
    logger.info({ a: 1 }, 'shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      time: '2026-01-01T00:00:00.000Z',
      level: 'info',
      msg: 'shown',
      command: 'findApprovals',
      a: 1,
    });
  });

  it('redacts credentials by key and by type, nested and in errors', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l) });
    const error = Object.assign(new Error('boom'), { authorization: 'Bearer ws-secret-1' });
    logger.error(
      {
        token: 'ws-secret-2',
        nested: { password: 'hunter2', ok: 'fine' },
        secret: new Secret('ws-secret-3'),
        error,
        list: [new Secret('ws-secret-4')],
      },
      'x',
    );
    const out = lines.join('\n');
    for (const leaked of ['ws-secret-1', 'ws-secret-2', 'hunter2', 'ws-secret-3', 'ws-secret-4']) expect(out).not.toContain(leaked);
    expect(out).toContain('fine');
    expect(out).toContain('boom');
  });
});

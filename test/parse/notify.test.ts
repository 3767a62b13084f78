import { describe, expect, it } from 'vitest';
import { APPROVALS_USAGE, parseApprovalsCommand } from '../../src/parse/approvals.js';
import type { Invalid } from '../../src/parse/result.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const parse = (text: string) => parseApprovalsCommand(text, TODAY);
const bad = (text: string): Invalid => {
  const r = parse(text);
  if (r.kind !== 'invalid') throw new Error(`expected invalid for ${text}, got ${JSON.stringify(r)}`);
  return r;
};

describe('/approvals notify', () => {
  it('shows the setting, and switches it on and off', () => {
    expect(parse('notify')).toEqual({ kind: 'notify', action: 'show' });
    expect(parse('notify show')).toEqual({ kind: 'notify', action: 'show' });
    expect(parse('notify on')).toEqual({ kind: 'notify', action: 'switch', enabled: true });
    expect(parse('Notify OFF')).toEqual({ kind: 'notify', action: 'switch', enabled: false });
    expect(parse('notifications off')).toEqual({ kind: 'notify', action: 'switch', enabled: false });
  });

  it('reads quiet hours in every way people write a range, wrapping midnight or not', () => {
    const quiet = (startMinute: number, endMinute: number) => ({ kind: 'notify', action: 'quiet', quiet: { startMinute, endMinute } });
    expect(parse('notify quiet 19:00-08:00')).toEqual(quiet(19 * 60, 8 * 60));
    expect(parse('notify quiet 19:00 - 08:00')).toEqual(quiet(19 * 60, 8 * 60));
    expect(parse('notify quiet 19:00 to 8:30')).toEqual(quiet(19 * 60, 8 * 60 + 30));
    expect(parse('notify quiet 7pm–8am')).toEqual(quiet(19 * 60, 8 * 60));
    expect(parse('notify quiet 12:30-13:45')).toEqual(quiet(12 * 60 + 30, 13 * 60 + 45));
    expect(parse('notify quiet off')).toEqual({ kind: 'notify', action: 'quiet', quiet: null });
    expect(parse('notify quiet none')).toEqual({ kind: 'notify', action: 'quiet', quiet: null });
  });

  it('names what is wrong with every other form and shows the right one', () => {
    expect(bad('notify quiet')).toEqual({
      kind: 'invalid',
      problem: 'notify quiet needs the hours to be quiet, from and to, or off.',
      example: '/approvals notify quiet 19:00-08:00',
    });
    expect(bad('notify quiet 19:00').problem).toBe('“19:00” is not a range of hours: write from and to, with a dash between.');
    expect(bad('notify quiet 19:00 08:00').example).toBe('/approvals notify quiet 19:00-08:00');
    expect(bad('notify quiet 25:00-08:00').problem).toBe('“25:00” is not a time of day. Write it as 19:00 or 7pm.');
    expect(bad('notify quiet 19:00-8:75').problem).toBe('“8:75” is not a time of day. Write it as 08:00 or 8am.');
    expect(bad('notify quiet 08:00-08:00').problem).toContain('start and end at the same time');
    expect(bad('notify quiet 19:00-08:00-09:00').problem).toContain('is not a range of hours');
    expect(bad('notify quiet off now')).toMatchObject({
      problem: 'notify quiet off takes nothing after it.',
      example: '/approvals notify quiet off',
    });
    expect(bad('notify on please')).toMatchObject({
      problem: 'notify on takes nothing after it; “please” is too much.',
      example: '/approvals notify on',
    });
    expect(bad('notify of')).toMatchObject({
      suggestion: 'off',
      example: '/approvals notify [on|off] | notify quiet 19:00-08:00 | notify quiet off',
    });
    expect(bad('notify qiet 19:00-08:00').suggestion).toBe('quiet');
    expect(bad('notify sometimes').problem).toBe("I don't understand “sometimes” after notify. Say on, off, or quiet with hours.");
    expect(bad('notify quiet:19:00').problem).toBe('“quiet:19:00” is not part of the notify setting.');
    expect(bad('notify "on"').problem).toBe('“on” is not part of the notify setting.');
    expect(bad('pending notify').problem).toBe('“notify” is a command of its own: it comes first, without filters.');
    expect(bad('pending notify').example).toBe('/approvals notify off');
  });

  it('is in the usage line', () => {
    expect(APPROVALS_USAGE).toContain('notify [on|off|quiet HH:MM-HH:MM]');
  });
});

import { describe, expect, it } from 'vitest';
import { parseApprovalsCommand } from '../../src/parse/approvals.js';
import { parseClockTime } from '../../src/parse/remind.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const parse = (text: string) => parseApprovalsCommand(text, TODAY);

describe('/approvals remind', () => {
  it('sets daily or weekday reminders at a time of day', () => {
    expect(parse('remind daily 09:00')).toEqual({ kind: 'remind', action: 'set', days: 'daily', minuteOfDay: 540 });
    expect(parse('remind weekdays 8:30am')).toEqual({ kind: 'remind', action: 'set', days: 'weekdays', minuteOfDay: 510 });
    expect(parse('Remind WEEKDAYS 5:45 pm')).toEqual({ kind: 'remind', action: 'set', days: 'weekdays', minuteOfDay: 17 * 60 + 45 });
    expect(parse('remind 17:00')).toEqual({ kind: 'remind', action: 'set', days: 'daily', minuteOfDay: 1020 });
    expect(parse('remind daily')).toEqual({ kind: 'remind', action: 'set', days: 'daily', minuteOfDay: 540 });
    expect(parse('reminders weekdays')).toEqual({ kind: 'remind', action: 'set', days: 'weekdays', minuteOfDay: 540 });
  });

  it('shows and stops', () => {
    expect(parse('remind')).toEqual({ kind: 'remind', action: 'show' });
    expect(parse('remind show')).toEqual({ kind: 'remind', action: 'show' });
    expect(parse('remind off')).toEqual({ kind: 'remind', action: 'off' });
    expect(parse('remind stop')).toEqual({ kind: 'remind', action: 'off' });
  });

  it('names what is wrong and shows the right form', () => {
    const bad = (text: string) => {
      const r = parse(text);
      if (r.kind !== 'invalid') throw new Error(`expected invalid for ${text}`);
      return r;
    };
    expect(bad('remind daily 25:00').problem).toBe('“25:00” is not a time of day. Write it as 09:00, 17:30 or 9am.');
    expect(bad('remind daily 9:75').example).toBe('/approvals remind weekdays 09:00');
    expect(bad('remind dialy 09:00').suggestion).toBe('daily');
    expect(bad('remind weekday 09:00').suggestion).toBe('weekdays');
    expect(bad('remind off now').problem).toBe('remind off takes nothing after it.');
    expect(bad('remind show all').problem).toBe('remind show takes nothing after it.');
    expect(bad('remind daily 09:00 10:00').problem).toContain('more than a reminder needs');
    expect(bad('remind 09:00 daily').problem).toContain('the days go before the time');
    expect(bad('remind daily at:9').problem).toContain('is not part of a reminder');
    expect(bad('remind "daily"').problem).toContain('is not part of a reminder');
    expect(bad('remind 13pm').problem).toContain('is not a time of day');
  });

  it('suggests remind for a near miss', () => {
    const r = parse('remnid');
    expect(r.kind === 'invalid' && r.suggestion).toBe('remind');
  });
});

describe('parseClockTime', () => {
  it.each([
    ['9', 540],
    ['09', 540],
    ['0:00', 0],
    ['23:59', 1439],
    ['9.30', 570],
    ['9h30', 570],
    ['12am', 0],
    ['12pm', 720],
    ['12:30am', 30],
    ['1pm', 780],
    ['11:59PM', 719 + 720],
    ['9 a.m.', 540],
  ])('%s is minute %i', (text, minute) => {
    expect(parseClockTime(text)).toBe(minute);
  });

  it.each(['24:00', '9:60', '0am', '13pm', '', 'nine', '9:5', '-1', '123'])('%s is not a time', (text) => {
    expect(parseClockTime(text)).toBeUndefined();
  });
});

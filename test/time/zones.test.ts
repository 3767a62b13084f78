import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantOf, isTimeZone, startOfDay, wallClock, zoneLabel, zoneOrUtc } from '../../src/time/zones.js';

const wall = (year: number, month: number, day: number, hour: number, minute = 0, second = 0) => ({
  year,
  month,
  day,
  hour,
  minute,
  second,
});

describe('instantOf', () => {
  it('reads a wall clock in the zone given, whatever the machine’s zone', () => {
    expect(instantOf(wall(2026, 11, 24, 17), 'America/New_York').toISOString()).toBe('2026-11-24T22:00:00.000Z');
    expect(instantOf(wall(2026, 11, 24, 17), 'Europe/Berlin').toISOString()).toBe('2026-11-24T16:00:00.000Z');
    expect(instantOf(wall(2026, 11, 24, 17), 'Asia/Kolkata').toISOString()).toBe('2026-11-24T11:30:00.000Z');
    expect(instantOf(wall(2026, 11, 24, 17), 'UTC').toISOString()).toBe('2026-11-24T17:00:00.000Z');
  });

  it('takes a time that happens twice the first time, and moves one the clocks skip past the jump', () => {
    // Berlin goes back from 03:00 CEST to 02:00 CET on 25 October 2026: 02:30 is first 00:30Z.
    expect(instantOf(wall(2026, 10, 25, 2, 30), 'Europe/Berlin').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // New York skips 02:00–03:00 on 8 March 2026: 02:30 reads as 03:30 EDT.
    expect(instantOf(wall(2026, 3, 8, 2, 30), 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // Chatham goes back from 03:45 to 02:45 on 5 April 2026: 02:50 is first at 13:05Z the day before.
    expect(instantOf(wall(2026, 4, 5, 2, 50), 'Pacific/Chatham').toISOString()).toBe('2026-04-04T13:05:00.000Z');
  });

  it('gives back the instant whose wall clock it reads, wherever that clock is read only once', () => {
    const zones = ['Europe/Berlin', 'America/New_York', 'America/St_Johns', 'Pacific/Chatham', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1) / 1000, max: Date.UTC(2040, 0, 1) / 1000 }),
        fc.constantFrom(...zones),
        (seconds, zone) => {
          const at = new Date(seconds * 1000);
          const w = wallClock(at, zone);
          const back = instantOf(w, zone);
          // Read twice (clocks going back): the first of the two, at most the change's length earlier.
          expect(wallClock(back, zone)).toEqual(w);
          expect(at.getTime() - back.getTime()).toBeGreaterThanOrEqual(0);
          expect(at.getTime() - back.getTime()).toBeLessThanOrEqual(3_600_000);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('starts a day at its first moment, which a change of clocks may move off midnight', () => {
    expect(startOfDay({ year: 2026, month: 11, day: 24 }, 'Europe/Berlin').toISOString()).toBe('2026-11-23T23:00:00.000Z');
    // Santiago skips from 00:00 to 01:00 on 6 September 2026.
    expect(wallClock(startOfDay({ year: 2026, month: 9, day: 6 }, 'America/Santiago'), 'America/Santiago')).toMatchObject({
      day: 6,
      hour: 1,
    });
  });
});

const formats = new Map<string, Intl.DateTimeFormat>();

/** What the runtime's own zone data says a wall clock in `zone` reads at `at`, asked through Intl, not tzOffset. */
function askedWall(at: Date, zone: string) {
  const format =
    formats.get(zone) ??
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
  formats.set(zone, format);
  const parts = format.formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(part('year')),
    month: Number(part('month')),
    day: Number(part('day')),
    hour: Number(part('hour')),
    minute: Number(part('minute')),
    second: Number(part('second')),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(part('weekday')),
  };
}

describe('wallClock', () => {
  // Zones whose clocks change in every way there is: twice a year, by half an hour (Lord Howe), at
  // midnight (Santiago), twice within five weeks around Ramadan (Casablanca), across the date line
  // (Apia, which skipped a day in 2011), and never (Kolkata).
  const zones = [
    'Europe/Berlin',
    'America/New_York',
    'America/St_Johns',
    'America/Santiago',
    'Australia/Lord_Howe',
    'Africa/Casablanca',
    'Pacific/Apia',
    'Asia/Kolkata',
    'UTC',
  ];

  it('reads what the zone data says, in any order of asking, the kept spans of one offset included', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: Date.UTC(2009, 0, 1) / 60_000, max: Date.UTC(2031, 0, 1) / 60_000 }), fc.constantFrom(...zones)),
          { minLength: 1, maxLength: 40 },
        ),
        (asked) => {
          for (const [minutes, zone] of asked) {
            const at = new Date(minutes * 60_000 + 17_000);
            expect(wallClock(at, zone)).toEqual(askedWall(at, zone));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads the minutes either side of each change of clocks right, after the days around it were read', () => {
    const SEASONAL = ['Europe/Berlin', 'America/New_York', 'America/St_Johns', 'America/Santiago', 'Australia/Lord_Howe'];
    for (const zone of zones) {
      // Every hour of two years, then every minute of the hours in which the offset changed.
      const changes: number[] = [];
      for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2028, 0, 1); t += 3_600_000) {
        const before = askedWall(new Date(t - 3_600_000), zone).hour;
        const now = askedWall(new Date(t), zone);
        expect(wallClock(new Date(t), zone)).toEqual(now);
        if ((before + 1) % 24 !== now.hour) changes.push(t);
      }
      for (const t of changes)
        for (let m = -60; m <= 60; m++) {
          const at = new Date(t + m * 60_000);
          expect(wallClock(at, zone)).toEqual(askedWall(at, zone));
        }
      // So that the minutes either side of a change are read at all: these change clocks twice a year
      // in every release of the zone data. Casablanca's changes are what the data of the runtime
      // says (Morocco set its rule year by year, and the data of Node 24 ends them in 2026), Samoa
      // has kept one offset since 2021, India since 1945.
      if (SEASONAL.includes(zone)) expect(changes.length).toBeGreaterThanOrEqual(4);
    }
    // About half a million Intl readings: seconds on an idle machine, half a minute beside other
    // suites on two cores (CI runs three); the limit is for a hang, not a measure of speed.
  }, 90_000);
});

describe('zones', () => {
  it('knows IANA zones and nothing else, and falls back to UTC for what it does not know', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isTimeZone('Etc/GMT+5')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('Europe/Berlin; DROP')).toBe(false);
    expect(zoneOrUtc('Mars/Olympus_Mons')).toBe('UTC');
    expect(zoneOrUtc(undefined)).toBe('UTC');
    expect(wallClock(new Date('2026-11-24T22:00:00Z'), 'Mars/Olympus_Mons')).toMatchObject({ day: 24, hour: 22 });
  });

  it('names a zone by its city, and an offset zone by its offset', () => {
    expect(zoneLabel('Europe/Berlin')).toBe('Berlin time');
    expect(zoneLabel('America/New_York')).toBe('New York time');
    expect(zoneLabel('America/Argentina/Buenos_Aires')).toBe('Buenos Aires time');
    expect(zoneLabel('UTC')).toBe('UTC');
    expect(zoneLabel('Etc/UTC')).toBe('UTC');
    expect(zoneLabel('Etc/GMT+5')).toBe('UTC−5');
    expect(zoneLabel('Etc/GMT-14')).toBe('UTC+14');
  });
});

import { describe, expect, it } from 'vitest';
import { minuteOfDay, quietHoursAt, type QuietHours } from '../../src/core/preferences/quiet-hours.js';
import { firstInstantAtOrAfterWallTime, offsetAt, UnknownTimeZoneError, wallClockAt, wallTimeAt } from '../../src/core/preferences/time-zones.js';
import { utc } from '../support/preferences-fixtures.js';
import { isValidTimeZone } from '../../src/contract/preferences-schemas.js';

const NEW_YORK = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const KOLKATA = 'Asia/Kolkata';
const overnight: QuietHours = { start: '22:00', end: '07:00' };
const HOUR = 3_600_000;
const MINUTE = 60_000;

function endOf(nowMs: number, zone: string, window: QuietHours): number | undefined {
  const state = quietHoursAt(nowMs, zone, window);
  return state.quiet ? state.endsAtMs : undefined;
}

describe('isValidTimeZone', () => {
  it.each(['UTC', 'Europe/Berlin', NEW_YORK, KOLKATA, 'Asia/Calcutta', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])('accepts %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it.each(['', 'Mars/Olympus_Mons', '+05:30', 'UTC+2', 'Europe/Berlin ', 'Europe//Berlin', '../etc/passwd', 'a'.repeat(200)])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });

  it('wall-clock helpers throw a named error for a zone the runtime does not know', () => {
    expect(() => wallClockAt(0, 'Mars/Olympus_Mons')).toThrow(UnknownTimeZoneError);
    expect(() => quietHoursAt(0, 'Mars/Olympus_Mons', overnight)).toThrow(UnknownTimeZoneError);
  });
});

describe('offsets and wall times', () => {
  it('reads half-hour and DST offsets from the runtime zone database', () => {
    expect(offsetAt(utc(2026, 1, 15), KOLKATA)).toBe(5.5 * HOUR);
    expect(offsetAt(utc(2026, 7, 15), KOLKATA)).toBe(5.5 * HOUR);
    expect(offsetAt(utc(2026, 1, 15), NEW_YORK)).toBe(-5 * HOUR);
    expect(offsetAt(utc(2026, 7, 15), NEW_YORK)).toBe(-4 * HOUR);
    expect(offsetAt(utc(2026, 1, 15), BERLIN)).toBe(1 * HOUR);
    expect(offsetAt(utc(2026, 7, 15), BERLIN)).toBe(2 * HOUR);
  });

  it('an ordinary wall time maps to its one instant', () => {
    expect(firstInstantAtOrAfterWallTime(utc(2026, 11, 21, 22, 0), KOLKATA)).toBe(utc(2026, 11, 21, 16, 30));
    expect(firstInstantAtOrAfterWallTime(utc(2026, 7, 1, 9, 0), BERLIN)).toBe(utc(2026, 7, 1, 7, 0));
  });

  it('a wall time skipped by spring-forward maps to the transition (New York 02:30 on 2026-03-08 -> 03:00 EDT)', () => {
    expect(firstInstantAtOrAfterWallTime(utc(2026, 3, 8, 2, 30), NEW_YORK)).toBe(utc(2026, 3, 8, 7, 0));
    expect(firstInstantAtOrAfterWallTime(utc(2026, 3, 8, 2, 0), NEW_YORK)).toBe(utc(2026, 3, 8, 7, 0));
    expect(firstInstantAtOrAfterWallTime(utc(2026, 3, 29, 2, 15), BERLIN)).toBe(utc(2026, 3, 29, 1, 0));
  });

  it('a wall time repeated by fall-back maps to its first occurrence (New York 01:30 on 2026-11-01 -> EDT)', () => {
    expect(firstInstantAtOrAfterWallTime(utc(2026, 11, 1, 1, 30), NEW_YORK)).toBe(utc(2026, 11, 1, 5, 30));
    expect(firstInstantAtOrAfterWallTime(utc(2026, 10, 25, 2, 30), BERLIN)).toBe(utc(2026, 10, 25, 0, 30));
  });

  it('round-trips every quarter hour of a year in each zone (wall time of the instant found is the wall time asked, or later in a gap)', () => {
    for (const zone of [NEW_YORK, BERLIN, KOLKATA, 'Australia/Lord_Howe', 'UTC']) {
      for (let wall = utc(2026, 1, 1); wall < utc(2027, 1, 1); wall += 15 * MINUTE + 7 * HOUR) {
        // Prepare / Act
        const instant = firstInstantAtOrAfterWallTime(wall, zone);

        // Assess
        expect(wallTimeAt(instant, zone)).toBeGreaterThanOrEqual(wall);
        expect(wallTimeAt(instant - 1000, zone)).toBeLessThan(wall);
      }
    }
  });
});

describe('minuteOfDay', () => {
  it('parses HH:MM and refuses anything else', () => {
    expect(minuteOfDay('00:00')).toBe(0);
    expect(minuteOfDay('07:30')).toBe(450);
    expect(minuteOfDay('23:59')).toBe(1439);
    for (const bad of ['24:00', '7:30', '07:60', '0730', '']) expect(() => minuteOfDay(bad)).toThrow(RangeError);
  });
});

describe('quietHoursAt: windows crossing midnight', () => {
  it('is quiet from start (inclusive) to end (exclusive), on both sides of midnight', () => {
    // Asia/Kolkata (UTC+05:30): 22:00 IST = 16:30Z, 07:00 IST = 01:30Z next day.
    expect(quietHoursAt(utc(2026, 11, 21, 16, 29, 59), KOLKATA, overnight)).toEqual({ quiet: false });
    expect(endOf(utc(2026, 11, 21, 16, 30), KOLKATA, overnight)).toBe(utc(2026, 11, 22, 1, 30));
    expect(endOf(utc(2026, 11, 21, 18, 31), KOLKATA, overnight)).toBe(utc(2026, 11, 22, 1, 30)); // 00:01 IST
    expect(endOf(utc(2026, 11, 22, 1, 29, 59), KOLKATA, overnight)).toBe(utc(2026, 11, 22, 1, 30));
    expect(quietHoursAt(utc(2026, 11, 22, 1, 30), KOLKATA, overnight)).toEqual({ quiet: false });
  });

  it('reports when the window started', () => {
    expect(quietHoursAt(utc(2026, 11, 21, 20, 0), KOLKATA, overnight)).toEqual({ quiet: true, startedAtMs: utc(2026, 11, 21, 16, 30), endsAtMs: utc(2026, 11, 22, 1, 30) });
  });

  it('handles half-hour boundaries in a half-hour zone', () => {
    const window = { start: '23:30', end: '05:45' };
    // 23:30 IST = 18:00Z; 05:45 IST = 00:15Z.
    expect(quietHoursAt(utc(2026, 6, 1, 17, 59), KOLKATA, window)).toEqual({ quiet: false });
    expect(endOf(utc(2026, 6, 1, 18, 0), KOLKATA, window)).toBe(utc(2026, 6, 2, 0, 15));
  });
});

describe('quietHoursAt: same-day windows and degenerate ones', () => {
  it('a same-day window is quiet only between its bounds', () => {
    const office = { start: '09:00', end: '17:00' };
    expect(endOf(utc(2026, 7, 1, 12, 0), 'UTC', office)).toBe(utc(2026, 7, 1, 17, 0));
    expect(quietHoursAt(utc(2026, 7, 1, 8, 59), 'UTC', office)).toEqual({ quiet: false });
    expect(quietHoursAt(utc(2026, 7, 1, 17, 0), 'UTC', office)).toEqual({ quiet: false });
    expect(quietHoursAt(utc(2026, 7, 1, 23, 0), 'UTC', office)).toEqual({ quiet: false });
  });

  it('a window whose start equals its end is no quiet hours', () => {
    expect(quietHoursAt(utc(2026, 7, 1, 12, 0), 'UTC', { start: '12:00', end: '12:00' })).toEqual({ quiet: false });
  });
});

describe('quietHoursAt: America/New_York spring-forward (2026-03-08, 02:00 EST -> 03:00 EDT)', () => {
  it('an overnight window spanning the change ends at 07:00 EDT (7 h of real time after midnight, not 8)', () => {
    // 00:00 EST = 05:00Z; 07:00 EDT = 11:00Z.
    expect(endOf(utc(2026, 3, 8, 5, 0), NEW_YORK, overnight)).toBe(utc(2026, 3, 8, 11, 0));
    expect(quietHoursAt(utc(2026, 3, 8, 11, 0), NEW_YORK, overnight)).toEqual({ quiet: false });
    // Started at 22:00 EST on the 7th = 03:00Z on the 8th.
    expect(quietHoursAt(utc(2026, 3, 8, 6, 59), NEW_YORK, overnight)).toEqual({ quiet: true, startedAtMs: utc(2026, 3, 8, 3, 0), endsAtMs: utc(2026, 3, 8, 11, 0) });
  });

  it('a window ending inside the skipped hour ends at the jump (02:30 does not exist -> 03:00 EDT = 07:00Z)', () => {
    expect(endOf(utc(2026, 3, 8, 6, 30), NEW_YORK, { start: '01:00', end: '02:30' })).toBe(utc(2026, 3, 8, 7, 0));
    expect(quietHoursAt(utc(2026, 3, 8, 7, 0), NEW_YORK, { start: '01:00', end: '02:30' })).toEqual({ quiet: false });
  });

  it('a window starting inside the skipped hour starts at the jump', () => {
    const window = { start: '02:30', end: '06:00' };
    expect(quietHoursAt(utc(2026, 3, 8, 6, 59), NEW_YORK, window)).toEqual({ quiet: false }); // 01:59 EST
    expect(endOf(utc(2026, 3, 8, 7, 0), NEW_YORK, window)).toBe(utc(2026, 3, 8, 10, 0)); // 03:00 EDT -> 06:00 EDT
  });

  it('a window entirely inside the skipped hour is empty that night and normal the next', () => {
    const window = { start: '02:00', end: '02:45' };
    expect(quietHoursAt(utc(2026, 3, 8, 7, 0), NEW_YORK, window)).toEqual({ quiet: false });
    expect(quietHoursAt(utc(2026, 3, 8, 6, 59), NEW_YORK, window)).toEqual({ quiet: false });
    // 2026-03-09 02:10 EDT = 06:10Z.
    expect(endOf(utc(2026, 3, 9, 6, 10), NEW_YORK, window)).toBe(utc(2026, 3, 9, 6, 45));
  });
});

describe('quietHoursAt: America/New_York fall-back (2026-11-01, 02:00 EDT -> 01:00 EST)', () => {
  it('an overnight window spanning the change ends at 07:00 EST (10 h of real time: the repeated hour counts)', () => {
    // 22:00 EDT Oct 31 = 02:00Z Nov 1; 07:00 EST = 12:00Z.
    expect(quietHoursAt(utc(2026, 11, 1, 5, 30), NEW_YORK, overnight)).toEqual({ quiet: true, startedAtMs: utc(2026, 11, 1, 2, 0), endsAtMs: utc(2026, 11, 1, 12, 0) });
    expect(endOf(utc(2026, 11, 1, 6, 30), NEW_YORK, overnight)).toBe(utc(2026, 11, 1, 12, 0)); // the repeated 01:30, EST
  });

  it('a window ending in the repeated hour ends at its first occurrence and does not re-open in the second', () => {
    const window = { start: '22:00', end: '01:30' };
    expect(endOf(utc(2026, 11, 1, 5, 10), NEW_YORK, window)).toBe(utc(2026, 11, 1, 5, 30)); // 01:10 EDT
    expect(quietHoursAt(utc(2026, 11, 1, 5, 30), NEW_YORK, window)).toEqual({ quiet: false });
    expect(quietHoursAt(utc(2026, 11, 1, 6, 10), NEW_YORK, window)).toEqual({ quiet: false }); // 01:10 EST
  });

  it('a window starting in the repeated hour starts at its first occurrence and covers the second', () => {
    const window = { start: '01:30', end: '03:00' };
    expect(quietHoursAt(utc(2026, 11, 1, 5, 29), NEW_YORK, window)).toEqual({ quiet: false });
    expect(endOf(utc(2026, 11, 1, 5, 30), NEW_YORK, window)).toBe(utc(2026, 11, 1, 8, 0)); // 01:30 EDT -> 03:00 EST
    expect(endOf(utc(2026, 11, 1, 6, 10), NEW_YORK, window)).toBe(utc(2026, 11, 1, 8, 0)); // 01:10 EST
  });
});

describe('quietHoursAt: Europe/Berlin', () => {
  it('spring-forward (2026-03-29, 02:00 CET -> 03:00 CEST): 23:00-06:00 ends at 06:00 CEST = 04:00Z', () => {
    expect(endOf(utc(2026, 3, 29, 0, 30), BERLIN, { start: '23:00', end: '06:00' })).toBe(utc(2026, 3, 29, 4, 0));
  });

  it('fall-back (2026-10-25, 03:00 CEST -> 02:00 CET): 23:00-06:00 ends at 06:00 CET = 05:00Z', () => {
    expect(endOf(utc(2026, 10, 25, 0, 30), BERLIN, { start: '23:00', end: '06:00' })).toBe(utc(2026, 10, 25, 5, 0));
    expect(endOf(utc(2026, 10, 25, 1, 30), BERLIN, { start: '23:00', end: '06:00' })).toBe(utc(2026, 10, 25, 5, 0));
  });

  it('a window inside the skipped hour is empty that night', () => {
    expect(quietHoursAt(utc(2026, 3, 29, 1, 0), BERLIN, { start: '02:00', end: '02:59' })).toEqual({ quiet: false });
  });

  it('in summer and winter the same local window is a different UTC span', () => {
    expect(endOf(utc(2026, 1, 10, 22, 0), BERLIN, overnight)).toBe(utc(2026, 1, 11, 6, 0));
    expect(endOf(utc(2026, 7, 10, 21, 0), BERLIN, overnight)).toBe(utc(2026, 7, 11, 5, 0));
  });
});

describe('quietHoursAt: invariants over a year', () => {
  it('whenever quiet, the end is after now, at the local end time (or the jump past it), and outside the window', () => {
    for (const zone of [NEW_YORK, BERLIN, KOLKATA]) {
      for (const window of [overnight, { start: '01:30', end: '02:30' }, { start: '09:00', end: '17:00' }]) {
        for (let now = utc(2026, 1, 1); now < utc(2027, 1, 1); now += 401 * MINUTE) {
          // Act
          const state = quietHoursAt(now, zone, window);
          if (!state.quiet) continue;

          // Assess
          expect(state.endsAtMs).toBeGreaterThan(now);
          expect(state.startedAtMs).toBeLessThanOrEqual(now);
          expect(state.endsAtMs - state.startedAtMs).toBeLessThanOrEqual(25 * HOUR);
          expect(quietHoursAt(state.endsAtMs, zone, window).quiet).toBe(false);
          const endWall = wallClockAt(state.endsAtMs, zone);
          const endMinute = endWall.hour * 60 + endWall.minute;
          expect(endMinute).toBeGreaterThanOrEqual(minuteOfDay(window.end));
          expect(endMinute - minuteOfDay(window.end)).toBeLessThanOrEqual(60);
        }
      }
    }
  });
});

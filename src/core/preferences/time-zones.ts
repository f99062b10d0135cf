/**
 * Wall-clock arithmetic in IANA time zones with nothing but the runtime's own zone database (Intl).
 * An instant is epoch milliseconds; a "wall time" is the local calendar reading, encoded as the epoch
 * milliseconds that reading would have in UTC (so two wall times compare and subtract like numbers).
 */
import { isValidTimeZone } from '../../contract/preferences-schemas.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      era: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Thrown when a zone is not in the runtime's database (a stored zone the tzdata no longer has). */
export class UnknownTimeZoneError extends Error {
  override readonly name = 'UnknownTimeZoneError';
  constructor(readonly timeZone: string) {
    super(`unknown time zone ${JSON.stringify(timeZone)}`);
  }
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The local calendar reading of `instantMs` in `timeZone`. */
export function wallClockAt(instantMs: number, timeZone: string): WallClock {
  if (!isValidTimeZone(timeZone)) throw new UnknownTimeZoneError(timeZone);
  const parts = formatterFor(timeZone).formatToParts(new Date(instantMs));
  const value = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((part) => part.type === type)?.value);
  const era = parts.find((part) => part.type === 'era')?.value;
  const yearOfEra = value('year');
  return {
    year: era === 'BC' || era === 'B' ? 1 - yearOfEra : yearOfEra,
    month: value('month'),
    day: value('day'),
    hour: value('hour'),
    minute: value('minute'),
    second: value('second'),
  };
}

/** Wall time of `instantMs` in `timeZone` as "UTC-encoded" milliseconds (second precision). */
export function wallTimeAt(instantMs: number, timeZone: string): number {
  const clock = wallClockAt(instantMs, timeZone);
  const wall = new Date(0);
  wall.setUTCFullYear(clock.year, clock.month - 1, clock.day);
  wall.setUTCHours(clock.hour, clock.minute, clock.second, 0);
  return wall.getTime();
}

/** UTC offset of `timeZone` at `instantMs`, in milliseconds (east of UTC positive). */
export function offsetAt(instantMs: number, timeZone: string): number {
  const wholeSecond = Math.floor(instantMs / 1000) * 1000;
  return wallTimeAt(wholeSecond, timeZone) - wholeSecond;
}

const DAY_MS = 86_400_000;

/**
 * The first instant at which the local clock of `timeZone` reads `wallTime` or later.
 * - an ordinary wall time: its one instant;
 * - a repeated wall time (autumn fall-back): its earlier instant;
 * - a skipped wall time (spring-forward gap): the instant of the transition, when the clock jumps past it.
 */
export function firstInstantAtOrAfterWallTime(wallTime: number, timeZone: string): number {
  // Any offset in force around the wall time is one of the offsets a day before or after it.
  const offsets = new Set([offsetAt(wallTime - DAY_MS, timeZone), offsetAt(wallTime + DAY_MS, timeZone), offsetAt(wallTime, timeZone)]);
  const exact = [...offsets].map((offset) => wallTime - offset).filter((instant) => wallTimeAt(instant, timeZone) === wallTime);
  if (exact.length > 0) return Math.min(...exact);
  // In a gap: search between an instant whose reading is before the wall time and one after it.
  let low = Math.min(...[...offsets].map((offset) => wallTime - offset));
  let high = Math.max(...[...offsets].map((offset) => wallTime - offset));
  if (wallTimeAt(low, timeZone) >= wallTime) return low;
  // Invariant: reading(low) < wallTime <= reading(high); transitions fall on whole seconds.
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000;
    if (wallTimeAt(middle, timeZone) >= wallTime) high = middle;
    else low = middle;
  }
  return high;
}

/** Wall time of the local date of `wallTime` shifted by `days`, at `minuteOfDay`. */
export function wallTimeOnDay(wallTime: number, days: number, minuteOfDay: number): number {
  const midnight = Math.floor(wallTime / DAY_MS) * DAY_MS;
  return midnight + days * DAY_MS + minuteOfDay * 60_000;
}

/**
 * Quiet hours: a daily window of local wall-clock time (`22:00`-`07:00` crosses midnight) in the
 * user's IANA zone, during which non-urgent live pushes wait for the window's end.
 *
 * A night's window runs from the first instant the local clock reads `start` to the first instant,
 * after that, it reads `end` (see `firstInstantAtOrAfterWallTime`): a start or end inside a
 * spring-forward gap snaps to the transition, one inside a fall-back overlap takes its first
 * occurrence, so a window is one contiguous span of real time and never re-opens in a repeated hour.
 */
import { CLOCK_TIME_PATTERN } from '../../contract/preferences-schemas.js';
import { firstInstantAtOrAfterWallTime, wallTimeAt, wallTimeOnDay } from './time-zones.js';

export interface QuietHours {
  /** Local `HH:MM` at which quiet hours begin. */
  start: string;
  /** Local `HH:MM` at which they end; earlier than `start` when the window crosses midnight. */
  end: string;
}

/** `HH:MM` -> minutes after local midnight. */
export function minuteOfDay(clockTime: string): number {
  const match = CLOCK_TIME_PATTERN.exec(clockTime);
  if (!match) throw new RangeError(`not a HH:MM clock time: ${JSON.stringify(clockTime)}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

export type QuietHoursState =
  | { quiet: false }
  | { quiet: true; startedAtMs: number; endsAtMs: number };

/**
 * Whether `nowMs` falls in the user's quiet hours and, if so, the absolute instant they end.
 * Throws `UnknownTimeZoneError` when the zone is not in the runtime's database.
 */
export function quietHoursAt(nowMs: number, timeZone: string, window: QuietHours): QuietHoursState {
  const startMinute = minuteOfDay(window.start);
  const endMinute = minuteOfDay(window.end);
  if (startMinute === endMinute) return { quiet: false };
  const crossesMidnight = endMinute < startMinute;
  const today = wallTimeAt(nowMs, timeZone);
  // Only the window that started yesterday (crossing midnight) or today can contain now.
  for (const day of [-1, 0]) {
    const startsAtMs = firstInstantAtOrAfterWallTime(wallTimeOnDay(today, day, startMinute), timeZone);
    const endsAtMs = firstInstantAtOrAfterWallTime(wallTimeOnDay(today, crossesMidnight ? day + 1 : day, endMinute), timeZone);
    if (startsAtMs <= nowMs && nowMs < endsAtMs) return { quiet: true, startedAtMs: startsAtMs, endsAtMs };
  }
  return { quiet: false };
}

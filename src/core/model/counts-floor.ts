/**
 * The counts floor: a mark above the read mark below which every own notification is out of the
 * counts (read one by one, archived, deleted, snoozed away, retracted), so counts stop reading the
 * ids and exceptions that single reads left above the read mark (issue 25, "read cost").
 *
 * Three rules keep it exact (docs/api/inbox-state.md, "Read cost"):
 * - **It lags.** Counts advance it only over ids older than FLOOR_LAG_MS, and only when they listed
 *   every own id between it and now (a write of an id lands within LATE_ARRIVAL_MS of its time, or
 *   is late: below).
 * - **Late arrivals are named.** A writer that lands an own item more than LATE_ARRIVAL_MS after its
 *   id's time (a fan-out retry or redrive under its first stamp, a follow's backfill) also writes a
 *   marker beside the marks item; counts read the markers with the marks, in the same Query.
 * - **What counts again is named.** A per-item change that leaves an id countable (unread,
 *   unarchive, ...) names it on the marks item when the floor may cover it (the id is older than
 *   NAME_COUNTABLE_AFTER_MS, at most FLOOR_LAG_MS minus the time a write may take), as an unread
 *   below the read mark is named.
 * Only the user's own partition has a floor, written only while the user follows no celebrity: a
 * feed shows only ids above its followedAt, which a later follow puts above every floor written
 * before it (the floor lags FLOOR_LAG_MS), so no feed item's exception is ever below the floor.
 */
import { idUpperBoundAt, timeOfId } from './ids.js';
import { isRead, type ItemException, type ReadState } from './read-state.js';

/** An own item written this long after its id's time is a late arrival (it writes a marker). */
export const LATE_ARRIVAL_MS = 2 * 60_000;
/** The floor covers only ids older than this (> LATE_ARRIVAL_MS plus a write's time in flight and clock skew). */
export const FLOOR_LAG_MS = 10 * 60_000;
/** A change leaving an id countable names it when the id is older than this (half the lag: the rest is the change's time in flight). */
export const NAME_COUNTABLE_AFTER_MS = FLOOR_LAG_MS / 2;
/** Counts write the floor only when it passes at least this many ids (no write on every count). */
export const FLOOR_MIN_STEP = 25;

/** The lower bound of the own ids counts list: the higher of the read mark and the floor. */
export function ownCountsBase(state: Pick<ReadState, 'readMark' | 'countsFloor'>): string | undefined {
  const { readMark, countsFloor } = state;
  if (countsFloor === undefined || countsFloor === null) return readMark ?? undefined;
  return readMark === null || countsFloor > readMark ? countsFloor : readMark;
}

/** Whether an own item written at `nowMs` lands late (its writer also records a marker). */
export function isLateArrival(id: string, nowMs: number): boolean {
  return nowMs - timeOfId(id) > LATE_ARRIVAL_MS;
}

/** A per-item state that the counts include (unread and in the view). */
export function isCountable(exception: ItemException): boolean {
  return !exception.read && !exception.archived && !exception.deleted && exception.snoozedUntil === undefined;
}

/**
 * Whether a change that leaves this exception must name the id on the marks item: it is countable and
 * above the read mark, and a floor covers it or may cover it before counts see the change.
 */
export function mustNameForFloor(id: string, exception: ItemException, state: Pick<ReadState, 'readMark' | 'countsFloor'>, nowMs: number): boolean {
  if (!isCountable(exception) || exception.source !== undefined) return false;
  if (state.readMark !== null && id <= state.readMark) return false;
  const floor = state.countsFloor ?? null;
  return (floor !== null && id <= floor) || nowMs - timeOfId(id) > NAME_COUNTABLE_AFTER_MS;
}

/**
 * The floor counts may write after listing every own id above the base (`ownIds`, complete down to
 * it): the highest id up to FLOOR_LAG_MS ago below which every listed id is out of the counts, when
 * that passes at least FLOOR_MIN_STEP ids; undefined otherwise.
 */
export function nextCountsFloor(ownIds: readonly string[], state: ReadState, gone: (id: string) => boolean, nowMs: number, minStep = FLOOR_MIN_STEP): string | undefined {
  const cutoff = idUpperBoundAt(nowMs - FLOOR_LAG_MS);
  const ascending = [...new Set(ownIds)].sort();
  let floor: string | undefined;
  let passed = 0;
  for (const id of ascending) {
    if (id > cutoff || !(isRead(id, state) || gone(id))) break;
    floor = id;
    passed += 1;
  }
  return passed >= minStep ? floor : undefined;
}

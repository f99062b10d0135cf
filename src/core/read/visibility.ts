/**
 * What leaves a reader's lists and counts whatever the filter: not arrived yet (a snooze comeback is
 * written ahead under an id of its return), a retracted event (a comeback goes with its root's),
 * deleted or snoozed away, and a comeback its snoozed item no longer names (its snooze failed after
 * writing it, or was never finished).
 */
import { idLowerBoundAt } from '../model/ids.js';
import type { Comeback } from '../model/notification.js';
import { isHidden, type ItemException, type ReadState } from '../model/read-state.js';
import type { RetractedIds } from './retracted-ids.js';

/** The exclusive upper bound of every id that has arrived by `nowMs` (every read is bounded by it). */
export function arrivedBefore(nowMs: number): string {
  return idLowerBoundAt(nowMs + 1);
}

export interface VisibilityInput {
  state: ReadState;
  retracted: RetractedIds;
  nowMs: number;
}

/** The snoozed item a comeback brings back must name it (the exceptions of those items must be loaded). */
export function isCurrentComeback(id: string, comeback: Comeback, exceptions: ReadonlyMap<string, ItemException>): boolean {
  return exceptions.get(comeback.from)?.comebackId === id;
}

/** A predicate: true for what every list and count of this reader leaves out. */
export function goneFromView({ state, retracted, nowMs }: VisibilityInput): (key: { id: string; comeback?: Comeback }) => boolean {
  const arrived = arrivedBefore(nowMs);
  return ({ id, comeback }) => {
    if (id >= arrived || isHidden(id, state)) return true;
    if (comeback) return retracted.hasComeback(comeback) || !isCurrentComeback(id, comeback, state.exceptions);
    return retracted.has(id);
  };
}

/**
 * A per-item change of one or many notifications of the user's view (read, unread, seen, archive,
 * unarchive, delete): one lookup round (whatever the number of followed celebrities), then one write
 * of each changed notification's exception, holding its whole state with the change applied (a
 * single PutItem; BatchWriteItems of 25 for a bulk). Marking unread below the read mark first names
 * the ids on the marks item (one UpdateItem), so counts find them without reading old exceptions; so
 * does a change that leaves an own id countable where the counts floor may cover it (counts-floor.ts).
 */
import { exceptionAfter, isUnreadBelowMark, unreadBelowMarkIsLive, type ItemChange, type ItemException } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';
import type { Clock } from '../ports/clock.js';
import type { ReadStateStore } from '../ports/inbox.js';
import type { ActionTarget, ViewLookup } from '../read/inbox-read-service.js';
import { mustNameForFloor } from '../model/counts-floor.js';

export interface ItemChangesDeps {
  view: { findInView(user: UserRef, ids: readonly string[]): Promise<ViewLookup> };
  readState: Pick<ReadStateStore, 'putExceptions' | 'recordUnreadBelowMark'>;
  clock: Clock;
  inboxTtlDays: number;
}

export class ItemChanges {
  constructor(private readonly deps: ItemChangesDeps) {}

  expiresAt(nowMs: number): number {
    return Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
  }

  /** Applies the change to the ids in the view; answers those changed (the others are not in the view and stay untouched). */
  async change(user: UserRef, ids: readonly string[], change: Exclude<ItemChange, { kind: 'snooze' }>): Promise<string[]> {
    const lookup = await this.deps.view.findInView(user, ids);
    const expiresAt = this.expiresAt(this.deps.clock.nowMs());
    const exceptions = new Map<string, ItemException>();
    for (const [id, target] of lookup.inView) exceptions.set(id, exceptionOf(id, lookup, target, change, expiresAt));
    await this.write(user, lookup, exceptions);
    return [...exceptions.keys()];
  }

  /** The exceptions, after naming on the marks item the ids they leave unread below the read mark (so a kill between the two writes only leaves a name to ignore). */
  async write(user: UserRef, lookup: ViewLookup, exceptions: ReadonlyMap<string, ItemException>): Promise<void> {
    if (exceptions.size === 0) return;
    const { state } = lookup;
    const nowMs = this.deps.clock.nowMs();
    const named = (id: string, exception: ItemException) => isUnreadBelowMark(id, exception, state) || mustNameForFloor(id, exception, state, nowMs);
    const unreadBelow = [...exceptions].filter(([id, exception]) => named(id, exception) && !(state.unreadBelowMark.get(id) === state.version)).map(([id]) => id);
    if (unreadBelow.length > 0) {
      // Names no read-all can revive any more go in the same write.
      const forget = [...state.unreadBelowMark].filter(([id, version]) => !unreadBelowMarkIsLive(id, version, state)).map(([id]) => id);
      await this.deps.readState.recordUnreadBelowMark(user, unreadBelow, state.version, forget);
    }
    await this.deps.readState.putExceptions(user, exceptions);
  }
}

export function exceptionOf(id: string, lookup: ViewLookup, target: ActionTarget, change: ItemChange, expiresAt: number): ItemException {
  return exceptionAfter(id, lookup.state, { type: target.item.type, ...(target.source !== undefined ? { source: target.source } : {}), ...(target.item.comeback ? { comeback: target.item.comeback } : {}) }, change, expiresAt);
}

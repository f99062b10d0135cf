/**
 * The O(1) read-state writes: read-all and seen-all move one mark each (one conditional write,
 * however many notifications are unread), a single read writes the notification's exception. Every
 * connected device of the user is told afterwards (the listener: `read-state-sync.ts`).
 */
import { NotFoundError } from '../model/errors.js';
import { markUpTo } from '../model/read-state.js';
import type { UserRef } from '../model/user.js';
import type { Clock } from '../ports/clock.js';
import type { ReadStateListener, ReadStateStore } from '../ports/inbox.js';
import type { ViewLookup } from '../read/inbox-read-service.js';
import { ItemChanges } from './item-changes.js';

export interface ReadMarksDeps {
  readState: Pick<ReadStateStore, 'advanceReadMark' | 'advanceSeenMark' | 'putExceptions' | 'recordUnreadBelowMark'>;
  /** Which ids are in the user's view, with their read state (the read side's lookup). */
  view: { findInView(user: UserRef, ids: readonly string[]): Promise<ViewLookup> };
  clock: Clock;
  inboxTtlDays: number;
  listener?: ReadStateListener;
}

export class ReadMarks {
  private readonly changes: ItemChanges;

  constructor(private readonly deps: ReadMarksDeps) {
    this.changes = new ItemChanges(deps);
  }

  /**
   * O(1): one conditional write of the read mark, however many notifications are unread. `upTo` is
   * the newest id the client rendered: the mark covers exactly what was shown, never more than now.
   */
  async markAllRead(user: UserRef, upTo?: string): Promise<{ readAt: string }> {
    const { mark, atIso } = markUpTo(this.deps.clock.nowMs(), upTo);
    const result = await this.deps.readState.advanceReadMark(user, mark, atIso);
    await this.deps.listener?.readStateChanged(user, { readUpTo: mark });
    return result;
  }

  /** O(1): one conditional write of the seen mark (up to `upTo`, never past now); clears the badge, marks nothing read. */
  async markAllSeen(user: UserRef, upTo?: string): Promise<{ seenAt: string }> {
    const { mark, atIso } = markUpTo(this.deps.clock.nowMs(), upTo);
    const result = await this.deps.readState.advanceSeenMark(user, mark, atIso);
    await this.deps.listener?.readStateChanged(user);
    return result;
  }

  /** Reads one notification (one lookup round, one write); NotFoundError when the id is not in the user's view. */
  async markOneRead(user: UserRef, id: string): Promise<void> {
    const changed = await this.changes.change(user, [id], { kind: 'read' });
    if (changed.length === 0) throw new NotFoundError(`notification ${id} is not in your inbox`);
    await this.deps.listener?.readStateChanged(user, { readIds: [id] });
  }
}

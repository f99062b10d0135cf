/**
 * The O(1) read-state writes: read-all and seen-all move one mark each (one conditional write,
 * however many notifications are unread), a single read records one exception. Every connected
 * device of the user is told afterwards (the listener: `read-state-sync.ts`).
 */
import { NotFoundError } from '../model/errors.js';
import { markUpTo } from '../model/read-state.js';
import type { StoredNotification } from '../model/notification.js';
import type { UserRef } from '../model/user.js';
import type { Clock } from '../ports/clock.js';
import type { ReadStateListener, ReadStateStore } from '../ports/inbox.js';

export interface ReadMarksDeps {
  readState: Pick<ReadStateStore, 'advanceReadMark' | 'advanceSeenMark' | 'recordSingleRead'>;
  /** Which ids are in the user's view (the read side's view lookup). */
  view: { findInView(user: UserRef, ids: readonly string[]): Promise<Map<string, StoredNotification>> };
  clock: Clock;
  inboxTtlDays: number;
  listener?: ReadStateListener;
}

export class ReadMarks {
  constructor(private readonly deps: ReadMarksDeps) {}

  /**
   * O(1): one conditional write of the read mark, however many notifications are unread. `upTo` is
   * the newest id the client rendered: the mark covers exactly what was shown, never more than now.
   */
  async markAllRead(user: UserRef, upTo?: string): Promise<{ readAt: string }> {
    const nowMs = this.deps.clock.nowMs();
    const { mark, atIso } = markUpTo(nowMs, upTo);
    // Stamped with the write time: an unread exception older than it is read again.
    const result = await this.deps.readState.advanceReadMark(user, mark, atIso, nowMs);
    await this.deps.listener?.readStateChanged(user);
    return result;
  }

  /** O(1): one conditional write of the seen mark (up to `upTo`, never past now); clears the badge, marks nothing read. */
  async markAllSeen(user: UserRef, upTo?: string): Promise<{ seenAt: string }> {
    const { mark, atIso } = markUpTo(this.deps.clock.nowMs(), upTo);
    const result = await this.deps.readState.advanceSeenMark(user, mark, atIso);
    await this.deps.listener?.readStateChanged(user);
    return result;
  }

  /** Records a single read; NotFoundError when the id is not in the user's inbox view. */
  async markOneRead(user: UserRef, id: string): Promise<void> {
    const nowMs = this.deps.clock.nowMs();
    const found = await this.deps.view.findInView(user, [id]);
    if (!found.has(id)) throw new NotFoundError(`notification ${id} is not in your inbox`);
    const expiresAt = Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
    await this.deps.readState.recordSingleRead(user, id, expiresAt, nowMs);
    await this.deps.listener?.readStateChanged(user);
  }
}

/**
 * The inbox actions beyond read-all: archive, unarchive, mark unread, mark seen, delete, snooze,
 * archive-all-read and bulk changes. None rewrites an inbox item: a per-item change is one write of
 * the user's READEX#<id> exception, archive-all-read is one write of the mark item.
 */
import { forEachBounded } from '../model/bounded-parallel.js';
import { NotFoundError, ValidationError } from '../model/errors.js';
import { notificationId } from '../model/ids.js';
import type { InboxReadService } from '../read/inbox-read-service.js';
import type { Clock } from '../ports/clock.js';
import type { InboxStateListener, ItemStateChange, ItemStateStore, ReadStateStore, SnoozeReturns } from '../ports/inbox.js';
import type { StoredNotification } from '../model/notification.js';
import { MAX_BULK_IDS } from '../../contract/rest-schemas.js';
import type { BulkAnswer, ItemAction } from '../../contract/wire.js';

export type { ItemAction } from '../../contract/wire.js';
import type { UserRef } from '../model/user.js';


/** Writes of a bulk call in flight at once. */
const BULK_PARALLELISM = 10;

/** A snooze ends at least this far ahead and at most this far (the scheduler's and the inbox's horizon). */
export const MIN_SNOOZE_MS = 1_000;
export const MAX_SNOOZE_MS = 30 * 86_400_000;

export interface InboxActionsDeps {
  /** Which ids are in the user's view (the read side's view lookup). */
  view: Pick<InboxReadService, 'findInView'>;
  readState: Pick<ReadStateStore, 'recordSingleRead' | 'recordSingleReads'>;
  itemStates: ItemStateStore;
  clock: Clock;
  inboxTtlDays: number;
  listener?: InboxStateListener;
  /** Without it snooze answers 400 (the deployment has no scheduler for the comeback). */
  snoozeReturns?: SnoozeReturns;
}

/** The wire's answer as it is (ids changed, ids not in the view). */
export type BulkResult = BulkAnswer;

/** The id of a snoozed notification's comeback: deterministic, so a retried snooze writes the same item. */
export function snoozeReturnId(user: UserRef, item: Pick<StoredNotification, 'id' | 'type'>, untilMs: number): string {
  return notificationId({ tenantId: user.tenantId, type: item.type, eventId: `snooze\u0000${item.id}\u0000${untilMs}`, recipient: user.userId, timeMs: untilMs });
}

export class InboxActions {
  constructor(private readonly deps: InboxActionsDeps) {}

  private expiresAt(nowMs: number): number {
    return Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
  }

  /** One write for one notification in the view; NotFoundError otherwise. */
  async changeOne(user: UserRef, id: string, action: ItemAction): Promise<void> {
    const found = await this.deps.view.findInView(user, [id]);
    const item = found.get(id);
    if (!item) throw new NotFoundError(`notification ${id} is not in your inbox`);
    await this.apply(user, item, action, this.deps.clock.nowMs());
    await this.deps.listener?.itemStateChanged(user, action, [id]);
  }

  /** Up to 100 ids: those in the caller's view are changed (one write each, reads batched), the others named and never touched. */
  async bulk(user: UserRef, ids: readonly string[], action: ItemAction): Promise<BulkResult> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_BULK_IDS) throw new ValidationError(`at most ${MAX_BULK_IDS} ids`, [{ path: 'ids', message: `at most ${MAX_BULK_IDS}` }]);
    const found = await this.deps.view.findInView(user, unique);
    const nowMs = this.deps.clock.nowMs();
    const updated = unique.filter((id) => found.has(id));
    // Reads are plain puts: BatchWriteItems of 25. Other changes SET one field and REMOVE its opposite, which only UpdateItem can do.
    if (action === 'read') await this.deps.readState.recordSingleReads(user, updated, this.expiresAt(nowMs), nowMs);
    else await forEachBounded(updated, BULK_PARALLELISM, (id) => this.apply(user, found.get(id)!, action, nowMs));
    if (updated.length > 0) await this.deps.listener?.itemStateChanged(user, action, updated);
    return { updated, notFound: unique.filter((id) => !found.has(id)) };
  }

  /** ONE write however many notifications are read: the archive mark takes the read mark as it is now. */
  async archiveAllRead(user: UserRef): Promise<{ archivedAt: string }> {
    const nowMs = this.deps.clock.nowMs();
    await this.deps.itemStates.archiveAllRead(user, nowMs);
    const archivedAt = new Date(nowMs).toISOString();
    await this.deps.listener?.archivedRead(user, archivedAt);
    return { archivedAt };
  }

  /**
   * Gone from the list and counts now (one write), back at `until` as a new unread arrival on top:
   * its item is written now under an id of that time (hidden until then) and its push is scheduled.
   */
  async snooze(user: UserRef, id: string, untilIso: string): Promise<{ until: string }> {
    const nowMs = this.deps.clock.nowMs();
    const untilMs = Date.parse(untilIso);
    if (!Number.isFinite(untilMs) || untilMs < nowMs + MIN_SNOOZE_MS || untilMs > nowMs + MAX_SNOOZE_MS) {
      throw new ValidationError('until must be 1 s to 30 days ahead', [{ path: 'until', message: 'must be 1 s to 30 days ahead' }]);
    }
    if (!this.deps.snoozeReturns) throw new ValidationError('snooze is not available here (no scheduler)', [{ path: 'until', message: 'snooze needs a scheduler' }], 'snooze_unavailable');
    const found = await this.deps.view.findInView(user, [id]);
    const item = found.get(id);
    if (!item) throw new NotFoundError(`notification ${id} is not in your inbox`);
    // The comeback first: if the exception write then fails, a retry finds and rewrites the same item.
    await this.deps.snoozeReturns.scheduleReturn(user, item, snoozeReturnId(user, item, untilMs), untilMs);
    await this.deps.itemStates.changeItemState(user, id, { kind: 'snooze', type: item.type, atMs: nowMs, untilMs }, this.expiresAt(nowMs));
    await this.deps.listener?.itemStateChanged(user, 'snooze', [id]);
    return { until: new Date(untilMs).toISOString() };
  }

  private async apply(user: UserRef, item: StoredNotification, action: ItemAction, nowMs: number): Promise<void> {
    if (action === 'read') return this.deps.readState.recordSingleRead(user, item.id, this.expiresAt(nowMs), nowMs);
    const change: ItemStateChange = { kind: action, type: item.type, atMs: nowMs };
    return this.deps.itemStates.changeItemState(user, item.id, change, this.expiresAt(nowMs));
  }
}

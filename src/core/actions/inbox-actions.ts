/**
 * The inbox actions beyond read-all: archive, unarchive, mark unread, mark seen, delete, snooze,
 * archive-all-read and bulk changes. None rewrites an inbox item: a per-item change is one write of
 * the notification's exception (`item-changes.ts`), archive-all-read one write of the marks item.
 */
import { NotFoundError, ValidationError } from '../model/errors.js';
import { notificationId } from '../model/ids.js';
import type { Clock } from '../ports/clock.js';
import type { InboxStateListener, ReadStateStore, SnoozeReturns } from '../ports/inbox.js';
import type { StoredNotification } from '../model/notification.js';
import { MAX_BULK_IDS } from '../../contract/rest-schemas.js';
import type { BulkAnswer, ItemAction } from '../../contract/wire.js';
import type { UserRef } from '../model/user.js';
import { exceptionOf, ItemChanges } from './item-changes.js';
import type { ViewLookup } from '../read/inbox-read-service.js';

export type { ItemAction } from '../../contract/wire.js';

/** A snooze ends at least this far ahead and at most this far (the scheduler's and the inbox's horizon). */
export const MIN_SNOOZE_MS = 1_000;
export const MAX_SNOOZE_MS = 30 * 86_400_000;
/** The error code of a snooze whose `until` is not before the notification's expiry (400). */
export const SNOOZE_PAST_EXPIRY = 'snooze_past_expiry';

export interface InboxActionsDeps {
  /** Which ids are in the user's view, with their read state (the read side's lookup). */
  view: { findInView(user: UserRef, ids: readonly string[]): Promise<ViewLookup> };
  readState: Pick<ReadStateStore, 'putExceptions' | 'recordUnreadBelowMark' | 'archiveAllRead'>;
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
  private readonly changes: ItemChanges;

  constructor(private readonly deps: InboxActionsDeps) {
    this.changes = new ItemChanges(deps);
  }

  /** One write for one notification in the view; NotFoundError otherwise. */
  async changeOne(user: UserRef, id: string, action: ItemAction): Promise<void> {
    const changed = await this.changes.change(user, [id], { kind: action });
    if (changed.length === 0) throw new NotFoundError(`notification ${id} is not in your inbox`);
    await this.deps.listener?.itemStateChanged(user, action, [id]);
  }

  /** Up to 100 ids: those in the caller's view are changed (one lookup round, BatchWriteItems of 25), the others named and never touched. */
  async bulk(user: UserRef, ids: readonly string[], action: ItemAction): Promise<BulkResult> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_BULK_IDS) throw new ValidationError(`at most ${MAX_BULK_IDS} ids`, [{ path: 'ids', message: `at most ${MAX_BULK_IDS}` }]);
    const changed = new Set(await this.changes.change(user, unique, { kind: action }));
    const updated = unique.filter((id) => changed.has(id));
    if (updated.length > 0) await this.deps.listener?.itemStateChanged(user, action, updated);
    return { updated, notFound: unique.filter((id) => !changed.has(id)) };
  }

  /** ONE write however many notifications are read: the archive snapshot takes the read-alls as they are now. */
  async archiveAllRead(user: UserRef): Promise<{ archivedAt: string }> {
    const archivedAt = new Date(this.deps.clock.nowMs()).toISOString();
    await this.deps.readState.archiveAllRead(user, archivedAt);
    await this.deps.listener?.archivedRead(user, archivedAt);
    return { archivedAt };
  }

  /**
   * Gone from the list and counts now, back at `until` as a new unread arrival on top: the comeback
   * item is written first (it shows only once the snoozed item's exception names it, so a snooze that
   * fails after it changes nothing), then the exception, then the comeback's push is scheduled. A
   * retry of the same snooze (same `until`) after a failure finishes it; any other action on a
   * snoozed-away notification, or a second snooze of it, is a 404.
   *
   * The comeback expires with the notification it brings back (a chain's comebacks all with its
   * root), and an `until` at or after that expiry is refused (400 `snooze_past_expiry`): the root's
   * retraction record lives as long as the root, so no comeback can return, or still be shown, after
   * the record that hides it is gone (issue 25, case 5), at no extra read or write.
   */
  async snooze(user: UserRef, id: string, untilIso: string): Promise<{ until: string }> {
    const nowMs = this.deps.clock.nowMs();
    const untilMs = Date.parse(untilIso);
    if (!Number.isFinite(untilMs) || untilMs < nowMs + MIN_SNOOZE_MS || untilMs > nowMs + MAX_SNOOZE_MS) {
      throw new ValidationError('until must be 1 s to 30 days ahead', [{ path: 'until', message: 'must be 1 s to 30 days ahead' }]);
    }
    const returns = this.deps.snoozeReturns;
    if (!returns) throw new ValidationError('snooze is not available here (no scheduler)', [{ path: 'until', message: 'snooze needs a scheduler' }], 'snooze_unavailable');
    const lookup = await this.deps.view.findInView(user, [id]);
    const retried = lookup.snoozedAway.get(id);
    const target = lookup.inView.get(id) ?? (retried && lookup.state.exceptions.get(id)?.snoozedUntil === untilMs ? retried : undefined);
    if (!target) throw new NotFoundError(`notification ${id} is not in your inbox`);
    const { item } = target;
    if (untilMs >= item.expiresAt * 1000) {
      const expiry = new Date(item.expiresAt * 1000).toISOString();
      throw new ValidationError(`until must be before ${expiry}, when this notification expires`, [{ path: 'until', message: `must be before ${expiry} (the notification's expiry)` }], SNOOZE_PAST_EXPIRY);
    }
    const comeback: StoredNotification = {
      ...item,
      id: snoozeReturnId(user, item, untilMs),
      expiresAt: item.expiresAt,
      comeback: {
        from: id,
        rootId: item.comeback?.rootId ?? id,
        ...(item.comeback ? (item.comeback.rootActor !== undefined ? { rootActor: item.comeback.rootActor } : {}) : target.source !== undefined ? { rootActor: target.source } : {}),
      },
    };
    await returns.writeComeback(user, comeback);
    if (!retried) {
      const exception = exceptionOf(id, lookup, target, { kind: 'snooze', untilMs, comebackId: comeback.id }, Math.max(this.changes.expiresAt(nowMs), comeback.expiresAt));
      await this.changes.write(user, lookup, new Map([[id, exception]]));
    }
    await returns.schedulePush(user, comeback, untilMs);
    await this.deps.listener?.itemStateChanged(user, 'snooze', [id]);
    return { until: new Date(untilMs).toISOString() };
  }
}

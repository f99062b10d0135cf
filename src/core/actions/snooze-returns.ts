/**
 * A snoozed notification's comeback: a new item in the user's own partition under an id of the
 * return time (reads skip ids that have not arrived yet, and show it only while the snoozed item's
 * exception names it), and a one-time schedule that puts a signed release of it (a reference,
 * `jobs/item-release.ts`) on the urgent queue at that time, so the user's connected devices get it
 * live like any new arrival (quiet hours and rate limits apply), unless it was deleted meanwhile;
 * delivery drops it if its root's event was retracted meanwhile.
 *
 * Least privilege (the REST write function is internet-facing): the comeback is one PutItem into the
 * user's partition (no batch write, no delete, no other kind of partition), and the release is signed
 * with the snooze key, which delivery accepts for a snooze comeback's urgent release only
 * (`isSnoozeComebackRelease`), never with the fan-out's delivery-job key.
 */
import type { ItemRelease } from '../jobs/item-release.js';
import { signedMessageBody, SNOOZE_EVENT_ID_PREFIX } from '../jobs/delivery-job-signature.js';
import type { StoredNotification } from '../model/notification.js';
import type { OwnInboxItemWriter, SnoozeReturns } from '../ports/inbox.js';
import type { Scheduler } from '../ports/scheduler.js';
import { scheduleName } from '../jobs/schedules.js';
import type { UserRef } from '../model/user.js';

export interface SnoozeReturnsDeps {
  inbox: OwnInboxItemWriter;
  scheduler: Scheduler;
  /** Where the comeback's push goes: the urgent delivery queue (no batching window). */
  urgentQueueArn: string;
  /** The snooze key (`SNOOZE_JOB_SECRET`), not the fan-out's delivery-job key. */
  snoozeJobSecret: string;
}

export class ScheduledSnoozeReturns implements SnoozeReturns {
  constructor(private readonly deps: SnoozeReturnsDeps) {}

  /** One PutItem into the user's own partition (the same item again on a retry). */
  async writeComeback(user: UserRef, comeback: StoredNotification): Promise<void> {
    await this.deps.inbox.putOwnInboxItem(user, comeback);
  }

  /**
   * The comeback's push at `untilMs` (a schedule of a deterministic name: a retry finds it): a
   * reference to the comeback, read back when it fires, so the schedule holds no other user's content
   * and names only the user (referenced for their erasure).
   */
  async schedulePush(user: UserRef, comeback: StoredNotification, untilMs: number): Promise<void> {
    const from = comeback.comeback?.from ?? comeback.id;
    const release: ItemRelease = { v: 1, kind: 'item-release', tenantId: user.tenantId, userId: user.userId, notificationId: comeback.id, priority: 'urgent', eventId: `${SNOOZE_EVENT_ID_PREFIX}${from}` };
    await this.deps.scheduler.scheduleOnce(
      {
        name: scheduleName('snooze', user.tenantId, `${user.userId}\u0000${comeback.id}`),
        atMs: untilMs,
        targetArn: this.deps.urgentQueueArn,
        payload: signedMessageBody(release, this.deps.snoozeJobSecret),
      },
      { tenantId: user.tenantId, userIds: [user.userId] },
    );
  }
}

/**
 * A snoozed notification's comeback: a new item in the user's own inbox under an id of the return
 * time (pages and counts skip ids that have not arrived yet), written at snooze time, and a
 * one-time schedule that puts a signed release of it (a reference, `jobs/item-release.ts`) on the
 * urgent queue at that time, so the user's connected devices get it live like any new arrival (quiet
 * hours and rate limits apply), unless it was deleted meanwhile.
 */
import type { ItemRelease } from '../jobs/item-release.js';
import { signedMessageBody } from '../jobs/delivery-job-signature.js';
import type { StoredNotification } from '../model/notification.js';
import type { InboxWriter, SnoozeReturns } from '../ports/inbox.js';
import type { Scheduler } from '../ports/scheduler.js';
import { scheduleName } from '../jobs/schedules.js';
import type { UserRef } from '../model/user.js';

export interface SnoozeReturnsDeps {
  inbox: InboxWriter;
  scheduler: Scheduler;
  /** Where the comeback's push goes: the urgent delivery queue (no batching window). */
  urgentQueueArn: string;
  deliveryJobSecret: string;
  inboxTtlDays: number;
}

export class ScheduledSnoozeReturns implements SnoozeReturns {
  constructor(private readonly deps: SnoozeReturnsDeps) {}

  async scheduleReturn(user: UserRef, item: StoredNotification, returnId: string, untilMs: number): Promise<void> {
    const expiresAt = Math.ceil(untilMs / 1000) + this.deps.inboxTtlDays * 86_400;
    const comeback: StoredNotification = { ...item, id: returnId, expiresAt };
    await this.deps.inbox.writeInboxItems([{ source: { kind: 'own', tenantId: user.tenantId, userId: user.userId }, item: comeback }]);
    // A reference to the comeback, read back when it fires: the schedule names only the user (and is referenced for their erasure).
    const release: ItemRelease = { v: 1, kind: 'item-release', tenantId: user.tenantId, userId: user.userId, notificationId: returnId, priority: 'urgent', eventId: `snooze:${item.id}` };
    await this.deps.scheduler.scheduleOnce(
      {
        name: scheduleName('snooze', user.tenantId, `${user.userId}\u0000${returnId}`),
        atMs: untilMs,
        targetArn: this.deps.urgentQueueArn,
        payload: signedMessageBody(release, this.deps.deliveryJobSecret),
      },
      { tenantId: user.tenantId, userIds: [user.userId] },
    );
  }
}

/**
 * A snoozed notification's comeback: a new item in the user's own inbox under an id of the return
 * time (pages and counts skip ids that have not arrived yet), written at snooze time, and a
 * one-time schedule that puts a signed delivery job for it on the urgent queue at that time, so
 * the user's connected devices get it live like any new arrival (quiet hours and rate limits apply).
 */
import type { DeliveryJob } from '../jobs/delivery-job.js';
import { signedDeliveryJobBody } from '../jobs/delivery-job-signature.js';
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
    const job: DeliveryJob = {
      v: 1,
      tenantId: user.tenantId,
      eventId: `snooze:${item.id}`,
      priority: 'urgent',
      notification: { type: item.type, createdAt: item.createdAt, actor: item.actor, title: item.title, body: item.body, data: item.data },
      target: { kind: 'recipients', recipients: [{ userId: user.userId, notificationId: returnId }] },
    };
    await this.deps.scheduler.scheduleOnce({
      name: scheduleName('snooze', user.tenantId, `${user.userId}\u0000${returnId}`),
      atMs: untilMs,
      targetArn: this.deps.urgentQueueArn,
      payload: signedDeliveryJobBody(job, this.deps.deliveryJobSecret),
    });
  }
}

/**
 * Retraction: a producer withdraws an event (`notification.retracted` with the original event id
 * and type). Cost does not follow the audience: ONE arrival-ledger put (which finds the event's
 * arrival stamp, the time part of all its notification ids) and ONE put of a tenant-level
 * retraction record. Reads recompute each user's ids of the retracted events (own id and the
 * followed feeds' ids, deterministic) and leave them out of pages and counts. Connected devices of
 * the event's direct recipients and a celebrity's online followers get a `retracted` message
 * through the delivery function, like every live message: signed urgent retraction jobs.
 */
import type { NotificationEvent } from './events.js';
import { feedRecipient, recipientNotificationId } from '../model/recipient-ids.js';
import { notificationId } from '../model/ids.js';
import type { Clock } from '../ports/clock.js';
import type { ArrivalLedger } from '../ports/fan-out.js';
import type { Retraction, RetractionStore } from '../ports/inbox.js';
import type { DeliveryJobQueue } from '../ports/queues.js';
import { MAX_RECIPIENTS_PER_JOB, type DeliveryJob } from '../jobs/delivery-job.js';

export interface RetractionDeps {
  arrivals: ArrivalLedger;
  store: RetractionStore;
  clock: Clock;
  inboxTtlDays: number;
  /** The urgent delivery queue the `retracted` jobs go to; without it devices drop the notification at their next fetch, not live. */
  deliveryQueue?: DeliveryJobQueue;
}

/** What a retraction event's data names: the original event. */
export interface RetractionTarget {
  eventId: string;
  type: string;
}

export class RetractionService {
  constructor(private readonly deps: RetractionDeps) {}

  /** Idempotent: a retry finds the same stamp and rewrites the same record; a retraction that beats its event retracts it on arrival. */
  async retract(event: NotificationEvent, target: RetractionTarget): Promise<Retraction> {
    const nowMs = this.deps.clock.nowMs();
    const expiresAt = Math.ceil(nowMs / 1000) + this.deps.inboxTtlDays * 86_400;
    // Marks the event retracted in the arrival clock too: an event that has not arrived yet is then never written or pushed.
    const arrivalMs = await this.deps.arrivals.stampRetracted({ tenantId: event.tenantId, type: target.type, eventId: target.eventId }, nowMs, expiresAt);
    const retraction: Retraction = { tenantId: event.tenantId, type: target.type, eventId: target.eventId, arrivalMs };
    await this.deps.store.recordRetraction(retraction, Math.ceil(arrivalMs / 1000) + this.deps.inboxTtlDays * 86_400);
    await this.pushRetracted(event, retraction);
    return retraction;
  }

  /**
   * Retraction jobs for the delivery function: the direct recipients (100 per job, each with its own
   * id) and, for a celebrity audience, one online-followers job (the delivery shards and pages it).
   * A retry enqueues the same jobs again: `retracted` is idempotent on the device.
   */
  private async pushRetracted(event: NotificationEvent, retraction: Retraction): Promise<void> {
    const queue = this.deps.deliveryQueue;
    if (!queue) return;
    const base = {
      v: 1 as const,
      tenantId: retraction.tenantId,
      eventId: event.eventId,
      priority: 'urgent' as const,
      retracted: { eventId: retraction.eventId, arrivalMs: retraction.arrivalMs },
      // The retracted type (the delivery recomputes followers' ids from it); no content is shown.
      notification: { type: retraction.type, createdAt: new Date(retraction.arrivalMs).toISOString(), actor: { id: event.actor.id }, title: '', body: '', data: {} },
    };
    const jobs: DeliveryJob[] = [];
    const recipients = [...new Set(event.recipients)];
    for (let start = 0; start < recipients.length; start += MAX_RECIPIENTS_PER_JOB) {
      const chunk = recipients.slice(start, start + MAX_RECIPIENTS_PER_JOB).map((userId) => ({ userId, notificationId: recipientNotificationId(retraction.tenantId, retraction.type, retraction.eventId, userId, retraction.arrivalMs) }));
      jobs.push({ ...base, target: { kind: 'recipients', recipients: chunk } });
    }
    if (event.followersOf !== undefined) {
      const feedId = notificationId({ tenantId: retraction.tenantId, type: retraction.type, eventId: retraction.eventId, recipient: feedRecipient(event.followersOf), timeMs: retraction.arrivalMs });
      jobs.push({ ...base, target: { kind: 'onlineFollowers', actorId: event.followersOf, notificationId: feedId } });
    }
    if (jobs.length > 0) await queue.enqueue(jobs);
  }
}

/** Typed fixture factories for delivery jobs and the SQS events of the delivery queues. */
import type { SQSEvent } from 'aws-lambda';
import type { DeliveryJob, Priority, RenderedNotification } from '../../src/core/jobs/delivery-job.js';
import { notificationId } from '../../src/core/model/ids.js';
import type { UserRef } from '../../src/core/model/user.js';
import { anSqsEvent, anSqsRecord, uniqueEventId } from './events.js';

export function aRenderedNotification(overrides: Partial<RenderedNotification> = {}): RenderedNotification {
  return {
    type: 'mention.created',
    createdAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: 'hey @alice',
    data: { postId: 'p-1', excerpt: 'hey @alice' },
    ...overrides,
  };
}

export interface RecipientsJobInput {
  recipients: readonly UserRef[];
  priority?: Priority;
  notification?: RenderedNotification;
  eventId?: string;
  timeMs?: number;
}

/** A `recipients` job whose ids are the deterministic ULIDs of (tenant, event, recipient). */
export function aRecipientsJob(input: RecipientsJobInput): DeliveryJob {
  const tenantId = input.recipients[0]?.tenantId ?? 'acme';
  const eventId = input.eventId ?? uniqueEventId('evt');
  const timeMs = input.timeMs ?? Date.now();
  return {
    v: 1,
    tenantId,
    eventId,
    priority: input.priority ?? 'urgent',
    notification: input.notification ?? aRenderedNotification({ createdAt: new Date(timeMs).toISOString() }),
    target: {
      kind: 'recipients',
      recipients: input.recipients.map((user) => ({ userId: user.userId, notificationId: notificationId({ tenantId, type: input.notification?.type ?? 'mention.created', eventId, recipient: user.userId, timeMs }) })),
    },
  };
}

export function anOnlineFollowersJob(tenantId: string, actorId: string, overrides: { priority?: Priority; eventId?: string; timeMs?: number } = {}): DeliveryJob {
  const eventId = overrides.eventId ?? uniqueEventId('post');
  const timeMs = overrides.timeMs ?? Date.now();
  return {
    v: 1,
    tenantId,
    eventId,
    priority: overrides.priority ?? 'info',
    notification: aRenderedNotification({ type: 'post.published', actor: { id: actorId }, title: `${actorId} published a post`, body: 'hello', data: { postId: 'p-9', title: 'hello' } }),
    target: { kind: 'onlineFollowers', actorId, notificationId: notificationId({ tenantId, type: 'post.published', eventId, recipient: `feed:${actorId}`, timeMs }) },
  };
}

/** The SQS event a delivery consumer receives for these jobs (one record each, or a raw body). */
export function aDeliveryEvent(jobs: readonly (DeliveryJob | string)[]): SQSEvent {
  return anSqsEvent(jobs.map((job) => anSqsRecord(typeof job === 'string' ? job : JSON.stringify(job))));
}

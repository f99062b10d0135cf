/**
 * Pure fan-out planning: what to write and what to enqueue for one validated event. No I/O, so the
 * rules (ids, TTL, shards, job sizes) are unit-tested without a table or a queue.
 */
import type { CelebrityPostIndexEntry } from '../ports/celebrity-posts.js';
import type { NotificationType } from '../ports/notification-type.js';
import { sanitizeLinks } from '../model/action-links.js';
import { MAX_RECIPIENTS_PER_JOB, type DeliveryJob, type RenderedNotification } from '../jobs/delivery-job.js';
import type { NotificationEvent } from './events.js';
import { allShards } from '../model/feed-shards.js';
import { notificationId } from '../model/ids.js';
import { feedRecipient, recipientNotificationId } from '../model/recipient-ids.js';
import type { StoredNotification } from '../model/notification.js';
import type { LoggedPost } from '../ports/fan-out.js';
import type { InboxItemToWrite } from '../ports/inbox.js';

export interface DeliveryRecipient {
  userId: string;
  notificationId: string;
}

export function renderNotification(type: NotificationType, event: NotificationEvent): RenderedNotification {
  const { title, body } = type.render({ actor: event.actor, data: event.data });
  // Action links ride along to the live push only (the inbox item is rendered again at read).
  const links = sanitizeLinks(type.links?.(event.data));
  return { type: event.type, createdAt: new Date(event.timeMs).toISOString(), actor: event.actor, title, body, data: event.data, ...links };
}

/** Expiry from the arrival stamp (stable across retries), so a retried write is byte-identical. */
export function expiresAtOf(arrivalMs: number, ttlDays: number): number {
  return Math.floor(arrivalMs / 1000) + ttlDays * 86_400;
}

function stored(rendered: RenderedNotification, id: string, expiresAt: number): StoredNotification {
  const { actionUrl: _actionUrl, actions: _actions, ...content } = rendered;
  return { id, ...content, expiresAt };
}

/** One inbox item per recipient, each with its deterministic id. */
export function planRecipientWrites(
  event: NotificationEvent,
  rendered: RenderedNotification,
  userIds: readonly string[],
  ttlDays: number,
  arrivalMs: number,
): { writes: InboxItemToWrite[]; recipients: DeliveryRecipient[] } {
  const expiresAt = expiresAtOf(arrivalMs, ttlDays);
  const writes: InboxItemToWrite[] = [];
  const recipients: DeliveryRecipient[] = [];
  for (const userId of userIds) {
    const id = recipientNotificationId(event.tenantId, event.type, event.eventId, userId, arrivalMs);
    writes.push({ source: { kind: 'own', tenantId: event.tenantId, userId }, item: stored(rendered, id, expiresAt) });
    recipients.push({ userId, notificationId: id });
  }
  return { writes, recipients };
}

/** The same item (same id) once per feed shard and once per celebrity posts log shard: 2S writes, whatever the follower count. */
export function planFeedWrites(
  event: NotificationEvent,
  rendered: RenderedNotification,
  actorId: string,
  shardCount: number,
  ttlDays: number,
  arrivalMs: number,
): { writes: InboxItemToWrite[]; celebrityLogWrites: InboxItemToWrite[]; postsIndexEntries: CelebrityPostIndexEntry[]; notificationId: string } {
  const id = notificationId({ tenantId: event.tenantId, type: event.type, eventId: event.eventId, recipient: feedRecipient(actorId), timeMs: arrivalMs });
  const item = stored(rendered, id, expiresAtOf(arrivalMs, ttlDays));
  return {
    writes: allShards(shardCount).map((shard) => ({ source: { kind: 'feed', tenantId: event.tenantId, actorId, shard }, item })),
    // The same item in each shard of the tenant's celebrity posts log (read by users following many celebrities).
    celebrityLogWrites: allShards(shardCount).map((shard) => ({ source: { kind: 'celebrityPosts', tenantId: event.tenantId, shard, authorId: actorId }, item })),
    // And its key in each shard's count index (read by counts).
    postsIndexEntries: allShards(shardCount).map((shard) => ({ tenantId: event.tenantId, shard, authorId: actorId, id, type: item.type, expiresAt: item.expiresAt })),
    notificationId: id,
  };
}

/** Delivery jobs of at most MAX_RECIPIENTS_PER_JOB recipients each, on the event's priority. */
export function planRecipientJobs(event: NotificationEvent, rendered: RenderedNotification, recipients: readonly DeliveryRecipient[]): DeliveryJob[] {
  const jobs: DeliveryJob[] = [];
  for (let i = 0; i < recipients.length; i += MAX_RECIPIENTS_PER_JOB) {
    jobs.push({
      v: 1,
      tenantId: event.tenantId,
      eventId: event.eventId,
      priority: event.priority,
      notification: rendered,
      target: { kind: 'recipients', recipients: recipients.slice(i, i + MAX_RECIPIENTS_PER_JOB) },
    });
  }
  return jobs;
}

/** One job for a celebrity post: the consumer pushes to the actor's online subscribers only. */
export function planOnlineFollowersJob(event: NotificationEvent, rendered: RenderedNotification, actorId: string, id: string): DeliveryJob {
  return {
    v: 1,
    tenantId: event.tenantId,
    eventId: event.eventId,
    priority: event.priority,
    notification: rendered,
    target: { kind: 'onlineFollowers', actorId, notificationId: id },
  };
}

/**
 * A new follower's copies of the author's logged posts: the same id, bytes and expiry as the post's
 * own fan-out writes, so a follower both paths reach gets one item. One delivery job per post.
 */
export function planBackfill(tenantId: string, userId: string, posts: readonly LoggedPost[]): { writes: InboxItemToWrite[]; jobs: DeliveryJob[] } {
  const writes: InboxItemToWrite[] = [];
  const jobs: DeliveryJob[] = [];
  for (const post of posts) {
    const id = recipientNotificationId(tenantId, post.type, post.eventId, userId, post.arrivalMs);
    writes.push({ source: { kind: 'own', tenantId, userId }, item: stored(post.notification, id, post.expiresAt) });
    jobs.push({ v: 1, tenantId, eventId: post.eventId, priority: post.priority, notification: post.notification, target: { kind: 'recipients', recipients: [{ userId, notificationId: id }] } });
  }
  return { writes, jobs };
}

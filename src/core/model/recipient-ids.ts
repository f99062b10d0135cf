/**
 * The recipient of a notification id (`model/ids.ts`): a user, a celebrity's feed or an author's
 * recent posts log. Fan-out writes under these ids; reads, retractions and live delivery derive the
 * same ids from them, so the rule lives below all of them.
 */
import { notificationId } from './ids.js';

/** Recipient marker of a feed item's id; `#` never occurs in a user id, so it cannot collide. */
export function feedRecipient(actorId: string): string {
  return `feed#${actorId}`;
}

/** Recipient marker of a post's entry in its author's recent posts log. */
export function recentPostsRecipient(authorId: string): string {
  return `posts#${authorId}`;
}

/** The id of `userId`'s copy of an event that arrived at `arrivalMs`. */
export function recipientNotificationId(tenantId: string, type: string, eventId: string, userId: string, arrivalMs: number): string {
  return notificationId({ tenantId, type, eventId, recipient: userId, timeMs: arrivalMs });
}

/** An event of a tenant as a retraction names it (the stamp dates all its ids). */
export interface RetractedEvent {
  type: string;
  eventId: string;
  arrivalMs: number;
}

/** The id the event gave one recipient: a user's own item, or (`actorId`) the item of that celebrity's feed. */
export function idOfEventFor(tenantId: string, event: RetractedEvent, recipient: { userId: string } | { actorId: string }): string {
  return 'actorId' in recipient
    ? notificationId({ tenantId, type: event.type, eventId: event.eventId, recipient: feedRecipient(recipient.actorId), timeMs: event.arrivalMs })
    : recipientNotificationId(tenantId, event.type, event.eventId, recipient.userId, event.arrivalMs);
}

/**
 * The signed message a one-time schedule puts on a queue to send one notification of a user later (a
 * push or email held for quiet hours or a rate-limit digest, a snoozed notification coming back): a
 * reference to the item, never its content. The consumer reads the item back when the schedule
 * fires, so the schedule names nobody but the recipient, and a notification deleted meanwhile (its
 * author erased, retention) is not sent.
 */
import * as z from 'zod';
import { IDENTIFIER_PATTERN } from '../model/keys.js';
import { ULID_PATTERN } from '../model/ids.js';
import type { StoredNotification } from '../model/notification.js';
import { prioritySchema, type DeliveryJob } from './delivery-job.js';

const identifier = z.string().regex(IDENTIFIER_PATTERN);

export const itemReleaseSchema = z
  .object({
    v: z.literal(1),
    kind: z.literal('item-release'),
    tenantId: identifier,
    userId: identifier,
    notificationId: z.string().regex(ULID_PATTERN),
    priority: prioritySchema,
    /** The producer's event id (traces, logs). */
    eventId: z.string().min(1).max(256),
  })
  .strict();
export type ItemRelease = z.infer<typeof itemReleaseSchema>;

/** Whether a parsed queue body is meant as an item release (then it must parse as one). */
export function looksLikeItemRelease(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'item-release';
}

/** Reads items of users' own inboxes by id (BatchGetItem); absent ones are left out. */
export interface OwnItemsReader {
  getItems(keys: readonly { source: { kind: 'own'; tenantId: string; userId: string }; id: string }[]): Promise<Map<string, StoredNotification>>;
}

/**
 * The delivery jobs of fired releases, one per release whose item still exists (unexpired), for its
 * one recipient; `gone` lists the releases whose item does not.
 */
export async function jobsOfItemReleases(items: OwnItemsReader, releases: readonly ItemRelease[], nowMs: number): Promise<{ jobs: (DeliveryJob | undefined)[]; gone: number }> {
  if (releases.length === 0) return { jobs: [], gone: 0 };
  const found = await items.getItems(releases.map((release) => ({ source: { kind: 'own', tenantId: release.tenantId, userId: release.userId }, id: release.notificationId })));
  let gone = 0;
  const jobs = releases.map((release): DeliveryJob | undefined => {
    const item = found.get(release.notificationId);
    if (!item || item.expiresAt * 1000 <= nowMs) {
      gone += 1;
      return undefined;
    }
    return {
      v: 1,
      tenantId: release.tenantId,
      eventId: release.eventId,
      priority: release.priority,
      notification: { type: item.type, createdAt: item.createdAt, actor: item.actor, title: item.title, body: item.body, data: item.data },
      target: { kind: 'recipients', recipients: [{ userId: release.userId, notificationId: release.notificationId }] },
      // A snooze comeback: what it brings back (delivery drops it if that event was retracted meanwhile).
      ...(item.comeback ? { comeback: { rootId: item.comeback.rootId, ...(item.comeback.rootActor !== undefined ? { rootActor: item.comeback.rootActor } : {}) } } : {}),
    };
  });
  return { jobs, gone };
}

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
    /** The item is a celebrity's feed item (a post alert of a celebrity-tier post), not in the user's own inbox: that actor's feed. */
    feedOf: identifier.optional(),
    /** A channel escalation held or come early: it is checked against the read state again when released. */
    escalation: z.object({ dueAtMs: z.number().int().min(0), when: z.enum(['unseen', 'unread']) }).strict().optional(),
    /** An escalation come early (not a hold): it comes back on its own, never joining a digest. */
    early: z.literal(true).optional(),
    /** A post alert the user asked for (pushed whatever the type's push default). */
    alert: z.literal(true).optional(),
  })
  .strict();
export type ItemRelease = z.infer<typeof itemReleaseSchema>;

/** Whether a parsed queue body is meant as an item release (then it must parse as one). */
export function looksLikeItemRelease(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'item-release';
}

type ReleaseSource = { kind: 'own'; tenantId: string; userId: string } | { kind: 'feed'; tenantId: string; actorId: string; shard: number };

/** Reads items of users' own inboxes (or a celebrity's feed) by id (BatchGetItem); absent ones are left out. */
export interface OwnItemsReader {
  getItems(keys: readonly { source: ReleaseSource; id: string }[]): Promise<Map<string, StoredNotification>>;
}

/** Every feed shard holds the same item, and shard 0 always exists. */
const sourceOf = (release: ItemRelease): ReleaseSource =>
  release.feedOf !== undefined ? { kind: 'feed', tenantId: release.tenantId, actorId: release.feedOf, shard: 0 } : { kind: 'own', tenantId: release.tenantId, userId: release.userId };

/**
 * The delivery jobs of fired releases, one per release whose item still exists (unexpired), for its
 * one recipient; `gone` lists the releases whose item does not.
 */
export async function jobsOfItemReleases(items: OwnItemsReader, releases: readonly ItemRelease[], nowMs: number): Promise<{ jobs: (DeliveryJob | undefined)[]; gone: number }> {
  if (releases.length === 0) return { jobs: [], gone: 0 };
  const found = await items.getItems(releases.map((release) => ({ source: sourceOf(release), id: release.notificationId })));
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

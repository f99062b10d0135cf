/** Typed fixture factories shared by unit, integration and end-to-end tests. */
import { notificationId } from '../../src/core/model/ids.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { InboxItemToWrite, InboxSource } from '../../src/core/ports/inbox.js';
import { EMPTY_READ_STATE, type ReadState } from '../../src/core/model/read-state.js';
import type { UserRef } from '../../src/core/model/user.js';

/** A fixed instant all tests count from: 2026-01-01T00:00:00.000Z. */
export const T0 = Date.UTC(2026, 0, 1);
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const DAY = 86_400 * SECOND;

export const alice: UserRef = { tenantId: 'acme', userId: 'alice' };
export const bob: UserRef = { tenantId: 'acme', userId: 'bob' };
/** Same user id as alice, other tenant. */
export const aliceOfGlobex: UserRef = { tenantId: 'globex', userId: 'alice' };

export function ownSource(user: UserRef): InboxSource {
  return { kind: 'own', tenantId: user.tenantId, userId: user.userId };
}

export function feedSource(tenantId: string, actorId: string, shard: number): InboxSource {
  return { kind: 'feed', tenantId, actorId, shard };
}

export interface NotificationOverrides extends Partial<Omit<StoredNotification, 'id' | 'createdAt'>> {
  /** Producer event id; defaults to a value derived from the time. */
  eventId?: string;
  /** Recipient used for the id; defaults to `alice`. */
  recipient?: string;
  tenantId?: string;
}

/** A stored notification whose id is the deterministic ULID of (tenant, event, recipient) at `timeMs`. */
export function aNotification(timeMs: number, overrides: NotificationOverrides = {}): StoredNotification {
  const { eventId = `evt-${timeMs}`, recipient = 'alice', tenantId = 'acme', ...fields } = overrides;
  return {
    id: notificationId({ tenantId, type: fields.type ?? 'mention.created', eventId, recipient, timeMs }),
    type: 'mention.created',
    createdAt: new Date(timeMs).toISOString(),
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: `at ${new Date(timeMs).toISOString()}`,
    data: { postId: 'p1', excerpt: 'hello' },
    // 90 days after the event, as the pipeline writes it.
    expiresAt: Math.floor(timeMs / 1000) + 90 * 86_400,
    ...fields,
  };
}

/** `count` notifications one second apart starting at `startMs`, oldest first. */
export function notificationsEverySecond(count: number, startMs: number, overrides: NotificationOverrides = {}): StoredNotification[] {
  return Array.from({ length: count }, (_, index) =>
    aNotification(startMs + index * SECOND, { ...overrides, eventId: `${overrides.eventId ?? 'evt'}-${index}` }),
  );
}

export function inboxItemsFor(user: UserRef, items: readonly StoredNotification[]): InboxItemToWrite[] {
  return items.map((item) => ({ source: ownSource(user), item }));
}

/** A celebrity feed item written to every shard and every shard of the tenant's celebrity posts log, as the fan-out writes it. */
export function feedItemsOnAllShards(tenantId: string, actorId: string, shardCount: number, items: readonly StoredNotification[]): InboxItemToWrite[] {
  return items.flatMap((item) =>
    Array.from({ length: shardCount }, (_, shard): InboxItemToWrite[] => [
      { source: feedSource(tenantId, actorId, shard), item },
      { source: { kind: 'celebrityPosts', tenantId, shard, authorId: actorId }, item },
    ]).flat(),
  );
}

export function aReadState(overrides: Partial<ReadState> = {}): ReadState {
  return { ...EMPTY_READ_STATE, ...overrides };
}

/** Ids of a list, for compact assertions. */
export const idsOf = (items: readonly { id: string }[]): string[] => items.map((item) => item.id);

/** Newest first, as the inbox orders them. */
export const newestFirst = <T extends { id: string }>(items: readonly T[]): T[] => [...items].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));

/** The stored notification; the shape clients receive (`Notification`) is the wire contract's. */
import type { Actor } from '../../contract/wire.js';

export type { Actor, Notification } from '../../contract/wire.js';

/** What an inbox or feed item holds. Written once, never updated. */
export interface StoredNotification {
  id: string;
  type: string;
  createdAt: string;
  actor: Actor;
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** Epoch seconds; DynamoDB TTL deletes lazily, so reads filter on it too. */
  expiresAt: number;
  /** A snooze comeback (written in the user's own partition by the snooze). */
  comeback?: Comeback;
}

/**
 * What a snooze comeback brings back: it shows only while the snoozed notification's exception
 * names it (a comeback written by a snooze that then failed never shows), and it goes with a
 * retraction of the event of the first notification of the chain (`rootId`).
 */
export interface Comeback {
  /** The notification that was snoozed (its exception names this comeback). */
  from: string;
  /** The first notification of a chain of snoozes: its event's retraction hides every comeback of it. */
  rootId: string;
  /** The celebrity whose feed holds the root; absent when it is the user's own item. */
  rootActor?: string;
}

export const INBOX_TTL_DAYS_DEFAULT = 90;

export function isExpired(item: Pick<StoredNotification, 'expiresAt'>, nowMs: number): boolean {
  return item.expiresAt * 1000 <= nowMs;
}

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
}

export const INBOX_TTL_DAYS_DEFAULT = 90;

export function isExpired(item: Pick<StoredNotification, 'expiresAt'>, nowMs: number): boolean {
  return item.expiresAt * 1000 <= nowMs;
}

/** The stored notification and the shape clients receive (CONTRACT.md `Notification`). */

export interface Actor {
  id: string;
  name?: string;
  [key: string]: unknown;
}

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

export interface Notification {
  id: string;
  type: string;
  createdAt: string;
  read: boolean;
  seen: boolean;
  actor: Actor;
  title: string;
  body: string;
  data: Record<string, unknown>;
}

export const INBOX_TTL_DAYS_DEFAULT = 90;

export function isExpired(item: Pick<StoredNotification, 'expiresAt'>, nowMs: number): boolean {
  return item.expiresAt * 1000 <= nowMs;
}

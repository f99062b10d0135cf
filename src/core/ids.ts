/**
 * Notification ids: ULIDs whose time part is the event time and whose random part is derived from
 * (tenant, producer event id, recipient). Re-processing an event yields the same id, so a retry
 * overwrites instead of duplicating, and ids sort by time, so the id is also the pagination cursor.
 */
import { createHash } from 'node:crypto';
import { decodeTime, encodeTime } from 'ulid';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_LENGTH = 16;
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export function isNotificationId(value: string): boolean {
  return ULID_PATTERN.test(value);
}

export interface NotificationIdInput {
  tenantId: string;
  eventId: string;
  /** The user the item is for, or a feed marker for a celebrity feed item. */
  recipient: string;
  /** Event time in epoch milliseconds. */
  timeMs: number;
}

/** Deterministic ULID for (tenant, event, recipient) at the event time. */
export function notificationId(input: NotificationIdInput): string {
  const digest = createHash('sha256')
    .update(`${input.tenantId}\u0000${input.eventId}\u0000${input.recipient}`)
    .digest();
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i += 1) random += CROCKFORD[digest[i]! & 31];
  return encodeTime(input.timeMs, 10) + random;
}

/** The greatest id that can carry time `timeMs`: every id at or before that instant is <= it. */
export function idUpperBoundAt(timeMs: number): string {
  return encodeTime(timeMs, 10) + 'Z'.repeat(RANDOM_LENGTH);
}

/** The smallest id that can carry time `timeMs`: every id at or after that instant is >= it. */
export function idLowerBoundAt(timeMs: number): string {
  return encodeTime(timeMs, 10) + '0'.repeat(RANDOM_LENGTH);
}

export function timeOfId(id: string): number {
  return decodeTime(id);
}

/**
 * Notification ids: ULIDs whose time part is the event's ARRIVAL (the moment the system first
 * accepted it, kept once per event by the arrival ledger) and whose random part is derived from
 * (tenant, notification type, producer event id, recipient). Re-processing an event yields the same
 * id, so a retry overwrites instead of duplicating; ids sort by arrival, so the id is the pagination
 * cursor, the catch-up point (`since`) and the read mark's unit.
 */
import { createHash } from 'node:crypto';
import { decodeTime, encodeTime } from 'ulid';
import { TYPE_NAME_PATTERN, ULID_PATTERN } from '../../contract/identifiers.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_LENGTH = 16;
/** Characters of an id that carry its time (milliseconds). */
export const ID_TIME_LENGTH = 10;

export { TYPE_NAME_PATTERN, ULID_PATTERN };

export function isNotificationId(value: string): boolean {
  return ULID_PATTERN.test(value);
}

export interface NotificationIdInput {
  tenantId: string;
  /** The notification type: two types sharing a producer event id never share an id. */
  type: string;
  eventId: string;
  /** The user the item is for, or a feed marker for a celebrity feed item. */
  recipient: string;
  /** The event's arrival stamp in epoch milliseconds. */
  timeMs: number;
}

/** Deterministic ULID for (tenant, type, event, recipient) at the event's arrival. */
export function notificationId(input: NotificationIdInput): string {
  const digest = createHash('sha256')
    .update(`${input.tenantId}\u0000${input.type}\u0000${input.eventId}\u0000${input.recipient}`)
    .digest();
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i += 1) random += CROCKFORD[digest[i]! & 31];
  return encodeTime(input.timeMs, ID_TIME_LENGTH) + random;
}

/** The greatest id that can carry time `timeMs`: every id at or before that instant is <= it. */
export function idUpperBoundAt(timeMs: number): string {
  return encodeTime(timeMs, ID_TIME_LENGTH) + 'Z'.repeat(RANDOM_LENGTH);
}

/** The smallest id that can carry time `timeMs`: every id at or after that instant is >= it. */
export function idLowerBoundAt(timeMs: number): string {
  return encodeTime(timeMs, ID_TIME_LENGTH) + '0'.repeat(RANDOM_LENGTH);
}

export function timeOfId(id: string): number {
  return decodeTime(id);
}

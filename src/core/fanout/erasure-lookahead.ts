/**
 * The fan-out's erasure check, started early: the handler starts the tombstone read of an event
 * while Powertools writes its idempotency record, and the service takes that read instead of making
 * its own, so the urgent path has one round trip less. The read is the same BatchGetItem, a few
 * milliseconds earlier (an erasure racing an event by that much is a race either way); an event
 * that was a duplicate, or failed before the service ran, drops its read (`forget`).
 */
import type { ErasedUsers } from '../ports/erased-users.js';
import type { NotificationType } from '../ports/notification-type.js';
import type { NotificationEvent } from './events.js';

/** Everyone an event names whose erasure stops it (or leaves them out): actor, recipients, audience, followee. */
export function usersNamedBy(event: NotificationEvent, type: NotificationType): string[] {
  const followeeId = type.graphEffect ? type.followeeOf(event.data) : undefined;
  return [event.actor.id, ...event.recipients, ...(event.followersOf !== undefined ? [event.followersOf] : []), ...(followeeId !== undefined ? [followeeId] : [])];
}

const keyOf = (tenantId: string, userIds: readonly string[]) => JSON.stringify([tenantId, ...userIds]);

export class ErasureLookahead implements ErasedUsers {
  private readonly started = new Map<string, Promise<Set<string>>>();

  constructor(private readonly tombstones: ErasedUsers) {}

  /** Starts the read of these users' tombstones (taken by the next `erasedAmong` of the same users). */
  start(tenantId: string, userIds: readonly string[]): void {
    const key = keyOf(tenantId, userIds);
    if (this.started.has(key)) return;
    const read = this.tombstones.erasedAmong(tenantId, userIds);
    // Handled by whoever takes it; a read nobody takes must not be an unhandled rejection.
    read.catch(() => undefined);
    this.started.set(key, read);
  }

  /** Drops a started read nobody took (a duplicate event, or one that failed before the service ran). */
  forget(tenantId: string, userIds: readonly string[]): void {
    this.started.delete(keyOf(tenantId, userIds));
  }

  async erasedAmong(tenantId: string, userIds: readonly string[]): Promise<Set<string>> {
    const key = keyOf(tenantId, userIds);
    const read = this.started.get(key);
    if (!read) return this.tombstones.erasedAmong(tenantId, userIds);
    this.started.delete(key);
    return read;
  }
}

/**
 * Scheduled sends (`sendAt`): an event whose `sendAt` is more than `minDelayMs` ahead is deferred
 * whole. Its intake message is scheduled, unchanged, to re-enter the type's intake queue at
 * `sendAt` under a name derived from (tenant, type, event id), so a retry or a second publish of the
 * same event finds the existing schedule. When it comes back, `sendAt` is no longer ahead and the
 * event is sent like any other (its notifications carry `sendAt` as their time).
 */
import type { NotificationEvent } from './events.js';
import type { Clock } from '../ports/clock.js';
import { scheduleName } from '../jobs/schedules.js';
import type { ScheduleOutcome, Scheduler } from '../ports/scheduler.js';
import type { ErasedUsers } from '../ports/erased-users.js';

/** EventBridge Scheduler fires within about a minute; a `sendAt` closer than that is sent now. */
export const SEND_AT_MIN_DELAY_MS_DEFAULT = 60_000;

export interface SendAtDeps {
  scheduler: Scheduler;
  /** Erasure tombstones: an event whose actor, audience, followee or sole recipient was erased is not scheduled (the fan-out drops it now). */
  erased?: ErasedUsers;
  /** ARN of the intake queue of the type this fan-out function serves. */
  intakeQueueArn: string;
  clock: Clock;
  minDelayMs: number;
}

export type SendAtDecision = { deferred: false } | { deferred: true; atMs: number; scheduleName: string; outcome: ScheduleOutcome };

export class SendAtDeferral {
  constructor(private readonly deps: SendAtDeps) {}

  /**
   * Schedules the intake message `body` for `sendAt` when that is more than `minDelayMs` ahead. The
   * schedule is referenced for the users whose erasure deletes it (`sendAtPrincipals`); one naming an
   * erased principal is not scheduled at all (not deferred: the fan-out drops it).
   */
  async deferIfLater(event: NotificationEvent, body: string, followeeId?: string): Promise<SendAtDecision> {
    if (event.sendAt === undefined) return { deferred: false };
    const atMs = Date.parse(event.sendAt);
    if (!(atMs - this.deps.clock.nowMs() > this.deps.minDelayMs)) return { deferred: false };
    const principals = sendAtPrincipals(event, followeeId);
    if (this.deps.erased && (await this.deps.erased.erasedAmong(event.tenantId, principals)).size > 0) return { deferred: false };
    const name = scheduleName('sendat', event.tenantId, `${event.type}\u0000${event.eventId}`);
    const outcome = await this.deps.scheduler.scheduleOnce({ name, atMs, targetArn: this.deps.intakeQueueArn, payload: body }, { tenantId: event.tenantId, userIds: principals });
    return { deferred: true, atMs, scheduleName: name, outcome };
  }
}

/**
 * The users whose erasure deletes a scheduled event: its actor, follower audience, followee and a
 * sole direct recipient. A recipient among others is not one: the event stays for the others, and
 * the fan-out leaves the erased one out when it fires.
 */
export function sendAtPrincipals(event: NotificationEvent, followeeId?: string): string[] {
  return [...new Set([event.actor.id, ...(event.followersOf !== undefined ? [event.followersOf] : []), ...(followeeId !== undefined ? [followeeId] : []), ...(event.recipients.length === 1 ? event.recipients : [])])];
}

/**
 * The event as sent: a scheduled event's notifications are dated `sendAt` (when the user gets them),
 * so they sort, page and catch up (`since`) by delivery time. Deterministic: the same on every retry.
 */
export function eventAtSendTime(event: NotificationEvent): NotificationEvent {
  if (event.sendAt === undefined) return event;
  const sendAtMs = Date.parse(event.sendAt);
  return sendAtMs > event.timeMs ? { ...event, timeMs: sendAtMs } : event;
}

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

/** EventBridge Scheduler fires within about a minute; a `sendAt` closer than that is sent now. */
export const SEND_AT_MIN_DELAY_MS_DEFAULT = 60_000;

export interface SendAtDeps {
  scheduler: Scheduler;
  /** ARN of the intake queue of the type this fan-out function serves. */
  intakeQueueArn: string;
  clock: Clock;
  minDelayMs: number;
}

export type SendAtDecision = { deferred: false } | { deferred: true; atMs: number; scheduleName: string; outcome: ScheduleOutcome };

export class SendAtDeferral {
  constructor(private readonly deps: SendAtDeps) {}

  /** Schedules the intake message `body` for `sendAt` when that is more than `minDelayMs` ahead. */
  async deferIfLater(event: NotificationEvent, body: string): Promise<SendAtDecision> {
    if (event.sendAt === undefined) return { deferred: false };
    const atMs = Date.parse(event.sendAt);
    if (!(atMs - this.deps.clock.nowMs() > this.deps.minDelayMs)) return { deferred: false };
    const name = scheduleName('sendat', event.tenantId, `${event.type}\u0000${event.eventId}`);
    const outcome = await this.deps.scheduler.scheduleOnce({ name, atMs, targetArn: this.deps.intakeQueueArn, payload: body });
    return { deferred: true, atMs, scheduleName: name, outcome };
  }
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

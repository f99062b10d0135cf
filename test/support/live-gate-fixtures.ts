/** Fakes and fixtures for the live-delivery gate: a recording scheduler, live notifications. */
import { notificationId } from '../../src/core/model/ids.js';
import type { GateCandidate } from '../../src/core/live/live-gate.js';
import type { Notification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import type { OneTimeSchedule, ScheduleOutcome, Scheduler } from '../../src/core/ports/scheduler.js';

/** Records every schedule; a name already recorded answers `already_scheduled`, like the real ones. */
export class RecordingScheduler implements Scheduler {
  readonly schedules = new Map<string, OneTimeSchedule>();
  calls = 0;
  async scheduleOnce(schedule: OneTimeSchedule): Promise<ScheduleOutcome> {
    this.calls += 1;
    if (this.schedules.has(schedule.name)) return 'already_scheduled';
    this.schedules.set(schedule.name, schedule);
    return 'created';
  }
  all(): OneTimeSchedule[] {
    return [...this.schedules.values()];
  }
}

/** A live (unread, unseen) notification for `user` whose id carries `timeMs`. */
export function aLiveNotification(user: UserRef, timeMs: number, overrides: Partial<Notification> & { eventId?: string } = {}): Notification {
  const { eventId = `evt-${timeMs}`, ...fields } = overrides;
  return {
    id: notificationId({ tenantId: user.tenantId, type: fields.type ?? 'comment.created', eventId, recipient: user.userId, timeMs }),
    type: 'comment.created',
    createdAt: new Date(timeMs).toISOString(),
    read: false,
    seen: false,
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob commented on your post',
    body: 'nice',
    data: { postId: 'p1', commentId: `c-${eventId}`, excerpt: 'nice' },
    ...fields,
  };
}

export function aCandidate(user: UserRef, timeMs: number, overrides: Partial<Notification> & { eventId?: string; priority?: GateCandidate['priority'] } = {}): GateCandidate {
  const { priority = 'info', ...notification } = overrides;
  return { tenantId: user.tenantId, userId: user.userId, notification: aLiveNotification(user, timeMs, notification), priority };
}

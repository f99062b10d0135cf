/**
 * The Scheduler port: one-time schedules that deliver a payload to a queue at an instant.
 * EventBridge Scheduler implements it on AWS (`src/adapters/scheduler/`), a persisted timer
 * locally (`src/local/local-scheduler.ts`).
 */
export interface OneTimeSchedule {
  /** Deterministic (see `scheduleName`): a retry finds the existing schedule instead of adding one. */
  name: string;
  /** When to fire; EventBridge Scheduler fires at second precision, never before. */
  atMs: number;
  /** The target queue's ARN. */
  targetArn: string;
  /** The message body the target queue receives. */
  payload: string;
}

/** `already_scheduled`: a schedule with this name exists (a retry or a duplicate event): success. */
export type ScheduleOutcome = 'created' | 'already_scheduled';

/**
 * The users a schedule's payload names (the recipient of a held push or a comeback, the roles of a
 * `sendAt` event): a reference record per user is written before the schedule, so their erasure
 * finds and deletes it without listing every pending schedule.
 */
export interface ScheduleNames {
  tenantId: string;
  userIds: readonly string[];
}

export interface Scheduler {
  scheduleOnce(schedule: OneTimeSchedule, names?: ScheduleNames): Promise<ScheduleOutcome>;
}

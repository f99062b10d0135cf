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

export interface Scheduler {
  scheduleOnce(schedule: OneTimeSchedule): Promise<ScheduleOutcome>;
}

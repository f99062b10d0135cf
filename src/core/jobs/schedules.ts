/**
 * The Scheduler port: one-time schedules that deliver a payload to a queue at an instant.
 * EventBridge Scheduler implements it on AWS (`src/adapters/scheduler/`), a persisted timer
 * locally (`src/local/local-scheduler.ts`). Used for `sendAt` (the whole event re-enters its
 * intake queue) and for held live pushes (quiet hours, rate-limit digests, fail-closed retries).
 */
import { createHash } from 'node:crypto';

export type ScheduleKind = 'sendat' | 'hold' | 'snooze';

/** EventBridge Scheduler: 1-64 characters of `[0-9a-zA-Z-_.]`. */
export const SCHEDULE_NAME_PATTERN = /^[0-9a-zA-Z\-_.]{1,64}$/;

/**
 * `<kind>-<tenant, sanitised, <=16>-<40 hex of sha256(kind, tenant, key)>`: at most 64 characters of
 * `[0-9a-zA-Z-_.]`, the same for the same (kind, tenant, key), readable enough to find in a console.
 */
export function scheduleName(kind: ScheduleKind, tenantId: string, key: string): string {
  const digest = createHash('sha256').update(`${kind}\u0000${tenantId}\u0000${key}`).digest('hex').slice(0, 40);
  const tenant = tenantId.replace(/[^0-9a-zA-Z\-_.]/g, '_').slice(0, 16);
  return `${kind}-${tenant}-${digest}`;
}

/** EventBridge Scheduler's `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded UP to the second so it never fires early. */
export function atExpression(atMs: number): string {
  const wholeSecond = Math.ceil(atMs / 1000) * 1000;
  return `at(${new Date(wholeSecond).toISOString().slice(0, 19)})`;
}

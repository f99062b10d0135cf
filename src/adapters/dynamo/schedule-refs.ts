/**
 * The scheduler that leaves a trace for the erasure: before a one-time schedule is created, one
 * record per user its payload names (`T#t#U#u#SCHED#<schedule name>`, Idempotency table, in the
 * owner index, TTL two days after the schedule fires), so erasing that user deletes the schedule by
 * name without listing the schedule group. Written first: a crash leaves a record without a
 * schedule (harmless), never a schedule without its record.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys, OWNER_INDEX, ownerIndexValue } from '../../core/model/keys.js';
import type { OneTimeSchedule, ScheduleNames, ScheduleOutcome, Scheduler } from '../../core/ports/scheduler.js';
import { batchWriteAll } from './batch.js';

/** A schedule reference outlives its schedule by this much (a retried or redriven delivery). */
export const SCHEDULE_REF_RETENTION_SECONDS = 2 * 86_400;

export class ReferencingScheduler implements Scheduler {
  constructor(
    private readonly inner: Scheduler,
    private readonly client: DynamoDBDocumentClient,
    private readonly idempotencyTable: string,
  ) {}

  async scheduleOnce(schedule: OneTimeSchedule, names?: ScheduleNames): Promise<ScheduleOutcome> {
    const userIds = [...new Set(names?.userIds ?? [])];
    if (names && userIds.length > 0) {
      const expiration = Math.ceil(schedule.atMs / 1000) + SCHEDULE_REF_RETENTION_SECONDS;
      const puts = userIds.map((userId) => ({
        PutRequest: { Item: { id: keys.scheduleRefId(names.tenantId, userId, schedule.name), [OWNER_INDEX.attribute]: ownerIndexValue(names.tenantId, userId), expiration } },
      }));
      await batchWriteAll(this.client, this.idempotencyTable, puts, {});
    }
    return this.inner.scheduleOnce(schedule, names);
  }
}

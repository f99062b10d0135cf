/** The Scheduler port on EventBridge Scheduler: one-time `at(...)` schedules that target an SQS queue. */
import { ConflictException, CreateScheduleCommand, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { atExpression } from '../../core/jobs/schedules.js';
import type { OneTimeSchedule, ScheduleOutcome, Scheduler } from '../../core/ports/scheduler.js';

export interface EventBridgeSchedulerConfig {
  /** The schedule group every schedule is created in. */
  groupName: string;
  /** The role EventBridge Scheduler assumes to send to the target queue (sqs:SendMessage, kms:GenerateDataKey/Decrypt). */
  roleArn: string;
  /** Optional DLQ for payloads the scheduler could not deliver after its retries. */
  deadLetterArn?: string;
}

/** A day of retries, EventBridge Scheduler's maximum event age. */
const MAXIMUM_EVENT_AGE_SECONDS = 86_400;
const MAXIMUM_RETRY_ATTEMPTS = 185;

export class EventBridgeScheduler implements Scheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly config: EventBridgeSchedulerConfig,
  ) {}

  /** CreateSchedule; a ConflictException means the deterministic name exists: already scheduled. */
  async scheduleOnce(schedule: OneTimeSchedule): Promise<ScheduleOutcome> {
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: schedule.name,
          GroupName: this.config.groupName,
          ScheduleExpression: atExpression(schedule.atMs),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          State: 'ENABLED',
          Target: {
            Arn: schedule.targetArn,
            RoleArn: this.config.roleArn,
            Input: schedule.payload,
            RetryPolicy: { MaximumEventAgeInSeconds: MAXIMUM_EVENT_AGE_SECONDS, MaximumRetryAttempts: MAXIMUM_RETRY_ATTEMPTS },
            ...(this.config.deadLetterArn ? { DeadLetterConfig: { Arn: this.config.deadLetterArn } } : {}),
          },
        }),
      );
      return 'created';
    } catch (error) {
      if (error instanceof ConflictException) return 'already_scheduled';
      throw error;
    }
  }
}

import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConflictException, CreateScheduleCommand, SchedulerClient, ValidationException } from '@aws-sdk/client-scheduler';
import { EventBridgeScheduler } from '../../src/adapters/scheduler/eventbridge-scheduler.js';
import { atExpression, SCHEDULE_NAME_PATTERN, scheduleName } from '../../src/core/jobs/schedules.js';
import type { OneTimeSchedule } from '../../src/core/ports/scheduler.js';
import { utc } from '../support/preferences-fixtures.js';

const schedulerMock = mockClient(SchedulerClient);
const config = { groupName: 'notifications', roleArn: 'arn:aws:iam::123456789012:role/scheduler-to-sqs' };
const intakeQueueArn = 'arn:aws:sqs:eu-west-1:123456789012:intake-mention-created';

function aSchedule(overrides: Partial<OneTimeSchedule> = {}): OneTimeSchedule {
  return {
    name: scheduleName('sendat', 'acme', 'evt-42'),
    atMs: utc(2026, 11, 21, 10, 0, 0),
    targetArn: intakeQueueArn,
    payload: JSON.stringify({ 'detail-type': 'mention.created', detail: { id: 'evt-42' } }),
    ...overrides,
  };
}

describe('EventBridgeScheduler.scheduleOnce', () => {
  beforeEach(() => schedulerMock.reset());

  it('sends the exact CreateSchedule input: at(), UTC, no flexible window, delete after completion, queue target with role', async () => {
    // Prepare
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/notifications/x' });
    const scheduler = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), config);
    const schedule = aSchedule();

    // Act
    const outcome = await scheduler.scheduleOnce(schedule);

    // Assess
    expect(outcome).toBe('created');
    const calls = schedulerMock.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      Name: schedule.name,
      GroupName: 'notifications',
      ScheduleExpression: 'at(2026-11-21T10:00:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: intakeQueueArn,
        RoleArn: config.roleArn,
        Input: schedule.payload,
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      },
    });
  });

  it('adds the dead-letter queue when configured', async () => {
    // Prepare
    schedulerMock.on(CreateScheduleCommand).resolves({});
    const scheduler = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), { ...config, deadLetterArn: 'arn:aws:sqs:eu-west-1:123456789012:scheduler-dlq' });

    // Act
    await scheduler.scheduleOnce(aSchedule());

    // Assess
    expect(schedulerMock.commandCalls(CreateScheduleCommand)[0]!.args[0].input.Target?.DeadLetterConfig).toEqual({ Arn: 'arn:aws:sqs:eu-west-1:123456789012:scheduler-dlq' });
  });

  it('treats an existing name (ConflictException) as already scheduled, not as an error', async () => {
    // Prepare
    schedulerMock.on(CreateScheduleCommand).rejects(new ConflictException({ Message: 'Schedule sendat-acme-... already exists.', message: 'Schedule sendat-acme-... already exists.', $metadata: {} }));
    const scheduler = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), config);

    // Act
    const outcome = await scheduler.scheduleOnce(aSchedule());

    // Assess
    expect(outcome).toBe('already_scheduled');
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(1);
  });

  it('lets every other error through (the message is retried by its queue)', async () => {
    // Prepare
    schedulerMock.on(CreateScheduleCommand).rejects(new ValidationException({ Message: 'bad expression', message: 'bad expression', $metadata: {} }));
    const scheduler = new EventBridgeScheduler(new SchedulerClient({ region: 'eu-west-1' }), config);

    // Act / Assess
    await expect(scheduler.scheduleOnce(aSchedule())).rejects.toBeInstanceOf(ValidationException);
  });
});

describe('scheduleName', () => {
  it('is deterministic per (kind, tenant, key) and differs otherwise', () => {
    expect(scheduleName('sendat', 'acme', 'evt-42')).toBe(scheduleName('sendat', 'acme', 'evt-42'));
    expect(scheduleName('sendat', 'acme', 'evt-42')).not.toBe(scheduleName('sendat', 'globex', 'evt-42'));
    expect(scheduleName('sendat', 'acme', 'evt-42')).not.toBe(scheduleName('hold', 'acme', 'evt-42'));
    expect(scheduleName('sendat', 'acme', 'evt-42')).not.toBe(scheduleName('sendat', 'acme', 'evt-43'));
  });

  it('fits EventBridge Scheduler names: <= 64 characters of [0-9a-zA-Z-_.], whatever the tenant and key', () => {
    for (const [tenant, key] of [
      ['acme', 'evt-1'],
      ['a'.repeat(128), 'k'.repeat(256)],
      ['t:e+n=a@nt', 'évènement/💥#1'],
    ] as const) {
      const name = scheduleName('sendat', tenant, key);
      expect(name).toMatch(SCHEDULE_NAME_PATTERN);
      expect(name.length).toBeLessThanOrEqual(64);
    }
  });
});

describe('atExpression', () => {
  it('formats UTC seconds and rounds up so a schedule never fires early', () => {
    expect(atExpression(utc(2026, 3, 8, 7, 0, 0))).toBe('at(2026-03-08T07:00:00)');
    expect(atExpression(utc(2026, 3, 8, 7, 0, 0) + 1)).toBe('at(2026-03-08T07:00:01)');
    expect(atExpression(utc(2026, 12, 31, 23, 59, 59) + 500)).toBe('at(2027-01-01T00:00:00)');
  });
});

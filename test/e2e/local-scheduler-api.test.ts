/**
 * The local EventBridge Scheduler API, through the real `@aws-sdk/client-scheduler`: the adapter the
 * functions use on AWS creates, finds and deletes one-time schedules in the runtime's group, a
 * second create of a name is a ConflictException ("already scheduled"), another group does not
 * exist, and a caller without the local credentials is refused. A fired schedule is delivered to
 * its target queue.
 */
import { join } from 'node:path';
import { DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand, ResourceNotFoundException, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeScheduler } from '../../src/adapters/scheduler/eventbridge-scheduler.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { LOCAL_SCHEDULE_GROUP, LOCAL_SCHEDULER_PATH, LOCAL_SCHEDULER_ROLES } from '../../src/local/scheduler/scheduler-api.js';
import { loadLocalSqsCredentials } from '../../src/local/sqs/index.js';
import { pollUntil } from '../support/poll-until.js';
import { startE2eRuntime, stopE2eRuntime, type E2eRuntime } from '../support/schedules-e2e.js';

let started: E2eRuntime;
let client: SchedulerClient;

beforeAll(async () => {
  started = await startE2eRuntime('scheduler-api-e2e-');
  client = new SchedulerClient({ endpoint: `${started.runtime.endpoints.http}${LOCAL_SCHEDULER_PATH}`, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(started.dataDir, 'queues')), maxAttempts: 1 });
});

afterAll(async () => {
  client?.destroy();
  await stopE2eRuntime(started);
});

describe('the local Scheduler API', () => {
  it('creates, finds, lists and deletes a one-time schedule in its group; the same name again is already scheduled', async () => {
    // Prepare
    const scheduler = new EventBridgeScheduler(client, { groupName: LOCAL_SCHEDULE_GROUP, roleArn: LOCAL_SCHEDULER_ROLES.snooze });
    const schedule = { name: 'snooze-acme-api-test', atMs: Date.now() + 3_600_000, targetArn: started.runtime.queues.urgent.arn, payload: '{"a":1}' };

    // Act
    const outcomes = [await scheduler.scheduleOnce(schedule), await scheduler.scheduleOnce(schedule)];
    const found = await client.send(new GetScheduleCommand({ Name: schedule.name, GroupName: LOCAL_SCHEDULE_GROUP }));
    const listed = await client.send(new ListSchedulesCommand({ GroupName: LOCAL_SCHEDULE_GROUP }));
    await client.send(new DeleteScheduleCommand({ Name: schedule.name, GroupName: LOCAL_SCHEDULE_GROUP }));
    const deletedAgain = await client.send(new DeleteScheduleCommand({ Name: schedule.name, GroupName: LOCAL_SCHEDULE_GROUP })).catch((error: unknown) => error);

    // Assess
    expect(outcomes).toEqual(['created', 'already_scheduled']);
    expect(found.Target).toMatchObject({ Arn: schedule.targetArn, RoleArn: LOCAL_SCHEDULER_ROLES.snooze, Input: schedule.payload });
    expect(found.ScheduleExpression).toBe(`at(${new Date(Math.ceil(schedule.atMs / 1000) * 1000).toISOString().slice(0, 19)})`);
    expect(listed.Schedules?.map((entry) => entry.Name)).toContain(schedule.name);
    expect(deletedAgain).toBeInstanceOf(ResourceNotFoundException);
    expect(started.runtime.scheduler.list().some((entry) => entry.name === schedule.name)).toBe(false);
  });

  it('refuses another group and a caller without the local credentials', async () => {
    // Prepare
    const stranger = new SchedulerClient({ endpoint: `${started.runtime.endpoints.http}${LOCAL_SCHEDULER_PATH}`, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
    const schedule = { name: 'sendat-acme-refused', atMs: Date.now() + 60_000, targetArn: started.runtime.queues.urgent.arn, payload: '{}' };

    // Act
    const otherGroup = await new EventBridgeScheduler(client, { groupName: 'default', roleArn: LOCAL_SCHEDULER_ROLES.target }).scheduleOnce(schedule).catch((error: unknown) => error);
    const unsigned = await new EventBridgeScheduler(stranger, { groupName: LOCAL_SCHEDULE_GROUP, roleArn: LOCAL_SCHEDULER_ROLES.target }).scheduleOnce(schedule).catch((error: unknown) => error);
    stranger.destroy();

    // Assess
    expect(otherGroup).toBeInstanceOf(ResourceNotFoundException);
    expect((unsigned as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(403);
    expect(started.runtime.scheduler.list().some((entry) => entry.name === schedule.name)).toBe(false);
  });

  it('delivers a fired schedule to its target queue', async () => {
    // Prepare
    const delivered: string[] = [];
    // The urgent queue: one the target role may send to on AWS (the least-privilege check evaluates this delivery).
    const stop = started.runtime.queues.urgent.onSend((message) => delivered.push(message.body));
    const scheduler = new EventBridgeScheduler(client, { groupName: LOCAL_SCHEDULE_GROUP, roleArn: LOCAL_SCHEDULER_ROLES.target });

    // Act
    await scheduler.scheduleOnce({ name: 'hold-acme-fires', atMs: Date.now(), targetArn: started.runtime.queues.urgent.arn, payload: 'not-a-delivery-job' });
    await pollUntil(() => delivered.length === 1, { attempts: 200, intervalMs: 25 }, 'schedule delivered');
    stop();

    // Assess
    expect(delivered).toEqual(['not-a-delivery-job']);
  });
});

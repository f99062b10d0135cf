/**
 * `npm run dlq -- redrive` against AWS for the two DLQs without a source queue: the rule-target DLQ
 * (replayed with PutEvents) and the Scheduler DLQ (sent to the schedule's target queue), and the
 * native move for a DLQ that has one. A message leaves the DLQ only once replayed.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DeleteMessageCommand, GetQueueAttributesCommand, GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { redriveDeadLetterQueue } from '../../src/ops/dlq.js';
import type { OpsTarget } from '../../src/ops/targets.js';

const ruleDlqUrl = 'https://sqs.eu-west-1.amazonaws.com/111111111111/NotificationsApp-PipelineRuleTargetDlqABC';
const schedulerDlqUrl = 'https://sqs.eu-west-1.amazonaws.com/111111111111/NotificationsApp-SchedulingDlqDEF';
const intakeDlqUrl = 'https://sqs.eu-west-1.amazonaws.com/111111111111/NotificationsApp-IntakeMentionCreatedDlqGHI';

function awsTargetWithMocks() {
  const sqs = new SQSClient({ region: 'eu-west-1' });
  const events = new EventBridgeClient({ region: 'eu-west-1' });
  const target: OpsTarget = { kind: 'aws', sqs, events, documentClient: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), idempotencyTable: 'Idem', eventBusName: 'notifications', destroy: () => undefined };
  return { target, sqsMock: mockClient(sqs), eventsMock: mockClient(events) };
}

const mocks: { restore(): void }[] = [];
afterEach(() => mocks.splice(0).forEach((mock) => mock.restore()));

describe('dlq redrive on AWS', () => {
  it('replays a rule-target DLQ event with PutEvents on the bus, then deletes it', async () => {
    // Prepare
    const { target, sqsMock, eventsMock } = awsTargetWithMocks();
    mocks.push(sqsMock, eventsMock);
    const event = { version: '0', id: 'eb-1', 'detail-type': 'mention.created', source: 'app.producer', time: '2026-01-01T00:00:00Z', resources: [], detail: { id: 'e-1', tenantId: 'acme' } };
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [{ MessageId: 'm-1', ReceiptHandle: 'r-1', Body: JSON.stringify(event), MessageAttributes: { RULE_ARN: { DataType: 'String', StringValue: 'arn:aws:events:…:rule/x' } } }] })
      .resolves({ Messages: [] });
    eventsMock.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'new' }] });

    // Act
    const result = await redriveDeadLetterQueue(target, ruleDlqUrl);

    // Assess
    expect(result).toMatchObject({ kind: 'rule-target', replayed: 1, failed: 0 });
    const [put] = eventsMock.commandCalls(PutEventsCommand);
    expect(put!.args[0].input.Entries).toEqual([{ EventBusName: 'notifications', Source: 'app.producer', DetailType: 'mention.created', Detail: JSON.stringify(event.detail), Time: new Date(event.time), Resources: [] }]);
    expect(sqsMock.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input)).toEqual([{ QueueUrl: ruleDlqUrl, ReceiptHandle: 'r-1' }]);
  });

  it('sends a Scheduler DLQ message to the schedule target queue; a refused replay stays in the DLQ', async () => {
    // Prepare
    const { target, sqsMock, eventsMock } = awsTargetWithMocks();
    mocks.push(sqsMock, eventsMock);
    const targetArn = 'arn:aws:sqs:eu-west-1:111111111111:NotificationsApp-UrgentDeliveryQueue';
    sqsMock
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          { MessageId: 'm-1', ReceiptHandle: 'r-1', Body: '{"v":1,"kind":"live-release"}', MessageAttributes: { SCHEDULE_ARN: { DataType: 'String', StringValue: 'arn:…' }, TARGET_ARN: { DataType: 'String', StringValue: targetArn } } },
          { MessageId: 'm-2', ReceiptHandle: 'r-2', Body: '{}', MessageAttributes: { SCHEDULE_ARN: { DataType: 'String', StringValue: 'arn:…' } } },
        ],
      })
      .resolves({ Messages: [{ MessageId: 'm-2', ReceiptHandle: 'r-2b', Body: '{}', MessageAttributes: { SCHEDULE_ARN: { DataType: 'String', StringValue: 'arn:…' } } }] });
    sqsMock.on(GetQueueUrlCommand).resolves({ QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/111111111111/NotificationsApp-UrgentDeliveryQueue' });

    // Act
    const result = await redriveDeadLetterQueue(target, schedulerDlqUrl);

    // Assess
    expect(result).toMatchObject({ kind: 'scheduler', replayed: 1, failed: 1 });
    expect(sqsMock.commandCalls(GetQueueUrlCommand)[0]!.args[0].input).toEqual({ QueueName: 'NotificationsApp-UrgentDeliveryQueue', QueueOwnerAWSAccountId: '111111111111' });
    expect(sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input.MessageBody)).toEqual(['{"v":1,"kind":"live-release"}']);
    expect(sqsMock.commandCalls(DeleteMessageCommand).map((call) => call.args[0].input.ReceiptHandle)).toEqual(['r-1']);
  });

  it('moves an intake DLQ back to its source queue with a native message move task', async () => {
    // Prepare
    const { target, sqsMock, eventsMock } = awsTargetWithMocks();
    mocks.push(sqsMock, eventsMock);
    sqsMock.on(GetQueueAttributesCommand).resolves({ Attributes: { QueueArn: 'arn:aws:sqs:eu-west-1:111111111111:NotificationsApp-IntakeMentionCreatedDlqGHI' } });
    sqsMock.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-1' });

    // Act
    const result = await redriveDeadLetterQueue(target, intakeDlqUrl);

    // Assess
    expect(result).toMatchObject({ kind: 'queue', moveTaskHandle: 'task-1' });
    expect(sqsMock.commandCalls(StartMessageMoveTaskCommand)[0]!.args[0].input).toEqual({ SourceArn: 'arn:aws:sqs:eu-west-1:111111111111:NotificationsApp-IntakeMentionCreatedDlqGHI' });
    expect(sqsMock.commandCalls(ReceiveMessageCommand)).toHaveLength(0);
  });
});

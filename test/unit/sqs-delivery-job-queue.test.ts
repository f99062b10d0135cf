import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeliveryJobQueue } from '../../src/adapters/sqs/sqs-delivery-job-queue.js';
import { hasValidDeliveryJobSignature } from '../../src/core/jobs/delivery-job-signature.js';
import { SqsSendError } from '../../src/adapters/sqs/sqs-batch-sender.js';
import { planRecipientJobs, planRecipientWrites, renderNotification } from '../../src/core/fanout/fanout-plan.js';
import { mentionCreated } from '../../src/notifications/mention-created.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { aNotificationEvent } from '../support/events.js';

const urls = { urgent: 'http://sqs/000000000000/UrgentDelivery', info: 'http://sqs/000000000000/InfoDelivery' };
const sqs = mockClient(SQSClient);
const jobSecret = 'test-delivery-job-secret';

function jobsFor(recipientCount: number, priority: 'urgent' | 'info'): DeliveryJob[] {
  const event = aNotificationEvent({ priority });
  const rendered = renderNotification(mentionCreated, event);
  const userIds = Array.from({ length: recipientCount }, (_, i) => `u${i}`);
  return planRecipientJobs(event, rendered, planRecipientWrites(event, rendered, userIds, 90, event.timeMs).recipients);
}

beforeEach(() => sqs.reset());

describe('SqsDeliveryJobQueue', () => {
  it('sends 10 jobs per SendMessageBatch on the queue of their priority', async () => {
    // Prepare
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => ({ Successful: input.Entries.map((entry) => ({ Id: entry.Id })), Failed: [] }));
    const queue = new SqsDeliveryJobQueue(new SQSClient({}), urls, jobSecret);
    const jobs = [...jobsFor(1_150, 'info'), ...jobsFor(100, 'urgent')];

    // Act
    await queue.enqueue(jobs);

    // Assess
    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(calls.map((input) => [input.QueueUrl, input.Entries?.length])).toEqual([
      [urls.urgent, 1],
      [urls.info, 10],
      [urls.info, 2],
    ]);
    const body: unknown = JSON.parse(calls[0]!.Entries![0]!.MessageBody!);
    expect(body).toEqual({ ...jobs[12], sig: expect.any(String) });
    expect(hasValidDeliveryJobSignature(body, jobSecret)).toBe(true);
    expect(hasValidDeliveryJobSignature(body, 'another-secret')).toBe(false);
  });

  it('retries entries that failed on the service side, and only those', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: '' }], Failed: [{ Id: '1', SenderFault: false, Code: 'InternalError' }] })
      .resolves({ Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: '' }], Failed: [] });
    const queue = new SqsDeliveryJobQueue(new SQSClient({}), urls, jobSecret, { sleep: async () => undefined });

    await queue.enqueue([...jobsFor(100, 'urgent'), ...jobsFor(100, 'urgent')]);

    const calls = sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.map((entry) => entry.Id));
    expect(calls).toEqual([['0', '1'], ['1']]);
  });

  it('fails with the codes when an entry is refused as a sender fault', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidMessageContents' }] });
    const queue = new SqsDeliveryJobQueue(new SQSClient({}), urls, jobSecret);
    await expect(queue.enqueue(jobsFor(1, 'info'))).rejects.toBeInstanceOf(SqsSendError);
  });
});

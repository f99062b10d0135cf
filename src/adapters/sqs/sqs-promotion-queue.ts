/** PromotionJobQueue on SQS: one message per page of a celebrity promotion pass. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { PromotionJob } from '../../core/jobs/promotion-job.js';
import type { PromotionJobQueue } from '../../core/ports/queues.js';
import { sendAllMessages, type SqsSendOptions } from './sqs-batch-sender.js';

export class SqsPromotionQueue implements PromotionJobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly options: SqsSendOptions = {},
  ) {}

  async enqueue(job: PromotionJob): Promise<void> {
    await sendAllMessages(this.client, this.queueUrl, [JSON.stringify(job)], this.options);
  }
}

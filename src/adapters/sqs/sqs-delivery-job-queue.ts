/** DeliveryJobQueue on SQS: each job goes, signed, to the queue of its priority (urgent | info). */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob, Priority } from '../../core/delivery-job.js';
import { signedDeliveryJobBody } from '../../core/delivery-job-signature.js';
import type { DeliveryJobQueue } from '../../core/ports/queues.js';
import { sendAllMessages, type SqsSendOptions } from './sqs-batch-sender.js';

export class SqsDeliveryJobQueue implements DeliveryJobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrls: Record<Priority, string>,
    /** The HMAC key delivery verifies jobs with (`DELIVERY_JOB_SECRET`). */
    private readonly jobSecret: string,
    private readonly options: SqsSendOptions = {},
  ) {}

  /** SendMessageBatch, 10 jobs per call, per priority queue. */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    for (const priority of ['urgent', 'info'] as const) {
      const bodies = jobs.filter((job) => job.priority === priority).map((job) => signedDeliveryJobBody(job, this.jobSecret));
      if (bodies.length > 0) await sendAllMessages(this.client, this.queueUrls[priority], bodies, this.options);
    }
  }
}

/** DeliveryJobQueue on SQS: each job goes, signed, to the queue of its priority (urgent | info). */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob, Priority } from '../../core/jobs/delivery-job.js';
import { signedDeliveryJobBody } from '../../core/jobs/delivery-job-signature.js';
import type { DeliveryJobQueue } from '../../core/ports/queues.js';
import { sendAllMessages, type SqsSendOptions } from './sqs-batch-sender.js';

export class SqsDeliveryJobQueue implements DeliveryJobQueue {
  constructor(
    private readonly client: SQSClient,
    /** A retraction fan-out has only the urgent queue: a job for a queue without a URL throws. */
    private readonly queueUrls: Partial<Record<Priority, string>>,
    /** The HMAC key delivery verifies jobs with (`DELIVERY_JOB_SECRET`). */
    private readonly jobSecret: string,
    private readonly options: SqsSendOptions = {},
  ) {}

  /** SendMessageBatch, 10 jobs per call, per priority queue. */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    for (const priority of ['urgent', 'info'] as const) {
      const bodies = jobs.filter((job) => job.priority === priority).map((job) => signedDeliveryJobBody(job, this.jobSecret));
      if (bodies.length === 0) continue;
      const url = this.queueUrls[priority];
      if (url === undefined) throw new Error(`no ${priority} delivery queue URL: this function never sends ${priority} jobs`);
      await sendAllMessages(this.client, url, bodies, this.options);
    }
  }
}

/** AlertJobQueue on SQS: a post's alert job (and each next page) goes, signed, to the alerts queue. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AlertJob, AlertJobQueue } from '../../core/jobs/alert-job.js';
import { signedDeliveryJobBody } from '../../core/jobs/delivery-job-signature.js';

export class SqsAlertJobQueue implements AlertJobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly jobSecret: string,
  ) {}

  /** SendMessage: one job per post, then one per page. */
  async enqueue(job: AlertJob): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: signedDeliveryJobBody(job, this.jobSecret) }));
  }
}

/**
 * The fan-out's delivery queue with the channels beside it: every job goes to its priority queue
 * (in-app / WebSocket) as before, and a recipients job of a type that offers push or email goes,
 * signed the same way, to that channel's queue too. A channel without a queue URL is off.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { offersChannel, type ChannelOffer } from '../../core/model/channel.js';
import type { DeliveryJob } from '../../core/jobs/delivery-job.js';
import { signedDeliveryJobBody } from '../../core/jobs/delivery-job-signature.js';
import type { DeliveryJobQueue } from '../../core/ports/queues.js';
import { sendAllMessages } from './sqs-batch-sender.js';
import type { Channel } from '../../contract/channels.js';

export class SqsChannelJobQueue implements DeliveryJobQueue {
  constructor(
    private readonly inApp: DeliveryJobQueue,
    private readonly client: SQSClient,
    private readonly channelQueueUrls: Partial<Record<Channel, string>>,
    private readonly jobSecret: string,
    private readonly typeOf: (detailType: string) => ChannelOffer | undefined,
  ) {}

  /** The in-app jobs first (the socket is the fastest path), then SendMessageBatch per channel queue. */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    await this.inApp.enqueue(jobs);
    for (const [channel, url] of Object.entries(this.channelQueueUrls) as [Channel, string | undefined][]) {
      if (!url) continue;
      // Celebrity posts reach online followers only: their push/email fan-out is not built (docs/channels.md).
      const bodies = jobs.filter((job) => job.target.kind === 'recipients' && offersChannel(this.typeOf(job.notification.type), channel)).map((job) => signedDeliveryJobBody(job, this.jobSecret));
      if (bodies.length > 0) await sendAllMessages(this.client, url, bodies);
    }
  }
}

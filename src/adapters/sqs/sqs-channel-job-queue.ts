/**
 * The fan-out's delivery queue with the channels beside it: every job goes to its priority queue
 * (in-app / WebSocket) as before, and a recipients job of a type that offers push or email goes,
 * signed the same way, to that channel's queue too. A channel without a queue URL is off.
 *
 * A type with an `escalation` also puts the job, marked with its due time, on the escalation
 * channel's queue with SQS DelaySeconds (up to 15 minutes; a longer delay re-enters by a one-time
 * schedule when the consumer receives it early). One message per job of up to 100 recipients: no
 * per-recipient timer to create, nothing to delete when the user reads it (docs/channels.md#escalation).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { offersChannel, type ChannelOffer } from '../../core/model/channel.js';
import type { DeliveryJob } from '../../core/jobs/delivery-job.js';
import { signedDeliveryJobBody } from '../../core/jobs/delivery-job-signature.js';
import type { DeliveryJobQueue } from '../../core/ports/queues.js';
import { sendAllMessages, type DelayedBody } from './sqs-batch-sender.js';
import type { Channel } from '../../contract/channels.js';
import { escalationDueAtMs, type EscalationRule } from '../../core/channels/escalation.js';
import { systemClock, type Clock } from '../../core/ports/clock.js';
import type { ChannelJob } from '../../core/channels/channel-delivery.js';

/** SQS DelaySeconds' maximum. */
export const MAX_SQS_DELAY_SECONDS = 900;

export interface ChannelJobQueueOptions {
  clock?: Clock;
  /** Replaces every type's `escalation.afterSeconds` (local runs and tests). */
  escalationDelaySeconds?: number;
}

export class SqsChannelJobQueue implements DeliveryJobQueue {
  constructor(
    private readonly inApp: DeliveryJobQueue,
    private readonly client: SQSClient,
    private readonly channelQueueUrls: Partial<Record<Channel, string>>,
    private readonly jobSecret: string,
    private readonly typeOf: (detailType: string) => (ChannelOffer & { escalation?: EscalationRule }) | undefined,
    private readonly options: ChannelJobQueueOptions = {},
  ) {}

  /** The in-app jobs first (the socket is the fastest path), then SendMessageBatch per channel queue. */
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    await this.inApp.enqueue(jobs);
    for (const [channel, url] of Object.entries(this.channelQueueUrls) as [Channel, string | undefined][]) {
      if (!url) continue;
      // Celebrity posts reach online followers only: their push/email fan-out is not built (docs/channels.md).
      const bodies: (string | DelayedBody)[] = jobs.filter((job) => job.target.kind === 'recipients' && offersChannel(this.typeOf(job.notification.type), channel)).map((job) => signedDeliveryJobBody(job, this.jobSecret));
      bodies.push(...this.escalationsTo(channel, jobs));
      if (bodies.length > 0) await sendAllMessages(this.client, url, bodies);
    }
  }

  /** The escalation jobs bound for `channel`: due at the latest arrival + the delay, invisible until then (or for 15 minutes). */
  private escalationsTo(channel: Channel, jobs: readonly DeliveryJob[]): DelayedBody[] {
    const nowMs = (this.options.clock ?? systemClock).nowMs();
    const delayed: DelayedBody[] = [];
    for (const job of jobs) {
      const rule = this.typeOf(job.notification.type)?.escalation;
      if (job.target.kind !== 'recipients' || !rule || rule.channel !== channel || job.retracted || job.comeback) continue;
      const dueAtMs = escalationDueAtMs(job.target.recipients.map((recipient) => recipient.notificationId), this.options.escalationDelaySeconds ?? rule.afterSeconds);
      const delaySeconds = Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil((dueAtMs - nowMs) / 1000)));
      const escalation: ChannelJob = { ...job, escalation: { dueAtMs, when: rule.when } };
      delayed.push({ body: signedDeliveryJobBody(escalation, this.jobSecret), delaySeconds });
    }
    return delayed;
  }
}

/** Ports of the queues the fan-out writes to (SQS on AWS and locally). */
import type { DeliveryJob } from '../jobs/delivery-job.js';
import type { PromotionJob } from '../jobs/promotion-job.js';

/** The priority delivery queues (SQS SendMessageBatch). */
export interface DeliveryJobQueue {
  enqueue(jobs: readonly DeliveryJob[]): Promise<void>;
}

/** The queue of paged background passes run when an account becomes a celebrity. */
export interface PromotionJobQueue {
  enqueue(job: PromotionJob): Promise<void>;
}

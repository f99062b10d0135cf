/**
 * A simulated fleet of delivery consumers for a celebrity post: an in-memory queue, `concurrency`
 * workers taking batches of `batchSize` jobs, the production LiveDelivery over dynalite, and a
 * counting pusher in place of API Gateway. Failed records go back on the queue (SQS redelivery).
 */
import type { DeliveryJob } from '../src/core/jobs/delivery-job.js';
import type { LiveDelivery } from '../src/core/live/live-delivery.js';
import type { ConnectionPusher, PostOutcome } from '../src/core/ports/live.js';
import type { DeliveryJobQueue } from '../src/core/ports/queues.js';

export class MemoryJobQueue implements DeliveryJobQueue {
  readonly pending: DeliveryJob[] = [];
  enqueued = 0;
  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    this.pending.push(...jobs);
    this.enqueued += jobs.length;
  }
}

export class CountingPusher implements ConnectionPusher {
  readonly pushes = new Map<string, number>();
  /** Connections whose first push fails (as a throttled or broken post would). */
  readonly failOnce = new Set<string>();
  constructor(private readonly latencyMs = 0) {}
  async post(connectionId: string): Promise<PostOutcome> {
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    if (this.failOnce.delete(connectionId)) throw new Error(`push to ${connectionId} failed`);
    this.pushes.set(connectionId, (this.pushes.get(connectionId) ?? 0) + 1);
    return 'sent';
  }
  get total(): number {
    let sum = 0;
    for (const count of this.pushes.values()) sum += count;
    return sum;
  }
}

export interface FleetRun {
  invocations: number;
  /** Connections handled (pushed, skipped as already pushed, gone) by the busiest invocation. */
  maxConnectionsPerInvocation: number;
  /** Records that failed and were redelivered. */
  redeliveries: number;
  wallMs: number;
}

export async function runDeliveryFleet(delivery: Pick<LiveDelivery, 'deliver'>, queue: MemoryJobQueue, options: { concurrency: number; batchSize: number }): Promise<FleetRun> {
  const run: FleetRun = { invocations: 0, maxConnectionsPerInvocation: 0, redeliveries: 0, wallMs: 0 };
  const start = performance.now();
  let busy = 0;
  let recordCounter = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const batch = queue.pending.splice(0, options.batchSize);
      if (batch.length === 0) {
        if (busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      busy += 1;
      try {
        const inputs = batch.map((job) => ({ recordId: `r${(recordCounter += 1)}`, job }));
        const report = await delivery.deliver(inputs, batch[0]!.priority);
        run.invocations += 1;
        run.maxConnectionsPerInvocation = Math.max(run.maxConnectionsPerInvocation, report.messagesSent + report.duplicatesSkipped + report.goneConnections);
        for (const input of inputs) {
          if (!report.failedRecordIds.has(input.recordId)) continue;
          run.redeliveries += 1;
          queue.pending.push(input.job);
        }
      } finally {
        busy -= 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  run.wallMs = performance.now() - start;
  return run;
}

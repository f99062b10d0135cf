/** In-memory ports and fault injection for fan-out tests. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PromotionJob } from '../../src/core/jobs/promotion-job.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import type { DeliveryJobQueue } from '../../src/core/ports/queues.js';
import type { PromotionJobQueue } from '../../src/core/ports/queues.js';

export class RecordingJobQueue implements DeliveryJobQueue {
  readonly jobs: DeliveryJob[] = [];
  /** Calls to fail before accepting jobs again. */
  failNext = 0;

  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error('injected enqueue failure');
    }
    this.jobs.push(...jobs);
  }

  recipientsOf(eventId: string): string[] {
    return this.jobs
      .filter((job) => job.eventId === eventId)
      .flatMap((job) => (job.target.kind === 'recipients' ? job.target.recipients.map((recipient) => recipient.userId) : []));
  }
}

export class RecordingPromotionQueue implements PromotionJobQueue {
  readonly jobs: PromotionJob[] = [];
  async enqueue(job: PromotionJob): Promise<void> {
    this.jobs.push(job);
  }
}

export interface FaultPlan {
  /** Every n-th BatchWriteItem call processes only half its items and returns the rest as UnprocessedItems. */
  unprocessedEvery?: number;
  /** Every n-th HTTP attempt of any command fails with ProvisionedThroughputExceededException (the SDK retries it). */
  throttleEvery?: number;
}

export interface FaultCounters {
  unprocessedReturned: number;
  throttled: number;
}

type MarshalledWrites = Record<string, { PutRequest?: unknown; DeleteRequest?: unknown }[]>;

/** Wraps a client's middleware stack with injected UnprocessedItems and throttling. */
export function injectDynamoFaults(client: DynamoDBDocumentClient, plan: FaultPlan): FaultCounters {
  const counters: FaultCounters = { unprocessedReturned: 0, throttled: 0 };
  let batchCalls = 0;
  let attempts = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'BatchWriteItemCommand' || !plan.unprocessedEvery) return next(args);
      batchCalls += 1;
      if (batchCalls % plan.unprocessedEvery !== 0) return next(args);
      const input = args.input as { RequestItems: MarshalledWrites };
      const held: MarshalledWrites = {};
      const sent: MarshalledWrites = {};
      for (const [table, requests] of Object.entries(input.RequestItems)) {
        const half = Math.ceil(requests.length / 2);
        sent[table] = requests.slice(0, half);
        if (requests.length > half) held[table] = requests.slice(half);
        counters.unprocessedReturned += requests.length - half;
      }
      const result = await next({ ...args, input: { ...input, RequestItems: sent } });
      const output = result.output as { UnprocessedItems?: MarshalledWrites };
      output.UnprocessedItems = { ...(output.UnprocessedItems ?? {}), ...held };
      return result;
    },
    { step: 'initialize', name: 'injectUnprocessedItems', priority: 'low', override: true },
  );
  client.middlewareStack.add(
    (next) => async (args) => {
      attempts += 1;
      if (plan.throttleEvery && attempts % plan.throttleEvery === 0) {
        counters.throttled += 1;
        const error = Object.assign(new Error('injected throttling'), {
          name: 'ProvisionedThroughputExceededException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        });
        throw error;
      }
      return next(args);
    },
    // After the retry middleware, so each injected failure is one retried attempt.
    { step: 'finalizeRequest', priority: 'low', name: 'injectThrottling', override: true },
  );
  return counters;
}

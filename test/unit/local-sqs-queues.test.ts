import { afterEach, describe, expect, it } from 'vitest';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LocalQueue, type ConsumerOptions } from '../../src/local/sqs/index.js';
import { pollUntil } from '../support/poll-until.js';

const VISIBILITY_MS = 60;
const MAX_RECEIVES = 3;
const poll = { attempts: 100, intervalMs: 20 };

interface Harness {
  queue: LocalQueue;
  dlq: LocalQueue;
  /** Bodies handled, in invocation order (a body appears once per receive). */
  handled: string[];
  /** Record count of each invocation. */
  batchSizes: number[];
}

const open: LocalQueue[] = [];

afterEach(() => {
  for (const queue of open.splice(0)) queue.close();
});

function aQueuePair(): { queue: LocalQueue; dlq: LocalQueue } {
  const dlq = new LocalQueue({ name: 'TestQueue-dlq', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: VISIBILITY_MS });
  const queue = new LocalQueue({ name: 'TestQueue', baseUrl: 'http://127.0.0.1:0', region: 'us-east-1', visibilityTimeoutMs: VISIBILITY_MS, maxReceiveCount: MAX_RECEIVES, deadLetterQueue: dlq });
  open.push(queue, dlq);
  return { queue, dlq };
}

/** A consumer whose answer for each batch is computed by `respond` (or thrown by it). */
function consume(respond: (event: SQSEvent, invocation: number) => SQSBatchResponse | undefined, options: ConsumerOptions = {}): Harness {
  const { queue, dlq } = aQueuePair();
  const handled: string[] = [];
  const batchSizes: number[] = [];
  let invocation = 0;
  queue.attachConsumer(async (event) => {
    invocation += 1;
    batchSizes.push(event.Records.length);
    handled.push(...event.Records.map((record) => record.body));
    return respond(event, invocation);
  }, { batchSize: 10, maxConcurrency: 1, ...options });
  return { queue, dlq, handled, batchSizes };
}

const sendAll = (queue: LocalQueue, bodies: readonly string[]) => {
  for (const body of bodies) queue.send(body);
};
const bodies = (count: number) => Array.from({ length: count }, (_, i) => `m${i}`);
const countOf = (handled: readonly string[], body: string) => handled.filter((seen) => seen === body).length;
const settled = (harness: Harness) => harness.queue.peek().length === 0;

describe('LocalQueue consumer (Lambda event source mapping semantics)', () => {
  it('retries only the record reported failed, moves it to the DLQ after maxReceiveCount receives, and runs its neighbours once', async () => {
    // Prepare
    const harness = consume((event) => ({ batchItemFailures: event.Records.filter((record) => record.body === 'm4').map((record) => ({ itemIdentifier: record.messageId })) }));

    // Act
    sendAll(harness.queue, bodies(10));

    // Assess
    await pollUntil(() => harness.dlq.peek().length === 1 && settled(harness), poll, 'poison in the DLQ');
    expect(harness.dlq.peek().map((message) => message.body)).toEqual(['m4']);
    expect(countOf(harness.handled, 'm4')).toBe(MAX_RECEIVES);
    for (const body of bodies(10).filter((body) => body !== 'm4')) expect(countOf(harness.handled, body)).toBe(1);
  });

  it('passes ApproximateReceiveCount 1, 2, 3 to the handler on the retries of a failed record', async () => {
    // Prepare
    const receiveCounts: string[] = [];
    const harness = consume((event) => {
      receiveCounts.push(...event.Records.map((record) => record.attributes.ApproximateReceiveCount));
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
    });

    // Act
    harness.queue.send('poison');

    // Assess
    await pollUntil(() => harness.dlq.peek().length === 1, poll, 'poison in the DLQ');
    expect(receiveCounts).toEqual(['1', '2', '3']);
  });

  it('fails the whole batch when the handler throws', async () => {
    // Prepare
    const harness = consume((_event, invocation) => {
      if (invocation === 1) throw new Error('function error');
      return { batchItemFailures: [] };
    });

    // Act
    sendAll(harness.queue, bodies(3));

    // Assess
    await pollUntil(() => harness.handled.length === 6 && settled(harness), poll, 'batch retried');
    for (const body of bodies(3)) expect(countOf(harness.handled, body)).toBe(2);
    expect(harness.dlq.peek()).toHaveLength(0);
  });

  it.each([
    ['a message id that is not in the batch', 'not-a-message-of-this-batch'],
    ['an empty itemIdentifier', ''],
  ])('fails the whole batch when the response names %s (as AWS does)', async (_what, itemIdentifier) => {
    // Prepare
    const harness = consume((_event, invocation) => (invocation === 1 ? { batchItemFailures: [{ itemIdentifier }] } : { batchItemFailures: [] }));

    // Act
    sendAll(harness.queue, bodies(3));

    // Assess
    await pollUntil(() => harness.handled.length === 6 && settled(harness), poll, 'batch retried');
    for (const body of bodies(3)) expect(countOf(harness.handled, body)).toBe(2);
  });

  it('deletes every record of a batch answered with no response or an empty failure list', async () => {
    // Prepare
    const harness = consume((_event, invocation) => (invocation === 1 ? undefined : { batchItemFailures: [] }));

    // Act
    harness.queue.send('a');
    await pollUntil(() => settled(harness), poll, 'first batch deleted');
    harness.queue.send('b');

    // Assess
    await pollUntil(() => settled(harness) && harness.handled.length === 2, poll, 'second batch deleted');
    expect(harness.handled).toEqual(['a', 'b']);
  });

  it('gathers records for the batching window, up to the batch size', async () => {
    // Prepare
    const harness = consume(() => ({ batchItemFailures: [] }), { batchSize: 4, batchingWindowMs: 150 });

    // Act
    sendAll(harness.queue, bodies(2));
    await new Promise((resolve) => setTimeout(resolve, 30));
    sendAll(harness.queue, bodies(7).slice(2));

    // Assess
    await pollUntil(() => harness.handled.length === 7 && settled(harness), poll, 'all handled');
    expect(harness.batchSizes).toEqual([4, 3]);
  });
});

describe('LocalQueue drain (Ctrl+C / SIGTERM)', () => {
  it('waits for the running batch, starts no new one, and leaves the rest queued', async () => {
    // Prepare
    let release: () => void = () => undefined;
    const { queue } = aQueuePair();
    let finished = false;
    queue.attachConsumer(async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      finished = true;
    }, { batchSize: 2, maxConcurrency: 1 });
    sendAll(queue, bodies(4));
    await pollUntil(() => queue.peek().some((message) => message.inFlight), poll, 'first batch running');

    // Act
    const drained = queue.drain(5_000);
    setTimeout(() => release(), 50);

    // Assess
    expect(await drained).toBe(true);
    expect(finished).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(queue.peek().map((message) => message.body)).toEqual(['m2', 'm3']);
  });

  it('gives up after the cap when a batch is still running', async () => {
    // Prepare
    const { queue } = aQueuePair();
    queue.attachConsumer(() => new Promise(() => undefined), { batchSize: 1, maxConcurrency: 1 });
    queue.send('stuck');
    await pollUntil(() => queue.peek().some((message) => message.inFlight), poll, 'batch running');

    // Act
    const drained = await queue.drain(30);

    // Assess
    expect(drained).toBe(false);
  });
});

describe('Lambda context of a local invocation', () => {
  it('reports the function timeout minus the time since the batch was received', async () => {
    // Prepare
    const { queue } = aQueuePair();
    const remaining: number[] = [];
    queue.attachConsumer(async (_event, context) => {
      remaining.push(context.getRemainingTimeInMillis());
    }, { functionTimeoutMs: 2_000 });

    // Act
    queue.send('a');

    // Assess
    await pollUntil(() => remaining.length === 1, poll, 'invoked');
    expect(remaining[0]).toBeLessThanOrEqual(2_000);
    expect(remaining[0]).toBeGreaterThan(1_500);
  });
});

/**
 * BatchWriteItem for any number of puts: chunks of 25 (the API's limit), a bounded number of calls
 * in flight, and UnprocessedItems retried with exponential backoff and full jitter until done.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const BATCH_WRITE_LIMIT = 25;

export interface BatchWriteOptions {
  /** Calls in flight at once. */
  parallelism?: number;
  /** Attempts per chunk before giving up (UnprocessedItems rounds). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItemsError';
  constructor(readonly remaining: number) {
    super(`${remaining} items still unprocessed after all retries`);
  }
}

type Item = Record<string, unknown>;

const THROTTLING_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

function isThrottling(error: unknown): boolean {
  return error instanceof Error && THROTTLING_ERRORS.has(error.name);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
}

/** Runs `work` over `inputs` with at most `parallelism` in flight. */
export async function mapWithParallelism<T, R>(inputs: readonly T[], parallelism: number, work: (input: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next;
      next += 1;
      results[index] = await work(inputs[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, inputs.length) }, worker));
  return results;
}

export async function batchPutAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Item[],
  options: BatchWriteOptions = {},
): Promise<void> {
  const { parallelism = 8, maxAttempts = 10, baseDelayMs = 25, maxDelayMs = 2_000, sleep = defaultSleep, random = Math.random } = options;
  await mapWithParallelism(chunk(items, BATCH_WRITE_LIMIT), parallelism, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > 1) {
        if (attempt > maxAttempts) throw new UnprocessedItemsError(pending.length);
        const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 2));
        await sleep(Math.floor(random() * ceiling));
      }
      let output;
      try {
        output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      } catch (error) {
        // A call throttled outright (none processed) once the SDK's own retries are spent is the
        // same situation as every item coming back unprocessed: back off and resend.
        if (isThrottling(error)) continue;
        throw error;
      }
      pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  });
}

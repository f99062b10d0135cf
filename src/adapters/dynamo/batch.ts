/**
 * BatchGetItem (100 keys per call) and BatchWriteItem (25 requests per call) for any number of keys
 * or requests, with ONE retry policy: UnprocessedKeys / UnprocessedItems and a call throttled as a
 * whole (once the SDK's own retries are spent) are sent again after an exponential backoff with
 * full jitter, capped in delay and in attempts; then BatchRetriesExhaustedError.
 */
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded, mapBounded } from '../../core/model/bounded-parallel.js';
import type { TableKey } from '../../core/model/keys.js';
import { fullJitterDelayMs, sleepMs } from '../backoff.js';

const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;

export type Item = Record<string, unknown>;
/** A pk/sk key, or the Idempotency table's `id`. */
export type ItemKey = TableKey | { id: string };
export type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: ItemKey } };

export interface BatchRetryPolicy {
  /** Calls per chunk (the first one included) before giving up. */
  maxAttempts?: number;
  /** Ceiling of the first retry's delay; doubles per retry. */
  baseDelayMs?: number;
  /** No retry waits longer than this. */
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface BatchOptions extends BatchRetryPolicy {
  /** Calls in flight at once (one per chunk). */
  parallelism?: number;
  /** BatchGetItem only: strongly consistent reads (twice the RCU). */
  consistentRead?: boolean;
}

const DEFAULT_BATCH_RETRY = { maxAttempts: 10, baseDelayMs: 25, maxDelayMs: 2_000 } as const;
const DEFAULT_PARALLELISM = 8;

type Operation = 'BatchGetItem' | 'BatchWriteItem';

export class BatchRetriesExhaustedError extends Error {
  override readonly name = 'BatchRetriesExhaustedError';
  constructor(
    readonly operation: Operation,
    /** Keys or write requests of the chunk still not processed. */
    readonly remaining: number,
    readonly attempts: number,
  ) {
    super(`${operation}: ${remaining} ${operation === 'BatchGetItem' ? 'keys' : 'items'} still unprocessed after ${attempts} attempts`);
  }
}

/** Errors DynamoDB answers for a call refused as a whole for capacity (none of it processed). */
const THROTTLING_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

function isThrottling(error: unknown): boolean {
  return error instanceof Error && THROTTLING_ERRORS.has(error.name);
}

export function chunk<T>(values: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
}

/**
 * Sends one chunk until nothing is left, yielding each call's answer: `send` returns it with what
 * was not processed, or throws; a throttled call counts as an attempt that processed nothing.
 */
async function* attempts<T, Answer>(
  operation: Operation,
  chunkOf: T[],
  policy: BatchRetryPolicy,
  send: (pending: T[]) => Promise<{ answer: Answer; unprocessed: T[] }>,
): AsyncGenerator<Answer> {
  const { maxAttempts = DEFAULT_BATCH_RETRY.maxAttempts, baseDelayMs = DEFAULT_BATCH_RETRY.baseDelayMs, maxDelayMs = DEFAULT_BATCH_RETRY.maxDelayMs } = policy;
  const { sleep = sleepMs, random = Math.random } = policy;
  let pending = chunkOf;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > 1) {
      if (attempt > maxAttempts) throw new BatchRetriesExhaustedError(operation, pending.length, maxAttempts);
      await sleep(fullJitterDelayMs(attempt - 1, { baseDelayMs, maxDelayMs, random }));
    }
    let sent: { answer: Answer; unprocessed: T[] };
    try {
      sent = await send(pending);
    } catch (error) {
      if (!isThrottling(error)) throw error;
      continue;
    }
    yield sent.answer;
    pending = sent.unprocessed;
  }
}

/**
 * The items of `keys`, one chunk of 100 after the other, one array per call (retries included), so
 * a caller that found what it looks for sends no further call by leaving its `for await`.
 */
export async function* batchGetPages(client: DynamoDBDocumentClient, tableName: string, keys: readonly ItemKey[], policy: BatchRetryPolicy & { consistentRead?: boolean; keysOnly?: boolean } = {}): AsyncGenerator<Item[]> {
  // Keys only: an existence check reads (and pays for) no attribute beyond the key.
  const keyNames = policy.keysOnly ? [...new Set(keys.flatMap((key) => Object.keys(key)))] : [];
  const projection = keyNames.length > 0 ? { ProjectionExpression: keyNames.map((_, index) => `#k${index}`).join(', '), ExpressionAttributeNames: Object.fromEntries(keyNames.map((name, index) => [`#k${index}`, name])) } : {};
  for (const group of chunk(keys, BATCH_GET_LIMIT)) {
    yield* attempts('BatchGetItem', group.map((key): Item => ({ ...key })), policy, async (pending) => {
      const output = await client.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ...projection, ...(policy.consistentRead ? { ConsistentRead: true } : {}) } } }));
      return { answer: output.Responses?.[tableName] ?? [], unprocessed: (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Item[] };
    });
  }
}

/** Every item of `keys` (absent keys give nothing): chunks of 100, `parallelism` calls in flight. */
export async function batchGetAll(client: DynamoDBDocumentClient, tableName: string, keys: readonly ItemKey[], options: BatchOptions & { consistentRead?: boolean; keysOnly?: boolean } = {}): Promise<Item[]> {
  const pages = await mapBounded(chunk(keys, BATCH_GET_LIMIT), options.parallelism ?? DEFAULT_PARALLELISM, async (group) => {
    const items: Item[] = [];
    for await (const page of batchGetPages(client, tableName, group, options)) items.push(...page);
    return items;
  });
  return pages.flat();
}

/** Puts and deletes in chunks of 25, `parallelism` calls in flight. */
export async function batchWriteAll(client: DynamoDBDocumentClient, tableName: string, requests: readonly WriteRequest[], options: BatchOptions = {}): Promise<void> {
  await forEachBounded(chunk(requests, BATCH_WRITE_LIMIT), options.parallelism ?? DEFAULT_PARALLELISM, (group) =>
    drain(
      attempts('BatchWriteItem', group, options, async (pending) => {
        const output = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        return { answer: undefined, unprocessed: (output.UnprocessedItems?.[tableName] ?? []) as WriteRequest[] };
      }),
    ),
  );
}

/** Idempotent puts of whole items (deterministic keys), as batchWriteAll. */
export async function batchPutAll(client: DynamoDBDocumentClient, tableName: string, items: readonly Item[], options: BatchOptions = {}): Promise<void> {
  await batchWriteAll(client, tableName, items.map((item) => ({ PutRequest: { Item: item } })), options);
}

/** Runs every round of a write (a write's rounds answer nothing to collect). */
async function drain(rounds: AsyncIterable<unknown>): Promise<void> {
  for await (const round of rounds) void round;
}

/** A key of one table, for a BatchGetItem that reads several tables at once. */
export interface TableItemKey {
  table: string;
  key: ItemKey;
}

/**
 * Every item of keys in several tables: one BatchGetItem per 100 keys whatever their tables (a
 * lookup that needs a few keys of three tables is one request), `parallelism` calls in flight.
 */
export async function batchGetTables(client: DynamoDBDocumentClient, keys: readonly TableItemKey[], options: BatchOptions = {}): Promise<Map<string, Item[]>> {
  const found = new Map<string, Item[]>();
  await forEachBounded(chunk(keys, BATCH_GET_LIMIT), options.parallelism ?? DEFAULT_PARALLELISM, async (group) => {
    const pending: Record<string, { Keys: Item[] }> = {};
    for (const { table, key } of group) (pending[table] ??= { Keys: [] }).Keys.push({ ...key });
    const asList = Object.entries(pending).flatMap(([table, { Keys }]) => Keys.map((key) => ({ table, key })));
    for await (const page of attempts('BatchGetItem', asList, options, async (requested) => {
      const requestItems: Record<string, { Keys: Item[] }> = {};
      for (const { table, key } of requested) (requestItems[table] ??= { Keys: [] }).Keys.push(key);
      const output = await client.send(new BatchGetCommand({ RequestItems: requestItems }));
      const unprocessed = Object.entries(output.UnprocessedKeys ?? {}).flatMap(([table, value]) => ((value.Keys ?? []) as Item[]).map((key) => ({ table, key })));
      return { answer: output.Responses ?? {}, unprocessed };
    })) {
      for (const [table, items] of Object.entries(page)) found.set(table, [...(found.get(table) ?? []), ...(items as Item[])]);
    }
  });
  return found;
}

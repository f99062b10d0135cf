/**
 * Error paths dynalite cannot produce (UnprocessedItems, throttling): a mocked document client that
 * forwards what it "processes" to a real dynalite, so the test proves every item ends up stored.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, type BatchWriteCommandInput, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchRetriesExhaustedError, batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import type { UserRef } from '../../src/core/model/user.js';
import { idsOf, inboxItemsFor, newestFirst, notificationsEverySecond, ownSource, T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

let db: TestDynamo;
/** The client under test: its `send` is replaced by the mock. */
let flakyClient: DynamoDBDocumentClient;
let flaky: ReturnType<typeof mockClient>;
let userCounter = 0;
const freshUser = (): UserRef => ({ tenantId: 'acme', userId: `batch-${(userCounter += 1)}` });
const sleeps: number[] = [];
const noWait = { sleep: async (ms: number) => void sleeps.push(ms), random: () => 0.5 };

beforeAll(async () => {
  db = await startTestDynamo();
  flakyClient = createDocumentClient({ endpoint: db.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  flaky = mockClient(flakyClient);
});
afterAll(async () => {
  flaky.restore();
  flakyClient.destroy();
  await db.close();
});
beforeEach(() => {
  flaky.reset();
  sleeps.length = 0;
});

/** Writes the first `accept` requests of a call to dynalite and hands the rest back as UnprocessedItems. */
async function processSome(input: BatchWriteCommandInput, accept: number): Promise<BatchWriteCommandOutput> {
  const [[table, requests]] = Object.entries(input.RequestItems ?? {}) as [[string, WriteRequests]];
  const processed = requests.slice(0, accept);
  const unprocessed = requests.slice(accept);
  if (processed.length > 0) await db.client.send(new BatchWriteCommand({ RequestItems: { [table]: processed } }));
  return { $metadata: {}, UnprocessedItems: unprocessed.length > 0 ? { [table]: unprocessed } : {} };
}

function throttled(): ProvisionedThroughputExceededException {
  return new ProvisionedThroughputExceededException({ message: 'throughput exceeded', $metadata: {} });
}

describe('batchPutAll with UnprocessedItems and throttling', () => {
  it('retries UnprocessedItems until every item is stored', async () => {
    // Prepare: each call processes only 7 of its items.
    const user = freshUser();
    const items = notificationsEverySecond(60, T0, { recipient: user.userId });
    flaky.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => processSome(input, 7));
    const repository = new InboxRepository(flakyClient, db.dynamo.tableNames.inbox, { ...noWait, parallelism: 1 });

    // Act
    await repository.writeInboxItems(inboxItemsFor(user, items));

    // Assess
    const stored = await new InboxRepository(db.client, db.dynamo.tableNames.inbox).listInboxPage(ownSource(user), { limit: 100, nowMs: T0 });
    expect(idsOf(stored)).toEqual(idsOf(newestFirst(items)));
    // 25 -> 18 -> 11 -> 4 -> 0 for two full chunks, 10 -> 3 -> 0 for the last: 4 + 4 + 2 calls.
    expect(flaky.commandCalls(BatchWriteCommand)).toHaveLength(10);
    // Only the unprocessed requests are sent again.
    expect(flaky.commandCalls(BatchWriteCommand)[1]!.args[0].input.RequestItems?.[db.dynamo.tableNames.inbox]).toHaveLength(18);
  });

  it('backs off with jitter between rounds, growing exponentially up to the ceiling', async () => {
    // Prepare: one item, nine refusals, then success.
    let calls = 0;
    flaky.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => processSome(input, (calls += 1) < 10 ? 0 : 25));

    // Act
    await batchPutAll(flakyClient, db.dynamo.tableNames.inbox, [{ pk: 'T#acme#U#backoff', sk: 'one' }], { ...noWait, baseDelayMs: 10, maxDelayMs: 100 });

    // Assess: random() = 0.5 of min(100, 10 * 2^n).
    expect(sleeps).toEqual([5, 10, 20, 40, 50, 50, 50, 50, 50]);
  });

  it('a throttled call (ProvisionedThroughputExceededException) is retried like an unprocessed batch: nothing is lost', async () => {
    // Prepare: every other call is throttled outright.
    const user = freshUser();
    const items = notificationsEverySecond(50, T0, { recipient: user.userId });
    let calls = 0;
    flaky.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      calls += 1;
      if (calls % 2 === 1) throw throttled();
      return processSome(input, 25);
    });
    const repository = new InboxRepository(flakyClient, db.dynamo.tableNames.inbox, { ...noWait, parallelism: 1 });

    // Act
    await repository.writeInboxItems(inboxItemsFor(user, items));

    // Assess
    const stored = (await new InboxRepository(db.client, db.dynamo.tableNames.inbox).listIdsAbove(ownSource(user), {}, 100, T0)).map((key) => key.id);
    expect(stored).toEqual(idsOf(newestFirst(items)));
    expect(sleeps).toHaveLength(2);
  });

  it('gives up after maxAttempts with an error saying how many items remain', async () => {
    // Prepare
    flaky.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => processSome(input, 0));
    const items = Array.from({ length: 30 }, (_, index) => ({ pk: 'T#acme#U#never', sk: `i${index}` }));

    // Act
    const outcome = batchPutAll(flakyClient, db.dynamo.tableNames.inbox, items, { ...noWait, maxAttempts: 3, parallelism: 1 });

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(BatchRetriesExhaustedError);
    await expect(outcome).rejects.toMatchObject({ remaining: 25 });
    expect(flaky.commandCalls(BatchWriteCommand)).toHaveLength(3);
  });

  it('an error that is not throttling is not retried', async () => {
    // Prepare
    flaky.on(BatchWriteCommand).rejects(new Error('ValidationException'));

    // Act
    const outcome = batchPutAll(flakyClient, db.dynamo.tableNames.inbox, [{ pk: 'x', sk: 'y' }], noWait);

    // Assess
    await expect(outcome).rejects.toThrow('ValidationException');
    expect(flaky.commandCalls(BatchWriteCommand)).toHaveLength(1);
  });

  it('keeps at most `parallelism` calls in flight', async () => {
    // Prepare
    let inFlight = 0;
    let peak = 0;
    flaky.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return processSome(input, 25);
    });
    const items = Array.from({ length: 25 * 10 }, (_, index) => ({ pk: 'T#acme#U#parallel', sk: `i${String(index).padStart(4, '0')}` }));

    // Act
    await batchPutAll(flakyClient, db.dynamo.tableNames.inbox, items, { ...noWait, parallelism: 3 });

    // Assess
    expect(peak).toBe(3);
    expect(flaky.commandCalls(BatchWriteCommand)).toHaveLength(10);
  });
});

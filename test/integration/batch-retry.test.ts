/**
 * The one retry policy of the DynamoDB batch module, on the paths dynalite cannot produce (a call
 * throttled as a whole, UnprocessedKeys): a mocked document client forwards what it "processes" to
 * a real dynalite, and every adapter that batches (presence, preferences, inbox, connection writes)
 * goes through it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { BatchRetriesExhaustedError, batchGetAll, batchWriteAll } from '../../src/adapters/dynamo/batch.js';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { keys, type TableKey } from '../../src/core/model/keys.js';
import { inboxItemsFor, notificationsEverySecond, ownSource, T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';

type KeysOfTable = NonNullable<BatchGetCommandInput['RequestItems']>[string];

let db: TestDynamo;
let flakyClient: DynamoDBDocumentClient;
let flaky: ReturnType<typeof mockClient>;
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

const throttled = () => new ProvisionedThroughputExceededException({ message: 'throughput exceeded', $metadata: {} });

/** Reads the first `accept` keys of a call from dynalite and hands the rest back as UnprocessedKeys. */
async function readSome(input: BatchGetCommandInput, accept: number): Promise<BatchGetCommandOutput> {
  const [[table, request]] = Object.entries(input.RequestItems ?? {}) as [[string, KeysOfTable]];
  const asked = request.Keys ?? [];
  const read = asked.slice(0, accept);
  const left = asked.slice(accept);
  const output = read.length > 0 ? await db.client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: read } } })) : undefined;
  return { $metadata: {}, Responses: { [table]: output?.Responses?.[table] ?? [] }, UnprocessedKeys: left.length > 0 ? { [table]: { Keys: left } } : {} };
}

/** Passes BatchWriteItem through to dynalite. */
async function writeAll(input: BatchWriteCommandInput) {
  await db.client.send(new BatchWriteCommand(input));
  return { $metadata: {}, UnprocessedItems: {} };
}

async function seed(pk: string, count: number): Promise<TableKey[]> {
  const items = Array.from({ length: count }, (_, index) => ({ pk, sk: `s${String(index).padStart(4, '0')}` }));
  await batchWriteAll(db.client, db.dynamo.tableNames.inbox, items.map((Item) => ({ PutRequest: { Item } })));
  return items;
}

describe('BatchGetItem retries', () => {
  it('retries a call throttled as a whole and UnprocessedKeys until every key is read', async () => {
    // Prepare: the first call is throttled, then each call reads 40 keys.
    const keysToGet = await seed('T#acme#U#get-throttled', 100);
    let calls = 0;
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => {
      calls += 1;
      if (calls === 1) throw throttled();
      return readSome(input, 40);
    });

    // Act
    const items = await batchGetAll(flakyClient, db.dynamo.tableNames.inbox, keysToGet, noWait);

    // Assess: throttled, 100 -> 60 -> 20 -> 0.
    expect(items.map((item) => item.sk).sort()).toEqual(keysToGet.map((key) => key.sk));
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it('gives up after maxAttempts calls with BatchRetriesExhaustedError naming what is left', async () => {
    // Prepare: every call is throttled.
    flaky.on(BatchGetCommand).rejects(throttled());

    // Act
    const outcome = batchGetAll(flakyClient, db.dynamo.tableNames.inbox, [{ pk: 'x', sk: 'y' }], { ...noWait, maxAttempts: 4 });

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(BatchRetriesExhaustedError);
    await expect(outcome).rejects.toMatchObject({ operation: 'BatchGetItem', remaining: 1, attempts: 4 });
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(4);
  });

  it('waits a jittered delay under an exponential ceiling that is capped', async () => {
    // Prepare: the jitter draws differ per retry; nothing is ever processed.
    const draws = [0.9, 0.1, 0.99, 0.5, 0, 0.75];
    let draw = 0;
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => readSome(input, 0));

    // Act
    const outcome = batchGetAll(flakyClient, db.dynamo.tableNames.inbox, [{ pk: 'x', sk: 'y' }], {
      sleep: async (ms) => void sleeps.push(ms),
      random: () => draws[draw++]!,
      maxAttempts: 7,
      baseDelayMs: 100,
      maxDelayMs: 1_000,
    });

    // Assess: draw * min(1000, 100 * 2^(retry - 1)), so every delay is below its ceiling and 1 s.
    await expect(outcome).rejects.toBeInstanceOf(BatchRetriesExhaustedError);
    expect(sleeps).toEqual([90, 20, 396, 400, 0, 750]);
  });

  it('an error that is not throttling is not retried', async () => {
    // Prepare
    flaky.on(BatchGetCommand).rejects(new Error('ValidationException'));

    // Act
    const outcome = batchGetAll(flakyClient, db.dynamo.tableNames.inbox, [{ pk: 'x', sk: 'y' }], noWait);

    // Assess
    await expect(outcome).rejects.toThrow('ValidationException');
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(1);
  });
});

describe('every batching adapter uses the one policy', () => {
  it('presence lookup (ConnectionRepository.connectionsOf) survives a throttled call', async () => {
    // Prepare
    const user = { tenantId: 'acme', userId: 'presence-throttled' };
    await new ConnectionRepository(db.client, db.dynamo.tableNames.connections).registerConnection({ ...user, connectionId: 'throttledConn=', celebrityIds: [] });
    let calls = 0;
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => {
      if ((calls += 1) === 1) throw throttled();
      return readSome(input, 100);
    });
    const connections = new ConnectionRepository(flakyClient, db.dynamo.tableNames.connections, { batchRetry: noWait });

    // Act
    const targets = await connections.connectionsOf([user]);

    // Assess
    expect(targets).toEqual([{ ...user, connectionId: 'throttledConn=' }]);
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('connection writes (registerConnection) retry a throttled BatchWriteItem instead of failing', async () => {
    // Prepare: the first BatchWriteItem is throttled; the presence UpdateItem goes to dynalite.
    const user = { tenantId: 'acme', userId: 'write-throttled' };
    let calls = 0;
    flaky.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      if ((calls += 1) === 1) throw throttled();
      return writeAll(input);
    });
    flaky.on(UpdateCommand).callsFake((input: UpdateCommandInput) => db.client.send(new UpdateCommand(input)));
    const connections = new ConnectionRepository(flakyClient, db.dynamo.tableNames.connections, { batchRetry: noWait });

    // Act
    await connections.registerConnection({ ...user, connectionId: 'writeConn=', celebrityIds: ['star'] });

    // Assess
    expect(flaky.commandCalls(BatchWriteCommand)).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    const stored = await new ConnectionRepository(db.client, db.dynamo.tableNames.connections).findConnection('writeConn=');
    expect(stored).toMatchObject({ ...user, connectionId: 'writeConn=', celebrityIds: ['star'] });
  });

  it('preferences lookup retries UnprocessedKeys', async () => {
    // Prepare
    let calls = 0;
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => readSome(input, (calls += 1) === 1 ? 0 : 100));
    const preferences = new PreferencesRepository(flakyClient, db.dynamo.tableNames.graph, noWait);

    // Act
    const lookups = await preferences.getPreferences('acme', ['p1', 'p2']);

    // Assess
    expect([...lookups.values()].map((lookup) => lookup.status)).toEqual(['default', 'default']);
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(2);
  });

  it('inbox findNotification backs off and is capped (it had neither)', async () => {
    // Prepare
    const user = { tenantId: 'acme', userId: 'find-capped' };
    const [item] = notificationsEverySecond(1, T0, { recipient: user.userId });
    await new InboxRepository(db.client, db.dynamo.tableNames.inbox).writeInboxItems(inboxItemsFor(user, [item!]));
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => readSome(input, 0));
    const inbox = new InboxRepository(flakyClient, db.dynamo.tableNames.inbox, { ...noWait, maxAttempts: 3 });

    // Act
    const outcome = inbox.findNotification([ownSource(user)], item!.id, T0);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(BatchRetriesExhaustedError);
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('inbox findNotification sends no further call once a page holds the notification', async () => {
    // Prepare: 150 candidate partitions (two chunks); the item is in the first.
    const user = { tenantId: 'acme', userId: 'find-early' };
    const [item] = notificationsEverySecond(1, T0, { recipient: user.userId });
    await new InboxRepository(db.client, db.dynamo.tableNames.inbox).writeInboxItems(inboxItemsFor(user, [item!]));
    flaky.on(BatchGetCommand).callsFake(async (input: BatchGetCommandInput) => readSome(input, 100));
    const sources = [ownSource(user), ...Array.from({ length: 149 }, (_, i) => ownSource({ tenantId: 'acme', userId: `nobody-${i}` }))];

    // Act
    const found = await new InboxRepository(flakyClient, db.dynamo.tableNames.inbox, noWait).findNotification(sources, item!.id, T0);

    // Assess
    expect(found?.id).toBe(item!.id);
    expect(flaky.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(keys.inboxItem('acme', user.userId, item!.id).pk).toBe(flaky.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems?.[db.dynamo.tableNames.inbox]?.Keys?.[0]?.pk);
  });
});

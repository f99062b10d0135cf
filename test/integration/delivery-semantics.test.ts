/**
 * Delivery semantics end to end through the real fan-out handler (Powertools idempotency on
 * dynalite), the real delivery ledger and LiveDelivery: duplicates, crashes between steps, poison
 * records and concurrent batches (ARCHITECTURE.md "Delivery semantics").
 */
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteItemCommand, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse } from 'aws-lambda';
import { DynamoDeliveryLedger } from '../../src/adapters/dynamo/delivery-ledger.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { CelebrityPromotionService } from '../../src/core/fanout/celebrity-promotion.js';
import { FanOutService } from '../../src/core/fanout/fanout-service.js';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import type { UserRef } from '../../src/core/model/user.js';
import { createCelebrityPromotionHandler } from '../../src/handlers/celebrity-promotion-handler.js';
import { createDeliveryHandler } from '../../src/handlers/delivery-handler.js';
import { createFanOutHandler, type SqsBatchHandler } from '../../src/handlers/fanout-handler.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { localLambdaContext } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { aDeliveryEvent } from '../support/delivery-fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { aMention, anSqsEvent, anSqsRecord, eventBridgeBody } from '../support/events.js';
import { FakeDirectory, FakePusher } from '../support/live-fakes.js';
import { RecordingJobQueue, RecordingPromotionQueue } from '../support/pipeline-fakes.js';

/** A job queue whose next enqueue waits until `open()` (a fan-out caught mid-way). */
class GatedJobQueue extends RecordingJobQueue {
  private gate: Promise<void> | undefined;
  private opener: (() => void) | undefined;
  entered = 0;

  close(): void {
    this.gate = new Promise((resolve) => {
      this.opener = resolve;
    });
  }

  open(): void {
    this.opener?.();
    this.gate = undefined;
  }

  override async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    this.entered += 1;
    if (this.gate) await this.gate;
    await super.enqueue(jobs);
  }
}

let db: TestDynamo;
let dynamoClient: DynamoDBClient;
let jobs: GatedJobQueue;
let handler: SqsBatchHandler;
const logger = new Logger({ serviceName: 'delivery-semantics-test', logLevel: 'SILENT' });

beforeAll(async () => {
  db = await startTestDynamo();
  dynamoClient = new DynamoDBClient({ endpoint: db.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  dynamoClient?.destroy();
  await db?.close();
});
beforeEach(() => {
  jobs = new GatedJobQueue();
  handler = createFanOutHandler({
    notificationType: findNotificationType('mention.created')!,
    findType: findNotificationType,
    service: new FanOutService({
      graph: new FollowGraphRepository(db.client, db.dynamo.tableNames.graph),
      inbox: new InboxRepository(db.client, db.dynamo.tableNames.inbox),
      arrivals: new DynamoArrivalLedger(db.client, db.dynamo.tableNames.idempotency),
      recentPosts: new DynamoRecentPostsLog(db.client, db.dynamo.tableNames.inbox),
      celebrityPostsIndex: new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox),
      deliveryQueue: jobs,
      promotionQueue: new RecordingPromotionQueue(),
      settings: { celebrityThreshold: 100, feedShards: 2, inboxTtlDays: 90 },
    }),
    logger,
    persistenceStore: new DynamoDBPersistenceLayer({ tableName: db.dynamo.tableNames.idempotency, awsSdkV3Client: dynamoClient }),
  });
});

const recordsOf = (...bodies: string[]) => bodies.map((body) => anSqsRecord(body));
const invoke = (records: ReturnType<typeof recordsOf>): Promise<SQSBatchResponse> => handler(anSqsEvent(records), localLambdaContext('fanout-test'));
const eventIdOf = (body: string) => (JSON.parse(body) as { detail: { id: string } }).detail.id;
const failedIds = (response: SQSBatchResponse) => response.batchItemFailures.map((failure) => failure.itemIdentifier).sort();

async function inboxIds(user: UserRef): Promise<string[]> {
  const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
  const items = await inbox.listInboxPage({ kind: 'own', tenantId: user.tenantId, userId: user.userId }, { limit: 100, nowMs: Date.now() });
  return items.map((item) => item.id);
}

type IdempotencyItem = Record<string, { S?: string; N?: string }>;

/** Fan-out idempotency records (Powertools key prefix `fanout`; the key is a hash, so callers diff snapshots). */
async function fanOutRecords(): Promise<IdempotencyItem[]> {
  const output = await dynamoClient.send(new ScanCommand({ TableName: db.dynamo.tableNames.idempotency }));
  return (output.Items ?? []).filter((item) => item.id?.S?.startsWith('fanout')) as IdempotencyItem[];
}

async function newFanOutRecords(before: readonly IdempotencyItem[]): Promise<IdempotencyItem[]> {
  const known = new Set(before.map((item) => item.id?.S));
  return (await fanOutRecords()).filter((item) => !known.has(item.id?.S));
}

describe('fan-out: the same event delivered several times', () => {
  it('three concurrent copies write one inbox item per recipient and one set of jobs; the copies in progress are retried, then complete without new jobs', async () => {
    // Prepare
    const mention = aMention({ tenantId: 'sem1', recipients: ['u1', 'u2'] });
    const copies = [0, 1, 2].map(() => recordsOf(eventBridgeBody('mention.created', mention)));

    // Act
    const first = await Promise.all(copies.map((records) => invoke(records)));
    const retried = copies.filter((_, i) => first[i]!.batchItemFailures.length > 0);
    const second = await Promise.all(retried.map((records) => invoke(records)));

    // Assess
    expect(first.filter((response) => response.batchItemFailures.length === 0).length).toBeGreaterThanOrEqual(1);
    for (const response of second) expect(response).toEqual({ batchItemFailures: [] });
    expect(jobs.recipientsOf(mention.id).sort()).toEqual(['u1', 'u2']);
    expect(await inboxIds({ tenantId: 'sem1', userId: 'u1' })).toHaveLength(1);
    expect(await inboxIds({ tenantId: 'sem1', userId: 'u2' })).toHaveLength(1);
  });

  it('runs an event caught in progress (record INPROGRESS) with an in-progress expiry of the local context (60 s), not the 24 h record expiry', async () => {
    // Prepare
    const mention = aMention({ tenantId: 'sem2', recipients: ['u1'] });
    jobs.close();
    const before = await fanOutRecords();
    const startedAt = Date.now();

    // Act
    const running = invoke(recordsOf(eventBridgeBody('mention.created', mention)));
    for (let attempt = 0; attempt < 100 && jobs.entered === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const [record] = await newFanOutRecords(before);
    jobs.open();
    const response = await running;

    // Assess
    expect(record?.status?.S).toBe('INPROGRESS');
    const inProgressExpiry = Number(record?.in_progress_expiration?.N);
    expect(inProgressExpiry).toBeGreaterThan(startedAt + 55_000);
    expect(inProgressExpiry).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(response).toEqual({ batchItemFailures: [] });
  });

  it('a crash after the enqueue but before the record completes re-enqueues the jobs, and the delivery ledger keeps it to one push per connection', async () => {
    // Prepare: the first run completes its work; its idempotency record is then lost, as if the
    // function had died before marking it COMPLETED and the in-progress expiry had passed.
    const alice: UserRef = { tenantId: 'sem3', userId: 'alice' };
    const body = eventBridgeBody('mention.created', aMention({ tenantId: 'sem3', recipients: ['alice'] }));
    const before = await fanOutRecords();
    expect(await invoke(recordsOf(body))).toEqual({ batchItemFailures: [] });
    const written = await newFanOutRecords(before);
    expect(written.map((record) => record.status?.S)).toEqual(['COMPLETED']);
    for (const record of written) {
      await dynamoClient.send(new DeleteItemCommand({ TableName: db.dynamo.tableNames.idempotency, Key: { id: { S: record.id!.S! } } }));
    }

    // Act
    expect(await invoke(recordsOf(body))).toEqual({ batchItemFailures: [] });
    const directory = new FakeDirectory().connect(alice, 'phone', 'laptop');
    const pusher = new FakePusher();
    const delivery = new LiveDelivery({ directory, ledger: new DynamoDeliveryLedger(db.client, db.dynamo.tableNames.idempotency), pusher, isDigestible: () => false });
    const deliver = createDeliveryHandler({ delivery, mode: 'urgent', logger });
    const responses = await Promise.all(jobs.jobs.map((job) => deliver(aDeliveryEvent([job]))));

    // Assess
    expect(jobs.recipientsOf(eventIdOf(body))).toEqual(['alice', 'alice']);
    expect(await inboxIds(alice)).toHaveLength(1);
    for (const response of responses) expect(response).toEqual({ batchItemFailures: [] });
    expect(pusher.to('phone')).toHaveLength(1);
    expect(pusher.to('laptop')).toHaveLength(1);
  });
});

describe('fan-out: poison records and concurrent batches', () => {
  it('fails only the poison record of a batch of 10; its neighbours are fanned out once', async () => {
    // Prepare
    const mentions = Array.from({ length: 9 }, (_, i) => aMention({ tenantId: 'sem4', recipients: [`n${i}`] }));
    const records = recordsOf(...mentions.slice(0, 4).map((m) => eventBridgeBody('mention.created', m)), '{"not": "an event"', ...mentions.slice(4).map((m) => eventBridgeBody('mention.created', m)));

    // Act
    const first = await invoke(records);
    const retry = await invoke(records.filter((record) => failedIds(first).includes(record.messageId)));

    // Assess
    expect(failedIds(first)).toEqual([records[4]!.messageId]);
    expect(failedIds(retry)).toEqual([records[4]!.messageId]);
    for (const mention of mentions) expect(jobs.recipientsOf(mention.id)).toHaveLength(1);
  });

  it('answers each of two concurrent batches with its own failures (the local runtime runs two batches of a queue at once)', async () => {
    // Prepare
    const poison = anSqsRecord('{"not": "an event"');
    const batchA = [poison, ...recordsOf(eventBridgeBody('mention.created', aMention({ tenantId: 'sem5', recipients: ['a1'] })))];
    const batchB = recordsOf(
      eventBridgeBody('mention.created', aMention({ tenantId: 'sem5', recipients: ['b1'] })),
      eventBridgeBody('mention.created', aMention({ tenantId: 'sem5', recipients: ['b2'] })),
    );

    // Act
    const [responseA, responseB] = await Promise.all([invoke(batchA), invoke(batchB)]);

    // Assess
    expect(failedIds(responseA)).toEqual([poison.messageId]);
    expect(failedIds(responseB)).toEqual([]);
  });

  it('answers each of two concurrent promotion batches with its own failures', async () => {
    // Prepare
    const promote = createCelebrityPromotionHandler({
      service: new CelebrityPromotionService({ graph: new FollowGraphRepository(db.client, db.dynamo.tableNames.graph), queue: new RecordingPromotionQueue(), celebrityThreshold: 100 }),
      logger,
    });
    const poison = anSqsRecord('{"v": 1');
    const valid = anSqsRecord(JSON.stringify({ v: 1, tenantId: 'sem6', celebrityId: 'star' }));

    // Act
    const [responseA, responseB] = await Promise.all([
      promote(anSqsEvent([poison]), localLambdaContext('promotion-test')),
      promote(anSqsEvent([valid]), localLambdaContext('promotion-test')),
    ]);

    // Assess
    expect(failedIds(responseA)).toEqual([poison.messageId]);
    expect(failedIds(responseB)).toEqual([]);
  });
});

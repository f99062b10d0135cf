import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import { FanOutService } from '../../src/core/fanout/fanout-service.js';
import { createFanOutHandler, type SqsBatchHandler } from '../../src/handlers/fanout-handler.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { localLambdaContext } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { aMention, anSqsEvent, anSqsRecord, eventBridgeBody } from '../support/events.js';
import { RecordingJobQueue, RecordingPromotionQueue } from '../support/pipeline-fakes.js';

let db: TestDynamo;
let dynamoClient: DynamoDBClient;
let jobs: RecordingJobQueue;
let handler: SqsBatchHandler;
const logger = new Logger({ serviceName: 'fanout-test', logLevel: 'SILENT' });

beforeAll(async () => {
  db = await startTestDynamo();
  dynamoClient = new DynamoDBClient({ endpoint: db.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  jobs = new RecordingJobQueue();
  const service = new FanOutService({
    graph: new FollowGraphRepository(db.client, db.dynamo.tableNames.graph),
    inbox: new InboxRepository(db.client, db.dynamo.tableNames.inbox),
    arrivals: new DynamoArrivalLedger(db.client, db.dynamo.tableNames.idempotency),
    recentPosts: new DynamoRecentPostsLog(db.client, db.dynamo.tableNames.inbox),
    celebrityPostsIndex: new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox),
    deliveryQueue: jobs,
    promotionQueue: new RecordingPromotionQueue(),
    settings: { celebrityThreshold: 100, feedShards: 2, inboxTtlDays: 90 },
  });
  handler = createFanOutHandler({
    notificationType: findNotificationType('mention.created')!,
    findType: findNotificationType,
    service,
    logger,
    persistenceStore: new DynamoDBPersistenceLayer({ tableName: db.dynamo.tableNames.idempotency, awsSdkV3Client: dynamoClient }),
  });
});
afterAll(async () => {
  dynamoClient?.destroy();
  await db?.close();
});

const invoke = (...bodies: string[]) => {
  const records = bodies.map((body) => anSqsRecord(body));
  return { records, response: handler(anSqsEvent(records), localLambdaContext('fanout-test')) };
};

describe('fan-out handler', () => {
  it('reports only the invalid record of a batch as failed', async () => {
    const { records, response } = invoke(
      eventBridgeBody('mention.created', aMention({ recipients: ['h-alice'] })),
      eventBridgeBody('mention.created', { ...aMention(), data: {} }),
      eventBridgeBody('comment.created', aMention()),
    );
    expect(await response).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.messageId }, { itemIdentifier: records[2]!.messageId }] });
  });

  it('enqueues one set of jobs for an event delivered three times', async () => {
    const body = eventBridgeBody('mention.created', aMention({ recipients: ['h-bob', 'h-carol'] }));
    for (let i = 0; i < 3; i += 1) expect(await invoke(body).response).toEqual({ batchItemFailures: [] });
    const eventId = (JSON.parse(body) as { detail: { id: string } }).detail.id;
    expect(jobs.recipientsOf(eventId).sort()).toEqual(['h-bob', 'h-carol']);
  });

  it('still enqueues on the retry when the first enqueue failed after the writes', async () => {
    // Prepare
    const body = eventBridgeBody('mention.created', aMention({ recipients: ['h-dave'] }));
    const eventId = (JSON.parse(body) as { detail: { id: string } }).detail.id;
    jobs.failNext = 1;

    // Act
    const first = await invoke(body).response;
    const second = await invoke(body).response;
    const third = await invoke(body).response;

    // Assess
    expect(first.batchItemFailures).toHaveLength(1);
    expect(second).toEqual({ batchItemFailures: [] });
    expect(third).toEqual({ batchItemFailures: [] });
    expect(jobs.recipientsOf(eventId)).toEqual(['h-dave']);
  });
});

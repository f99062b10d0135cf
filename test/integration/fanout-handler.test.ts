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
import { ArrivalLookahead } from '../../src/core/fanout/arrival-lookahead.js';
import { timeOfId } from '../../src/core/model/ids.js';
import { systemClock } from '../../src/core/ports/clock.js';
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

describe('fan-out handler with the arrival stamp started beside the idempotency record (ArrivalLookahead)', () => {
  /** Powertools' store whose INPROGRESS write fails `failures` times: the attempt dies after the lookahead's stamp, before the service runs. */
  class FailingOnce extends DynamoDBPersistenceLayer {
    failures = 1;
    override async saveInProgress(...args: Parameters<DynamoDBPersistenceLayer['saveInProgress']>): Promise<void> {
      if (this.failures > 0) {
        this.failures -= 1;
        throw new Error('killed between the arrival stamp and the idempotency record');
      }
      return super.saveInProgress(...args);
    }
  }

  it('an attempt that dies after the early stamp lands once on its retry, under a new stamp, with one set of jobs', async () => {
    // Prepare
    const ledger = new DynamoArrivalLedger(db.client, db.dynamo.tableNames.idempotency);
    const lookahead = new ArrivalLookahead(ledger, { clock: systemClock, inboxTtlDays: 90 });
    const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
    const recorded = new RecordingJobQueue();
    const store = new FailingOnce({ tableName: db.dynamo.tableNames.idempotency, awsSdkV3Client: dynamoClient });
    const service = new FanOutService({
      graph: new FollowGraphRepository(db.client, db.dynamo.tableNames.graph),
      inbox,
      landed: inbox,
      arrivals: lookahead,
      recentPosts: new DynamoRecentPostsLog(db.client, db.dynamo.tableNames.inbox),
      celebrityPostsIndex: new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox),
      deliveryQueue: recorded,
      promotionQueue: new RecordingPromotionQueue(),
      settings: { celebrityThreshold: 100, feedShards: 2, inboxTtlDays: 90 },
    });
    const early = createFanOutHandler({ notificationType: findNotificationType('mention.created')!, findType: findNotificationType, service, logger, persistenceStore: store, arrivalLookahead: lookahead });
    const mention = aMention({ recipients: ['la-erin'] });
    const body = eventBridgeBody('mention.created', mention);
    const run = () => early(anSqsEvent([anSqsRecord(body)]), localLambdaContext('fanout-test'));

    // Act
    const first = await run();
    const firstStamp = (await ledger.stampEvent({ tenantId: mention.tenantId, type: 'mention.created', eventId: mention.id }, { arrivalMs: Date.now(), intakeMs: Date.now() }, Math.floor(Date.now() / 1000) + 3_600)).arrivalMs;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await run();
    const third = await run();

    // Assess
    expect(first.batchItemFailures).toHaveLength(1);
    expect(second).toEqual({ batchItemFailures: [] });
    expect(third).toEqual({ batchItemFailures: [] });
    const ids = (await inbox.listIdsAbove({ kind: 'own', tenantId: mention.tenantId, userId: 'la-erin' }, {}, 10, Date.now())).map((key) => key.id);
    expect(ids).toHaveLength(1);
    expect(timeOfId(ids[0]!)).toBeGreaterThan(firstStamp);
    expect(recorded.recipientsOf(mention.id)).toEqual(['la-erin']);
  });
});

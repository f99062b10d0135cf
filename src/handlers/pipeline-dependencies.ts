/**
 * Builds the event pipeline's dependencies (fan-out, promotion pass) from environment variables.
 * Lambda entry points call these once per container; the local runtime calls them with its own
 * env and clients. Env names are the ones the CDK app sets.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { CelebrityPromotionService } from '../core/celebrity-promotion.js';
import { DEFAULT_FEED_SHARDS } from '../core/feed-shards.js';
import { FanOutService, type FanOutSettings } from '../core/fanout-service.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/notification.js';
import { DEFAULT_CELEBRITY_THRESHOLD } from '../core/tier.js';
import { ConfigError, intEnv, requireEnv, tableNameFromEnv } from '../config.js';
import { FollowGraphRepository } from '../adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { DynamoArrivalLedger } from '../adapters/dynamo/arrival-ledger.js';
import { DynamoRecentPostsLog } from '../adapters/dynamo/recent-posts-log.js';
import { FAN_OUT_QUEUE_URL_ENV, fanOutQueueNeeds, unusedFanOutQueue, type FanOutQueue } from '../core/fanout-queues.js';
import type { DeliveryJobQueue } from '../core/delivery-job.js';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { SqsPromotionQueue } from '../adapters/sqs/sqs-promotion-queue.js';
import { findNotificationType } from '../notifications/index.js';
import type { NotificationType } from '../notifications/notification-type.js';
import { tableSpecs } from '../table-specs.js';
import type { FanOutHandlerDeps } from './fanout-handler.js';
import type { Scheduler } from '../core/schedules.js';
import { cachedPreferencesReaderFromEnv, sendAtDeferralFromEnv } from './preferences-dependencies.js';

export interface PipelineClients {
  documentClient: DynamoDBDocumentClient;
  /** Plain client for Powertools idempotency (it does not take a document client). */
  dynamoClient: DynamoDBClient;
  sqsClient: SQSClient;
}

export function fanOutSettingsFromEnv(env: NodeJS.ProcessEnv): FanOutSettings {
  const settings = {
    celebrityThreshold: intEnv('CELEBRITY_THRESHOLD', DEFAULT_CELEBRITY_THRESHOLD, env),
    feedShards: intEnv('FEED_SHARDS', DEFAULT_FEED_SHARDS, env),
    inboxTtlDays: intEnv('INBOX_TTL_DAYS', INBOX_TTL_DAYS_DEFAULT, env),
  };
  if (settings.celebrityThreshold < 1) throw new ConfigError('CELEBRITY_THRESHOLD must be at least 1');
  if (settings.feedShards < 1) throw new ConfigError('FEED_SHARDS must be at least 1');
  return settings;
}

/**
 * The fan-out of one catalog type. Only the queue URLs that type can send to are required
 * (`fanOutQueueNeeds`, the same derivation the CDK app grants from); a queue it never uses gets a
 * port that throws if called, so a wiring mistake fails loudly instead of dropping jobs.
 */
export function fanOutServiceFromEnv(env: NodeJS.ProcessEnv, clients: PipelineClients, type: NotificationType<any>, logger?: Logger): FanOutService {
  const needs = new Set(fanOutQueueNeeds(type));
  const queueUrl = (queue: FanOutQueue) => requireEnv(FAN_OUT_QUEUE_URL_ENV[queue], env);
  return new FanOutService({
    preferences: cachedPreferencesReaderFromEnv(env, clients.documentClient, logger),
    graph: new FollowGraphRepository(clients.documentClient, tableNameFromEnv('graph', env)),
    inbox: new InboxRepository(clients.documentClient, tableNameFromEnv('inbox', env)),
    arrivals: new DynamoArrivalLedger(clients.documentClient, tableNameFromEnv('idempotency', env)),
    postsLog: new DynamoRecentPostsLog(clients.documentClient, tableNameFromEnv('inbox', env)),
    deliveryQueue: deliveryQueueOf(type.detailType, needs, queueUrl, clients.sqsClient),
    promotionQueue: needs.has('promotion') ? new SqsPromotionQueue(clients.sqsClient, queueUrl('promotion')) : unusedFanOutQueue(['promotion'], type.detailType),
    settings: fanOutSettingsFromEnv(env),
  });
}

/** Both priority queues (an event may override its type's priority), or neither. */
function deliveryQueueOf(detailType: string, needs: ReadonlySet<FanOutQueue>, queueUrl: (queue: FanOutQueue) => string, sqsClient: SQSClient): DeliveryJobQueue {
  if (needs.has('urgent') && needs.has('info')) return new SqsDeliveryJobQueue(sqsClient, { urgent: queueUrl('urgent'), info: queueUrl('info') });
  if (!needs.has('urgent') && !needs.has('info')) return unusedFanOutQueue(['urgent', 'info'], detailType);
  throw new ConfigError(`fan-out of ${detailType} needs both delivery queues or neither (an event may override the priority)`);
}

/** The catalog entry this function serves: `NOTIFICATION_TYPE=<detail-type>`. */
export function notificationTypeFromEnv(env: NodeJS.ProcessEnv): NotificationType<any> {
  const detailType = requireEnv('NOTIFICATION_TYPE', env);
  const type = findNotificationType(detailType);
  if (!type) throw new ConfigError(`NOTIFICATION_TYPE ${detailType} is not in the catalog`);
  return type;
}

/** `scheduler`: the Scheduler port for `sendAt` (EventBridge Scheduler on AWS, the local scheduler locally). */
export function fanOutHandlerDepsFromEnv(env: NodeJS.ProcessEnv, clients: PipelineClients, logger: Logger, type = notificationTypeFromEnv(env), scheduler?: Scheduler): FanOutHandlerDeps {
  return {
    notificationType: type,
    findType: findNotificationType,
    service: fanOutServiceFromEnv(env, clients, type, logger),
    ...(scheduler ? { sendAt: sendAtDeferralFromEnv(env, scheduler) } : {}),
    logger,
    persistenceStore: new DynamoDBPersistenceLayer({
      tableName: tableNameFromEnv('idempotency', env),
      keyAttr: tableSpecs.idempotency.partitionKey.name,
      expiryAttr: tableSpecs.idempotency.timeToLiveAttribute,
      awsSdkV3Client: clients.dynamoClient,
    }),
  };
}

export function celebrityPromotionServiceFromEnv(env: NodeJS.ProcessEnv, clients: Omit<PipelineClients, 'dynamoClient'>): CelebrityPromotionService {
  return new CelebrityPromotionService({
    graph: new FollowGraphRepository(clients.documentClient, tableNameFromEnv('graph', env)),
    queue: new SqsPromotionQueue(clients.sqsClient, requireEnv('PROMOTION_QUEUE_URL', env)),
    celebrityThreshold: fanOutSettingsFromEnv(env).celebrityThreshold,
  });
}

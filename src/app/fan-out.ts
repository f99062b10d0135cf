/**
 * Composition of the fan-out function of one catalog type (`NOTIFICATION_TYPE`): validation,
 * idempotency, `sendAt` deferral, inbox writes and delivery / promotion jobs. Only the queue URLs
 * the type can send to are required (`fanOutQueueNeeds`, the derivation the CDK app grants from);
 * a queue it never uses gets a port that throws if called, so a wiring mistake fails loudly.
 */
import { DynamoCelebrityPostsLog } from '../adapters/dynamo/celebrity-posts-log.js';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoArrivalLedger } from '../adapters/dynamo/arrival-ledger.js';
import { DynamoErasedUsers } from '../adapters/dynamo/erased-users.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { DynamoRecentPostsLog } from '../adapters/dynamo/recent-posts-log.js';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { SqsChannelJobQueue } from '../adapters/sqs/sqs-channel-job-queue.js';
import { SqsPromotionQueue } from '../adapters/sqs/sqs-promotion-queue.js';
import { fanOutQueueNeeds, type FanOutQueue } from '../core/fanout-queues.js';
import { FanOutService } from '../core/fanout-service.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import type { DeliveryJobQueue } from '../core/ports/queues.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { SendAtDeferral } from '../core/send-at.js';
import { createFanOutHandler } from '../handlers/fanout-handler.js';
import { findNotificationType } from '../notifications/deployed.js';
import { tableSpecs } from '../table-specs.js';
import { ConfigError, FAN_OUT_QUEUE_URL_ENV, ENV, fanOutConfigFromEnv, observabilityConfigFromEnv, type Env, type FanOutConfig, type ObservabilityConfig } from './config.js';
import { observability } from './parts-observability.js';
import { withAuditBarrier, withAuditFlush } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { eventBridgeScheduler, sqsClient } from './parts-queues.js';
import { followGraphRepository } from './follow-graph.js';
import { createParts, dynamoClients, documentClient, preferencesCache, type Parts } from './parts.js';
import { retractionRepository } from './inbox.js';
import { RetractionService } from '../core/retraction.js';

/** The catalog entry this function serves. */
export function notificationTypeOf(config: Pick<FanOutConfig, 'notificationType'>): NotificationType {
  const type = findNotificationType(config.notificationType);
  if (!type) throw new ConfigError(`${ENV.NOTIFICATION_TYPE} ${config.notificationType} is not in the catalog`);
  return type;
}

export function fanOutService(parts: Parts, config: FanOutConfig, type: NotificationType): FanOutService {
  const needs = new Set(fanOutQueueNeeds(type));
  const missing = [...needs].filter((queue) => !config.queueUrls[queue]).map((queue) => FAN_OUT_QUEUE_URL_ENV[queue]);
  if (missing.length > 0) throw new ConfigError(`fan-out of ${type.detailType}: ${missing.join(', ')} is required`);
  const url = (queue: FanOutQueue) => config.queueUrls[queue]!;
  return new FanOutService({
    preferences: preferencesCache(parts, config),
    graph: followGraphRepository(parts, config.graphTable),
    inbox: parts.once('inbox-repository', () => new InboxRepository(documentClient(parts), config.inboxTable)),
    arrivals: parts.once('arrival-ledger', () => new DynamoArrivalLedger(documentClient(parts), config.idempotencyTable)),
    postsLog: parts.once('recent-posts-log', () => new DynamoRecentPostsLog(documentClient(parts), config.inboxTable)),
    celebrityPostsIndex: parts.once('celebrity-posts-log', () => new DynamoCelebrityPostsLog(documentClient(parts), config.inboxTable)),
    deliveryQueue: needs.has('urgent') ? withChannels(parts, config, deliveryJobQueue(parts, config, needs)) : deliveryQueueNeverUsed(type.detailType),
    promotionQueue: needs.has('promotion') ? new SqsPromotionQueue(sqsClient(parts), url('promotion')) : unusedFanOutQueue(['promotion'], type.detailType),
    settings: config.settings,
    trace: observability(parts, config.idempotencyTable).trace,
    erased: parts.once('erased-users', () => new DynamoErasedUsers(documentClient(parts), config.idempotencyTable, () => parts.clock.nowMs())),
    ...(type.retraction ? { retractions: retractionService(parts, config, needs.has('urgent') ? deliveryJobQueue(parts, config, needs) : undefined) } : {}),
  });
}

/** The signed delivery jobs of this type, on the queues it needs (a retraction type: urgent only). */
function deliveryJobQueue(parts: Parts, config: FanOutConfig, needs: ReadonlySet<FanOutQueue>): SqsDeliveryJobQueue {
  const urls = { urgent: config.queueUrls.urgent!, ...(needs.has('info') ? { info: config.queueUrls.info! } : {}) };
  return new SqsDeliveryJobQueue(sqsClient(parts), urls, config.deliveryJobSecret);
}

/** Retraction types: the record goes to the Inbox table; `retracted` pushes go as urgent jobs to the delivery function. */
function retractionService(parts: Parts, config: FanOutConfig, deliveryQueue: DeliveryJobQueue | undefined): RetractionService {
  return new RetractionService({
    arrivals: parts.once('arrival-ledger', () => new DynamoArrivalLedger(documentClient(parts), config.idempotencyTable)),
    store: retractionRepository(parts, config.inboxTable),
    clock: parts.clock,
    inboxTtlDays: config.settings.inboxTtlDays,
    ...(deliveryQueue ? { deliveryQueue } : {}),
  });
}

/** Push and email jobs beside the in-app job, on the channel queues configured (none: channels off). */
function withChannels(parts: Parts, config: FanOutConfig, inApp: DeliveryJobQueue): DeliveryJobQueue {
  const urls = config.channelQueueUrls;
  if (!urls || (!urls.push && !urls.email)) return inApp;
  return new SqsChannelJobQueue(inApp, sqsClient(parts), urls, config.deliveryJobSecret, findNotificationType);
}

function deliveryQueueNeverUsed(detailType: string): DeliveryJobQueue {
  return unusedFanOutQueue(['urgent', 'info'], detailType);
}

/**
 * The port of queues the type never sends to: no URL to read, and a loud failure (not a silent
 * drop) if the fan-out ever does send there, which means `fanOutQueueNeeds` is wrong.
 */
export function unusedFanOutQueue(queues: readonly FanOutQueue[], detailType: string): { enqueue(message: unknown): Promise<void> } {
  const names = queues.join(' / ');
  const envVars = queues.map((queue) => FAN_OUT_QUEUE_URL_ENV[queue]).join(' / ');
  return {
    async enqueue() {
      throw new Error(
        `fan-out of ${detailType} sent to the ${names} queue, which fanOutQueueNeeds says it never uses: this function has no ${envVars} and no sqs:SendMessage on it (fix fanOutQueueNeeds in src/core/fanout-queues.ts)`,
      );
    },
  };
}

/** `scheduler`: the Scheduler port for `sendAt` (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeFanOut(parts: Parts, config: FanOutConfig, scheduler: Scheduler | undefined, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  const type = notificationTypeOf(config);
  const observed = observability(parts, config.idempotencyTable, observabilityConfig);
  return withAuditBarrier(parts, createFanOutHandler({
    trace: observed.trace,
    traced: observed.traced,
    afterBatch: observed.flush,
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
    notificationType: type,
    findType: findNotificationType,
    service: withAuditFlush(parts, fanOutService(parts, config, type)),
    ...(config.sendAt && scheduler
      ? { sendAt: new SendAtDeferral({ scheduler, intakeQueueArn: config.sendAt.intakeQueueArn, clock: parts.clock, minDelayMs: config.sendAt.minDelayMs }) }
      : {}),
    logger: parts.logger,
    persistenceStore: parts.once('idempotency-persistence', () =>
      new DynamoDBPersistenceLayer({
        tableName: config.idempotencyTable,
        keyAttr: tableSpecs.idempotency.partitionKey.name,
        expiryAttr: tableSpecs.idempotency.timeToLiveAttribute,
        awsSdkV3Client: dynamoClients(parts).dynamoClient,
      }),
    ),
  }));
}

export function fanOutFunction(env: Env) {
  const config = fanOutConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `fanout-${config.notificationType}` }) });
  installAuditTrailFromEnv(parts, env, config.idempotencyTable);
  return composeFanOut(parts, config, config.scheduler ? eventBridgeScheduler(parts, config.scheduler) : undefined, observabilityConfigFromEnv(env));
}

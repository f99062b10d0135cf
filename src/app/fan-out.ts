/**
 * The fan-out function of one catalog type (`NOTIFICATION_TYPE`): its config and its composition:
 * validation, idempotency, `sendAt` deferral, inbox writes and delivery / promotion jobs. Only the
 * queue URLs the type can send to are required (`fanOutQueueNeeds`, the derivation the CDK app
 * grants from); a queue it never uses gets a port that throws if called, so a wiring mistake fails loudly.
 */
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoArrivalLedger } from '../adapters/dynamo/arrival-ledger.js';
import { DynamoLateArrivalMarkers } from '../adapters/dynamo/late-arrival-markers.js';
import { DynamoRecentPostsLog } from '../adapters/dynamo/recent-posts-log.js';
import { SqsChannelJobQueue } from '../adapters/sqs/sqs-channel-job-queue.js';
import { SqsAlertJobQueue } from '../adapters/sqs/sqs-alert-job-queue.js';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { SqsPromotionQueue } from '../adapters/sqs/sqs-promotion-queue.js';
import { fanOutQueueNeeds, type FanOutQueue } from '../core/fanout/fanout-queues.js';
import { FanOutService } from '../core/fanout/fanout-service.js';
import { ErasureLookahead } from '../core/fanout/erasure-lookahead.js';
import { ArrivalLookahead } from '../core/fanout/arrival-lookahead.js';
import { LateArrivalMarking } from '../core/fanout/late-arrivals.js';
import { systemClock } from '../core/ports/clock.js';
import { RetractionService } from '../core/fanout/retraction.js';
import { SendAtDeferral, SEND_AT_MIN_DELAY_MS_DEFAULT } from '../core/fanout/send-at.js';
import { DEFAULT_FEED_SHARDS } from '../core/model/feed-shards.js';
import { INBOX_TTL_DAYS_DEFAULT } from '../core/model/notification.js';
import { DEFAULT_CELEBRITY_THRESHOLD } from '../core/model/tier.js';
import type { NotificationType } from '../core/ports/notification-type.js';
import type { DeliveryJobQueue } from '../core/ports/queues.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import type { TraceRecorder } from '../core/ports/trace.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import { ENV, FAN_OUT_QUEUE_URL_ENV, type Env } from '../env.js';
import { createFanOutHandler } from '../handlers/fanout-handler.js';
import { withAuditBarrier, withAuditFlush } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { findNotificationType } from '../notifications/deployed.js';
import { tableSpecs } from '../table-specs.js';
import { ConfigError, integer, optionalString, parseEnv, required } from './config-parsing.js';
import { followGraphRepository } from './follow-graph.js';
import { observability, observabilityConfigFromEnv, type ObservabilityConfig } from './parts-observability.js';
import { eventBridgeScheduler, sqsClient } from './parts-queues.js';
import { celebrityPostsLog, coalescedTables, createParts, documentClient, dynamoClients, erasedUsers, inboxRepository, referencingScheduler, preferencesCache, retractionRepository, type Parts } from './parts.js';
import { schedulerOf, schedulerShape, type PreferencesCacheConfig, type SchedulerConfig } from './shared-config.js';

export interface FanOutSettingsConfig {
  celebrityThreshold: number;
  feedShards: number;
  inboxTtlDays: number;
}

export interface FanOutConfig extends PreferencesCacheConfig {
  /** The catalog type this function serves (`NOTIFICATION_TYPE`). */
  notificationType: string;
  inboxTable: string;
  /** The ReadMarks table: late own items' markers (src/core/model/counts-floor.ts). */
  readMarksTable: string;
  idempotencyTable: string;
  settings: FanOutSettingsConfig;
  /** HMAC key of the delivery jobs this function sends (delivery drops jobs without a valid signature). */
  deliveryJobSecret: string;
  /** The URLs of the queues the type sends to (`fanOutQueueNeeds`); a missing one fails at composition. */
  queueUrls: { urgent?: string; info?: string; promotion?: string };
  /** Channel queues (`PUSH_QUEUE_URL`, `EMAIL_QUEUE_URL`, `SMS_QUEUE_URL`): a channel without one is off. */
  channelQueueUrls?: { push?: string; email?: string; sms?: string };
  /** The post alerts queue (`ALERTS_QUEUE_URL`): types with `followerAlerts` put one job per post there. */
  alertsQueueUrl?: string;
  /** Replaces every type's `escalation.afterSeconds` (`ESCALATION_DELAY_SECONDS`: local runs and tests; unset on AWS). */
  escalationDelaySeconds?: number;
  /** `sendAt`: the schedule target (this function's intake queue); `scheduler`: EventBridge Scheduler on AWS. */
  sendAt?: { intakeQueueArn: string; minDelayMs: number };
  scheduler?: SchedulerConfig;
}

const fanOutShape = {
  NOTIFICATION_TYPE: required,
  INBOX_TABLE: required,
  READ_MARKS_TABLE: required,
  GRAPH_TABLE: required,
  IDEMPOTENCY_TABLE: required,
  DELIVERY_JOB_SECRET: required,
  CELEBRITY_THRESHOLD: integer(DEFAULT_CELEBRITY_THRESHOLD, 1),
  FEED_SHARDS: integer(DEFAULT_FEED_SHARDS, 1),
  INBOX_TTL_DAYS: integer(INBOX_TTL_DAYS_DEFAULT, 1),
  PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
  URGENT_QUEUE_URL: optionalString,
  INFO_QUEUE_URL: optionalString,
  PROMOTION_QUEUE_URL: optionalString,
  PUSH_QUEUE_URL: optionalString,
  EMAIL_QUEUE_URL: optionalString,
  SMS_QUEUE_URL: optionalString,
  ESCALATION_DELAY_SECONDS: integer(0, 0),
  ALERTS_QUEUE_URL: optionalString,
};

/** The fan-out function: with `sendAt` deferral (the deployed function) or without (a test of the service). */
export function fanOutConfigFromEnv(env: Env, options: { sendAt: boolean } = { sendAt: true }): FanOutConfig {
  const sendAtShape = { INTAKE_QUEUE_ARN: required, SEND_AT_MIN_DELAY_MS: integer(SEND_AT_MIN_DELAY_MS_DEFAULT, 0), ...schedulerShape };
  const parsed = parseEnv('fan-out', { ...fanOutShape, ...(options.sendAt ? sendAtShape : {}) }, env);
  const config: FanOutConfig = {
    notificationType: parsed.NOTIFICATION_TYPE,
    inboxTable: parsed.INBOX_TABLE,
    readMarksTable: parsed.READ_MARKS_TABLE,
    graphTable: parsed.GRAPH_TABLE,
    idempotencyTable: parsed.IDEMPOTENCY_TABLE,
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    cacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
    settings: { celebrityThreshold: parsed.CELEBRITY_THRESHOLD, feedShards: parsed.FEED_SHARDS, inboxTtlDays: parsed.INBOX_TTL_DAYS },
    queueUrls: {
      ...(parsed.URGENT_QUEUE_URL ? { urgent: parsed.URGENT_QUEUE_URL } : {}),
      ...(parsed.INFO_QUEUE_URL ? { info: parsed.INFO_QUEUE_URL } : {}),
      ...(parsed.PROMOTION_QUEUE_URL ? { promotion: parsed.PROMOTION_QUEUE_URL } : {}),
    },
    ...(parsed.PUSH_QUEUE_URL || parsed.EMAIL_QUEUE_URL || parsed.SMS_QUEUE_URL
      ? { channelQueueUrls: { ...(parsed.PUSH_QUEUE_URL ? { push: parsed.PUSH_QUEUE_URL } : {}), ...(parsed.EMAIL_QUEUE_URL ? { email: parsed.EMAIL_QUEUE_URL } : {}), ...(parsed.SMS_QUEUE_URL ? { sms: parsed.SMS_QUEUE_URL } : {}) } }
      : {}),
    ...(parsed.ESCALATION_DELAY_SECONDS > 0 ? { escalationDelaySeconds: parsed.ESCALATION_DELAY_SECONDS } : {}),
    ...(parsed.ALERTS_QUEUE_URL ? { alertsQueueUrl: parsed.ALERTS_QUEUE_URL } : {}),
  };
  if (!options.sendAt) return config;
  const sendAt = parseEnv('fan-out (sendAt)', sendAtShape, env);
  return { ...config, sendAt: { intakeQueueArn: sendAt.INTAKE_QUEUE_ARN, minDelayMs: sendAt.SEND_AT_MIN_DELAY_MS }, scheduler: schedulerOf(sendAt) };
}

/** The catalog entry this function serves. */
export function notificationTypeOf(config: Pick<FanOutConfig, 'notificationType'>): NotificationType {
  const type = findNotificationType(config.notificationType);
  if (!type) throw new ConfigError(`${ENV.NOTIFICATION_TYPE} ${config.notificationType} is not in the catalog`);
  return type;
}

/** The fan-out's erasure reads, started by the handler while the idempotency record is written (one per Parts and table). */
function erasureLookahead(parts: Parts, idempotencyTable: string): ErasureLookahead {
  return parts.shared(erasureLookahead, [idempotencyTable], () => new ErasureLookahead(erasedUsers(parts, idempotencyTable)));
}

/** `trace`: the consumer's trace recorder (default: the Parts' one for the Idempotency table, as the composition builds it). */
export function fanOutService(parts: Parts, config: FanOutConfig, type: NotificationType, trace: TraceRecorder = observability(parts, { idempotencyTable: config.idempotencyTable, inboxTable: config.inboxTable }).trace): FanOutService {
  const needs = new Set(fanOutQueueNeeds(type));
  const missing = [...needs].filter((queue) => !config.queueUrls[queue]).map((queue) => FAN_OUT_QUEUE_URL_ENV[queue]);
  if (missing.length > 0) throw new ConfigError(`fan-out of ${type.detailType}: ${missing.join(', ')} is required`);
  const url = (queue: FanOutQueue) => config.queueUrls[queue]!;
  // Concurrent records' inbox writes, erasure checks and graph / preferences reads share requests.
  coalescedTables(parts, { inbox: config.inboxTable, graph: config.graphTable, idempotency: config.idempotencyTable });
  return new FanOutService({
    preferences: preferencesCache(parts, config),
    graph: followGraphRepository(parts, config.graphTable, config.settings.inboxTtlDays),
    // Own items written late also put a marker beside the user's marks, first (counts-floor.ts).
    inbox: new LateArrivalMarking(inboxRepository(parts, config.inboxTable), new DynamoLateArrivalMarkers(documentClient(parts), config.readMarksTable), systemClock),
    arrivals: arrivalLookahead(parts, config),
    // A retry whose earlier attempt wrote nothing is stamped anew (one BatchGetItem of its first items, on retries only).
    landed: inboxRepository(parts, config.inboxTable),
    logger: parts.logger,
    recentPosts: recentPostsLog(parts, config.inboxTable),
    celebrityPostsIndex: celebrityPostsLog(parts, config.inboxTable),
    deliveryQueue: needs.has('urgent') ? withChannels(parts, config, deliveryJobQueue(parts, config, needs)) : deliveryQueueNeverUsed(type.detailType),
    promotionQueue: needs.has('promotion') ? new SqsPromotionQueue(sqsClient(parts), url('promotion')) : unusedFanOutQueue(['promotion'], type.detailType),
    settings: config.settings,
    trace,
    erased: erasureLookahead(parts, config.idempotencyTable),
    ...(type.retraction ? { retractions: retractionService(parts, config, needs.has('urgent') ? deliveryJobQueue(parts, config, needs) : undefined) } : {}),
    ...(type.followerAlerts && config.alertsQueueUrl ? { alertQueue: new SqsAlertJobQueue(sqsClient(parts), config.alertsQueueUrl, config.deliveryJobSecret) } : {}),
  });
}

/**
 * The fan-out's arrival stamps, started by the handler beside the idempotency record (one per Parts,
 * table and TTL). The system clock, as the service's own stamps (the service is given no clock).
 */
function arrivalLookahead(parts: Parts, config: FanOutConfig): ArrivalLookahead {
  const ttlDays = config.settings.inboxTtlDays;
  return parts.shared(arrivalLookahead, [config.idempotencyTable, String(ttlDays)], () => new ArrivalLookahead(arrivalLedger(parts, config.idempotencyTable), { clock: systemClock, inboxTtlDays: ttlDays }));
}

function arrivalLedger(parts: Parts, idempotencyTable: string): DynamoArrivalLedger {
  return parts.shared(arrivalLedger, [idempotencyTable], () => new DynamoArrivalLedger(documentClient(parts), idempotencyTable));
}

/** The authors' recent posts logs (Inbox table), which a late follow backfills from. */
function recentPostsLog(parts: Parts, inboxTable: string): DynamoRecentPostsLog {
  return parts.shared(recentPostsLog, [inboxTable], () => new DynamoRecentPostsLog(documentClient(parts), inboxTable));
}

function idempotencyPersistence(parts: Parts, idempotencyTable: string): DynamoDBPersistenceLayer {
  return parts.shared(idempotencyPersistence, [idempotencyTable], () =>
    new DynamoDBPersistenceLayer({
      tableName: idempotencyTable,
      keyAttr: tableSpecs.idempotency.partitionKey.name,
      expiryAttr: tableSpecs.idempotency.timeToLiveAttribute,
      awsSdkV3Client: dynamoClients(parts).dynamoClient,
    }),
  );
}

/** The signed delivery jobs of this type, on the queues it needs (a retraction type: urgent only). */
function deliveryJobQueue(parts: Parts, config: FanOutConfig, needs: ReadonlySet<FanOutQueue>): SqsDeliveryJobQueue {
  const urls = { urgent: config.queueUrls.urgent!, ...(needs.has('info') ? { info: config.queueUrls.info! } : {}) };
  return new SqsDeliveryJobQueue(sqsClient(parts), urls, config.deliveryJobSecret);
}

/** Retraction types: the record goes to the Inbox table; `retracted` pushes go as urgent jobs to the delivery function. */
function retractionService(parts: Parts, config: FanOutConfig, deliveryQueue: DeliveryJobQueue | undefined): RetractionService {
  return new RetractionService({
    arrivals: arrivalLedger(parts, config.idempotencyTable),
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
  return new SqsChannelJobQueue(inApp, sqsClient(parts), urls, config.deliveryJobSecret, findNotificationType, { clock: parts.clock, ...(config.escalationDelaySeconds !== undefined ? { escalationDelaySeconds: config.escalationDelaySeconds } : {}) });
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
        `fan-out of ${detailType} sent to the ${names} queue, which fanOutQueueNeeds says it never uses: this function has no ${envVars} and no sqs:SendMessage on it (fix fanOutQueueNeeds in src/core/fanout/fanout-queues.ts)`,
      );
    },
  };
}

/** `scheduler`: the Scheduler port for `sendAt` (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeFanOut(parts: Parts, config: FanOutConfig, scheduler: Scheduler | undefined, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  const type = notificationTypeOf(config);
  const observed = observability(parts, { idempotencyTable: config.idempotencyTable, inboxTable: config.inboxTable }, observabilityConfig);
  return withAuditBarrier(parts, createFanOutHandler({
    trace: observed.trace,
    traced: observed.traced,
    afterBatch: observed.flush,
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
    notificationType: type,
    findType: findNotificationType,
    service: withAuditFlush(parts, fanOutService(parts, config, type, observed.trace)),
    erasureLookahead: erasureLookahead(parts, config.idempotencyTable),
    arrivalLookahead: arrivalLookahead(parts, config),
    ...(config.sendAt && scheduler
      ? {
          sendAt: new SendAtDeferral({
            scheduler: referencingScheduler(parts, config.idempotencyTable, scheduler),
            erased: erasedUsers(parts, config.idempotencyTable),
            intakeQueueArn: config.sendAt.intakeQueueArn,
            clock: parts.clock,
            minDelayMs: config.sendAt.minDelayMs,
          }),
        }
      : {}),
    logger: parts.logger,
    persistenceStore: idempotencyPersistence(parts, config.idempotencyTable),
  }));
}

export function fanOutFunction(env: Env) {
  const config = fanOutConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `fanout-${config.notificationType}` }) });
  installAuditTrailFromEnv(parts, env, config.idempotencyTable);
  return composeFanOut(parts, config, config.scheduler ? eventBridgeScheduler(parts, config.scheduler) : undefined, observabilityConfigFromEnv(env));
}

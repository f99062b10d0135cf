/**
 * The local event pipeline, wired like the CDK app: EventBridge bus -> the intake lanes of each
 * catalog type (a standard intake queue (+DLQ), and an urgent one (+DLQ) for a type whose events can
 * be urgent, routed by the same rule patterns: src/notifications/intake-lanes.ts), both consumed by
 * the type's one fan-out consumer -> urgent / info delivery queues (+DLQs), and the promotion
 * queue (+DLQ) with its consumer. The consumers are the compositions of src/app; the fan-out code
 * talks to the queues through the real SQS SDK against the local HTTP server, and to DynamoDB
 * through dynalite.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT, LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT, type LocalSettings } from './settings.js';
import { principalOf, queueConsumer, type AwsCallRecorder } from './aws-calls/call-recorder.js';
import { deployedCatalog, findNotificationType } from '../notifications/deployed.js';
import { intakeLanesOf } from '../notifications/intake-lanes.js';
import { PRIVACY_REQUEST_DETAIL_TYPES } from '../core/privacy/privacy-jobs.js';
import { LOCAL_REGION } from './embedded-dynamo.js';
import type { LocalEventArchive } from './eventbridge/archive.js';
import { LocalBusRules, type LocalBusRule } from './eventbridge/bus-rules.js';
import { createEventBusRoute } from './eventbridge/put-events.js';
import type { LocalFunctionSet } from './function-set.js';
import type { LocalRoute } from './http/router.js';
import { LocalQueue, LocalQueueRegistry, createSqsRoute, loadLocalSqsCredentials, type ConsumerOptions, type LocalSqsCredentials } from './sqs/index.js';

/** The local queues, for tests and for the live-delivery consumers (attach to `urgent` / `info`). */
export interface LocalPipelineQueues {
  urgent: LocalQueue;
  info: LocalQueue;
  promotion: LocalQueue;
  /** Channel queues (+DLQs): mobile push (SNS) and email (SES). */
  push: LocalQueue;
  email: LocalQueue;
  /** SMS (End User Messaging SMS). */
  sms: LocalQueue;
  /** Post alerts (+DLQ): one page of a post's alert subscribers per job, consumed by the push function. */
  alerts: LocalQueue;
  /** The standard intake queue of each notification type, by detail-type. */
  intake: Record<string, LocalQueue>;
  /** The urgent intake queue of each type whose events can be urgent, by detail-type. */
  urgentIntake: Record<string, LocalQueue>;
  /** The bus's rules (the privacy job's, each type's intake lanes), as the stack defines them. */
  busRules: LocalBusRules;
  /** Erase and export jobs (`user.erased`, `user.export.requested`, operator messages). */
  privacy: LocalQueue;
  /** The audit trail's backlog (+DLQ): what the archive could not take yet (src/local/audit/). */
  auditBacklog: LocalQueue;
  registry: LocalQueueRegistry;
  /** The SigV4 credentials the local SQS endpoint requires (kept in the queue directory); the runtime's SQS clients sign with them. */
  sqsCredentials: LocalSqsCredentials;
}

export interface LocalPipelineQueueOptions {
  /** The local HTTP server's URL: the SQS endpoint the queue URLs point at. */
  httpEndpoint: string;
  settings: LocalSettings;
  logger: Logger;
  /** Directory of the queue journals (durable queues, DATA_DIR/queues); without it the queues are in memory. */
  queueDir?: string;
}

/** The queues' visibility timeout is VISIBILITY_FACTOR times the local function timeout, as the CDK app derives it on AWS. */
export const VISIBILITY_FACTOR = 6;
export const DEFAULT_LOCAL_VISIBILITY_TIMEOUT_MS = VISIBILITY_FACTOR * LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT;
export const DEFAULT_LOCAL_MAX_RECEIVE_COUNT = 5;

/** Every queue of the pipeline (each with its DLQ), before any consumer: the configs need their URLs. */
export function createLocalPipelineQueues(options: LocalPipelineQueueOptions): LocalPipelineQueues {
  const { settings, logger } = options;
  const registry = new LocalQueueRegistry();
  const functionTimeoutMs = settings.functionTimeoutMs ?? LOCAL_FUNCTION_TIMEOUT_MS_DEFAULT;
  const visibilityTimeoutMs = settings.queueVisibilityTimeoutMs ?? VISIBILITY_FACTOR * functionTimeoutMs;
  const maxReceiveCount = settings.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT;
  const onError = (error: unknown) => logger.error('local consumer invocation failed', { error: error as Error });
  const journalDir = options.queueDir;
  const onDeadLetter = (moved: { queue: string; deadLetterQueue: string; messageIds: string[]; reason: string }) =>
    logger.warn('messages dead-lettered; inspect and redrive with npm run dlq', { ...moved, count: moved.messageIds.length });
  const queueWithDlq = (name: string, consumerDefaults: ConsumerOptions = {}) => {
    const deadLetterQueue = registry.add(new LocalQueue({ name: `${name}-dlq`, baseUrl: options.httpEndpoint, region: LOCAL_REGION, visibilityTimeoutMs, functionTimeoutMs, journalDir, onError }));
    return registry.add(
      new LocalQueue({ name, baseUrl: options.httpEndpoint, region: LOCAL_REGION, visibilityTimeoutMs, functionTimeoutMs, maxReceiveCount, deadLetterQueue, consumerDefaults, journalDir, onError, onDeadLetter }),
    );
  };

  const intake: Record<string, LocalQueue> = {};
  const urgentIntake: Record<string, LocalQueue> = {};
  const privacy = queueWithDlq('PrivacyJobs', { batchSize: 1, functionName: 'privacy-job' });
  // The privacy job's rule (user.erased, user.export.requested), then each catalog type's lanes.
  const rules: LocalBusRule[] = [{ name: 'PrivacyJobsRequests', pattern: { 'detail-type': PRIVACY_REQUEST_DETAIL_TYPES }, queue: privacy }];
  for (const type of deployedCatalog()) {
    for (const lane of intakeLanesOf(type)) {
      const queue = queueWithDlq(lane.queueName);
      (lane.lane === 'urgent' ? urgentIntake : intake)[type.detailType] = queue;
      rules.push({ name: lane.ruleId, pattern: lane.pattern, queue });
    }
  }

  return {
    // Urgent: no batching window. Info: the batching window collapses several jobs per user.
    urgent: queueWithDlq('UrgentDelivery', { batchSize: 10, batchingWindowMs: 0, functionName: 'delivery-urgent' }),
    info: queueWithDlq('InfoDelivery', { batchSize: 100, batchingWindowMs: settings.infoBatchWindowMs, functionName: 'delivery-info' }),
    promotion: queueWithDlq('Promotion', { batchSize: 1, functionName: 'celebrity-promotion' }),
    // Push goes at once; email gathers a window so a burst becomes one digest. Concurrency per channel bounds the provider's load.
    push: queueWithDlq('PushDelivery', { batchSize: 10, batchingWindowMs: 0, maxConcurrency: 4, functionName: 'channel-push' }),
    // Post alerts: one job (a page of <= 1,000 devices) per invocation, as on AWS.
    alerts: queueWithDlq('PostAlerts', { batchSize: 1, batchingWindowMs: 0, maxConcurrency: 4, functionName: 'channel-push' }),
    email: queueWithDlq('EmailDelivery', { batchSize: 100, batchingWindowMs: settings.channelBatchWindowMs ?? LOCAL_CHANNEL_BATCH_WINDOW_MS_DEFAULT, maxConcurrency: 2, functionName: 'channel-email' }),
    sms: queueWithDlq('SmsDelivery', { batchSize: 10, batchingWindowMs: 0, maxConcurrency: 2, functionName: 'channel-sms' }),
    intake,
    urgentIntake,
    busRules: new LocalBusRules(rules),
    privacy,
    auditBacklog: queueWithDlq('AuditBacklog', { batchSize: 10, functionName: 'audit-drain' }),
    registry,
    sqsCredentials: loadLocalSqsCredentials(journalDir),
  };
}

/** The fan-out consumer of each type's intake lanes (one function for both) and the promotion consumer, composed as on AWS. */
export function attachPipelineConsumers(queues: LocalPipelineQueues, functions: LocalFunctionSet, recorder?: AwsCallRecorder): void {
  for (const type of deployedCatalog()) {
    const standard = queues.intake[type.detailType]!;
    const handler = functions.fanOut(type.detailType, standard.maxReceiveCount ?? DEFAULT_LOCAL_MAX_RECEIVE_COUNT);
    const urgent = queues.urgentIntake[type.detailType];
    for (const intake of urgent ? [standard, urgent] : [standard]) {
      intake.attachConsumer(queueConsumer(recorder, principalOf('fanout', type.detailType), intake.name, handler), { batchSize: 10, functionName: `fanout-${type.detailType}` });
    }
  }
  queues.promotion.attachConsumer(queueConsumer(recorder, principalOf('celebrity-promotion'), queues.promotion.name, functions.promotion()));
}

/** PutEvents and the SQS API, served by the local HTTP server. */
/** `serverHost`: the host the HTTP server listens on (the SQS endpoint answers callers on this machine only). `intake`: PutEvents back-pressure (0s: off). */
export function localPipelineRoutes(queues: LocalPipelineQueues, busName: string, serverHost: string, logger: Logger, intake: { backlogLimit: number; backlogSeconds: number }, archive?: LocalEventArchive): LocalRoute[] {
  return [
    createEventBusRoute({
      ...(archive ? { archive } : {}),
      busName,
      region: LOCAL_REGION,
      findType: findNotificationType,
      rules: queues.busRules,
      intakeBacklogLimit: intake.backlogLimit,
      intakeBacklogSeconds: intake.backlogSeconds,
      logger,
    }),
    createSqsRoute(queues.registry, { credentials: queues.sqsCredentials, serverHost }),
  ];
}

export function closeLocalPipelineQueues(queues: LocalPipelineQueues): void {
  for (const queue of queues.registry.all()) queue.close();
}

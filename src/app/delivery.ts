/**
 * The delivery function, the consumer of one priority queue (`DELIVERY_MODE`): its config and its
 * composition: live delivery through the gate (preferences, quiet hours, rate limit), and the
 * releaser of held pushes when their release schedule fires. The local runtime composes both modes
 * on one `Parts`, so they share the gate, its preferences cache, the connection repository and the ledger.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import { LiveHoldRepository } from '../adapters/dynamo/live-hold-repository.js';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { CONNECTIONS_PER_JOB, prioritySchema, type Priority } from '../core/jobs/delivery-job.js';
import { LiveDelivery } from '../core/live/live-delivery.js';
import { HeldPushReleaser, LiveDeliveryGate } from '../core/live/live-gate.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import type { TraceRecorder } from '../core/ports/trace.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT, RATE_LIMIT_WINDOW_MS } from '../core/preferences/delivery-policy.js';
import { PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences/preferences-cache.js';
import type { Env } from '../env.js';
import { createDeliveryHandler } from '../handlers/delivery-handler.js';
import { integer, optionalInteger, optionalString, parseEnv, required, unsetIfEmpty, url, ConfigError } from './config-parsing.js';
import { observability, observabilityConfigFromEnv, type ObservabilityConfig } from './parts-observability.js';
import { connectionPusher } from './parts-live.js';
import { eventBridgeScheduler, sqsClient } from './parts-queues.js';
import { withAuditBarrier } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { catalogLinksOf, connectionRepository, createParts, deliveryLedger, documentClient, erasedUsers, inboxRepository, isDigestible, preferencesCache, referencingScheduler, retractionRepository, urgentBypassesQuietHours, type Parts } from './parts.js';
import { connectionsOf, connectionsShape, schedulerOf, schedulerShape, type ConnectionsConfig, type PreferencesCacheConfig, type SchedulerConfig } from './shared-config.js';

export interface LiveGateConfig extends PreferencesCacheConfig {
  idempotencyTable: string;
  /** Where release schedules deliver held pushes: the urgent delivery queue (no batching window). */
  releaseQueueArn: string;
  /** Live pushes per user per window (0 = off) and the window (a minute unless a test shortens it). */
  rateLimitPerWindow: number;
  rateLimitWindowMs: number;
}

export interface LiveDeliveryConfig extends ConnectionsConfig {
  idempotencyTable: string;
  /** The recipients' trace partitions and the items a held push refers to. */
  inboxTable: string;
  deliveryRecordTtlSeconds?: number;
  parallelism: number;
  /**
   * Celebrity posts in bounded shard/page jobs put back on the consumer's own queue (a job keeps its
   * priority, so the urgent consumer only ever sends to the urgent queue and the info one to the
   * info queue); without it one job pages every online subscriber.
   */
  celebrityJobs?: { queueUrl: string; connectionsPerJob: number };
}

export interface DeliveryConfig {
  mode: z.infer<typeof prioritySchema>;
  /** The Inbox table, read only for the tenant's retractions before a snooze comeback is pushed (absent: comebacks are pushed unchecked). */
  inboxTable?: string;
  /** HMAC key the fan-out signs delivery jobs with: a job without a valid signature is dropped, never pushed. */
  deliveryJobSecret: string;
  /** HMAC key of snooze comebacks (`SNOOZE_JOB_SECRET`, the urgent consumer only): valid for a one-recipient comeback job only. */
  snoozeJobSecret?: string;
  managementEndpoint: string;
  delivery: LiveDeliveryConfig;
  gate: LiveGateConfig;
}

export const DELIVERY_PARALLELISM_DEFAULT = 16;

/** The queue URL of the consumer's own priority (`URGENT_QUEUE_URL` or `INFO_QUEUE_URL`): the only one it sends to. */
function ownQueueUrl(mode: Priority, env: { URGENT_QUEUE_URL?: string | undefined; INFO_QUEUE_URL?: string | undefined }): string {
  const url = mode === 'urgent' ? env.URGENT_QUEUE_URL : env.INFO_QUEUE_URL;
  if (!url) throw new ConfigError(`delivery: ${mode === 'urgent' ? 'URGENT_QUEUE_URL' : 'INFO_QUEUE_URL'} is required`);
  return url;
}

/** With the EventBridge Scheduler of held pushes (the local runtime passes its own scheduler). */
export function deliveryConfigFromEnv(env: Env): DeliveryConfig & { scheduler: SchedulerConfig } {
  const parsed = parseEnv(
    'delivery',
    {
      DELIVERY_MODE: z.preprocess(unsetIfEmpty, prioritySchema),
      DELIVERY_JOB_SECRET: required,
      SNOOZE_JOB_SECRET: optionalString,
      WS_MANAGEMENT_ENDPOINT: url,
      ...connectionsShape,
      IDEMPOTENCY_TABLE: required,
      INBOX_TABLE: required,
      GRAPH_TABLE: required,
      RELEASE_QUEUE_ARN: required,
      PREFERENCES_CACHE_TTL_MS: integer(PREFERENCES_CACHE_TTL_MS_DEFAULT, 0),
      RATE_LIMIT_PER_MINUTE: integer(RATE_LIMIT_PER_MINUTE_DEFAULT, 0),
      RATE_LIMIT_WINDOW_MS: integer(RATE_LIMIT_WINDOW_MS, 1),
      DELIVERY_RECORD_TTL_SECONDS: optionalInteger(1),
      DELIVERY_PARALLELISM: integer(DELIVERY_PARALLELISM_DEFAULT, 1),
      URGENT_QUEUE_URL: optionalString,
      INFO_QUEUE_URL: optionalString,
      CONNECTIONS_PER_JOB: integer(CONNECTIONS_PER_JOB, 1),
      ...schedulerShape,
    },
    env,
  );
  return {
    mode: parsed.DELIVERY_MODE,
    ...(parsed.INBOX_TABLE !== undefined ? { inboxTable: parsed.INBOX_TABLE } : {}),
    deliveryJobSecret: parsed.DELIVERY_JOB_SECRET,
    ...(parsed.SNOOZE_JOB_SECRET ? { snoozeJobSecret: parsed.SNOOZE_JOB_SECRET } : {}),
    managementEndpoint: parsed.WS_MANAGEMENT_ENDPOINT,
    delivery: {
      ...connectionsOf(parsed),
      idempotencyTable: parsed.IDEMPOTENCY_TABLE,
      inboxTable: parsed.INBOX_TABLE,
      ...(parsed.DELIVERY_RECORD_TTL_SECONDS !== undefined ? { deliveryRecordTtlSeconds: parsed.DELIVERY_RECORD_TTL_SECONDS } : {}),
      parallelism: parsed.DELIVERY_PARALLELISM,
      celebrityJobs: { queueUrl: ownQueueUrl(parsed.DELIVERY_MODE, parsed), connectionsPerJob: parsed.CONNECTIONS_PER_JOB },
    },
    gate: {
      graphTable: parsed.GRAPH_TABLE,
      cacheTtlMs: parsed.PREFERENCES_CACHE_TTL_MS,
      idempotencyTable: parsed.IDEMPOTENCY_TABLE,
      releaseQueueArn: parsed.RELEASE_QUEUE_ARN,
      rateLimitPerWindow: parsed.RATE_LIMIT_PER_MINUTE,
      rateLimitWindowMs: parsed.RATE_LIMIT_WINDOW_MS,
    },
    scheduler: schedulerOf(parsed),
  };
}

/** `scheduler`: where held pushes schedule their release (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeDelivery(parts: Parts, config: DeliveryConfig, scheduler: Scheduler, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  const observed = observability(parts, { idempotencyTable: config.delivery.idempotencyTable, inboxTable: config.delivery.inboxTable }, observabilityConfig);
  const gate = liveGate(parts, config.gate, config.delivery.inboxTable, referencingScheduler(parts, config.gate.idempotencyTable, scheduler), observed.trace);
  return withAuditBarrier(parts, createDeliveryHandler({
    delivery: liveDelivery(parts, config, gate, observed.trace),
    // Shares the gate (and its cache) with delivery.
    releaser: heldPushReleaser(parts, config, gate),
    mode: config.mode,
    logger: parts.logger,
    deliveryJobSecret: config.deliveryJobSecret,
    ...(config.snoozeJobSecret ? { snoozeJobSecret: config.snoozeJobSecret } : {}),
    // Snooze comebacks arrive as references to the user's item: read back here.
    items: inboxRepository(parts, config.delivery.inboxTable),
    clock: () => parts.clock.nowMs(),
    trace: observed.trace,
    afterBatch: observed.flush,
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
  }));
}

/** One per Parts for both modes (their delivery settings are the same): the urgent and the info consumer share it. */
function liveDelivery(parts: Parts, config: DeliveryConfig, gate: LiveDeliveryGate, trace: TraceRecorder): LiveDelivery {
  return parts.shared(liveDelivery, [config.managementEndpoint, config.deliveryJobSecret, config.delivery, gate, trace], () => {
    const directory = connectionRepository(parts, config.delivery);
    const ledger = deliveryLedger(parts, config.delivery);
    const celebrityJobs = config.delivery.celebrityJobs;
    return new LiveDelivery({
      gate,
      directory,
      ledger,
      // Celebrity posts: shard, next-page and put-back jobs go back onto the delivery queues (signed like fan-out's).
      ...(celebrityJobs
        ? {
            celebrityJobs: {
              subscribers: directory,
              steps: ledger,
              queue: new SqsDeliveryJobQueue(sqsClient(parts), { [config.mode]: celebrityJobs.queueUrl }, config.deliveryJobSecret),
              connectionsPerJob: celebrityJobs.connectionsPerJob,
            },
          }
        : {}),
      pusher: connectionPusher(parts, config.managementEndpoint),
      isDigestible,
      trace,
      erased: erasedUsers(parts, config.delivery.idempotencyTable),
      // A snooze comeback of a retracted event is not pushed (one Query of the tenant's retractions per comeback batch).
      ...(config.inboxTable !== undefined ? { retractions: retractionRepository(parts, config.inboxTable), clock: parts.clock } : {}),
      parallelism: config.delivery.parallelism,
      onError: (message, error, context) => parts.logger.warn(message, { ...context, error: error as Error }),
    });
  });
}

function heldPushReleaser(parts: Parts, config: DeliveryConfig, gate: LiveDeliveryGate): HeldPushReleaser {
  return parts.shared(heldPushReleaser, [config.managementEndpoint, config.delivery, gate], () =>
    new HeldPushReleaser({
      gate,
      directory: connectionRepository(parts, config.delivery),
      ledger: deliveryLedger(parts, config.delivery),
      pusher: connectionPusher(parts, config.managementEndpoint),
      erased: erasedUsers(parts, config.delivery.idempotencyTable),
    }),
  );
}

function liveGate(parts: Parts, config: LiveGateConfig, inboxTable: string, scheduler: Scheduler, trace: TraceRecorder): LiveDeliveryGate {
  return parts.shared(liveGate, [config, inboxTable, scheduler, trace], () =>
    new LiveDeliveryGate({
      // A hold keeps references: the release reads the items back (own inbox or celebrity posts log).
      items: inboxRepository(parts, inboxTable),
      linksOf: catalogLinksOf,
      preferences: preferencesCache(parts, config),
      holds: new LiveHoldRepository(documentClient(parts), config.idempotencyTable),
      scheduler,
      releaseQueueArn: config.releaseQueueArn,
      clock: parts.clock,
      settings: { rateLimitPerWindow: config.rateLimitPerWindow, rateLimitWindowMs: config.rateLimitWindowMs },
      urgentBypassesQuietHours,
      onEvent: (message, context) => parts.logger.debug(message, context),
      trace,
    }),
  );
}

export function deliveryFunction(env: Env) {
  const config = deliveryConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `delivery-${config.mode}` }) });
  installAuditTrailFromEnv(parts, env, config.gate.idempotencyTable);
  return composeDelivery(parts, config, eventBridgeScheduler(parts, config.scheduler), observabilityConfigFromEnv(env));
}

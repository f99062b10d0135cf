/**
 * Composition of the delivery function, the consumer of one priority queue (`DELIVERY_MODE`):
 * live delivery through the gate (preferences, quiet hours, rate limit), and the releaser of held
 * pushes when their release schedule fires. The local runtime composes both modes on one `Parts`,
 * so they share the gate, its preferences cache, the connection repository and the ledger.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { LiveHoldRepository } from '../adapters/dynamo/live-hold-repository.js';
import { SqsDeliveryJobQueue } from '../adapters/sqs/sqs-delivery-job-queue.js';
import { LiveDelivery } from '../core/live-delivery.js';
import { HeldPushReleaser, LiveDeliveryGate } from '../core/live-gate.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { createDeliveryHandler } from '../handlers/delivery-handler.js';
import { deliveryConfigFromEnv, observabilityConfigFromEnv, type DeliveryConfig, type Env, type LiveGateConfig, type ObservabilityConfig } from './config.js';
import { observability } from './parts-observability.js';
import { withAuditBarrier } from './audit/audit-trail.js';
import { installAuditTrailFromEnv } from './audit/aws.js';
import { connectionPusher } from './parts-live.js';
import { eventBridgeScheduler, sqsClient } from './parts-queues.js';
import { connectionRepository, createParts, deliveryLedger, documentClient, isDigestible, preferencesCache, urgentBypassesQuietHours, type Parts } from './parts.js';

/** `scheduler`: where held pushes schedule their release (EventBridge Scheduler on AWS, the local scheduler locally). */
export function composeDelivery(parts: Parts, config: DeliveryConfig, scheduler: Scheduler, observabilityConfig: Partial<ObservabilityConfig> = {}) {
  const observed = observability(parts, config.gate.idempotencyTable, observabilityConfig);
  const directory = connectionRepository(parts, config.delivery);
  const ledger = deliveryLedger(parts, config.delivery);
  const pusher = connectionPusher(parts, config.managementEndpoint);
  const gate = liveGate(parts, config.gate, scheduler);
  const celebrityJobs = config.delivery.celebrityJobs;
  const delivery = parts.once('live-delivery', () =>
    new LiveDelivery({
      gate,
      directory,
      ledger,
      // Celebrity posts: shard, next-page and put-back jobs go back onto the delivery queues (signed like fan-out's).
      ...(celebrityJobs
        ? {
            celebrityJobs: {
              subscribers: directory,
              steps: ledger,
              queue: new SqsDeliveryJobQueue(sqsClient(parts), { urgent: celebrityJobs.urgentQueueUrl, info: celebrityJobs.infoQueueUrl }, config.deliveryJobSecret),
              connectionsPerJob: celebrityJobs.connectionsPerJob,
            },
          }
        : {}),
      pusher,
      isDigestible,
      trace: observed.trace,
      parallelism: config.delivery.parallelism,
      onError: (message, error, context) => parts.logger.warn(message, { ...context, error: error as Error }),
    }),
  );
  // Shares the gate (and its cache) with delivery.
  const releaser = parts.once('held-push-releaser', () => new HeldPushReleaser({ gate, directory, ledger, pusher }));
  return withAuditBarrier(parts, createDeliveryHandler({
    delivery,
    releaser,
    mode: config.mode,
    logger: parts.logger,
    deliveryJobSecret: config.deliveryJobSecret,
    trace: observed.trace,
    afterBatch: observed.flush,
    ...(observabilityConfig.maxReceiveCount !== undefined ? { maxReceiveCount: observabilityConfig.maxReceiveCount } : {}),
  }));
}

function liveGate(parts: Parts, config: LiveGateConfig, scheduler: Scheduler): LiveDeliveryGate {
  return parts.once('live-gate', () =>
    new LiveDeliveryGate({
      preferences: preferencesCache(parts, config),
      holds: new LiveHoldRepository(documentClient(parts), config.idempotencyTable),
      scheduler,
      releaseQueueArn: config.releaseQueueArn,
      clock: parts.clock,
      settings: { rateLimitPerWindow: config.rateLimitPerWindow, rateLimitWindowMs: config.rateLimitWindowMs },
      urgentBypassesQuietHours,
      onEvent: (message, context) => parts.logger.debug(message, context),
      trace: observability(parts, config.idempotencyTable).trace,
    }),
  );
}

export function deliveryFunction(env: Env) {
  const config = deliveryConfigFromEnv(env);
  const parts = createParts({ logger: new Logger({ serviceName: `delivery-${config.mode}` }) });
  installAuditTrailFromEnv(parts, env, config.gate.idempotencyTable);
  return composeDelivery(parts, config, eventBridgeScheduler(parts, config.scheduler), observabilityConfigFromEnv(env));
}


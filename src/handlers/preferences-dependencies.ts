/**
 * Dependencies of preferences, schedules and held live pushes, built from environment variables
 * once per container (Lambda) or once per runtime (local). Env names are the ones the CDK app sets.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SchedulerClient } from '@aws-sdk/client-scheduler';
import type { Logger } from '@aws-lambda-powertools/logger';
import { corsAllowOriginsFromEnv, intEnv, requireEnv, tableNameFromEnv } from '../config.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { CachedPreferencesReader, PREFERENCES_CACHE_TTL_MS_DEFAULT } from '../core/preferences-cache.js';
import { PreferencesRepository } from '../adapters/dynamo/preferences-repository.js';
import { EventBridgeScheduler } from '../adapters/scheduler/eventbridge-scheduler.js';
import { DEFAULT_TENANT_CLAIM } from '../adapters/jwt-verifier.js';
import { catalog, findNotificationType } from '../notifications/index.js';
import { LiveDeliveryGate } from '../core/live-gate.js';
import type { MutedTypesReader } from '../core/ports/inbox.js';
import { RATE_LIMIT_PER_MINUTE_DEFAULT, RATE_LIMIT_WINDOW_MS } from '../core/live-delivery-policy.js';
import { LiveHoldRepository } from '../adapters/dynamo/live-hold-repository.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { SEND_AT_MIN_DELAY_MS_DEFAULT, SendAtDeferral } from '../core/send-at.js';
import type { PreferencesApiDeps } from './rest/preferences-api.js';

/** The types a user can mute or switch to inbox-only: every catalog type that produces notifications. */
export function notifyingTypes(): string[] {
  return catalog.filter((type) => type.audience !== 'none').map((type) => type.detailType);
}

export function preferencesRepositoryFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient): PreferencesRepository {
  return new PreferencesRepository(client, tableNameFromEnv('graph', env));
}

export function preferencesApiDepsFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger: Logger, clock: Clock = systemClock): PreferencesApiDeps {
  return {
    store: preferencesRepositoryFromEnv(env, client),
    knownTypes: notifyingTypes(),
    tenantClaim: env.TENANT_CLAIM || DEFAULT_TENANT_CLAIM,
    corsAllowOrigins: corsAllowOriginsFromEnv(env),
    clock,
    logger,
  };
}

/** `PREFERENCES_CACHE_TTL_MS` (default 30 s): how long fan-out and delivery trust a read. */
export function cachedPreferencesReaderFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger?: Logger, clock: Clock = systemClock): CachedPreferencesReader {
  return new CachedPreferencesReader(preferencesRepositoryFromEnv(env, client), clock, {
    ttlMs: intEnv('PREFERENCES_CACHE_TTL_MS', PREFERENCES_CACHE_TTL_MS_DEFAULT, env),
    onError: (error, tenantId, userCount) => logger?.warn('preferences read failed; failing closed', { tenantId, userCount, error: error as Error }),
  });
}

/** `SCHEDULE_GROUP_NAME`, `SCHEDULER_ROLE_ARN`, optional `SCHEDULER_DLQ_ARN`. */
export function eventBridgeSchedulerFromEnv(env: NodeJS.ProcessEnv, client: SchedulerClient): EventBridgeScheduler {
  return new EventBridgeScheduler(client, {
    groupName: requireEnv('SCHEDULE_GROUP_NAME', env),
    roleArn: requireEnv('SCHEDULER_ROLE_ARN', env),
    ...(env.SCHEDULER_DLQ_ARN ? { deadLetterArn: env.SCHEDULER_DLQ_ARN } : {}),
  });
}

/** `SEND_AT_MIN_DELAY_MS` (default 60 s) and `INTAKE_QUEUE_ARN` (the schedule target: this function's intake queue). */
export function sendAtDeferralFromEnv(env: NodeJS.ProcessEnv, scheduler: Scheduler, clock: Clock = systemClock): SendAtDeferral {
  return new SendAtDeferral({
    scheduler,
    intakeQueueArn: requireEnv('INTAKE_QUEUE_ARN', env),
    clock,
    minDelayMs: intEnv('SEND_AT_MIN_DELAY_MS', SEND_AT_MIN_DELAY_MS_DEFAULT, env),
  });
}

/** Catalog rule: an urgent notification bypasses quiet hours unless its type says otherwise. */
export function urgentBypassesQuietHours(type: string): boolean {
  return findNotificationType(type)?.urgentBypassesQuietHours ?? true;
}

/**
 * The live-delivery gate. Env: `IDEMPOTENCY_TABLE` (counters, holds), `GRAPH_TABLE` (preferences),
 * `RELEASE_QUEUE_ARN` (where release schedules deliver: the urgent delivery queue),
 * `RATE_LIMIT_PER_MINUTE` (default 30, 0 = off), `RATE_LIMIT_WINDOW_MS` (default 60000), `PREFERENCES_CACHE_TTL_MS`.
 */
export function liveGateFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, scheduler: Scheduler, logger: Logger, clock: Clock = systemClock): LiveDeliveryGate {
  return new LiveDeliveryGate({
    preferences: cachedPreferencesReaderFromEnv(env, client, logger, clock),
    holds: new LiveHoldRepository(client, tableNameFromEnv('idempotency', env)),
    scheduler,
    releaseQueueArn: requireEnv('RELEASE_QUEUE_ARN', env),
    clock,
    settings: {
      rateLimitPerWindow: intEnv('RATE_LIMIT_PER_MINUTE', RATE_LIMIT_PER_MINUTE_DEFAULT, env),
      // Tests shorten the window; deployments keep the minute.
      rateLimitWindowMs: intEnv('RATE_LIMIT_WINDOW_MS', RATE_LIMIT_WINDOW_MS, env),
    },
    urgentBypassesQuietHours,
    onEvent: (message, context) => logger.debug(message, context),
  });
}

/**
 * Muted types for the inbox read (celebrity feeds are filtered at read time). Unreadable preferences
 * mute nothing: the inbox shows everything rather than hide notifications.
 */
export function mutedTypesReaderFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger?: Logger): MutedTypesReader {
  const reader = cachedPreferencesReaderFromEnv(env, client, logger);
  return {
    async mutedTypesOf(user) {
      const lookup = await reader.getOne(user.tenantId, user.userId);
      return lookup.status === 'unreadable' ? [] : lookup.preferences.mutedTypes;
    },
  };
}

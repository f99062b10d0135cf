/**
 * Dependencies of live delivery (WebSocket routes, delivery consumers, read-state sync), built from
 * environment variables once per container; the local runtime calls the same functions.
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '@aws-lambda-powertools/logger';
import { ApiGatewayConnectionPusher, createManagementApiClient } from '../adapters/connection-pusher.js';
import { ConnectionRepository, HANDSHAKE_GRACE_SECONDS } from '../adapters/dynamo/connection-repository.js';
import { DELIVERY_RECORD_TTL_SECONDS, DynamoDeliveryLedger } from '../adapters/dynamo/delivery-ledger.js';
import { GraphRepository } from '../adapters/dynamo/graph-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { intEnv, requireEnv, tableNameFromEnv, ConfigError } from '../config.js';
import { CONNECTIONS_PER_JOB, prioritySchema, type DeliveryJobQueue, type Priority } from '../core/delivery-job.js';
import { LiveDelivery } from '../core/live-delivery.js';
import { HeldPushReleaser, type LiveDeliveryGate } from '../core/live-gate.js';
import type { ReadStateListener, UserRef } from '../core/ports.js';
import { ReadStateSync } from '../core/read-state-sync.js';
import { findNotificationType } from '../notifications/index.js';
import { inboxServiceFromEnv } from './dependencies.js';
import type { WebSocketRouteDeps } from './websocket/routes.js';

/** `WS_MANAGEMENT_ENDPOINT`: `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}` (or the local gateway). */
export function managementClientFromEnv(env: NodeJS.ProcessEnv): ApiGatewayManagementApiClient {
  return createManagementApiClient(requireEnv('WS_MANAGEMENT_ENDPOINT', env));
}

export function deliveryModeFromEnv(env: NodeJS.ProcessEnv): Priority {
  const parsed = prioritySchema.safeParse(requireEnv('DELIVERY_MODE', env));
  if (!parsed.success) throw new ConfigError(`DELIVERY_MODE must be urgent or info, got ${env.DELIVERY_MODE}`);
  return parsed.data;
}

export function connectionRepositoryFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient): ConnectionRepository {
  return new ConnectionRepository(client, tableNameFromEnv('connections', env), {
    handshakeGraceSeconds: intEnv('HANDSHAKE_GRACE_SECONDS', HANDSHAKE_GRACE_SECONDS, env),
  });
}

/** $connect: the Connections table (writes) and the Graph table (followed celebrities). */
export function connectDepsFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger: Logger): Pick<WebSocketRouteDeps, 'connections' | 'celebrities' | 'logger'> {
  return { connections: connectionRepositoryFromEnv(env, client), celebrities: new GraphRepository(client, tableNameFromEnv('graph', env)), logger };
}

/** $disconnect: the Connections table only. */
export function disconnectDepsFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, logger: Logger): Pick<WebSocketRouteDeps, 'connections' | 'logger'> {
  return { connections: connectionRepositoryFromEnv(env, client), logger };
}

/** $default: the management API only (it answers the caller). */
export function defaultRouteDepsFromEnv(management: ApiGatewayManagementApiClient, logger: Logger): Pick<WebSocketRouteDeps, 'pusher' | 'logger'> {
  return { pusher: new ApiGatewayConnectionPusher(management), logger };
}

/**
 * `celebrityJobQueue` (the delivery queues): celebrity posts are delivered in bounded shard/page
 * jobs; without it one job pages every online subscriber.
 */
export function liveDeliveryFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, management: ApiGatewayManagementApiClient, logger: Logger, gate?: LiveDeliveryGate, celebrityJobQueue?: DeliveryJobQueue): LiveDelivery {
  const directory = connectionRepositoryFromEnv(env, client);
  const ledger = new DynamoDeliveryLedger(client, tableNameFromEnv('idempotency', env), intEnv('DELIVERY_RECORD_TTL_SECONDS', DELIVERY_RECORD_TTL_SECONDS, env));
  return new LiveDelivery({
    ...(gate ? { gate } : {}),
    ...(celebrityJobQueue ? { celebrityJobs: { subscribers: directory, steps: ledger, queue: celebrityJobQueue, connectionsPerJob: intEnv('CONNECTIONS_PER_JOB', CONNECTIONS_PER_JOB, env) } } : {}),
    directory,
    ledger,
    pusher: new ApiGatewayConnectionPusher(management),
    isDigestible: (type) => findNotificationType(type)?.digestible ?? false,
    parallelism: intEnv('DELIVERY_PARALLELISM', 16, env),
    onError: (message, error, context) => logger.warn(message, { ...context, error: error as Error }),
  });
}

/**
 * The read-state listener of the REST write function: pushes `read_state` to the user's devices.
 * A failed sync is logged, never turned into a failed REST call (the write itself succeeded).
 */
export function readStateSyncFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, management: ApiGatewayManagementApiClient, logger: Logger): ReadStateListener {
  const sync = new ReadStateSync({
    directory: connectionRepositoryFromEnv(env, client),
    pusher: new ApiGatewayConnectionPusher(management),
    readState: new ReadStateRepository(client, tableNameFromEnv('readMarks', env)),
    counts: inboxServiceFromEnv(env, client),
  });
  return {
    async readStateChanged(user: UserRef) {
      try {
        await sync.readStateChanged(user);
      } catch (error) {
        logger.warn('read_state sync failed', { tenantId: user.tenantId, userId: user.userId, error: error as Error });
      }
    },
  };
}

/** Pushes held notifications when their release schedule fires; shares the gate (and its cache) with delivery. */
export function heldPushReleaserFromEnv(env: NodeJS.ProcessEnv, client: DynamoDBDocumentClient, management: ApiGatewayManagementApiClient, gate: LiveDeliveryGate): HeldPushReleaser {
  return new HeldPushReleaser({
    gate,
    directory: connectionRepositoryFromEnv(env, client),
    ledger: new DynamoDeliveryLedger(client, tableNameFromEnv('idempotency', env), intEnv('DELIVERY_RECORD_TTL_SECONDS', DELIVERY_RECORD_TTL_SECONDS, env)),
    pusher: new ApiGatewayConnectionPusher(management),
  });
}

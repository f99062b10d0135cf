/**
 * What every composition is built from, and the builders of the objects several functions share.
 * A `Parts` is one per container (Lambda) or one per local runtime: `once` keeps each shared object
 * (document client, connection repository, preferences cache, inbox service, gate...) to one.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoClients, type DynamoClients } from '../adapters/dynamo/document-client.js';
import { ConnectionRepository } from '../adapters/dynamo/connection-repository.js';
import { DynamoDeliveryLedger } from '../adapters/dynamo/delivery-ledger.js';
import { GraphRepository } from '../adapters/dynamo/graph-repository.js';
import { PreferencesRepository } from '../adapters/dynamo/preferences-repository.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { CachedPreferencesReader } from '../core/preferences/preferences-cache.js';
import { findNotificationType } from '../notifications/deployed.js';
import type { ConnectionsConfig, PreferencesCacheConfig } from './config.js';

/** Static credentials (the local runtime's; Lambda uses its role). */
export interface AwsCredentialIdentity {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Where the AWS SDK clients point: the defaults on Lambda, local endpoints and fixed credentials locally. */
export interface AwsTarget {
  region?: string;
  credentials?: AwsCredentialIdentity;
  dynamoEndpoint?: string;
  /** The local SQS endpoint (the local runtime's HTTP server). */
  sqsEndpoint?: string;
  /** The local SQS endpoint's own SigV4 credentials (generated per DATA_DIR); other clients keep `credentials`. */
  sqsCredentials?: AwsCredentialIdentity;
}

export interface Parts {
  logger: Logger;
  clock: Clock;
  aws: AwsTarget;
  /** Builds `build()` the first time `key` is asked for, then returns that same object. */
  once<T>(key: string, build: () => T): T;
  /** Destroys every SDK client built (the local runtime's close; a Lambda container never closes). */
  destroyClients(): void;
}

type Destroyable = { destroy(): void };
const isDestroyable = (value: unknown): value is Destroyable => typeof (value as Partial<Destroyable> | undefined)?.destroy === 'function';

export function createParts(options: { logger: Logger; clock?: Clock; aws?: AwsTarget }): Parts {
  const built = new Map<string, unknown>();
  return {
    logger: options.logger,
    clock: options.clock ?? systemClock,
    aws: options.aws ?? {},
    once<T>(key: string, build: () => T): T {
      if (!built.has(key)) built.set(key, build());
      return built.get(key) as T;
    },
    destroyClients() {
      // A pair such as the DynamoDB clients is one entry holding two clients.
      const values = [...built.values()].flatMap((value) => (isDestroyable(value) ? [value] : value && typeof value === 'object' ? Object.values(value) : []));
      for (const value of values) if (isDestroyable(value)) value.destroy();
    },
  };
}

/** The SDK client options of `parts.aws` (region and credentials; endpoints are per service). */
export function clientOptions(parts: Parts): { region?: string; credentials?: AwsCredentialIdentity } {
  return { ...(parts.aws.region ? { region: parts.aws.region } : {}), ...(parts.aws.credentials ? { credentials: parts.aws.credentials } : {}) };
}

export function dynamoClients(parts: Parts): DynamoClients {
  return parts.once('dynamo-clients', () => createDynamoClients({ ...clientOptions(parts), ...(parts.aws.dynamoEndpoint ? { endpoint: parts.aws.dynamoEndpoint } : {}) }));
}

export function documentClient(parts: Parts): DynamoDBDocumentClient {
  return dynamoClients(parts).documentClient;
}

export function connectionRepository(parts: Parts, config: ConnectionsConfig): ConnectionRepository {
  return parts.once('connection-repository', () =>
    new ConnectionRepository(documentClient(parts), config.connectionsTable, config.handshakeGraceSeconds !== undefined ? { handshakeGraceSeconds: config.handshakeGraceSeconds } : {}),
  );
}

export function deliveryLedger(parts: Parts, config: { idempotencyTable: string; deliveryRecordTtlSeconds?: number }): DynamoDeliveryLedger {
  return parts.once('delivery-ledger', () => new DynamoDeliveryLedger(documentClient(parts), config.idempotencyTable, config.deliveryRecordTtlSeconds));
}

export function graphRepository(parts: Parts, graphTable: string): GraphRepository {
  return parts.once('graph-repository', () => new GraphRepository(documentClient(parts), graphTable));
}

export function preferencesRepository(parts: Parts, graphTable: string): PreferencesRepository {
  return parts.once('preferences-repository', () => new PreferencesRepository(documentClient(parts), graphTable));
}

/** `PREFERENCES_CACHE_TTL_MS`: how long fan-out, delivery and the inbox read trust a read. */
export function preferencesCache(parts: Parts, config: PreferencesCacheConfig): CachedPreferencesReader {
  return parts.once('preferences-cache', () =>
    new CachedPreferencesReader(preferencesRepository(parts, config.graphTable), parts.clock, {
      ttlMs: config.cacheTtlMs,
      onError: (error, tenantId, userCount) => parts.logger.warn('preferences read failed; failing closed', { tenantId, userCount, error: error as Error }),
    }),
  );
}

/** Catalog rule: an urgent notification bypasses quiet hours unless its type says otherwise. */
export function urgentBypassesQuietHours(type: string): boolean {
  return findNotificationType(type)?.urgentBypassesQuietHours ?? true;
}

/** Catalog rule: info notifications of a digestible type collapse into one digest per window. */
export function isDigestible(type: string): boolean {
  return findNotificationType(type)?.digestible ?? false;
}

/**
 * What every composition is built from, and the builders of the objects several functions share.
 * A `Parts` is one per container (Lambda) or one per local runtime. A shared object (document
 * client, connection repository, preferences cache, gate...) comes from its builder, a function
 * that keys `parts.shared` with itself and the identity of what it builds (a table, an endpoint):
 * one object per Parts for each identity, never another builder's or another identity's.
 */
import { DynamoActionLookup, type ActionLookupTables } from '../adapters/dynamo/action-lookup.js';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoClients, type DynamoClients } from '../adapters/dynamo/document-client.js';
import { coalescingDocumentClient } from '../adapters/dynamo/coalescing-client.js';
import { tableSpecs } from '../table-specs.js';
import { DynamoCelebrityPostsLog } from '../adapters/dynamo/celebrity-posts-log.js';
import { ConnectionRepository } from '../adapters/dynamo/connection-repository.js';
import { DynamoDeliveryLedger } from '../adapters/dynamo/delivery-ledger.js';
import { DynamoErasedUsers } from '../adapters/dynamo/erased-users.js';
import { ReferencingScheduler } from '../adapters/dynamo/schedule-refs.js';
import type { Scheduler } from '../core/ports/scheduler.js';
import { GraphRepository } from '../adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../adapters/dynamo/inbox-repository.js';
import { PreferencesRepository } from '../adapters/dynamo/preferences-repository.js';
import { ReadStateRepository } from '../adapters/dynamo/read-state-repository.js';
import { RetractionRepository } from '../adapters/dynamo/retraction-repository.js';
import { systemClock, type Clock } from '../core/ports/clock.js';
import { CachedPreferencesReader } from '../core/preferences/preferences-cache.js';
import { findNotificationType } from '../notifications/deployed.js';
import { sanitizeLinks } from '../core/model/action-links.js';
import type { Notification, StoredNotification } from '../core/model/notification.js';
import type { ConnectionsConfig, PreferencesCacheConfig } from './shared-config.js';

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
  /** The local EventBridge Scheduler API (signed with `sqsCredentials`, like the other local stand-ins). */
  schedulerEndpoint?: string;
  /** Called with every SDK client built on these parts (the local runtime's AWS call recorder adds its middleware). */
  instrument?: (client: InstrumentableClient) => void;
  /** The function a call is made for, when known (the local runtime's recorder): calls of two functions never share a coalesced request. */
  callScope?: () => string | undefined;
}

/** An SDK client (each service types its middleware stack with its own inputs: the instrument adds to it). */
export interface InstrumentableClient {
  readonly middlewareStack: object;
}

/** `client`, instrumented when the parts say so (every builder of an SDK client passes its client through here). */
export function instrumented<Client extends InstrumentableClient>(parts: Parts, client: Client): Client {
  parts.aws.instrument?.(client);
  return client;
}

/** What identifies a shared object: the values it is built from (plain data by value, objects such as a scheduler by reference). */
type Identity = readonly unknown[];

export interface Parts {
  logger: Logger;
  clock: Clock;
  aws: AwsTarget;
  /**
   * The object `builder` built on this Parts for `identity` (what it is built from), built by
   * `build` on the first ask. A builder passes itself: `parts.shared(graphRepository, [table], ...)`.
   */
  shared<T>(builder: (parts: Parts, ...args: never[]) => T, identity: Identity, build: () => T): T;
  /** Destroys every SDK client built (the local runtime's close; a Lambda container never closes). */
  destroyClients(): void;
}

type Destroyable = { destroy(): void };
const isDestroyable = (value: unknown): value is Destroyable => typeof (value as Partial<Destroyable> | undefined)?.destroy === 'function';
/** Plain data (primitives, and arrays and plain objects of plain data) compares by value; anything else (a scheduler, a function) by reference. */
const isPlainData = (value: unknown): boolean => {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return true;
  if (typeof value === 'function' || (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype)) return false;
  return Object.values(value).every(isPlainData);
};

export function createParts(options: { logger: Logger; clock?: Clock; aws?: AwsTarget }): Parts {
  const built = new Map<object, Map<string, unknown>>();
  const references = new WeakMap<object, number>();
  let nextReference = 0;
  const keyOf = (identity: Identity) =>
    identity
      .map((value) => {
        if (isPlainData(value)) return JSON.stringify(value) ?? 'undefined';
        const object = value as object;
        if (!references.has(object)) references.set(object, (nextReference += 1));
        return `@${references.get(object)!}`;
      })
      .join('\u0000');
  return {
    logger: options.logger,
    clock: options.clock ?? systemClock,
    aws: options.aws ?? {},
    shared<T>(builder: (parts: Parts, ...args: never[]) => T, identity: Identity, build: () => T): T {
      const objects = built.get(builder) ?? new Map<string, unknown>();
      built.set(builder, objects);
      const key = keyOf(identity);
      if (!objects.has(key)) objects.set(key, build());
      return objects.get(key) as T;
    },
    destroyClients() {
      // A pair such as the DynamoDB clients is one object holding two clients.
      const values = [...built.values()].flatMap((objects) => [...objects.values()]).flatMap((value) => (isDestroyable(value) ? [value] : value && typeof value === 'object' ? Object.values(value) : []));
      for (const value of values) if (isDestroyable(value)) value.destroy();
    },
  };
}

/** The SDK client options of `parts.aws` (region and credentials; endpoints are per service). */
export function clientOptions(parts: Parts): { region?: string; credentials?: AwsCredentialIdentity } {
  return { ...(parts.aws.region ? { region: parts.aws.region } : {}), ...(parts.aws.credentials ? { credentials: parts.aws.credentials } : {}) };
}

export function dynamoClients(parts: Parts): DynamoClients {
  return parts.shared(dynamoClients, [], () => {
    const clients = createDynamoClients({ ...clientOptions(parts), ...(parts.aws.dynamoEndpoint ? { endpoint: parts.aws.dynamoEndpoint } : {}) });
    // The document client shares its base client's middleware stack.
    instrumented(parts, clients.dynamoClient);
    return clients;
  });
}

/** Key names of the tables whose batch calls the document client shares (filled by `coalescedTables`). */
function tableKeyNames(parts: Parts): Map<string, readonly string[]> {
  return parts.shared(tableKeyNames, [], () => new Map<string, readonly string[]>());
}

/**
 * The document client: BatchGetItem / BatchWriteItem calls of the tables named to `coalescedTables`
 * that concurrent callers make in one turn of the event loop go out as shared requests
 * (adapters/dynamo/coalescing-client.ts); every other call goes out as made.
 */
export function documentClient(parts: Parts): DynamoDBDocumentClient {
  return parts.shared(documentClient, [], () => coalescingDocumentClient(dynamoClients(parts).documentClient, (table) => tableKeyNames(parts).get(table), parts.aws.callScope));
}

/** Names these tables' roles, so the document client shares their batch calls (it must know their key names). */
export function coalescedTables(parts: Parts, tables: Partial<Record<keyof typeof tableSpecs, string>>): void {
  for (const [role, table] of Object.entries(tables) as [keyof typeof tableSpecs, string | undefined][]) {
    if (table === undefined) continue;
    const spec: { partitionKey: { name: string }; sortKey?: { name: string } } = tableSpecs[role];
    tableKeyNames(parts).set(table, [spec.partitionKey.name, ...(spec.sortKey ? [spec.sortKey.name] : [])]);
  }
}

export function connectionRepository(parts: Parts, config: ConnectionsConfig): ConnectionRepository {
  return parts.shared(connectionRepository, [config.connectionsTable, config.handshakeGraceSeconds], () =>
    new ConnectionRepository(documentClient(parts), config.connectionsTable, config.handshakeGraceSeconds !== undefined ? { handshakeGraceSeconds: config.handshakeGraceSeconds } : {}),
  );
}

export function deliveryLedger(parts: Parts, config: { idempotencyTable: string; deliveryRecordTtlSeconds?: number }): DynamoDeliveryLedger {
  return parts.shared(deliveryLedger, [config.idempotencyTable, config.deliveryRecordTtlSeconds], () => new DynamoDeliveryLedger(documentClient(parts), config.idempotencyTable, config.deliveryRecordTtlSeconds));
}

/** `scheduler` writing a reference record per user a schedule names first (Idempotency table), for their erasure. */
export function referencingScheduler(parts: Parts, idempotencyTable: string, scheduler: Scheduler): Scheduler {
  return parts.shared(referencingScheduler, [idempotencyTable, scheduler], () => new ReferencingScheduler(scheduler, documentClient(parts), idempotencyTable));
}

/** The erasure tombstones (Idempotency table): every consumer that sends to a user checks them. */
export function erasedUsers(parts: Parts, idempotencyTable: string): DynamoErasedUsers {
  return parts.shared(erasedUsers, [idempotencyTable], () => new DynamoErasedUsers(documentClient(parts), idempotencyTable, () => parts.clock.nowMs()));
}

export function graphRepository(parts: Parts, graphTable: string): GraphRepository {
  return parts.shared(graphRepository, [graphTable], () => new GraphRepository(documentClient(parts), graphTable));
}

export function inboxRepository(parts: Parts, inboxTable: string): InboxRepository {
  return parts.shared(inboxRepository, [inboxTable], () => new InboxRepository(documentClient(parts), inboxTable));
}

/** The tenant's celebrity posts log and its count index (Inbox table): fan-out writes it, the inbox read scans it. */
export function celebrityPostsLog(parts: Parts, inboxTable: string): DynamoCelebrityPostsLog {
  return parts.shared(celebrityPostsLog, [inboxTable], () => new DynamoCelebrityPostsLog(documentClient(parts), inboxTable));
}

export function readStateRepository(parts: Parts, readMarksTable: string): ReadStateRepository {
  return parts.shared(readStateRepository, [readMarksTable], () => new ReadStateRepository(documentClient(parts), readMarksTable));
}

/** The per-item actions' lookup (one BatchGetItem over Inbox, ReadMarks and Graph). */
export function actionLookup(parts: Parts, tables: ActionLookupTables): DynamoActionLookup {
  return parts.shared(actionLookup, [tables.inbox, tables.readMarks, tables.graph], () => new DynamoActionLookup(documentClient(parts), tables));
}

export function retractionRepository(parts: Parts, inboxTable: string): RetractionRepository {
  return parts.shared(retractionRepository, [inboxTable], () => new RetractionRepository(documentClient(parts), inboxTable));
}

export function preferencesRepository(parts: Parts, graphTable: string): PreferencesRepository {
  return parts.shared(preferencesRepository, [graphTable], () => new PreferencesRepository(documentClient(parts), graphTable));
}

/** `PREFERENCES_CACHE_TTL_MS`: how long fan-out, delivery and the inbox read trust a read. */
export function preferencesCache(parts: Parts, config: PreferencesCacheConfig): CachedPreferencesReader {
  return parts.shared(preferencesCache, [config.graphTable, config.cacheTtlMs], () =>
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
/** The action link and buttons the item's catalog type declares, sanitized; a stored item its type no longer parses shows none. */
export function catalogLinksOf(item: StoredNotification): Pick<Notification, 'actionUrl' | 'actions'> {
  const type = findNotificationType(item.type);
  if (!type?.links) return {};
  try {
    return sanitizeLinks(type.links(item.data));
  } catch {
    return {};
  }
}

export function isDigestible(type: string): boolean {
  return findNotificationType(type)?.digestible ?? false;
}

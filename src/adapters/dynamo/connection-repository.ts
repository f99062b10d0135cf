/**
 * Connections table: live WebSocket connections (`T#t#U#user` / `C#<id>`), their reverse items
 * (`CONN#<id>`), a presence item per user (the set of their connection ids, read 100 users per
 * BatchGetItem) and celebrities' online subscriptions (`T#t#U#celeb#ONLINE#S<n>` / `C#<id>`).
 * Every read is a GetItem, BatchGetItem or a Query of one partition; nothing scans.
 */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { connectionIdFromSortKey, keys, type TableKey } from '../../core/model/keys.js';
import { queryPages } from './query-pages.js';
import { ONLINE_SUBSCRIBER_SHARDS, onlineSubscriberShard } from '../../core/live/online-followers.js';
import type { ConnectionDirectory, ConnectionTarget, ShardedSubscriberDirectory, SubscriberPage } from '../../core/ports/live.js';
import { allShards } from '../../core/model/feed-shards.js';
import { systemClock, type Clock } from '../../core/ports/clock.js';
import type { UserRef } from '../../core/model/user.js';
import { batchGetAll, batchWriteAll, type BatchRetryPolicy, type WriteRequest } from './batch.js';

/** API Gateway closes a connection after 2 h; the items outlive it a little, then TTL removes them. */
const CONNECTION_TTL_SECONDS = 2 * 3600 + 10 * 60;
/**
 * On AWS, $connect registers the connection before API Gateway completes the handshake, and a post
 * in between answers 410. A 410 for a connection younger than this is not taken as stale: the
 * client's catch-up after open fetches that notification, and a really dead one goes at $disconnect,
 * the next 410 or TTL.
 */
export const HANDSHAKE_GRACE_SECONDS = 10;

export interface ConnectionRegistration extends ConnectionTarget {
  /** Celebrities the user follows: the connection subscribes to their live posts. */
  celebrityIds: readonly string[];
  /** Epoch seconds of registration (absent on items written before it was recorded). */
  connectedAt?: number;
}

export interface ConnectionRepositoryOptions {
  clock?: Clock;
  ttlSeconds?: number;
  subscriberShards?: number;
  /** Items per online-subscriber Query page. */
  subscriberPageSize?: number;
  /** BatchGetItem / BatchWriteItem calls in flight at once. */
  parallelism?: number;
  /** See HANDSHAKE_GRACE_SECONDS; 0 where posts cannot race the handshake (the local gateway). */
  handshakeGraceSeconds?: number;
  /** Retries of BatchGetItem / BatchWriteItem (unprocessed keys and items, throttling). */
  batchRetry?: BatchRetryPolicy;
}


export class ConnectionRepository implements ConnectionDirectory, ShardedSubscriberDirectory {
  private readonly clock: Clock;
  private readonly ttlSeconds: number;
  private readonly subscriberShards: number;
  private readonly subscriberPageSize: number;
  private readonly parallelism: number;
  private readonly handshakeGraceSeconds: number;
  private readonly batchRetry: BatchRetryPolicy;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: ConnectionRepositoryOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.ttlSeconds = options.ttlSeconds ?? CONNECTION_TTL_SECONDS;
    this.subscriberShards = options.subscriberShards ?? ONLINE_SUBSCRIBER_SHARDS;
    this.subscriberPageSize = options.subscriberPageSize ?? 500;
    this.parallelism = options.parallelism ?? 8;
    this.handshakeGraceSeconds = options.handshakeGraceSeconds ?? HANDSHAKE_GRACE_SECONDS;
    this.batchRetry = options.batchRetry ?? {};
  }

  private nowSeconds(): number {
    return Math.floor(this.clock.nowMs() / 1000);
  }

  /**
   * registerConnection: BatchWrite of the connection item, the reverse item and one online
   * subscription per followed celebrity, then one UpdateItem that adds the id to the user's presence
   * (last, so delivery never finds a half-registered connection).
   */
  async registerConnection(registration: ConnectionRegistration): Promise<void> {
    const { tenantId, userId, connectionId, celebrityIds } = registration;
    const now = this.nowSeconds();
    const expiresAt = now + this.ttlSeconds;
    const shard = onlineSubscriberShard(connectionId, this.subscriberShards);
    const puts: WriteRequest[] = [
      { PutRequest: { Item: { ...keys.connection(tenantId, userId, connectionId), connectionId, connectedAt: now, expiresAt } } },
      { PutRequest: { Item: { ...keys.connectionReverse(connectionId), tenantId, userId, connectionId, celebrityIds: [...celebrityIds], connectedAt: now, expiresAt } } },
      ...celebrityIds.map<WriteRequest>((celebrityId) => ({
        PutRequest: { Item: { ...keys.onlineSubscription(tenantId, celebrityId, shard, connectionId), userId, expiresAt } },
      })),
    ];
    await this.batchWrite(puts);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.presence(tenantId, userId),
        // The newest connection expires last, so the presence item lives as long as any connection.
        UpdateExpression: 'ADD connectionIds :connection SET expiresAt = :expiresAt',
        ExpressionAttributeValues: { ':connection': new Set([connectionId]), ':expiresAt': expiresAt },
      }),
    );
  }

  /** findConnection: consistent GetItem of the reverse item (who owns this connection id); no guard (TTL may lag). */
  async findConnection(connectionId: string): Promise<ConnectionRegistration | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.connectionReverse(connectionId), ConsistentRead: true }));
    const item = output.Item;
    if (!item) return undefined;
    return {
      tenantId: item.tenantId as string,
      userId: item.userId as string,
      connectionId,
      celebrityIds: (item.celebrityIds as string[] | undefined) ?? [],
      connectedAt: item.connectedAt as number | undefined,
    };
  }

  /** removeConnectionById ($disconnect): the reverse item, then everything it points to. Idempotent. */
  async removeConnectionById(connectionId: string): Promise<ConnectionRegistration | undefined> {
    const registration = await this.findConnection(connectionId);
    if (registration) await this.removeRegistration(registration);
    return registration;
  }

  /**
   * removeConnection (410 Gone): as $disconnect; without a reverse item, still drops it from presence.
   * Guard: a connection still within the handshake grace period is kept.
   */
  async removeConnection(target: ConnectionTarget): Promise<void> {
    const found = await this.findConnection(target.connectionId);
    if (found?.connectedAt !== undefined && this.nowSeconds() - found.connectedAt < this.handshakeGraceSeconds) return;
    await this.removeRegistration(found ?? { ...target, celebrityIds: [] });
  }

  private async removeRegistration(registration: ConnectionRegistration): Promise<void> {
    const { tenantId, userId, connectionId, celebrityIds } = registration;
    // Presence first, so delivery stops finding the connection before its items go.
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.presence(tenantId, userId),
          UpdateExpression: 'DELETE connectionIds :connection',
          // Never create a bare presence item (it would have no TTL).
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':connection': new Set([connectionId]) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const shard = onlineSubscriberShard(connectionId, this.subscriberShards);
    const deletes: TableKey[] = [
      keys.connection(tenantId, userId, connectionId),
      ...celebrityIds.map((celebrityId) => keys.onlineSubscription(tenantId, celebrityId, shard, connectionId)),
    ];
    await this.batchWrite(deletes.map((Key) => ({ DeleteRequest: { Key } })));
    // Last: while it exists, a retried removal can still find the subscriptions.
    const reverse = keys.connectionReverse(connectionId);
    await this.batchWrite([{ DeleteRequest: { Key: reverse } }]);
  }

  /**
   * connectionsOf: the presence items of the users, BatchGetItem of 100 keys per call (ceil(U/100)
   * calls for U users, more only when DynamoDB returns UnprocessedKeys). Expired presence is ignored.
   */
  async connectionsOf(users: readonly UserRef[]): Promise<ConnectionTarget[]> {
    const unique = new Map(users.map((user) => [`${user.tenantId}\u0000${user.userId}`, user]));
    const now = this.nowSeconds();
    const presence = await batchGetAll(
      this.client,
      this.tableName,
      [...unique.values()].map((user) => keys.presence(user.tenantId, user.userId)),
      { ...this.batchRetry, parallelism: this.parallelism },
    );
    const owners = new Map([...unique.values()].map((user) => [keys.presence(user.tenantId, user.userId).pk, user]));
    const targets: ConnectionTarget[] = [];
    for (const item of presence) {
      if (typeof item.expiresAt === 'number' && item.expiresAt <= now) continue;
      const owner = owners.get(item.pk as string);
      const connectionIds = item.connectionIds as Set<string> | undefined;
      if (!owner || !connectionIds) continue;
      for (const connectionId of [...connectionIds].sort()) targets.push({ ...owner, connectionId });
    }
    return targets;
  }

  /** listConnections: Query of the user's partition, `C#` items (operations and tests; delivery reads presence); guard: TTL. */
  async listConnections(user: UserRef): Promise<string[]> {
    const ids: string[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.presence(user.tenantId, user.userId).pk, ':prefix': 'C#' },
    });
    for await (const page of pages) {
      for (const item of page) {
        const connectionId = connectionIdFromSortKey(item.sk as string);
        if (connectionId && !(typeof item.expiresAt === 'number' && item.expiresAt <= this.nowSeconds())) ids.push(connectionId);
      }
    }
    return ids;
  }

  /** onlineSubscriberPages: Query of each subscriber shard of the celebrity, `subscriberPageSize` items per page; guard: TTL. */
  async *onlineSubscriberPages(tenantId: string, actorId: string): AsyncIterable<ConnectionTarget[]> {
    for (const shard of allShards(this.subscriberShards)) {
      const pages = queryPages(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.onlineSubscribersPartition(tenantId, actorId, shard) },
        Limit: this.subscriberPageSize,
      });
      for await (const items of pages) {
        const now = this.nowSeconds();
        const page: ConnectionTarget[] = [];
        for (const item of items) {
          const connectionId = connectionIdFromSortKey(item.sk as string);
          if (!connectionId || (typeof item.expiresAt === 'number' && item.expiresAt <= now)) continue;
          page.push({ tenantId, userId: item.userId as string, connectionId });
        }
        if (page.length > 0) yield page;
      }
    }
  }

  get onlineSubscriberShardCount(): number {
    return this.subscriberShards;
  }

  /** onlineSubscriberPage: one Query of one subscriber shard, `limit` items after `after` (connection id order); guard: TTL. */
  async onlineSubscriberPage(tenantId: string, actorId: string, shard: number, after: string | undefined, limit: number): Promise<SubscriberPage> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.onlineSubscribersPartition(tenantId, actorId, shard) },
        ProjectionExpression: 'sk, userId, expiresAt',
        Limit: limit,
        ...(after !== undefined ? { ExclusiveStartKey: keys.onlineSubscription(tenantId, actorId, shard, after) } : {}),
      }),
    );
    const now = this.nowSeconds();
    const targets: ConnectionTarget[] = [];
    for (const item of output.Items ?? []) {
      const connectionId = connectionIdFromSortKey(item.sk as string);
      if (!connectionId || (typeof item.expiresAt === 'number' && item.expiresAt <= now)) continue;
      targets.push({ tenantId, userId: item.userId as string, connectionId });
    }
    const next = output.LastEvaluatedKey ? connectionIdFromSortKey(output.LastEvaluatedKey.sk as string) : undefined;
    return { targets, ...(next !== undefined ? { next } : {}) };
  }

  private async batchWrite(requests: readonly WriteRequest[]): Promise<void> {
    await batchWriteAll(this.client, this.tableName, requests, { ...this.batchRetry, parallelism: this.parallelism });
  }
}

/** Inbox table: per-user inboxes and sharded celebrity feeds, both keyed by notification ULID. */
import { PutCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { AUTHOR_INDEX, keys, ownerIndexValue } from '../../core/model/keys.js';
import { queryPages } from './query-pages.js';
import { isExpired, type Comeback, type StoredNotification } from '../../core/model/notification.js';
import type { CelebrityLogShard, CelebrityPostsShard, IdRange, InboxItemToWrite, InboxKey, InboxReader, InboxSource, InboxWriter, OwnInboxItemWriter, PageQuery } from '../../core/ports/inbox.js';
import type { UserRef } from '../../core/model/user.js';
import { batchGetAll, batchGetPages, batchPutAll, type BatchOptions } from './batch.js';

function partitionOf(source: InboxSource | CelebrityPostsShard | CelebrityLogShard): string {
  if (source.kind === 'celebrityPosts' || source.kind === 'celebrityLog') return keys.celebrityPostsPartition(source.tenantId, source.shard);
  return source.kind === 'own'
    ? keys.inboxItem(source.tenantId, source.userId, '').pk
    : keys.feedShardPartition(source.tenantId, source.actorId, source.shard);
}

/** The comeback attributes of a snooze comeback item (absent on every other item). */
function comebackOf(item: Record<string, unknown>): Comeback | undefined {
  if (typeof item.snoozedFrom !== 'string' || typeof item.comebackOf !== 'string') return undefined;
  return { from: item.snoozedFrom, rootId: item.comebackOf, ...(typeof item.comebackOfActor === 'string' ? { rootActor: item.comebackOfActor } : {}) };
}

export function toStored(item: Record<string, unknown>): StoredNotification {
  const comeback = comebackOf(item);
  return {
    id: item.sk as string,
    type: item.type as string,
    createdAt: item.createdAt as string,
    actor: item.actor as StoredNotification['actor'],
    title: item.title as string,
    body: item.body as string,
    data: (item.data ?? {}) as Record<string, unknown>,
    expiresAt: item.expiresAt as number,
    ...(comeback ? { comeback } : {}),
  };
}

/** One stored row of an item to write (the batch puts and the single put share it). */
function rowOf({ source, item, foundByPostsLog }: InboxItemToWrite): Record<string, unknown> {
  return {
    pk: partitionOf(source),
    sk: item.id,
    type: item.type,
    createdAt: item.createdAt,
    actor: item.actor,
    title: item.title,
    body: item.body,
    data: item.data,
    expiresAt: item.expiresAt,
    // The log's reader keeps the posts of the celebrities it follows by this attribute.
    ...(source.kind === 'celebrityPosts' ? { authorId: source.authorId } : {}),
    // The author index (sparse): a notification in someone else's inbox, for the author's erasure.
    ...(source.kind === 'own' && item.actor.id !== source.userId && !foundByPostsLog ? { [AUTHOR_INDEX.attribute]: ownerIndexValue(source.tenantId, item.actor.id) } : {}),
    ...(item.comeback ? { snoozedFrom: item.comeback.from, comebackOf: item.comeback.rootId, ...(item.comeback.rootActor !== undefined ? { comebackOfActor: item.comeback.rootActor } : {}) } : {}),
  };
}

/** The key condition of a newest-first id range of one partition (`:pk` bound by the caller). */
export function rangeCondition(range: { before?: string; after?: string }): { expression: string; values: Record<string, string> } {
  if (range.before !== undefined && range.after !== undefined) {
    // BETWEEN is inclusive; the exclusive ends are dropped in code below.
    return { expression: 'pk = :pk AND sk BETWEEN :after AND :before', values: { ':after': range.after, ':before': range.before } };
  }
  if (range.before !== undefined) return { expression: 'pk = :pk AND sk < :before', values: { ':before': range.before } };
  if (range.after !== undefined) return { expression: 'pk = :pk AND sk > :after', values: { ':after': range.after } };
  return { expression: 'pk = :pk', values: {} };
}

export class InboxRepository implements InboxReader, InboxWriter, OwnInboxItemWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly batchOptions: BatchOptions = {},
  ) {}

  /** listInboxPage: newest-first query of one partition in (after, before); guards: TTL and type filters. */
  async listInboxPage(source: InboxSource, query: PageQuery): Promise<StoredNotification[]> {
    // An empty range (a feed followed after the cursor's position) costs no request.
    if (query.before !== undefined && query.after !== undefined && query.after >= query.before) return [];
    const range = rangeCondition(query);
    const filters = ['expiresAt > :nowSeconds'];
    const values: Record<string, unknown> = { ':pk': partitionOf(source), ':nowSeconds': Math.floor(query.nowMs / 1000), ...range.values };
    const names: Record<string, string> = {};
    if (query.type !== undefined) {
      filters.push('#type = :type');
      values[':type'] = query.type;
      names['#type'] = 'type';
    }
    const exclusion = excludeTypesFilter(query.excludeTypes);
    if (exclusion) {
      filters.push(exclusion.expression);
      Object.assign(values, exclusion.values);
      names['#type'] = 'type';
    }
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: range.expression,
      FilterExpression: filters.join(' AND '),
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ScanIndexForward: false,
      // Two extra for the inclusive ends of BETWEEN.
      Limit: query.limit + 2,
    };
    const items: StoredNotification[] = [];
    for await (const page of queryPages(this.client, input)) {
      for (const raw of page) {
        const item = toStored(raw);
        if (item.id === query.before || item.id === query.after) continue;
        if (isExpired(item, query.nowMs)) continue;
        items.push(item);
      }
      // Filters (TTL, type) apply after Limit, so a short page may need the next one.
      if (items.length >= query.limit) break;
    }
    return items.slice(0, query.limit);
  }

  /** listIdsAbove (counts): keys-only newest-first query of one partition in (after, before), with a comeback's attributes; guards: TTL, excluded (muted) types. */
  async listIdsAbove(source: InboxSource, range: IdRange, limit: number, nowMs: number, excludeTypes?: readonly string[]): Promise<InboxKey[]> {
    if (range.before !== undefined && range.after !== undefined && range.after >= range.before) return [];
    const condition = rangeCondition(range);
    const exclusion = excludeTypesFilter(excludeTypes);
    const found: InboxKey[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: condition.expression,
      ExpressionAttributeValues: { ':pk': partitionOf(source), ...condition.values, ...exclusion?.values },
      ...(exclusion ? { FilterExpression: exclusion.expression, ExpressionAttributeNames: { '#type': 'type' } } : {}),
      ProjectionExpression: 'sk, expiresAt, snoozedFrom, comebackOf, comebackOfActor',
      ScanIndexForward: false,
      // Two extra for the inclusive ends of BETWEEN.
      Limit: limit + 2,
    });
    for await (const page of pages) {
      for (const raw of page) {
        const id = raw.sk as string;
        if (id === range.before || id === range.after || isExpired({ expiresAt: raw.expiresAt as number }, nowMs)) continue;
        const comeback = comebackOf(raw);
        found.push(comeback ? { id, comeback } : { id });
      }
      if (found.length >= limit) break;
    }
    return found.slice(0, limit);
  }

  /** getItems: BatchGetItem of the (partition, id) keys, 100 per call; no guard (the caller checks expiry and types). */
  async getItems(refs: readonly { source: InboxSource | CelebrityLogShard; id: string }[]): Promise<Map<string, StoredNotification>> {
    const unique = new Map(refs.map(({ source, id }) => [`${partitionOf(source)}\u0000${id}`, { pk: partitionOf(source), sk: id }]));
    const items = await batchGetAll(this.client, this.tableName, [...unique.values()], this.batchOptions);
    return new Map(items.map((raw) => [raw.sk as string, toStored(raw)]));
  }

  /** findNotification: BatchGetItem of the id in each candidate partition (100 per call, stops at the first hit); guard: TTL. */
  async findNotification(sources: readonly InboxSource[], id: string, nowMs: number): Promise<StoredNotification | undefined> {
    const candidates = sources.map((source) => ({ pk: partitionOf(source), sk: id }));
    for await (const page of batchGetPages(this.client, this.tableName, candidates, this.batchOptions)) {
      const found = page.map(toStored).find((item) => !isExpired(item, nowMs));
      if (found) return found;
    }
    return undefined;
  }

  /** writeInboxItems: BatchWriteItem puts, 25 per call; no guard needed: ids are deterministic, so a retry rewrites the same item. */
  async writeInboxItems(items: readonly InboxItemToWrite[]): Promise<void> {
    await batchPutAll(this.client, this.tableName, items.map(rowOf), this.batchOptions);
  }

  /** putOwnInboxItem: one PutItem into the user's own partition; deterministic id, so a retry rewrites the same item. */
  async putOwnInboxItem(user: UserRef, item: StoredNotification): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: rowOf({ source: { kind: 'own', tenantId: user.tenantId, userId: user.userId }, item }) }));
  }
}

/** `NOT (#type IN (...))` for the types left out of a read, or undefined when none are. */
function excludeTypesFilter(types: readonly string[] | undefined): { expression: string; values: Record<string, string> } | undefined {
  if (!types || types.length === 0) return undefined;
  const values = Object.fromEntries(types.map((type, index) => [`:excluded${index}`, type]));
  return { expression: `NOT (#type IN (${Object.keys(values).join(', ')}))`, values };
}

/**
 * Inbox table: the tenant's celebrity posts log, S reader shards (`T#<tenant>#CP#S<n>`), each holding
 * a copy of every celebrity feed post keyed by its feed id, with the celebrity as `authorId` and the
 * feed's TTL. The fan-out writes it with the feed shards (InboxSource kind `celebrityPosts`).
 */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/keys.js';
import type { CelebrityPost, CelebrityPostKey, CelebrityPostsPage, CelebrityPostsReader } from '../../core/ports/celebrity-posts.js';
import type { IdRange } from '../../core/ports/inbox.js';
import { toStored } from './inbox-repository.js';
import type { Item } from './query-pages.js';

export class DynamoCelebrityPostsLog implements CelebrityPostsReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** scanPosts: newest-first Query of the shard in the range, `pageSize` items per request; no guard (the reader filters). */
  scanPosts(tenantId: string, shard: number, range: IdRange, pageSize: number): AsyncIterable<CelebrityPostsPage<CelebrityPost>> {
    return this.scan(tenantId, shard, range, pageSize, {}, (item) => ({ authorId: item.authorId as string, item: toStored(item) }));
  }

  /** scanPostKeys: as scanPosts, projected on the key, author, type and expiry. */
  scanPostKeys(tenantId: string, shard: number, range: IdRange, pageSize: number): AsyncIterable<CelebrityPostsPage<CelebrityPostKey>> {
    return this.scan(tenantId, shard, range, pageSize, { ProjectionExpression: 'sk, authorId, #type, expiresAt', ExpressionAttributeNames: { '#type': 'type' } }, (item) => ({
      authorId: item.authorId as string,
      id: item.sk as string,
      type: item.type as string,
      expiresAt: item.expiresAt as number,
    }));
  }

  private async *scan<T>(tenantId: string, shard: number, range: IdRange, pageSize: number, projection: Partial<QueryCommandInput>, toPost: (item: Item) => T): AsyncGenerator<CelebrityPostsPage<T>> {
    if (range.before !== undefined && range.after !== undefined && range.after >= range.before) return;
    const bounds =
      range.before !== undefined && range.after !== undefined
        ? { expression: 'pk = :pk AND sk BETWEEN :after AND :before', values: { ':after': range.after, ':before': range.before } }
        : range.before !== undefined
          ? { expression: 'pk = :pk AND sk < :before', values: { ':before': range.before } }
          : range.after !== undefined
            ? { expression: 'pk = :pk AND sk > :after', values: { ':after': range.after } }
            : { expression: 'pk = :pk', values: {} };
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: bounds.expression,
      ExpressionAttributeValues: { ':pk': keys.celebrityPostsPartition(tenantId, shard), ...bounds.values },
      ScanIndexForward: false,
      Limit: pageSize,
      ...projection,
    };
    let exclusiveStartKey: Item | undefined;
    do {
      const output = await this.client.send(new QueryCommand({ ...input, ExclusiveStartKey: exclusiveStartKey }));
      const page = output.Items ?? [];
      exclusiveStartKey = output.LastEvaluatedKey;
      const last = page.at(-1)?.sk as string | undefined;
      // BETWEEN is inclusive: the exclusive ends are dropped here.
      const posts = page.filter((item) => item.sk !== range.before && item.sk !== range.after).map(toPost);
      yield { posts, more: exclusiveStartKey !== undefined, ...(last !== undefined ? { scannedDownTo: last } : {}) };
    } while (exclusiveStartKey !== undefined);
  }
}

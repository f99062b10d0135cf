/**
 * Inbox table: the tenant's celebrity posts log, S reader shards (`T#<tenant>#CP#S<n>`), each holding
 * a copy of every celebrity feed post keyed by its feed id, with the celebrity as `authorId` and the
 * feed's TTL. The fan-out writes it with the feed shards (InboxSource kind `celebrityPosts`), then
 * the count index (`T#<tenant>#CPX#S<n>`, one item per time slot, one attribute per post).
 */
import { QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { decodeIndexEntry, encodeIndexEntry, evaluatedDownTo, INDEX_ITEM_ATTRIBUTES, INDEX_MAX_OVERFLOW, INDEX_SLOT_MS, slotPrefixOfId } from '../../core/model/celebrity-posts-index.js';
import { keys } from '../../core/model/keys.js';
import { isItemTooLarge } from './item-limits.js';
import { markMigrationDone, runMigrationOnce } from './migration-marker.js';
import type { CelebrityPost, CelebrityPostIndexEntry, CelebrityPostsIndexWriter, CelebrityPostsPage, CelebrityPostsReader } from '../../core/ports/celebrity-posts.js';
import type { IdRange } from '../../core/ports/inbox.js';
import { rangeCondition, toStored } from './inbox-repository.js';
import type { Item } from './query-pages.js';
import type { CelebrityPostKey } from '../../core/model/celebrity-posts-index.js';

/** Index updates in flight (S shards of a post, or a seeded backlog). */
const INDEX_WRITE_PARALLELISM = 8;
/** Each next index request reads this many times the slots of the one before. */
const SLOT_GROWTH = 4;

export class DynamoCelebrityPostsLog implements CelebrityPostsReader, CelebrityPostsIndexWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** scanPosts: newest-first Query of the shard in the range, `firstPageSize` then `pageSize` items per request; no guard (the reader filters). */
  scanPosts(tenantId: string, shard: number, range: IdRange, pageSize: number, firstPageSize = pageSize): AsyncIterable<CelebrityPostsPage<CelebrityPost>> {
    return this.scan(tenantId, shard, range, pageSize, firstPageSize);
  }

  /** scanPostKeys: newest-first Query of the shard's count index from the slot of `after`, growing pages; ids at or below `after` dropped. */
  async *scanPostKeys(tenantId: string, shard: number, after: string | undefined, firstSlots: number): AsyncGenerator<CelebrityPostsPage<CelebrityPostKey>> {
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: after !== undefined ? 'pk = :pk AND sk >= :from' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.celebrityPostsIndexPartition(tenantId, shard), ...(after !== undefined ? { ':from': slotPrefixOfId(after) } : {}) },
      ScanIndexForward: false,
    };
    let limit = Math.max(1, firstSlots);
    let exclusiveStartKey: Item | undefined;
    do {
      const output = await this.client.send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: exclusiveStartKey }));
      exclusiveStartKey = output.LastEvaluatedKey;
      const posts: CelebrityPostKey[] = [];
      for (const slot of output.Items ?? []) {
        for (const [name, value] of Object.entries(slot)) {
          if (INDEX_ITEM_ATTRIBUTES.has(name) || (after !== undefined && name <= after)) continue;
          const post = decodeIndexEntry(name, value);
          if (post) posts.push(post);
        }
      }
      const last = output.Items?.at(-1)?.sk as string | undefined;
      yield { posts, more: exclusiveStartKey !== undefined, ...(last !== undefined ? { scannedDownTo: evaluatedDownTo(last) } : {}) };
      limit *= SLOT_GROWTH;
    } while (exclusiveStartKey !== undefined);
  }

  /**
   * indexPosts: one UpdateItem per post and shard (`SET #id = :entry`: a retry sets the same value). A
   * slot at DynamoDB's 400 KB item limit spills into `<slot>#1`, `#2`... (read with it, same range).
   */
  async indexPosts(entries: readonly CelebrityPostIndexEntry[]): Promise<void> {
    await this.addToSlots(entries.map((entry) => ({ indexPk: keys.celebrityPostsIndexPartition(entry.tenantId, entry.shard), post: entry })));
  }

  /** The posts into their slots of the given index partitions, a few updates in flight. */
  async addToSlots(posts: readonly { indexPk: string; post: CelebrityPostKey }[]): Promise<void> {
    await forEachBounded(posts, INDEX_WRITE_PARALLELISM, async ({ indexPk, post }) => {
      const slot = slotPrefixOfId(post.id);
      for (let overflow = 0; overflow <= INDEX_MAX_OVERFLOW; overflow += 1) {
        try {
          await this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: keys.celebrityPostsIndexSlot(indexPk, slot, overflow),
              // The slot outlives its newest post: TTL = the post's expiry + one slot.
              UpdateExpression: 'SET #post = :entry, #expiresAt = :expiresAt',
              ExpressionAttributeNames: { '#post': post.id, '#expiresAt': 'expiresAt' },
              ExpressionAttributeValues: { ':entry': encodeIndexEntry(post), ':expiresAt': post.expiresAt + INDEX_SLOT_MS / 1000 },
            }),
          );
          return;
        } catch (error) {
          if (!isItemTooLarge(error)) throw error;
        }
      }
      throw new Error(`celebrity posts index slot ${slot} of ${indexPk} is full (${INDEX_MAX_OVERFLOW + 1} items of 400 KB): post ${post.id} not indexed`);
    });
  }

  private async *scan(tenantId: string, shard: number, range: IdRange, pageSize: number, firstPageSize: number): AsyncGenerator<CelebrityPostsPage<CelebrityPost>> {
    if (range.before !== undefined && range.after !== undefined && range.after >= range.before) return;
    const bounds = rangeCondition(range);
    const input: QueryCommandInput = {
      TableName: this.tableName,
      KeyConditionExpression: bounds.expression,
      ExpressionAttributeValues: { ':pk': keys.celebrityPostsPartition(tenantId, shard), ...bounds.values },
      ScanIndexForward: false,
    };
    let exclusiveStartKey: Item | undefined;
    let limit = Math.max(1, firstPageSize);
    do {
      const output = await this.client.send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: exclusiveStartKey }));
      limit = pageSize;
      const page = output.Items ?? [];
      exclusiveStartKey = output.LastEvaluatedKey;
      const last = page.at(-1)?.sk as string | undefined;
      // BETWEEN is inclusive: the exclusive ends are dropped here.
      const posts = page.filter((item) => item.sk !== range.before && item.sk !== range.after).map((item) => ({ authorId: item.authorId as string, item: toStored(item) }));
      yield { posts, more: exclusiveStartKey !== undefined, ...(last !== undefined ? { scannedDownTo: last } : {}) };
    } while (exclusiveStartKey !== undefined);
  }
}

/**
 * Upgrade step (`npm run migrate`): indexes every post of every tenant's celebrity posts log, for
 * posts logged before the count index existed. One Scan of the Inbox table (log items only) and one
 * idempotent UpdateItem per post; a rerun sets the same attributes. Answers the posts indexed.
 */
export async function backfillCelebrityPostsIndex(client: DynamoDBDocumentClient, inboxTable: string): Promise<number> {
  const index = new DynamoCelebrityPostsLog(client, inboxTable);
  let indexed = 0;
  let exclusiveStartKey: Item | undefined;
  do {
    const output = await client.send(
      new ScanCommand({
        TableName: inboxTable,
        FilterExpression: 'contains(pk, :log) AND attribute_exists(authorId)',
        ExpressionAttributeValues: { ':log': '#CP#S' },
        ProjectionExpression: 'pk, sk, authorId, #type, expiresAt',
        ExpressionAttributeNames: { '#type': 'type' },
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    exclusiveStartKey = output.LastEvaluatedKey;
    const posts = (output.Items ?? []).flatMap((item) => {
      const indexPk = keys.celebrityPostsIndexPartitionOfLog(String(item.pk));
      return indexPk ? [{ indexPk, post: { authorId: String(item.authorId), id: String(item.sk), type: String(item.type), expiresAt: Number(item.expiresAt) } }] : [];
    });
    await index.addToSlots(posts);
    indexed += posts.length;
  } while (exclusiveStartKey !== undefined);
  return indexed;
}

export const CELEBRITY_POSTS_INDEX_MIGRATION = 'celebrity-posts-index';

/** The upgrade step run to the end, then marked done (`npm run migrate`): answers the posts indexed. */
export async function migrateCelebrityPostsIndex(client: DynamoDBDocumentClient, graphTable: string, inboxTable: string): Promise<number> {
  const indexed = await backfillCelebrityPostsIndex(client, inboxTable);
  await markMigrationDone(client, graphTable, CELEBRITY_POSTS_INDEX_MIGRATION, { indexed });
  return indexed;
}

/** The local runtime at start: the index backfill unless its marker (Graph table, beside the pack's) says it ran; answers the posts indexed, undefined when skipped. */
export async function ensureCelebrityPostsIndex(client: DynamoDBDocumentClient, graphTable: string, inboxTable: string): Promise<number | undefined> {
  const done = await runMigrationOnce(client, graphTable, CELEBRITY_POSTS_INDEX_MIGRATION, async () => ({ indexed: await backfillCelebrityPostsIndex(client, inboxTable) }));
  return done?.indexed;
}

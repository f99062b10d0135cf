/**
 * Upgrade step (`npm run migrate`, and the local runtime at start): the erasure footprint of data
 * written before it existed. The eraser finds cross-references from the user's side, never by a Scan
 * (src/adapters/dynamo/user-eraser.ts); two of those references were added after data existed:
 *
 * - a FOLLOWING entry per follow pair (`T#t#U#<follower>#FOLLOWING` / followee): written here for
 *   every follower item (and unfollow marker) of the Graph table, `firstRecordAt` if not there
 *   (the live code's own write), so an erased follower's follower items and counts are found;
 * - the author index attribute (`authorRef`) on a notification in another user's inbox: SET here on
 *   every own-inbox item whose actor is not its owner and that has none, guarded by the item's
 *   existence (never recreating one deleted meanwhile), so an erased author's notifications are found.
 *   Items the author's recent posts log finds get it too: the eraser reads keys before deleting, so a
 *   second finding removes nothing twice.
 *
 * Not backfilled, because they age out: trace records (7 days) and owner-index records (rate windows,
 * holds, channel send claims, schedule references) written before the upgrade; a schedule made before
 * it fires into a fan-out that drops an erased user (the tombstone check). A key whose tenant or
 * followee id is stored hashed (over 256 escaped characters) cannot be rebuilt and is counted in
 * `skipped`. One Scan per table, one UpdateItem per reference, idempotent: a rerun or a run beside
 * live traffic ends the same.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { FOLLOW_HISTORY_ATTRIBUTE, followHistoryOf } from '../../core/model/follow-history.js';
import { isKeyIdOf, parseKey } from '../../core/model/key-parsing.js';
import { AUTHOR_INDEX, keys, ownerIndexValue } from '../../core/model/keys.js';
import { markMigrationDone, runMigrationOnce } from './migration-marker.js';
import type { Item } from './query-pages.js';

export const ERASURE_FOOTPRINT_MIGRATION = 'erasure-footprint-v1';
const UPDATE_PARALLELISM = 8;

export interface ErasureFootprintReport extends Record<string, number> {
  /** FOLLOWING entries written (or found already there: the update is idempotent). */
  followingEntries: number;
  /** Notifications given their author index attribute. */
  authorRefs: number;
  /** References that cannot be rebuilt from a hashed key segment. */
  skipped: number;
}

async function* scanPages(client: DynamoDBDocumentClient, input: ConstructorParameters<typeof ScanCommand>[0]): AsyncGenerator<Item[]> {
  let start: Item | undefined;
  do {
    const output = await client.send(new ScanCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }));
    start = output.LastEvaluatedKey;
    yield output.Items ?? [];
  } while (start);
}

/** The time a follower item's first record says the pair began (its history, else `followedAt`); undefined when it holds neither. */
function firstRecordAtOf(item: Item): string | undefined {
  const history = followHistoryOf(item[FOLLOW_HISTORY_ATTRIBUTE] as Iterable<unknown> | undefined, item.followedAt);
  const first = history.reduce<number | undefined>((earliest, record) => (earliest === undefined || record.atMs < earliest ? record.atMs : earliest), undefined);
  return first === undefined ? undefined : new Date(first).toISOString();
}

async function backfillFollowingEntries(client: DynamoDBDocumentClient, graphTable: string, report: ErasureFootprintReport, nowMs: number): Promise<void> {
  // Follower items only (the key parser decides; the filter just keeps the Scan's answers small).
  for await (const items of scanPages(client, { TableName: graphTable, FilterExpression: 'contains(pk, :followers)', ExpressionAttributeValues: { ':followers': '#FOLLOWERS' } })) {
    await forEachBounded(items, UPDATE_PARALLELISM, async (item) => {
      const key = parseKey(item);
      if (key?.kind !== 'follower') return;
      if (key.tenantId.value === undefined || key.followeeId.value === undefined) {
        report.skipped += 1;
        return;
      }
      await client.send(
        new UpdateCommand({
          TableName: graphTable,
          Key: keys.following(key.tenantId.value, key.followerId, key.followeeId.value),
          UpdateExpression: 'SET firstRecordAt = if_not_exists(firstRecordAt, :at)',
          ExpressionAttributeValues: { ':at': firstRecordAtOf(item) ?? new Date(nowMs).toISOString() },
        }),
      );
      report.followingEntries += 1;
    });
  }
}

async function backfillAuthorRefs(client: DynamoDBDocumentClient, inboxTable: string, report: ErasureFootprintReport): Promise<void> {
  const pages = scanPages(client, {
    TableName: inboxTable,
    FilterExpression: 'attribute_exists(actor) AND attribute_not_exists(#ref)',
    ExpressionAttributeNames: { '#ref': AUTHOR_INDEX.attribute },
  });
  for await (const items of pages) {
    await forEachBounded(items, UPDATE_PARALLELISM, async (item) => {
      const key = parseKey(item);
      const authorId = (item.actor as { id?: unknown } | undefined)?.id;
      if (key?.kind !== 'inboxItem' || typeof authorId !== 'string' || isKeyIdOf(key.userId, authorId)) return;
      if (key.tenantId.value === undefined) {
        report.skipped += 1;
        return;
      }
      try {
        await client.send(
          new UpdateCommand({
            TableName: inboxTable,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET #ref = :ref',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#ref': AUTHOR_INDEX.attribute },
            ExpressionAttributeValues: { ':ref': ownerIndexValue(key.tenantId.value, authorId) },
          }),
        );
        report.authorRefs += 1;
      } catch (error) {
        // Deleted since the Scan read it (read, erased, expired): nothing to index.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    });
  }
}

/** Both backfills, to the end. */
export async function backfillErasureFootprint(client: DynamoDBDocumentClient, tables: { graph: string; inbox: string }, nowMs = Date.now()): Promise<ErasureFootprintReport> {
  const report: ErasureFootprintReport = { followingEntries: 0, authorRefs: 0, skipped: 0 };
  await backfillFollowingEntries(client, tables.graph, report, nowMs);
  await backfillAuthorRefs(client, tables.inbox, report);
  return report;
}

/** The upgrade step run to the end, then marked done. */
export async function migrateErasureFootprint(client: DynamoDBDocumentClient, tables: { graph: string; inbox: string }): Promise<ErasureFootprintReport> {
  const report = await backfillErasureFootprint(client, tables);
  await markMigrationDone(client, tables.graph, ERASURE_FOOTPRINT_MIGRATION, report);
  return report;
}

/** The local runtime at start: the step unless its marker says it ran (then undefined). */
export async function ensureErasureFootprint(client: DynamoDBDocumentClient, tables: { graph: string; inbox: string }): Promise<ErasureFootprintReport | undefined> {
  return runMigrationOnce(client, tables.graph, ERASURE_FOOTPRINT_MIGRATION, () => backfillErasureFootprint(client, tables));
}

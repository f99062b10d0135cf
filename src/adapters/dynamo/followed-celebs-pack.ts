/**
 * Writes of the packed followed-celebrities list (src/core/model/followed-pack.ts): `ADD f :elements` of
 * String Set elements on a chunk item, with no read, so a retry is harmless; `DELETE f :elements` of
 * named elements. Also the upgrade backfill from the FOLLOWING_CELEBS edges (`npm run migrate`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { encodeFollowedPackElement, FOLLOWED_PACK_ATTRIBUTE, followedPackChunk, followedPackElementsOf } from '../../core/model/followed-pack.js';
import { FOLLOWING_CELEBS_SUFFIX, keys, type TableKey } from '../../core/model/keys.js';
import { isItemTooLarge } from './item-limits.js';
import { markMigrationDone, runMigrationOnce } from './migration-marker.js';

/** One celebrity to put into a chunk item. */
export interface PackWrite {
  key: TableKey;
  celebrityId: string;
  followedAtMs: number;
}

/** Set elements per UpdateItem: a bounded request (up to ~27 KB of 256-character ASCII ids, ~78 KB of 3-byte UTF-8 ones). */
const ELEMENTS_PER_UPDATE = 100;
const DEFAULT_PACK_PARALLELISM = 8;

/** A chunk item is full: DynamoDB's 400 KB item limit (see src/core/model/followed-pack.ts for what that holds). */
export class FollowedPackFullError extends Error {
  override readonly name = 'FollowedPackFullError';
  constructor(readonly pk: string, readonly celebrityIds: readonly string[]) {
    super(`followed-celebrities pack chunk of ${pk} is over the 400 KB DynamoDB item limit: ${celebrityIds.length} follow(s) not packed (the FOLLOWING_CELEBS edges keep them)`);
  }
}

/** UpdateItem `ADD f :elements` of one chunk: atomic, and idempotent (a set holds an element once). */
async function addElements(client: DynamoDBDocumentClient, tableName: string, key: TableKey, writes: readonly PackWrite[]): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #f :elements',
      ExpressionAttributeNames: { '#f': FOLLOWED_PACK_ATTRIBUTE },
      ExpressionAttributeValues: { ':elements': new Set(writes.map((write) => encodeFollowedPackElement(write.celebrityId, write.followedAtMs))) },
    }),
  );
}

/**
 * Puts every write into its chunk: one UpdateItem per chunk item (up to 100 elements each),
 * `parallelism` in flight. Answers the writes that did not fit (item full); they are tried one by
 * one first, so whatever fits is stored.
 */
export async function setPackEntries(client: DynamoDBDocumentClient, tableName: string, writes: readonly PackWrite[], parallelism = DEFAULT_PACK_PARALLELISM): Promise<PackWrite[]> {
  const byChunk = new Map<string, { key: TableKey; writes: Map<string, PackWrite> }>();
  for (const write of writes) {
    const id = JSON.stringify([write.key.pk, write.key.sk]);
    let group = byChunk.get(id);
    if (!group) byChunk.set(id, (group = { key: write.key, writes: new Map() }));
    // One write per element: a repeated element would only repeat the same set member.
    group.writes.set(encodeFollowedPackElement(write.celebrityId, write.followedAtMs), write);
  }
  const updates = [...byChunk.values()].flatMap(({ key, writes: byElement }) => {
    const all = [...byElement.values()];
    return Array.from({ length: Math.ceil(all.length / ELEMENTS_PER_UPDATE) }, (_, index) => ({ key, writes: all.slice(index * ELEMENTS_PER_UPDATE, (index + 1) * ELEMENTS_PER_UPDATE) }));
  });
  const full: PackWrite[] = [];
  await forEachBounded(updates, parallelism, async ({ key, writes: batch }) => {
    try {
      await addElements(client, tableName, key, batch);
    } catch (error) {
      if (!isItemTooLarge(error)) throw error;
      for (const write of batch) {
        try {
          if (batch.length > 1) await addElements(client, tableName, key, [write]);
          else throw error;
        } catch (single) {
          if (!isItemTooLarge(single)) throw single;
          full.push(write);
        }
      }
    }
  });
  return full;
}

/**
 * `DELETE f :elements` of the named elements (up to 100 per UpdateItem); a chunk that does not exist
 * stays absent (conditional on the item: no empty item is created). Deleting an absent element is a no-op.
 */
export async function deletePackElements(client: DynamoDBDocumentClient, tableName: string, key: TableKey, elements: readonly string[]): Promise<void> {
  for (let start = 0; start < elements.length; start += ELEMENTS_PER_UPDATE) {
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'DELETE #f :elements',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#f': FOLLOWED_PACK_ATTRIBUTE },
          ExpressionAttributeValues: { ':elements': new Set(elements.slice(start, start + ELEMENTS_PER_UPDATE)) },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return;
      throw error;
    }
  }
}

/**
 * Removes one celebrity from its chunk: GetItem (ConsistentRead, only `f`) to learn its elements
 * (one normally, several after a race), then `DELETE f :elements` of all of them. Nothing stored, nothing written.
 */
export async function removePackEntry(client: DynamoDBDocumentClient, tableName: string, key: TableKey, celebrityId: string): Promise<void> {
  const output = await client.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true, ProjectionExpression: '#f', ExpressionAttributeNames: { '#f': FOLLOWED_PACK_ATTRIBUTE } }),
  );
  const elements = output.Item ? followedPackElementsOf(output.Item, celebrityId) : [];
  if (elements.length > 0) await deletePackElements(client, tableName, key, elements);
}

/** The pack write of one FOLLOWING_CELEBS edge item (pk, sk = celebrity id, followedAt); undefined for any other item. */
export function packWriteOfEdge(item: Record<string, unknown>): PackWrite | undefined {
  const { pk, sk, followedAt } = item;
  if (typeof pk !== 'string' || typeof sk !== 'string' || typeof followedAt !== 'string' || !keys.isFollowingCelebsPartition(pk)) return undefined;
  const ms = Date.parse(followedAt);
  const key = keys.followedCelebsPackOfEdgePartition(pk, followedPackChunk(sk));
  return key && Number.isFinite(ms) ? { key, celebrityId: sk, followedAtMs: ms } : undefined;
}

export type PackBackfillReport = {
  /** Items the Scan read (every kind of the graph table). */
  scanned: number;
  /** FOLLOWING_CELEBS edges added to their packs. */
  packed: number;
  /** Edges that did not fit (a chunk at 400 KB). */
  full: number;
  /** FOLLOWING_CELEBS items without a usable followedAt (left as they are). */
  skipped: number;
  pages: number;
};

export interface PackBackfillOptions {
  /** Scan items per page. */
  pageLimit?: number;
  /** UpdateItem calls in flight. */
  parallelism?: number;
  /** Resume from a page's LastEvaluatedKey (printed by `onPage`). */
  startKey?: Record<string, unknown>;
  /** After every page: progress, and the key to resume from (undefined after the last page). */
  onPage?: (report: PackBackfillReport, nextKey: Record<string, unknown> | undefined) => void | Promise<void>;
  /** Edges that did not fit. */
  onFull?: (writes: readonly PackWrite[]) => void;
}

/**
 * Upgrade from 0.1.0 (edges, no pack): one Scan of the graph table, every FOLLOWING_CELEBS edge ADDed
 * as an element of its pack chunk. Idempotent (the same element), so running it twice, or alongside
 * live follows, ends the same; an unfollow racing it may leave its element packed until the next unfollow.
 */
export async function backfillFollowedCelebrityPacks(client: DynamoDBDocumentClient, graphTable: string, options: PackBackfillOptions = {}): Promise<PackBackfillReport> {
  const report: PackBackfillReport = { scanned: 0, packed: 0, full: 0, skipped: 0, pages: 0 };
  let start = options.startKey;
  do {
    const output = await client.send(
      new ScanCommand({
        TableName: graphTable,
        // Only the edges leave the table (the filter runs server-side, the read cost is the whole page).
        FilterExpression: 'contains(pk, :suffix)',
        ExpressionAttributeValues: { ':suffix': FOLLOWING_CELEBS_SUFFIX },
        Limit: options.pageLimit ?? 1_000,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    report.scanned += output.ScannedCount ?? 0;
    const edges = (output.Items ?? []).filter((item) => typeof item.pk === 'string' && keys.isFollowingCelebsPartition(item.pk));
    const writes = edges.map(packWriteOfEdge).filter((write): write is PackWrite => write !== undefined);
    report.skipped += edges.length - writes.length;
    const full = await setPackEntries(client, graphTable, writes, options.parallelism);
    if (full.length > 0) options.onFull?.(full);
    report.full += full.length;
    report.packed += writes.length - full.length;
    report.pages += 1;
    start = output.LastEvaluatedKey;
    await options.onPage?.(report, start);
  } while (start);
  return report;
}

/**
 * The Graph item that says the backfill ran to the end on this table. v2: the String Set format; a
 * data dir packed by the unreleased attribute format (`@<id>` attributes, marker
 * 'followed-celebs-pack') is backfilled again, and its old attributes are dead (readers ignore them).
 */
export const FOLLOWED_PACK_MIGRATION = 'followed-celebs-pack-v2';

/** The upgrade step run to the end, then marked done (`npm run migrate`; the local runtime then skips it at start). */
export async function migrateFollowedCelebrityPacks(client: DynamoDBDocumentClient, graphTable: string, options: PackBackfillOptions = {}): Promise<PackBackfillReport> {
  const report = await backfillFollowedCelebrityPacks(client, graphTable, options);
  await markMigrationDone(client, graphTable, FOLLOWED_PACK_MIGRATION, report);
  return report;
}

/**
 * The local runtime at start: the backfill unless the marker says it ran, then the marker. A fresh
 * data dir costs one GetItem and one empty Scan; a 0.1.0 data dir gets its packs once.
 */
export async function ensureFollowedCelebrityPacks(client: DynamoDBDocumentClient, graphTable: string, options: PackBackfillOptions = {}): Promise<PackBackfillReport | undefined> {
  return runMigrationOnce(client, graphTable, FOLLOWED_PACK_MIGRATION, () => backfillFollowedCelebrityPacks(client, graphTable, options));
}

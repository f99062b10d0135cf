/**
 * Writes of the packed followed-celebrities list (src/core/followed-pack.ts): SET / REMOVE of one
 * top-level attribute per celebrity on its chunk item, with no read, so a retry is harmless.
 * Also the upgrade backfill from the FOLLOWING_CELEBS edges (`npm run migrate`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/bounded-parallel.js';
import { followedPackAttribute, followedPackChunk } from '../../core/followed-pack.js';
import { FOLLOWING_CELEBS_SUFFIX, keys, type TableKey } from '../../core/keys.js';
import { isItemTooLarge } from './item-limits.js';
import { markMigrationDone, runMigrationOnce } from './migration-marker.js';

/** One celebrity to put into a chunk item. */
export interface PackWrite {
  key: TableKey;
  celebrityId: string;
  followedAtMs: number;
}

/** Attributes per UpdateItem when several entries share a chunk (backfill): a short expression, a few KB of names. */
const ATTRIBUTES_PER_UPDATE = 100;
const DEFAULT_PACK_PARALLELISM = 8;

/** A chunk item is full: DynamoDB's 400 KB item limit (see src/core/followed-pack.ts for what that holds). */
export class FollowedPackFullError extends Error {
  override readonly name = 'FollowedPackFullError';
  constructor(readonly pk: string, readonly celebrityIds: readonly string[]) {
    super(`followed-celebrities pack chunk of ${pk} is over the 400 KB DynamoDB item limit: ${celebrityIds.length} follow(s) not packed (the FOLLOWING_CELEBS edges keep them)`);
  }
}

/** UpdateItem `SET #a0 = :v0, ...` of one chunk: atomic and idempotent. */
async function setAttributes(client: DynamoDBDocumentClient, tableName: string, key: TableKey, entries: ReadonlyArray<readonly [string, number]>): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const sets = entries.map(([celebrityId, ms], index) => {
    names[`#a${index}`] = followedPackAttribute(celebrityId);
    values[`:v${index}`] = ms;
    return `#a${index} = :v${index}`;
  });
  await client.send(new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }));
}

/**
 * Puts every write into its chunk: one UpdateItem per chunk item (up to 100 attributes each; the
 * last write of a celebrity wins), `parallelism` in flight. Answers the writes that did not fit (item
 * full); they are tried one by one first, so whatever fits is stored.
 */
export async function setPackEntries(client: DynamoDBDocumentClient, tableName: string, writes: readonly PackWrite[], parallelism = DEFAULT_PACK_PARALLELISM): Promise<PackWrite[]> {
  const byChunk = new Map<string, { key: TableKey; entries: Map<string, number> }>();
  for (const write of writes) {
    const id = JSON.stringify([write.key.pk, write.key.sk]);
    let group = byChunk.get(id);
    if (!group) byChunk.set(id, (group = { key: write.key, entries: new Map() }));
    group.entries.set(write.celebrityId, write.followedAtMs);
  }
  const updates = [...byChunk.values()].flatMap(({ key, entries }) => {
    const all = [...entries];
    return Array.from({ length: Math.ceil(all.length / ATTRIBUTES_PER_UPDATE) }, (_, index) => ({ key, entries: all.slice(index * ATTRIBUTES_PER_UPDATE, (index + 1) * ATTRIBUTES_PER_UPDATE) }));
  });
  const full: PackWrite[] = [];
  await forEachBounded(updates, parallelism, async ({ key, entries }) => {
    try {
      await setAttributes(client, tableName, key, entries);
    } catch (error) {
      if (!isItemTooLarge(error)) throw error;
      for (const entry of entries) {
        try {
          if (entries.length > 1) await setAttributes(client, tableName, key, [entry]);
          else throw error;
        } catch (single) {
          if (!isItemTooLarge(single)) throw single;
          full.push({ key, celebrityId: entry[0], followedAtMs: entry[1] });
        }
      }
    }
  });
  return full;
}

/** REMOVE of one celebrity's attribute; a chunk that does not exist stays absent (no empty item is created). */
export async function removePackEntry(client: DynamoDBDocumentClient, tableName: string, key: TableKey, celebrityId: string): Promise<void> {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'REMOVE #c',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#c': followedPackAttribute(celebrityId) },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return;
    throw error;
  }
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
  /** FOLLOWING_CELEBS edges set into their packs. */
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
 * Upgrade from 0.1.0 (edges, no pack): one Scan of the graph table, every FOLLOWING_CELEBS edge SET
 * into its pack chunk. Idempotent (SET of the same value), so running it twice, or alongside live
 * follows, ends the same; an unfollow racing it may leave its entry packed until the next unfollow.
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

/** The Graph item that says the backfill ran to the end on this table. */
export const FOLLOWED_PACK_MIGRATION = 'followed-celebs-pack';

/** Marks the backfill done (a later start skips it). */
export async function markFollowedPackBackfillDone(client: DynamoDBDocumentClient, graphTable: string, report: PackBackfillReport, nowMs = Date.now()): Promise<void> {
  await markMigrationDone(client, graphTable, FOLLOWED_PACK_MIGRATION, report, nowMs);
}

/**
 * The local runtime at start: the backfill unless the marker says it ran, then the marker. A fresh
 * data dir costs one GetItem and one empty Scan; a 0.1.0 data dir gets its packs once.
 */
export async function ensureFollowedCelebrityPacks(client: DynamoDBDocumentClient, graphTable: string, options: PackBackfillOptions = {}): Promise<PackBackfillReport | undefined> {
  return runMigrationOnce(client, graphTable, FOLLOWED_PACK_MIGRATION, () => backfillFollowedCelebrityPacks(client, graphTable, options));
}

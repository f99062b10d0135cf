/**
 * A celebrity's event is written once to each of S feed shards; each reader reads the one shard its
 * user id hashes to, so reads of a hot feed spread over S partitions and a page costs one query
 * per followed celebrity.
 */
import { createHash } from 'node:crypto';

export const DEFAULT_FEED_SHARDS = 4;

export function readerShard(userId: string, shardCount: number): number {
  return createHash('sha256').update(userId).digest().readUInt32BE(0) % shardCount;
}

export function allShards(shardCount: number): number[] {
  return Array.from({ length: shardCount }, (_, shard) => shard);
}

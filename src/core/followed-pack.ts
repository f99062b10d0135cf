/**
 * The packed copy of a user's followed celebrities (issue #13): FOLLOWED_PACK_CHUNKS items in the
 * Graph table, each holding one top-level attribute per followed celebrity (`@<celebrityId>` =
 * followedAt in epoch ms), so the inbox reads the whole list in one request whatever k is. A follow
 * or unfollow is one UpdateItem (`SET`/`REMOVE` of one attribute) on the celebrity's chunk.
 *
 * Capacity: a chunk is one item, at most 400 KB (attribute names included), so 8 chunks hold about
 * 11,000 follows of 256-character ids, or about 100,000 of 20-character ids (spread by a hash, the
 * fullest chunk sets the limit).
 */
import { createHash } from 'node:crypto';

/** Items per user: more chunks = more room, and more (tiny) items per read page. */
export const FOLLOWED_PACK_CHUNKS = 8;

/** Leads every celebrity attribute, so no stored name is ever a key name (`pk`, `sk`) or `__proto__`. */
export const FOLLOWED_PACK_ATTRIBUTE_PREFIX = '@';

/** The chunk that holds `celebrityId`: the first 4 bytes of its SHA-256 mod the chunk count (stable across releases). */
export function followedPackChunk(celebrityId: string): number {
  return createHash('sha256').update(celebrityId, 'utf8').digest().readUInt32BE(0) % FOLLOWED_PACK_CHUNKS;
}

/** The attribute name of `celebrityId` in its chunk (always passed through ExpressionAttributeNames). */
export function followedPackAttribute(celebrityId: string): string {
  return `${FOLLOWED_PACK_ATTRIBUTE_PREFIX}${celebrityId}`;
}

/** The celebrity id of a chunk attribute; undefined for the key attributes and anything else. */
export function celebrityIdOfPackAttribute(name: string): string | undefined {
  return name.startsWith(FOLLOWED_PACK_ATTRIBUTE_PREFIX) && name.length > FOLLOWED_PACK_ATTRIBUTE_PREFIX.length ? name.slice(FOLLOWED_PACK_ATTRIBUTE_PREFIX.length) : undefined;
}

/** followedAt (ISO) as the stored epoch ms; an unparseable time is a caller bug, not a value to store. */
export function followedAtMs(followedAt: string): number {
  const ms = Date.parse(followedAt);
  if (!Number.isFinite(ms)) throw new RangeError(`followedAt is not a time: ${JSON.stringify(followedAt)}`);
  return ms;
}

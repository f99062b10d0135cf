/**
 * The packed copy of a user's followed celebrities (issue #13): FOLLOWED_PACK_CHUNKS items in the
 * Graph table, each holding ONE String Set attribute `f` whose elements are
 * `${followedAtMs}:${celebrityId}`, so the inbox reads the whole list in one request whatever k is,
 * and the store parses one attribute per chunk instead of one per follow. A follow is one UpdateItem
 * `ADD f :elements` on the celebrity's chunk (no read, idempotent); an unfollow DELETEs every element
 * of that celebrity. Should a race leave several elements for one celebrity, the LATEST followedAt
 * wins (posts count only after followedAt: the conservative choice).
 *
 * The time comes first because an id may hold any character (':' and tabs included): an element is
 * split at its FIRST ':'. An element that does not decode is skipped, never thrown.
 *
 * Capacity: a chunk is one item, at most 400 KB; an element is 14 bytes (13 digits and ':') plus the
 * id's UTF-8 bytes, so a chunk holds about 12,000 elements of 20-character ASCII ids or about 1,500
 * of 256-character ASCII ids (about 500 of 256 three-byte characters): 8 chunks hold about 95,000,
 * 12,000 or 4,000 follows (spread by a hash, the fullest chunk sets the limit).
 */
import { createHash } from 'node:crypto';

export interface FollowedCelebrity {
  celebrityId: string;
  /** Epoch ms the user followed (as the pack stores it: no date text to build per follow on a hot read); only feed events after it belong to the user's view. */
  followedAtMs: number;
}

/** Items per user: more chunks = more room, and more (tiny) items per read page. */
export const FOLLOWED_PACK_CHUNKS = 8;

/** The String Set attribute of a chunk item that holds its elements. */
export const FOLLOWED_PACK_ATTRIBUTE = 'f';

/** Between the time and the id; the id may contain it too, so only the first one splits. */
const ELEMENT_SEPARATOR = ':';

/** Epoch ms as written: digits with an optional sign, no exponent, no fraction (what Date.parse yields). */
const FOLLOWED_AT_MS = /^-?\d{1,16}$/;

/** The chunk that holds `celebrityId`: the first 4 bytes of its SHA-256 mod the chunk count (stable across releases). */
export function followedPackChunk(celebrityId: string): number {
  return createHash('sha256').update(celebrityId, 'utf8').digest().readUInt32BE(0) % FOLLOWED_PACK_CHUNKS;
}

/** The set element of one follow: `${followedAtMs}:${celebrityId}`. */
export function encodeFollowedPackElement(celebrityId: string, followedAtMs: number): string {
  if (!Number.isSafeInteger(followedAtMs)) throw new RangeError(`followedAtMs is not an integer time: ${followedAtMs}`);
  if (celebrityId.length === 0) throw new RangeError('celebrityId is empty');
  return `${followedAtMs}${ELEMENT_SEPARATOR}${celebrityId}`;
}

/** The follow of one set element; undefined for anything damaged (no ':', a time that is not an integer, an empty id). */
export function decodeFollowedPackElement(element: unknown): FollowedCelebrity | undefined {
  if (typeof element !== 'string') return undefined;
  const at = element.indexOf(ELEMENT_SEPARATOR);
  if (at <= 0 || at === element.length - 1) return undefined;
  const time = element.slice(0, at);
  if (!FOLLOWED_AT_MS.test(time)) return undefined;
  const followedAtMs = Number(time);
  if (!Number.isSafeInteger(followedAtMs)) return undefined;
  return { celebrityId: element.slice(at + 1), followedAtMs };
}

/** The elements of a chunk's `f` as stored (a Set from the document client; an array is accepted too); none for anything else. */
function elementsOf(chunk: Record<string, unknown>): Iterable<unknown> {
  const value = chunk[FOLLOWED_PACK_ATTRIBUTE];
  return value instanceof Set || Array.isArray(value) ? (value as Iterable<unknown>) : [];
}

/**
 * The followed celebrities of a user's chunk items: every element decoded, damaged ones skipped,
 * one entry per celebrity with its LATEST followedAt. Order is unspecified.
 */
export function decodeFollowedPack(chunks: Iterable<Record<string, unknown>>): FollowedCelebrity[] {
  const latest = new Map<string, number>();
  for (const chunk of chunks) {
    for (const element of elementsOf(chunk)) {
      const follow = decodeFollowedPackElement(element);
      if (!follow) continue;
      const known = latest.get(follow.celebrityId);
      if (known === undefined || follow.followedAtMs > known) latest.set(follow.celebrityId, follow.followedAtMs);
    }
  }
  return [...latest].map(([celebrityId, followedAtMs]) => ({ celebrityId, followedAtMs }));
}

/** Every stored element of `celebrityId` in a chunk item, as stored (what a `DELETE f :elements` must name). */
export function followedPackElementsOf(chunk: Record<string, unknown>, celebrityId: string): string[] {
  const found: string[] = [];
  for (const element of elementsOf(chunk)) {
    if (typeof element === 'string' && decodeFollowedPackElement(element)?.celebrityId === celebrityId) found.push(element);
  }
  return found;
}

/** followedAt (ISO) as the stored epoch ms; an unparseable time is a caller bug, not a value to store. */
export function followedAtMs(followedAt: string): number {
  const ms = Date.parse(followedAt);
  if (!Number.isFinite(ms)) throw new RangeError(`followedAt is not a time: ${JSON.stringify(followedAt)}`);
  return ms;
}

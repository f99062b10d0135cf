/**
 * The celebrity posts COUNT INDEX: per reader shard, one item per time slot of INDEX_SLOT_MS holding
 * one attribute per celebrity post (name = the post id, value = author, type, expiry). A count of a
 * user following many celebrities reads a few slot items instead of one log item per post: on
 * DynamoDB a slot of 100 posts is ~7 KB (1 RCU) where 100 log items are ~40 KB, and DynamoDB's work
 * (and dynalite's) goes by item. Slots are keyed by the ids' time prefix, so id ranges map to slots.
 */
import { encodeTime } from 'ulid';
import { idLowerBoundAt, isNotificationId, timeOfId } from './ids.js';

/** A logged post's key and what a count filters on (no title or body). */
export interface CelebrityPostKey {
  authorId: string;
  id: string;
  type: string;
  expiresAt: number;
}

/** Slot length: a busy tenant's slot holds tens to hundreds of posts; a write costs ~1 WCU per KB of its slot. */
export const INDEX_SLOT_MS = 10_000;
/** Overflow items per slot (`<slot>#1`...) once a slot item reaches DynamoDB's 400 KB item limit. */
export const INDEX_MAX_OVERFLOW = 8;
/** Attributes of a slot item that are not posts. */
export const INDEX_ITEM_ATTRIBUTES: ReadonlySet<string> = new Set(['pk', 'sk', 'expiresAt']);

/** The slot's sort key: the 10-character time prefix of the slot's first instant. */
export function slotPrefixAt(timeMs: number): string {
  return encodeTime(Math.floor(timeMs / INDEX_SLOT_MS) * INDEX_SLOT_MS, 10);
}

export function slotPrefixOfId(id: string): string {
  return slotPrefixAt(timeOfId(id));
}

/**
 * What a scan that ended at this slot item has fully evaluated: every id >= the returned bound. A base
 * item (`<slot>`) is read after its overflow items, so it completes the slot; an overflow item
 * (`<slot>#n`) only completes the slots above it.
 */
export function evaluatedDownTo(sortKey: string): string {
  const slotStartMs = timeOfId(`${sortKey.slice(0, 10)}${'0'.repeat(16)}`);
  return sortKey.includes('#') ? idLowerBoundAt(slotStartMs + INDEX_SLOT_MS) : idLowerBoundAt(slotStartMs);
}

export interface IndexedPost {
  authorId: string;
  type: string;
  expiresAt: number;
}

/** Compact JSON text: authors are any identifier (tabs, quotes), so no hand-made separator. */
export function encodeIndexEntry(post: IndexedPost): string {
  return JSON.stringify([post.authorId, post.type, post.expiresAt]);
}

/** The post of one slot attribute; undefined for anything that is not a well-formed entry (skipped, never trusted). */
export function decodeIndexEntry(id: string, value: unknown): CelebrityPostKey | undefined {
  if (!isNotificationId(id) || typeof value !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
  const [authorId, type, expiresAt] = parsed as unknown[];
  if (typeof authorId !== 'string' || typeof type !== 'string' || typeof expiresAt !== 'number') return undefined;
  return { id, authorId, type, expiresAt };
}

/** The post attributes of a slot item authored by `authorId` (the erasure removes them, not the slot). */
export function indexEntriesOfAuthor(item: Record<string, unknown>, authorId: string): string[] {
  return Object.entries(item)
    .filter(([name, value]) => !INDEX_ITEM_ATTRIBUTES.has(name) && decodeIndexEntry(name, value)?.authorId === authorId)
    .map(([name]) => name);
}

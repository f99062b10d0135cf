/**
 * Port: the tenant's celebrity posts log, one copy of every celebrity feed post per reader shard
 * (`src/adapters/dynamo/celebrity-posts-log.ts`), so a reader following many celebrities reads one
 * partition newest first and keeps the posts of the ones it follows, instead of reading k feed heads;
 * and its count index (`core/model/celebrity-posts-index.ts`), the same posts' keys packed per time slot.
 */
import type { StoredNotification } from '../model/notification.js';
import type { IdRange } from './inbox.js';
import type { CelebrityPostKey } from '../model/celebrity-posts-index.js';

/** A logged post: the feed item and the celebrity whose feed holds it. */
export interface CelebrityPost {
  authorId: string;
  item: StoredNotification;
}

/** One request's answer: every id >= `scannedDownTo` in range has been evaluated (undefined when none), `more` whether the range holds more. */
export interface CelebrityPostsPage<T> {
  posts: T[];
  scannedDownTo?: string;
  more: boolean;
}

export interface CelebrityPostsReader {
  /** Newest-first pages of one shard's posts within the range (exclusive ends), `firstPageSize` (default `pageSize`) then `pageSize` evaluated per request; leaving the loop sends no further request. */
  scanPosts(tenantId: string, shard: number, range: IdRange, pageSize: number, firstPageSize?: number): AsyncIterable<CelebrityPostsPage<CelebrityPost>>;
  /**
   * The count index's post keys above `after` (exclusive), newest slots first: `firstSlots` slot items
   * in the first request, four times as many in each next one (a quiet tenant's slots hold few posts).
   */
  scanPostKeys(tenantId: string, shard: number, after: string | undefined, firstSlots: number): AsyncIterable<CelebrityPostsPage<CelebrityPostKey>>;
}

/** One post for the count index of one reader shard. */
export interface CelebrityPostIndexEntry extends CelebrityPostKey {
  tenantId: string;
  shard: number;
}

export interface CelebrityPostsIndexWriter {
  /** Adds the posts to their slots (idempotent: the post id is the attribute); written after the log items. */
  indexPosts(entries: readonly CelebrityPostIndexEntry[]): Promise<void>;
}

/**
 * Port: the tenant's celebrity posts log, one copy of every celebrity feed post per reader shard
 * (`src/adapters/dynamo/celebrity-posts-log.ts`), so a reader following many celebrities reads one
 * partition newest first and keeps the posts of the ones it follows, instead of reading k feed heads.
 */
import type { StoredNotification } from '../notification.js';
import type { IdRange } from './inbox.js';

/** A logged post: the feed item and the celebrity whose feed holds it. */
export interface CelebrityPost {
  authorId: string;
  item: StoredNotification;
}

/** A logged post's key and what a count filters on (no title or body). */
export interface CelebrityPostKey {
  authorId: string;
  id: string;
  type: string;
  expiresAt: number;
}

/** One request's answer: `scannedDownTo` is the lowest id it evaluated (undefined when none), `more` whether the range holds more. */
export interface CelebrityPostsPage<T> {
  posts: T[];
  scannedDownTo?: string;
  more: boolean;
}

export interface CelebrityPostsReader {
  /** Newest-first pages of one shard's posts within the range (exclusive ends), `pageSize` evaluated per request; leaving the loop sends no further request. */
  scanPosts(tenantId: string, shard: number, range: IdRange, pageSize: number): AsyncIterable<CelebrityPostsPage<CelebrityPost>>;
  /** As scanPosts, keys and types only. */
  scanPostKeys(tenantId: string, shard: number, range: IdRange, pageSize: number): AsyncIterable<CelebrityPostsPage<CelebrityPostKey>>;
}

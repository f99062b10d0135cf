/** Ports of the inbox read and write side; `src/adapters/dynamo/` implements them. */
import type { ReadState } from '../model/read-state.js';
import type { StoredNotification } from '../model/notification.js';
import type { ItemAction } from '../../contract/wire.js';
import type { FollowedCelebrity } from '../model/followed-pack.js';
import type { UserRef } from '../model/user.js';

/** Where inbox items live: the user's own partition, or one shard of a celebrity's feed. */
export type InboxSource =
  | { kind: 'own'; tenantId: string; userId: string }
  | { kind: 'feed'; tenantId: string; actorId: string; shard: number };

/** Written only (read through CelebrityPostsReader): one shard of the tenant's celebrity posts log, for a post of `authorId`. */
export interface CelebrityPostsShard {
  kind: 'celebrityPosts';
  tenantId: string;
  shard: number;
  authorId: string;
}

/** Read only: one shard of the tenant's celebrity posts log (a held push of a celebrity's post is read back from it by id). */
export interface CelebrityLogShard {
  kind: 'celebrityLog';
  tenantId: string;
  shard: number;
}

export interface IdRange {
  /** Exclusive upper bound. */
  before?: string;
  /** Exclusive lower bound. */
  after?: string;
}

export interface PageQuery extends IdRange {
  limit: number;
  type?: string;
  /** Types left out (the user's muted types, applied to celebrity feeds at read time). */
  excludeTypes?: readonly string[];
  nowMs: number;
}

export interface InboxReader {
  /** Newest-first items of one source within the range, expired items and other types filtered out. */
  listInboxPage(source: InboxSource, query: PageQuery): Promise<StoredNotification[]>;
  /** Newest-first ids of one source above `after` (unexpired), at most `limit`. */
  listUnreadIdsAbove(source: InboxSource, after: string | undefined, limit: number, nowMs: number, excludeTypes?: readonly string[]): Promise<string[]>;
  /** The items at these (source, id) keys (BatchGetItem), absent ones left out, expired ones included. */
  getItems(keys: readonly { source: InboxSource | CelebrityLogShard; id: string }[]): Promise<Map<string, StoredNotification>>;
  /** The item with this id in any of the sources, if present and unexpired. */
  findNotification(sources: readonly InboxSource[], id: string, nowMs: number): Promise<StoredNotification | undefined>;
}

export interface InboxItemToWrite {
  source: InboxSource | CelebrityPostsShard;
  item: StoredNotification;
  /**
   * An item in another user's inbox is in the author index (its erasure finds it there) unless its
   * author's recent posts log and followers find it: an author's follower fan-out and its backfill.
   */
  foundByPostsLog?: true;
}

export interface InboxWriter {
  /** Idempotent puts (deterministic ids): BatchWriteItem, 25 per call, retries unprocessed and throttled calls. */
  writeInboxItems(items: readonly InboxItemToWrite[]): Promise<void>;
}

export interface FollowedCelebritiesReader {
  listFollowedCelebrities(user: UserRef): Promise<FollowedCelebrity[]>;
}

/** The two newest ids of a celebrity's feed, kept on its profile ('0' = none). */
export interface FeedHead {
  newest: string;
  /** The id just below `newest`; undefined when not known. */
  previous?: string;
}

/** The head a celebrity's profile gets at promotion: below every id, "no feed post yet". */
export const EMPTY_FEED_HEAD = '0';

/**
 * The feed heads of celebrities (from their profiles), so a read queries only the feeds that can
 * contribute. A celebrity missing from the answer has an unknown head and is always queried.
 */
export interface FeedHeadsReader {
  feedHeads(tenantId: string, celebrityIds: readonly string[]): Promise<ReadonlyMap<string, FeedHead>>;
}

export interface ReadStateStore {
  /** The marks and every single-read exception above the read mark. */
  getReadState(user: UserRef): Promise<ReadState>;
  /** One conditional write: the read mark only moves forward. Returns the state's marks after it. `writtenAtMs` stamps the write (unread exceptions compare with it). */
  advanceReadMark(user: UserRef, mark: string, atIso: string, writtenAtMs?: number): Promise<{ readAt: string }>;
  /** One conditional write: the seen mark only moves forward. */
  advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }>;
  /** One put: a READ#<id> exception with a TTL. */
  recordSingleRead(user: UserRef, id: string, expiresAtEpochSeconds: number, atMs?: number): Promise<void>;
  /** The same puts for many ids, batched (25 per request). */
  recordSingleReads(user: UserRef, ids: readonly string[], expiresAtEpochSeconds: number, atMs?: number): Promise<void>;
}

/** One change of a notification's per-item state (READEX#<id>), at `atMs`. */
export type ItemStateChange =
  | { kind: 'unread' | 'seen' | 'archive' | 'unarchive' | 'delete'; type: string; atMs: number }
  | { kind: 'snooze'; type: string; atMs: number; untilMs: number };

/** The per-item exceptions and the archive mark (ReadMarks, the user's partition). */
export interface ItemStateStore {
  /** One UpdateItem of READEX#<id>. */
  changeItemState(user: UserRef, id: string, change: ItemStateChange, expiresAtEpochSeconds: number): Promise<void>;
  /** One UpdateItem of the mark item: archive mark = the read mark as it is, at `atMs`. */
  archiveAllRead(user: UserRef, atMs: number): Promise<void>;
}

/** A producer's withdrawal of one event: all its notifications, whoever received them. */
export interface Retraction {
  tenantId: string;
  type: string;
  eventId: string;
  /** The event's arrival stamp: the time part of every notification id it made. */
  arrivalMs: number;
}

export interface RetractionStore {
  /** One PutItem of the tenant's retraction record (idempotent). */
  recordRetraction(retraction: Retraction, expiresAtEpochSeconds: number): Promise<void>;
}

export interface RetractionsReader {
  /** The tenant's unexpired retractions (one Query; a cache in front keeps it off most reads). */
  retractionsOf(tenantId: string, nowMs: number): Promise<Retraction[]>;
}

/** Told after a user's read state changed, so every device can be synced (live delivery). */
export interface ReadStateListener {
  readStateChanged(user: UserRef): Promise<void>;
}

/** The user's muted types, left out of celebrity feeds at read time (their own inbox never got them). */
export interface MutedTypesReader {
  mutedTypesOf(user: UserRef): Promise<readonly string[]>;
}

/** Told after per-item changes and archive-all-read, so every device of the user can be synced. */
export interface InboxStateListener {
  itemStateChanged(user: UserRef, action: ItemAction | 'snooze', ids: readonly string[]): Promise<void>;
  archivedRead(user: UserRef, archivedAt: string): Promise<void>;
}

/** A snoozed notification's comeback: a new item under `returnId` (an id of its return time) and a live push then. */
export interface SnoozeReturns {
  scheduleReturn(user: UserRef, item: StoredNotification, returnId: string, untilMs: number): Promise<void>;
}

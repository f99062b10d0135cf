/** Ports of the inbox read and write side; `src/adapters/dynamo/` implements them. */
import type { ItemException, ReadState } from '../model/read-state.js';
import type { Comeback, StoredNotification } from '../model/notification.js';
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

/** An item's id, and for a snooze comeback what it brings back (counts read keys only). */
export interface InboxKey {
  id: string;
  comeback?: Comeback;
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
  /** Newest-first keys of one source in (after, before) (unexpired), at most `limit`: the id, and what a snooze comeback brings back. */
  listIdsAbove(source: InboxSource, range: IdRange, limit: number, nowMs: number, excludeTypes?: readonly string[]): Promise<InboxKey[]>;
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

/** One item into the user's own partition (the snooze comeback: a PutItem its role may send to user partitions only). */
export interface OwnInboxItemWriter {
  putOwnInboxItem(user: UserRef, item: StoredNotification): Promise<void>;
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

/** The user's marks and the per-item exceptions of a range of ids (`exceptionsComplete`: none left below `exceptionsFrom`). */
export interface ReadStateWindow {
  state: ReadState;
  /** Exceptions are known for every id >= this (exclusive of anything below); undefined: for every id. */
  exceptionsFrom?: string;
}

export interface ReadStateStore {
  /**
   * The marks and the exceptions of the newest ids below `before` (all ids when undefined), at most
   * `limit` of them: one Query from the marks item down (no `before`), else the marks item and a
   * Query below `before`. The window says down to which id the exceptions are known.
   */
  readWindow(user: UserRef, before: string | undefined, limit: number): Promise<ReadStateWindow>;
  /** Every exception with an id in [from, before) (a page scanned below what `readWindow` covered). */
  listExceptions(user: UserRef, from: string, before: string | undefined): Promise<Map<string, ItemException>>;
  /** The marks and every exception above the read mark (counts): one descending Query that stops below the mark. */
  readAboveMark(user: UserRef): Promise<ReadState>;
  /** The exceptions of these ids (BatchGetItem, 100 per call). */
  getExceptions(user: UserRef, ids: readonly string[]): Promise<Map<string, ItemException>>;
  /** One conditional write: the read mark only moves forward; a read-all below it is kept as a stale read-all (read and one more write). */
  advanceReadMark(user: UserRef, mark: string, atIso: string): Promise<{ readAt: string }>;
  /** One conditional write: the seen mark only moves forward. */
  advanceSeenMark(user: UserRef, mark: string, atIso: string): Promise<{ seenAt: string }>;
  /** One UpdateItem of the marks item: the archive snapshot becomes the read-alls as they are now (copied inside the store, no read). */
  archiveAllRead(user: UserRef, atIso: string): Promise<void>;
  /** The exceptions as computed (one PutItem; several: BatchWriteItem, 25 per call). */
  putExceptions(user: UserRef, exceptions: ReadonlyMap<string, ItemException>): Promise<void>;
  /** One UpdateItem of the marks item: these ids were marked unread at or below the read mark, or left countable where the counts floor may cover them (version); `forget`: entries no longer needed. */
  recordUnreadBelowMark(user: UserRef, ids: readonly string[], version: number, forget: readonly string[]): Promise<void>;
  /** One conditional UpdateItem of the marks item: the counts floor moves from `from` (null: none yet) to `to`; false when another count moved it first. */
  advanceCountsFloor(user: UserRef, from: string | null, to: string): Promise<boolean>;
}

/** An own item written late under an older id (src/core/model/counts-floor.ts): its marker beside the user's marks. */
export interface LateArrivalMarker {
  user: UserRef;
  id: string;
  /** Epoch seconds (TTL), the item's: the marker goes with it. */
  expiresAt: number;
}

/** Records late arrivals' markers (BatchWriteItem beside the marks items; idempotent). */
export interface LateArrivalRecorder {
  recordLateArrivals(markers: readonly LateArrivalMarker[]): Promise<void>;
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

/** What a read-state change did, for the devices that have not loaded all of it. */
export interface ReadStateChange {
  /** The notifications read one by one (a single read). */
  readIds?: readonly string[];
  /** A read-all's mark: everything at or below it is read now, also when the read mark stays higher (a device behind). */
  readUpTo?: string;
}

/** Told after a user's read state changed, so every device can be synced (live delivery). */
export interface ReadStateListener {
  readStateChanged(user: UserRef, change?: ReadStateChange): Promise<void>;
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
  /** Writes the comeback item (hidden until the snoozed item's exception names it). */
  writeComeback(user: UserRef, comeback: StoredNotification): Promise<void>;
  /** Schedules the comeback's live push at its return time (a retry finds the same schedule). */
  schedulePush(user: UserRef, comeback: StoredNotification, untilMs: number): Promise<void>;
}

/** What one lookup of ids for a per-item action returns (one BatchGetItem round over three tables). */
export interface ActionLookup {
  /** The ids found in the user's own partition. */
  own: Map<string, StoredNotification>;
  /** The ids found in the reader's shard of the tenant's celebrity posts log, with their celebrity. */
  celebrityPosts: Map<string, { authorId: string; item: StoredNotification }>;
  /** The marks, and the exceptions of the ids. */
  state: ReadState;
  /** The celebrities the user follows (the pack). */
  followed: FollowedCelebrity[];
}

/** The per-item actions' view lookup: ids in the own partition and the celebrity posts log, the read state and the follows, in one round whatever k is. */
export interface ActionLookupReader {
  lookupForAction(user: UserRef, ids: readonly string[], logShard: number): Promise<ActionLookup>;
}

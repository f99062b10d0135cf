/** Ports of the write side (fan-out and the follow graph, the arrival clock, the posts log); `src/adapters/dynamo/` implements them. */
import type { Priority, RenderedNotification } from '../delivery-job.js';
import type { Tier, TierChange } from '../tier.js';

export type { TierChange } from '../tier.js';

export interface AccountProfile {
  followerCount: number;
  tier: Tier;
  /** Set by the first promotion and never cleared: the account may have feed posts a new follower must merge. */
  everCelebrity?: boolean;
}

/** What a follow did: the profile as the counting update returned it, and the edge's stored followedAt. */
export interface FollowOutcome extends AccountProfile {
  /** The first followedAt of the edge (a repeated follow keeps it). */
  followedAt: string;
}

/** Identifies one event across retries, duplicate publishes and replays. */
export interface ArrivalKey {
  tenantId: string;
  type: string;
  eventId: string;
}

/** Port: the arrival clock, one record per event (conditional put). */
export interface ArrivalLedger {
  /**
   * The event's arrival stamp: `candidateMs` when this is the first time the event is stamped (or
   * its record expired), otherwise the stamp recorded first. `expiresAtSeconds` is the record's TTL.
   */
  stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number>;
}

/** A post fanned out in the ordinary tier, as the per-author log keeps it for late follows. */
export interface LoggedPost {
  eventId: string;
  type: string;
  priority: Priority;
  arrivalMs: number;
  notification: RenderedNotification;
  expiresAt: number;
}

/** Port: the author's recent inbox-mode posts (TTL), read by a follow to backfill what it raced. */
export interface RecentPostsLog {
  /** One put per post (idempotent: the key is derived from the post's arrival and event). */
  recordPost(tenantId: string, authorId: string, post: LoggedPost): Promise<void>;
  /** The author's logged posts that arrived at or after `fromMs`, unexpired, oldest first. */
  listPostsFrom(tenantId: string, authorId: string, fromMs: number, nowMs: number): Promise<LoggedPost[]>;
}

export interface FollowEdge {
  tenantId: string;
  followeeId: string;
  followerId: string;
  /** ISO time of the follow event. */
  followedAt: string;
}

export interface Follower {
  followerId: string;
  followedAt: string;
}

export interface FollowersPage {
  followers: Follower[];
  /** Exclusive start of the next page; undefined on the last page. */
  next?: string;
}

export interface FollowedCelebrityEntry {
  tenantId: string;
  userId: string;
  celebrityId: string;
  followedAt: string;
}

export interface FollowGraph {
  /** Follower count and tier (an unknown account is an ordinary account with 0 followers). */
  getProfile(tenantId: string, userId: string): Promise<AccountProfile>;
  /**
   * Writes the edge FIRST, then counts it exactly once however often it is retried; returns the
   * profile as the counting update returned it (tier read in the same atomic step) and the stored followedAt.
   */
  addFollower(edge: FollowEdge): Promise<FollowOutcome>;
  /** Removes the edge and uncounts it if it was counted; the profile after. */
  removeFollower(tenantId: string, followeeId: string, followerId: string): Promise<AccountProfile>;
  /** Conditional tier change (tier still `from`, count within the guard); a promotion also sets everCelebrity. False when the condition failed. */
  changeTier(tenantId: string, userId: string, change: TierChange): Promise<boolean>;
  /** One page of an account's followers in follower-id order, after `after`. */
  listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage>;
  /** Moves the celebrity's newest feed id forward to `notificationId` (never back); idempotent. */
  advanceNewestFeedId(tenantId: string, celebrityId: string, notificationId: string): Promise<void>;
  putFollowedCelebrities(entries: readonly FollowedCelebrityEntry[]): Promise<void>;
  removeFollowedCelebrity(tenantId: string, userId: string, celebrityId: string): Promise<void>;
}

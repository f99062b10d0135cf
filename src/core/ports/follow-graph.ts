/** Port of the follow graph (fan-out's write side, promotion); `src/adapters/dynamo/` implements it. */
import type { Tier, TierChange } from '../model/tier.js';

export type { TierChange } from '../model/tier.js';

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

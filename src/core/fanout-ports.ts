/** Ports of the write side (fan-out and the follow graph); adapters implement them. */
import type { PromotionJob } from './celebrity-promotion.js';
import type { Tier } from './tier.js';

export interface AccountProfile {
  followerCount: number;
  tier: Tier;
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
  /** Adds the edge and counts it exactly once however often it is retried; the profile after. */
  addFollower(edge: FollowEdge): Promise<AccountProfile>;
  /** Removes the edge and uncounts it if it was counted; the profile after. */
  removeFollower(tenantId: string, followeeId: string, followerId: string): Promise<AccountProfile>;
  /** Conditional tier change; false when another writer changed it first. */
  changeTier(tenantId: string, userId: string, from: Tier, to: Tier): Promise<boolean>;
  /** One page of an account's followers in follower-id order, after `after`. */
  listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage>;
  /** Moves the celebrity's newest feed id forward to `notificationId` (never back); idempotent. */
  advanceNewestFeedId(tenantId: string, celebrityId: string, notificationId: string): Promise<void>;
  putFollowedCelebrities(entries: readonly FollowedCelebrityEntry[]): Promise<void>;
  removeFollowedCelebrity(tenantId: string, userId: string, celebrityId: string): Promise<void>;
}

/** Port: the queue of paged background passes run when an account becomes a celebrity. */
export interface PromotionJobQueue {
  enqueue(job: PromotionJob): Promise<void>;
}

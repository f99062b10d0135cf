/** Port of the follow graph (fan-out's write side, promotion); `src/adapters/dynamo/` implements it. */
import type { FollowRecord, FollowRun } from '../model/follow-history.js';
import type { Tier, TierChange } from '../model/tier.js';

export type { TierChange } from '../model/tier.js';

export interface AccountProfile {
  followerCount: number;
  tier: Tier;
  /** Set by the first promotion and never cleared: the account may have feed posts a new follower must merge. */
  everCelebrity?: boolean;
}

export interface FollowPair {
  tenantId: string;
  followeeId: string;
  followerId: string;
}

/** A follow or unfollow record to apply, by the event `owner` (a token of the event, the same on every retry). */
export interface PairChange extends FollowPair {
  record: FollowRecord;
  owner: string;
}

/** The pair as a record left it (`recordFollowChange`). */
export interface PairState {
  /** Every record of the pair, this one included, oldest first. */
  history: FollowRecord[];
  /** Whether the followee's follower count includes the pair. */
  counted: boolean;
  /** The event that holds the pair: the owner of the change, unless another event is applying one. */
  heldBy: string;
  /** The record was not in the history before (false: a retry or a duplicate). */
  recordWasNew: boolean;
  /** The owner already held the pair (an attempt of the same event died holding it). */
  resumed: boolean;
}

/** What `releasePair` stores: the pair's state derived from its history, written as the owner lets go. */
export interface PairRelease extends FollowPair {
  owner: string;
  counted: boolean;
  run: FollowRun;
  /** An unfollowed pair's marker expires then (epoch seconds); undefined while following. */
  markerExpiresAt?: number;
  /** Records to drop (older than the retention horizon, `compactableRecords`). */
  compact: readonly FollowRecord[];
}

export interface Follower {
  followerId: string;
  /** Start of the pair's current follow run (ISO); absent on an unfollow marker (the pair does not follow now). */
  followedAt?: string;
  /** The pair's records, oldest first: a post that arrived at t is the follower's iff `followingAt(history, t)`. */
  history: FollowRecord[];
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
   * Takes the pair for `owner` and adds a follow or unfollow record to its history (idempotent, any
   * order), unless another event holds it: then nothing is written and `heldBy` names the holder. The
   * pair stays held until `releasePair`, so a history only grows under its holder and the count, the
   * pack and the backfill of one record never interleave another's.
   */
  recordFollowChange(change: PairChange): Promise<PairState>;
  /**
   * Moves the followee's count by `delta` for the change `owner` makes, exactly once however often it
   * is retried (the count item keeps a claim of the owner until `forgetCountClaim`); the profile after.
   */
  countPair(tenantId: string, followeeId: string, owner: string, delta: 1 | -1): Promise<AccountProfile>;
  /** The followee's profile, and whether a count claim of `owner` is still on it (left by an attempt that died after counting). */
  profileForPair(tenantId: string, followeeId: string, owner: string): Promise<{ profile: AccountProfile; claimLeft: boolean }>;
  /** Stores the derived state (counted, followedAt, an unfollow marker's expiry) and lets the pair go; only its holder can. */
  releasePair(release: PairRelease): Promise<void>;
  /** Drops the count claim of `owner` (after `releasePair` stored `counted`). */
  forgetCountClaim(tenantId: string, followeeId: string, owner: string): Promise<void>;
  /** The current state of these pairs (consistent reads), by follower id; an absent pair is left out. */
  getFollowers(tenantId: string, followeeId: string, followerIds: readonly string[]): Promise<Map<string, Follower>>;
  /** Conditional tier change (tier still `from`, count within the guard); a promotion also sets everCelebrity. False when the condition failed. */
  changeTier(tenantId: string, userId: string, change: TierChange): Promise<boolean>;
  /** One page of an account's follower items in follower-id order, after `after`: followers and unfollow markers, with their histories. */
  listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage>;
  /** Moves the celebrity's newest feed id forward to `notificationId` (never back); idempotent. */
  advanceNewestFeedId(tenantId: string, celebrityId: string, notificationId: string): Promise<void>;
  putFollowedCelebrities(entries: readonly FollowedCelebrityEntry[]): Promise<void>;
  /** Like `putFollowedCelebrities` for one follow, removing any other followedAt the pack holds for that celebrity (a follow run that moved). */
  replaceFollowedCelebrity(entry: FollowedCelebrityEntry): Promise<void>;
  removeFollowedCelebrity(tenantId: string, userId: string, celebrityId: string): Promise<void>;
}

/**
 * The `dynamodb:LeadingKeys` patterns the IAM policies narrow grants with match exactly the key
 * kind they name: IAM's `*` also matches `#`, so each is tried against every partition key kind
 * the builders make, with ids chosen to look like the structural segments (`U`, `F`, `PROFILE`...).
 */
import { describe, expect, it } from 'vitest';
import { globMatches } from '../../scripts/least-privilege/iam-glob.js';
import {
  CELEBRITY_POSTS_INDEX_KEY_PATTERN,
  CHANNEL_STATE_KEY_PATTERN,
  FEED_SHARD_KEY_PATTERN,
  FOLLOWED_CELEBS_PACK_KEY_PATTERN,
  PROFILE_PARTITION_KEY_PATTERN,
  RETRACTIONS_KEY_PATTERN,
  USER_PARTITION_KEY_PATTERN,
  keys,
  userPartition,
} from '../../src/core/model/keys.js';

const TRICKY = ['alice', 'U', 'F', 'P', 'CP', 'PROFILE', 'CHANNELS', 'FOLLOWERS', 'FOLLOWED_CELEBS_PACK', 'a#b', 'S1'];

/** Every partition key kind of the tables, by kind, for every tricky tenant and id. */
function partitionKeys(): { kind: string; pk: string }[] {
  const result: { kind: string; pk: string }[] = [];
  for (const tenant of TRICKY) {
    for (const id of TRICKY) {
      result.push(
        { kind: 'user', pk: userPartition(tenant, id) },
        { kind: 'feedShard', pk: keys.feedShardPartition(tenant, id, 1) },
        { kind: 'retractions', pk: keys.retractionsPartition(tenant) },
        { kind: 'recentPosts', pk: keys.recentPostsPartition(tenant, id) },
        { kind: 'celebrityPosts', pk: keys.celebrityPostsPartition(tenant, 2) },
        { kind: 'celebrityPostsIndex', pk: keys.celebrityPostsIndexPartition(tenant, 2) },
        { kind: 'followers', pk: keys.followersPartition(tenant, id) },
        { kind: 'followingCelebs', pk: keys.followingCelebsPartition(tenant, id) },
        { kind: 'followedCelebsPack', pk: keys.followedCelebsPackPartition(tenant, id) },
        { kind: 'profile', pk: keys.profile(tenant, id).pk },
        { kind: 'profile', pk: keys.preferences(tenant, id).pk },
        { kind: 'channelState', pk: keys.channelStatePartition(tenant, id) },
        { kind: 'onlineSubscribers', pk: keys.onlineSubscribersPartition(tenant, id, 0) },
        { kind: 'connectionReverse', pk: keys.connectionReverse('L0SM9cOFvHcCIhw=').pk },
        { kind: 'migration', pk: keys.migrationMarker('followed-celebs-pack').pk },
      );
    }
  }
  return result;
}

/** The kinds whose keys a pattern (and none of `except`) matches. */
function kindsMatching(pattern: string, except: readonly string[] = []): string[] {
  const matched = partitionKeys().filter(({ pk }) => globMatches(pattern, pk) && !except.some((excluded) => globMatches(excluded, pk)));
  return [...new Set(matched.map(({ kind }) => kind))].sort();
}

describe('dynamodb:LeadingKeys patterns', () => {
  it('user partitions: T#*#U#* also matches a feed shard of an actor whose id is U, so grants pair it with StringNotLike T#*#F#*', () => {
    expect(globMatches(USER_PARTITION_KEY_PATTERN, keys.feedShardPartition('acme', 'U', 1))).toBe(true);
    // In the Inbox table (the other kinds are Graph and Connections sub-partitions of a user).
    expect(kindsMatching(USER_PARTITION_KEY_PATTERN, [FEED_SHARD_KEY_PATTERN]).filter((kind) => !['followers', 'followingCelebs', 'followedCelebsPack', 'profile', 'channelState', 'onlineSubscribers'].includes(kind))).toEqual(['user']);
    // Every user partition passes the pair, whatever its ids.
    expect(partitionKeys().filter(({ kind, pk }) => kind === 'user' && (!globMatches(USER_PARTITION_KEY_PATTERN, pk) || globMatches(FEED_SHARD_KEY_PATTERN, pk)))).toEqual([]);
  });

  it('each Graph pattern matches its own kind only', () => {
    expect(kindsMatching(PROFILE_PARTITION_KEY_PATTERN)).toEqual(['profile']);
    expect(kindsMatching(CHANNEL_STATE_KEY_PATTERN)).toEqual(['channelState']);
    expect(kindsMatching(FOLLOWED_CELEBS_PACK_KEY_PATTERN)).toEqual(['followedCelebsPack']);
  });

  it('in the Inbox table, feed shards and the celebrity posts count index match their own kinds only', () => {
    // T#*#F#* would match a Graph sub-partition of a user named F (T#t#U#F#PROFILE): it only ever narrows Inbox grants.
    const inboxKinds = new Set(['user', 'feedShard', 'retractions', 'recentPosts', 'celebrityPosts', 'celebrityPostsIndex']);
    const inInbox = (kinds: string[]) => kinds.filter((kind) => inboxKinds.has(kind));
    expect(inInbox(kindsMatching(FEED_SHARD_KEY_PATTERN))).toEqual(['feedShard']);
    expect(inInbox(kindsMatching(CELEBRITY_POSTS_INDEX_KEY_PATTERN))).toEqual(['celebrityPostsIndex']);
    expect(inInbox(kindsMatching(RETRACTIONS_KEY_PATTERN))).toEqual(['retractions']);
  });
});

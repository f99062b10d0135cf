/**
 * Where a user's cross-references are, computed from what their own partitions hold, so the erasure
 * reads in proportion to their footprint and never scans a table:
 *
 * - the copies of their inbox-mode posts in their followers' inboxes: one per (logged post, follower
 *   or unfollow marker whose history began by then), at the deterministic id the fan-out wrote it under;
 * - their celebrity posts in the tenant's celebrity posts log and its count index, from their feed;
 * - the pending schedules named by their owner-index records (a hold's release, a schedule reference).
 *
 * Everything else that names them is in their own partitions or found through the sparse owner and
 * author indexes (`keys.ts`, `OWNER_INDEX`, `AUTHOR_INDEX`).
 */
import { slotPrefixOfId } from '../model/celebrity-posts-index.js';
import { allShards } from '../model/feed-shards.js';
import { keys, userPartition, type TableKey } from '../model/keys.js';
import type { ParsedKey } from '../model/key-parsing.js';
import { recipientNotificationId } from '../model/recipient-ids.js';
import { scheduleName } from '../jobs/schedules.js';
import type { ErasureSubject } from './erasure.js';

/** A post of the user's recent posts log: what its follower copies' ids derive from. */
export interface LoggedPostKey {
  eventId: string;
  type: string;
  arrivalMs: number;
}

/** A follower (or an unfollow marker of a former one), with the earliest follow of its history. */
export interface PostAudienceMember {
  userId: string;
  followedAtMs: number;
}

/**
 * The inbox keys of the user's posts in these followers' inboxes: a follower got a post that arrived
 * while they followed (the fan-out's rule), so every post from their first follow on is a candidate.
 * A superset of what exists (a muted follower, an unfollowed run): the eraser reads the keys before it deletes.
 */
export function followerCopyKeys(tenantId: string, posts: readonly LoggedPostKey[], audience: readonly PostAudienceMember[]): TableKey[] {
  const found: TableKey[] = [];
  for (const member of audience) {
    const pk = userPartition(tenantId, member.userId);
    for (const post of posts) {
      // A superset of what the fan-out wrote (it follows the pair's history run by run): read before deleted.
      if (post.arrivalMs >= member.followedAtMs) found.push({ pk, sk: recipientNotificationId(tenantId, post.type, post.eventId, member.userId, post.arrivalMs) });
    }
  }
  return found;
}

/** The celebrity posts log entries of the user's feed posts (every post is in every reader shard). */
export function celebrityLogKeys(tenantId: string, postIds: readonly string[], shardCount: number): TableKey[] {
  return allShards(shardCount).flatMap((shard) => postIds.map((id) => ({ pk: keys.celebrityPostsPartition(tenantId, shard), sk: id })));
}

/** The count index slots (partition and slot prefix; overflow items share the prefix) that may hold the user's posts. */
export function celebrityIndexSlots(tenantId: string, postIds: readonly string[], shardCount: number): { pk: string; slot: string }[] {
  const slots = new Map<string, { pk: string; slot: string }>();
  for (const shard of allShards(shardCount)) {
    const pk = keys.celebrityPostsIndexPartition(tenantId, shard);
    for (const id of postIds) {
      const slot = slotPrefixOfId(id);
      slots.set(`${pk}\u0000${slot}`, { pk, slot });
    }
  }
  return [...slots.values()];
}

/** The pending schedule an owner-index record of the user names: a hold's release, or a schedule reference. */
export function scheduleOfOwnerRecord(parsed: ParsedKey | undefined, subject: ErasureSubject): string | undefined {
  if (parsed?.kind === 'scheduleRef') return parsed.scheduleName;
  if (parsed?.kind === 'liveHold') return scheduleName('hold', subject.tenantId, `${subject.userId}\u0000${parsed.releaseAtMs}`);
  return undefined;
}

/**
 * Graph table, write side of the follow graph: follower items, follower counts and tier (PROFILE),
 * FOLLOWING_CELEBS items and their packed copy (src/core/model/followed-pack.ts). Works on DynamoDB and on
 * dynalite (which has no transactions), so the count is made retry-safe with a `counted` flag on the
 * follower item instead of a transaction.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountProfile, FollowEdge, FollowedCelebrityEntry, FollowersPage, FollowGraph, FollowOutcome, TierChange } from '../../core/ports/follow-graph.js';
import { keys } from '../../core/model/keys.js';
import { followedAtMs, followedPackChunk } from '../../core/model/followed-pack.js';
import { EMPTY_FEED_HEAD } from '../../core/ports/inbox.js';
import { batchPutAll, type BatchOptions } from './batch.js';
import { FollowedPackFullError, removePackEntry, setPackEntries } from './followed-celebs-pack.js';
import { GraphRepository } from './graph-repository.js';

export interface FollowGraphRepositoryOptions extends BatchOptions {
  /** How long a former follower's entry lives after the unfollow: their inbox keeps the account's posts that long (the inbox TTL). Default 90. */
  formerFollowerTtlDays?: number;
  /**
   * A follow whose pack chunk is at DynamoDB's 400 KB item limit: the edge is stored, the inbox does
   * not merge that celebrity's feed. Given (the apps log a WARN), the write goes on; absent, it
   * throws FollowedPackFullError.
   */
  onPackFull?: (entries: readonly FollowedCelebrityEntry[], error: FollowedPackFullError) => void;
}

function profileOf(item: Record<string, unknown> | undefined): AccountProfile {
  return { followerCount: Number(item?.followerCount ?? 0), tier: item?.tier === 'celebrity' ? 'celebrity' : 'ordinary' };
}

/** What a follow needs to know: the profile plus whether the account was ever promoted. */
function followOutcomeOf(item: Record<string, unknown> | undefined, followedAt: string): FollowOutcome {
  return { ...profileOf(item), ...(item?.everCelebrity === true ? { everCelebrity: true } : {}), followedAt };
}

export class FollowGraphRepository extends GraphRepository implements FollowGraph {
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    private readonly batchOptions: FollowGraphRepositoryOptions = {},
  ) {
    super(client, tableName);
  }

  /** getProfile: one GetItem of PROFILE; absent = ordinary with 0 followers. */
  async getProfile(tenantId: string, userId: string): Promise<AccountProfile> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.profile(tenantId, userId), ConsistentRead: true }));
    return profileOf(output.Item);
  }

  /**
   * addFollower: UpdateItem of the follower item (keeps the first followedAt), then, unless the
   * item says it was already counted, ADD 1 to PROFILE (ALL_NEW: the tier in the same atomic step)
   * and flag the item. The edge exists before the count, so a promotion after the count finds it.
   * A retry after a failed ADD counts it then; only a crash between the ADD and the flag can count
   * an edge twice.
   */
  async addFollower(edge: FollowEdge): Promise<FollowOutcome> {
    const followerKey = keys.follower(edge.tenantId, edge.followeeId, edge.followerId);
    const follower = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: followerKey,
        UpdateExpression: 'SET followedAt = if_not_exists(followedAt, :followedAt), counted = if_not_exists(counted, :false)',
        ExpressionAttributeValues: { ':followedAt': edge.followedAt, ':false': false },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const followedAt = (follower.Attributes?.followedAt as string | undefined) ?? edge.followedAt;
    // The follower's own list of followees (their erasure finds this edge there); a re-follow is current again.
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.following(edge.tenantId, edge.followerId, edge.followeeId),
        UpdateExpression: 'SET followedAt = :followedAt REMOVE unfollowedAt, expiresAt',
        ExpressionAttributeValues: { ':followedAt': followedAt },
      }),
    );
    if (follower.Attributes?.counted === true) {
      const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.profile(edge.tenantId, edge.followeeId), ConsistentRead: true }));
      return followOutcomeOf(stored.Item, followedAt);
    }
    const counted = await this.countFollower(edge.tenantId, edge.followeeId, 1);
    await this.client.send(new UpdateCommand({ TableName: this.tableName, Key: followerKey, UpdateExpression: 'SET counted = :true', ExpressionAttributeValues: { ':true': true } }));
    return followOutcomeOf(counted, followedAt);
  }

  /**
   * removeFollower: the edge read first (consistent GetItem); while it exists, the followee's former
   * follower entry (first followedAt, last unfollowedAt, TTL) and the follower's FOLLOWING entry
   * marked unfollowed (same TTL) are written BEFORE the edge goes, so a crash leaves the edge to retry
   * on and the follower's inbox copies of the account's posts stay findable by its erasure. Then
   * DeleteItem (ALL_OLD) and ADD -1 to PROFILE if that edge had been counted.
   */
  async removeFollower(tenantId: string, followeeId: string, followerId: string): Promise<AccountProfile> {
    const edge = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.follower(tenantId, followeeId, followerId), ConsistentRead: true }));
    if (edge.Item) await this.recordUnfollow(tenantId, followeeId, followerId, String(edge.Item.followedAt ?? new Date(0).toISOString()));
    const output = await this.client.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.follower(tenantId, followeeId, followerId), ReturnValues: 'ALL_OLD' }),
    );
    if (output.Attributes?.counted !== true) return this.getProfile(tenantId, followeeId);
    return profileOf(await this.countFollower(tenantId, followeeId, -1));
  }

  private async recordUnfollow(tenantId: string, followeeId: string, followerId: string, followedAt: string): Promise<void> {
    const nowMs = Date.now();
    const expiresAt = Math.floor(nowMs / 1000) + (this.batchOptions.formerFollowerTtlDays ?? 90) * 86_400;
    const values = { ':followedAt': followedAt, ':unfollowedAt': new Date(nowMs).toISOString(), ':expiresAt': expiresAt };
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.formerFollower(tenantId, followeeId, followerId),
        UpdateExpression: 'SET followedAt = if_not_exists(followedAt, :followedAt), unfollowedAt = :unfollowedAt, expiresAt = :expiresAt',
        ExpressionAttributeValues: values,
      }),
    );
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.following(tenantId, followerId, followeeId),
        UpdateExpression: 'SET followedAt = if_not_exists(followedAt, :followedAt), unfollowedAt = :unfollowedAt, expiresAt = :expiresAt',
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** ADD delta to PROFILE's count; the whole profile after it (ALL_NEW), tier read in the same atomic step. */
  private async countFollower(tenantId: string, userId: string, delta: number): Promise<Record<string, unknown> | undefined> {
    const output = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.profile(tenantId, userId),
        UpdateExpression: 'ADD followerCount :delta',
        ExpressionAttributeValues: { ':delta': delta },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return output.Attributes;
  }

  /**
   * changeTier: one conditional UpdateItem; guard: the tier is still `from` (absent counts as
   * ordinary) and the count is within the change's bound. A promotion also sets everCelebrity and an
   * empty feed head if none exists, so readers skip the feed until its first post.
   */
  async changeTier(tenantId: string, userId: string, change: TierChange): Promise<boolean> {
    const tierGuard = change.from === 'ordinary' ? '(attribute_not_exists(tier) OR tier = :from)' : 'tier = :from';
    const countGuards = [
      ...(change.countAtLeast !== undefined ? ['followerCount >= :atLeast'] : []),
      ...(change.countBelow !== undefined ? ['followerCount < :below'] : []),
    ];
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.profile(tenantId, userId),
          UpdateExpression:
            change.to === 'celebrity'
              ? 'SET tier = :to, tierChangedAt = :now, everCelebrity = :true, newestFeedId = if_not_exists(newestFeedId, :emptyHead)'
              : 'SET tier = :to, tierChangedAt = :now',
          ConditionExpression: [tierGuard, ...countGuards].join(' AND '),
          ExpressionAttributeValues: {
            ':to': change.to,
            ':from': change.from,
            ':now': new Date().toISOString(),
            ...(change.to === 'celebrity' ? { ':true': true, ':emptyHead': EMPTY_FEED_HEAD } : {}),
            ...(change.countAtLeast !== undefined ? { ':atLeast': change.countAtLeast } : {}),
            ...(change.countBelow !== undefined ? { ':below': change.countBelow } : {}),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * advanceNewestFeedId: keeps the feed's two newest ids on PROFILE. One conditional UpdateItem
   * (guard: the stored newest is older) moves newest to previous; a late post between the two takes
   * previous instead (second conditional UpdateItem). A retry of the newest post changes nothing.
   */
  async advanceNewestFeedId(tenantId: string, celebrityId: string, notificationId: string): Promise<void> {
    const key = keys.profile(tenantId, celebrityId);
    const updated = await this.conditionalUpdate({
      TableName: this.tableName,
      Key: key,
      UpdateExpression: 'SET previousFeedId = if_not_exists(newestFeedId, :empty), newestFeedId = :id',
      ConditionExpression: 'attribute_not_exists(newestFeedId) OR newestFeedId < :id',
      ExpressionAttributeValues: { ':id': notificationId, ':empty': EMPTY_FEED_HEAD },
    });
    if (updated) return;
    await this.conditionalUpdate({
      TableName: this.tableName,
      Key: key,
      UpdateExpression: 'SET previousFeedId = :id',
      ConditionExpression: 'newestFeedId > :id AND (attribute_not_exists(previousFeedId) OR previousFeedId < :id)',
      ExpressionAttributeValues: { ':id': notificationId },
    });
  }

  private async conditionalUpdate(input: UpdateCommandInput): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand(input));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** listFollowersPage: one Query of the FOLLOWERS partition, ascending follower id, after `after`. */
  async listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.followersPartition(tenantId, userId) },
        ProjectionExpression: 'sk, followedAt',
        Limit: limit,
        ...(after !== undefined ? { ExclusiveStartKey: keys.follower(tenantId, userId, after) } : {}),
      }),
    );
    const followers = (output.Items ?? []).map((item) => ({ followerId: item.sk as string, followedAt: item.followedAt as string }));
    const next = output.LastEvaluatedKey?.sk as string | undefined;
    return { followers, ...(next !== undefined ? { next } : {}) };
  }

  /**
   * putFollowedCelebrities: BatchWriteItem of the FOLLOWING_CELEBS edges (idempotent puts), THEN one
   * UpdateItem `ADD f :elements` (`${followedAtMs}:${celebrityId}`, up to 100) per pack chunk (8 in
   * flight), no read. A crash between the two leaves the pack behind; the SQS retry of the follow or
   * promotion page writes both (the same elements again: a set holds each once).
   */
  async putFollowedCelebrities(entries: readonly FollowedCelebrityEntry[]): Promise<void> {
    const items = entries.map((entry) => ({ ...keys.followingCeleb(entry.tenantId, entry.userId, entry.celebrityId), followedAt: entry.followedAt }));
    await batchPutAll(this.client, this.tableName, items, this.batchOptions);
    const writes = entries.map((entry) => ({
      key: keys.followedCelebsPack(entry.tenantId, entry.userId, followedPackChunk(entry.celebrityId)),
      celebrityId: entry.celebrityId,
      followedAtMs: followedAtMs(entry.followedAt),
      entry,
    }));
    const full = await setPackEntries(this.client, this.tableName, writes, this.batchOptions.parallelism);
    if (full.length === 0) return;
    const missed = new Set(full.map((write) => JSON.stringify([write.key.pk, write.celebrityId])));
    const unpacked = writes.filter((write) => missed.has(JSON.stringify([write.key.pk, write.celebrityId]))).map((write) => write.entry);
    const error = new FollowedPackFullError(full[0]!.key.pk, full.map((write) => write.celebrityId));
    if (!this.batchOptions.onPackFull) throw error;
    this.batchOptions.onPackFull(unpacked, error);
  }

  /**
   * removeFollowedCelebrity, in this order: GetItem of the celebrity's pack chunk (ConsistentRead,
   * only `f`), UpdateItem `DELETE f :elements` of EVERY element of that celebrity (conditional on the
   * chunk existing, so an unfollow of a never-packed user creates nothing), THEN DeleteItem of the
   * edge. Crash-safe: a retry finds the edge still there (and deletes what is left) or nothing left;
   * barring a racing follow, the pack never names a celebrity whose edge is gone. No-ops when absent.
   */
  async removeFollowedCelebrity(tenantId: string, userId: string, celebrityId: string): Promise<void> {
    // The edge key first: an invalid id is refused before any request.
    const edge = keys.followingCeleb(tenantId, userId, celebrityId);
    await removePackEntry(this.client, this.tableName, keys.followedCelebsPack(tenantId, userId, followedPackChunk(celebrityId)), celebrityId);
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: edge }));
  }
}

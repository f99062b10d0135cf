/**
 * Graph table, write side of the follow graph: follower items with their follow histories and
 * follower counts (`follow-pairs.ts`), tier (PROFILE), FOLLOWING_CELEBS items and their packed copy
 * (src/core/model/followed-pack.ts). Works on DynamoDB and on dynalite (which has no transactions):
 * a pair is held by one event at a time and its count change is claimed on the count item.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountProfile, Follower, FollowedCelebrityEntry, FollowersPage, FollowGraph, PairChange, PairRelease, PairState, TierChange } from '../../core/ports/follow-graph.js';
import { keys } from '../../core/model/keys.js';
import { encodeFollowedPackElement, FOLLOWED_PACK_ATTRIBUTE, followedAtMs, followedPackChunk, followedPackElementsOf } from '../../core/model/followed-pack.js';
import { EMPTY_FEED_HEAD } from '../../core/ports/inbox.js';
import { batchPutAll, type BatchOptions } from './batch.js';
import { deletePackElements, FollowedPackFullError, removePackEntry, setPackEntries } from './followed-celebs-pack.js';
import { FollowPairs, profileOf } from './follow-pairs.js';
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

export class FollowGraphRepository extends GraphRepository implements FollowGraph {
  private readonly pairs: FollowPairs;

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    private readonly batchOptions: FollowGraphRepositoryOptions = {},
  ) {
    super(client, tableName);
    this.pairs = new FollowPairs(client, tableName);
  }

  recordFollowChange(change: PairChange): Promise<PairState> {
    return this.pairs.recordFollowChange(change);
  }

  countPair(tenantId: string, followeeId: string, owner: string, delta: 1 | -1): Promise<AccountProfile> {
    return this.pairs.countPair(tenantId, followeeId, owner, delta);
  }

  profileForPair(tenantId: string, followeeId: string, owner: string): Promise<{ profile: AccountProfile; claimLeft: boolean }> {
    return this.pairs.profileForPair(tenantId, followeeId, owner);
  }

  releasePair(release: PairRelease): Promise<void> {
    return this.pairs.releasePair(release);
  }

  forgetCountClaim(tenantId: string, followeeId: string, owner: string): Promise<void> {
    return this.pairs.forgetCountClaim(tenantId, followeeId, owner);
  }

  getFollowers(tenantId: string, followeeId: string, followerIds: readonly string[]): Promise<Map<string, Follower>> {
    return this.pairs.getFollowers(tenantId, followeeId, followerIds);
  }

  listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage> {
    return this.pairs.listFollowersPage(tenantId, userId, after, limit);
  }

  /** getProfile: one GetItem of PROFILE; absent = ordinary with 0 followers. */
  async getProfile(tenantId: string, userId: string): Promise<AccountProfile> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.profile(tenantId, userId), ConsistentRead: true }));
    return profileOf(output.Item);
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
   * replaceFollowedCelebrity: `putFollowedCelebrities` of the one entry, THEN GetItem of its pack
   * chunk (ConsistentRead, only `f`) and `DELETE f` of the celebrity's other elements (a follow run
   * that moved: a late earlier follow, or a pass that wrote before the run changed). Added first, so
   * the pair is never out of the pack meanwhile; a crash in between leaves the later element, which
   * the retry removes.
   */
  async replaceFollowedCelebrity(entry: FollowedCelebrityEntry): Promise<void> {
    await this.putFollowedCelebrities([entry]);
    const key = keys.followedCelebsPack(entry.tenantId, entry.userId, followedPackChunk(entry.celebrityId));
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true, ProjectionExpression: '#f', ExpressionAttributeNames: { '#f': FOLLOWED_PACK_ATTRIBUTE } }),
    );
    const kept = encodeFollowedPackElement(entry.celebrityId, followedAtMs(entry.followedAt));
    const stale = output.Item ? followedPackElementsOf(output.Item, entry.celebrityId).filter((element) => element !== kept) : [];
    if (stale.length > 0) await deletePackElements(this.client, this.tableName, key, stale);
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

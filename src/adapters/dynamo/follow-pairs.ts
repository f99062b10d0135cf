/**
 * Graph table, one follow pair: its follower item (`T#t#U#followee#FOLLOWERS` / follower id) holds
 * the pair's history (String Set `h`, src/core/model/follow-history.ts), `counted` (the followee's
 * count includes the pair), `followedAt` (start of the current follow run, absent on an unfollow
 * marker), `expiresAt` (an unfollow marker's TTL) and `heldBy` (the event applying a record).
 * The followee's PROFILE counts pairs exactly once per change: each change's count update also sets
 * a claim attribute named after its event, so a retry after a crash finds it and does not count again.
 * Works on dynalite (no transactions).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { currentRun, encodeFollowRecord, FOLLOW_HISTORY_ATTRIBUTE, followHistoryOf } from '../../core/model/follow-history.js';
import { keys } from '../../core/model/keys.js';
import type { AccountProfile, Follower, FollowersPage, PairChange, PairRelease, PairState } from '../../core/ports/follow-graph.js';
import { batchGetAll } from './batch.js';

/** The PROFILE attribute of one change's count claim. */
function countClaimAttribute(owner: string): string {
  return `count:${owner}`;
}

export function profileOf(item: Record<string, unknown> | undefined): AccountProfile {
  return {
    followerCount: Number(item?.followerCount ?? 0),
    tier: item?.tier === 'celebrity' ? 'celebrity' : 'ordinary',
    ...(item?.everCelebrity === true ? { everCelebrity: true } : {}),
  };
}

/**
 * A stored follower item as the port shows it: its history, and the current run derived from it (not
 * from the stored `followedAt`, which a record being applied has not updated yet).
 */
export function followerOf(item: Record<string, unknown>): Follower {
  const history = followHistoryOf(item[FOLLOW_HISTORY_ATTRIBUTE] as Iterable<unknown> | undefined, item.followedAt);
  const run = currentRun(history);
  return { followerId: item.sk as string, ...(run.following ? { followedAt: new Date(run.sinceMs).toISOString() } : {}), history };
}

export class FollowPairs {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * recordFollowChange: ONE UpdateItem of the follower item, `ADD h :record` (idempotent) and the
   * holder, guarded by "held by nobody or by this owner", ALL_OLD: the state after is the state
   * before plus the record. Held by another event: nothing is written (the record waits for its
   * retry, so a history only ever grows under its holder) and `heldBy` names the holder.
   */
  async recordFollowChange(change: PairChange): Promise<PairState> {
    const element = encodeFollowRecord(change.record);
    // The follower's own list of the accounts they follow(ed), written first for every record (an
    // unfollow alone leaves a marker too): their erasure and export find this pair's follower item from
    // it without a Scan. Kept after an unfollow; a crash leaves only the entry (harmless).
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.following(change.tenantId, change.followerId, change.followeeId),
        UpdateExpression: 'SET firstRecordAt = if_not_exists(firstRecordAt, :at)',
        ExpressionAttributeValues: { ':at': new Date(change.record.atMs).toISOString() },
      }),
    );
    let before: Record<string, unknown> | undefined;
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.follower(change.tenantId, change.followeeId, change.followerId),
          UpdateExpression: 'ADD #h :record SET heldBy = :owner',
          ConditionExpression: 'attribute_not_exists(heldBy) OR heldBy = :owner',
          ExpressionAttributeNames: { '#h': FOLLOW_HISTORY_ATTRIBUTE },
          ExpressionAttributeValues: { ':record': new Set([element]), ':owner': change.owner },
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      before = output.Attributes;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // dynalite does not return the item: the holder is then unnamed.
      const holder = error.Item?.heldBy?.S;
      return { history: [], counted: false, heldBy: holder ?? 'another event', recordWasNew: false, resumed: false };
    }
    const known = followHistoryOf(before?.[FOLLOW_HISTORY_ATTRIBUTE] as Iterable<unknown> | undefined, before?.followedAt);
    return {
      history: followHistoryOf([...known.map(encodeFollowRecord), element]),
      counted: before?.counted === true,
      heldBy: change.owner,
      recordWasNew: !known.some((record) => encodeFollowRecord(record) === element),
      resumed: before?.heldBy === change.owner,
    };
  }

  /** countPair: ONE UpdateItem of PROFILE, `ADD followerCount` and the change's claim, unless the claim exists (then one consistent GetItem). */
  async countPair(tenantId: string, followeeId: string, owner: string, delta: 1 | -1): Promise<AccountProfile> {
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.profile(tenantId, followeeId),
          UpdateExpression: 'ADD followerCount :delta SET #claim = :delta',
          ConditionExpression: 'attribute_not_exists(#claim)',
          ExpressionAttributeNames: { '#claim': countClaimAttribute(owner) },
          ExpressionAttributeValues: { ':delta': delta },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return profileOf(output.Attributes);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Counted by an attempt that died before storing `counted`: not again.
      return (await this.profileForPair(tenantId, followeeId, owner)).profile;
    }
  }

  /** profileForPair: one consistent GetItem of PROFILE. */
  async profileForPair(tenantId: string, followeeId: string, owner: string): Promise<{ profile: AccountProfile; claimLeft: boolean }> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.profile(tenantId, followeeId), ConsistentRead: true }));
    return { profile: profileOf(output.Item), claimLeft: output.Item?.[countClaimAttribute(owner)] !== undefined };
  }

  /**
   * releasePair: ONE UpdateItem of the follower item, guarded by the holder: `counted`, `followedAt`
   * or the marker's `expiresAt`, the compacted records dropped, the holder removed.
   */
  async releasePair(release: PairRelease): Promise<void> {
    const sets = ['counted = :counted'];
    const removes = ['heldBy'];
    const values: Record<string, unknown> = { ':counted': release.counted, ':owner': release.owner };
    if (release.run.following) {
      sets.push('followedAt = :followedAt');
      values[':followedAt'] = new Date(release.run.sinceMs).toISOString();
      removes.push('expiresAt');
    } else {
      removes.push('followedAt');
      if (release.markerExpiresAt !== undefined) {
        sets.push('expiresAt = :expiresAt');
        values[':expiresAt'] = release.markerExpiresAt;
      }
    }
    const compact = release.compact.length > 0 ? ` DELETE #h :compact` : '';
    if (compact) values[':compact'] = new Set(release.compact.map(encodeFollowRecord));
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.follower(release.tenantId, release.followeeId, release.followerId),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}${compact}`,
        ConditionExpression: 'heldBy = :owner',
        ...(compact ? { ExpressionAttributeNames: { '#h': FOLLOW_HISTORY_ATTRIBUTE } } : {}),
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** forgetCountClaim: one UpdateItem of PROFILE removing the claim (only if it is there: nothing else is written). */
  async forgetCountClaim(tenantId: string, followeeId: string, owner: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.profile(tenantId, followeeId),
          UpdateExpression: 'REMOVE #claim',
          ConditionExpression: 'attribute_exists(#claim)',
          ExpressionAttributeNames: { '#claim': countClaimAttribute(owner) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** getFollowers: BatchGetItem (consistent) of the pairs' follower items, 100 per call. */
  async getFollowers(tenantId: string, followeeId: string, followerIds: readonly string[]): Promise<Map<string, Follower>> {
    const items = await batchGetAll(this.client, this.tableName, followerIds.map((followerId) => keys.follower(tenantId, followeeId, followerId)), { consistentRead: true });
    return new Map(items.map((item) => [item.sk as string, followerOf(item)]));
  }

  /** listFollowersPage: one Query of the FOLLOWERS partition, ascending follower id, after `after`: followers and unfollow markers. */
  async listFollowersPage(tenantId: string, userId: string, after: string | undefined, limit: number): Promise<FollowersPage> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeNames: { '#h': FOLLOW_HISTORY_ATTRIBUTE },
        ExpressionAttributeValues: { ':pk': keys.followersPartition(tenantId, userId) },
        ProjectionExpression: 'sk, followedAt, #h',
        Limit: limit,
        ...(after !== undefined ? { ExclusiveStartKey: keys.follower(tenantId, userId, after) } : {}),
      }),
    );
    const followers = (output.Items ?? []).map(followerOf);
    const next = output.LastEvaluatedKey?.sk as string | undefined;
    return { followers, ...(next !== undefined ? { next } : {}) };
  }
}

/** Graph table: followers, followed celebrities, profiles (follower counts, tier, newest feed id). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
import { decodeFollowedPack } from '../../core/model/followed-pack.js';
import { queryPages } from './query-pages.js';
import { batchGetAll } from './batch.js';
import type { FeedHead, FeedHeadsReader, FollowedCelebritiesReader } from '../../core/ports/inbox.js';
import type { UserRef } from '../../core/model/user.js';
import type { FollowedCelebrity } from '../../core/model/followed-pack.js';

/** BatchGetItem calls in flight when reading feed heads: k = 2,000 is 20 calls in 2 rounds. */
const HEAD_READ_PARALLELISM = 16;

export class GraphRepository implements FollowedCelebritiesReader, FeedHeadsReader {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /**
   * feedHeads: the PROFILE items of the celebrities, BatchGetItem of 100 keys per call (ceil(k/100)
   * calls, in parallel); a profile without `newestFeedId` is left out (head unknown).
   */
  async feedHeads(tenantId: string, celebrityIds: readonly string[]): Promise<ReadonlyMap<string, FeedHead>> {
    const byPartition = new Map(celebrityIds.map((celebrityId) => [keys.profile(tenantId, celebrityId).pk, celebrityId]));
    const profiles = await batchGetAll(this.client, this.tableName, celebrityIds.map((celebrityId) => keys.profile(tenantId, celebrityId)), { parallelism: HEAD_READ_PARALLELISM });
    const heads = new Map<string, FeedHead>();
    for (const profile of profiles) {
      const celebrityId = byPartition.get(profile.pk as string);
      if (celebrityId === undefined || typeof profile.newestFeedId !== 'string') continue;
      heads.set(celebrityId, { newest: profile.newestFeedId, ...(typeof profile.previousFeedId === 'string' ? { previous: profile.previousFeedId } : {}) });
    }
    return heads;
  }

  /**
   * listFollowedCelebrities: ONE Query of the user's packed list (src/core/model/followed-pack.ts), 8 small
   * items of one String Set each whatever k is (paged only past 1 MB, k in the tens of thousands);
   * no projection (on dynalite it costs ~0.3 ms; the dead `@<id>` attributes of the unreleased format
   * exist only in old dev data dirs and are ignored). A celebrity with several elements (a race) is
   * listed once, at its LATEST followedAt; order is unspecified.
   * The FOLLOWING_CELEBS edges stay the source of truth (export, erasure) and are not read here.
   */
  async listFollowedCelebrities(user: UserRef): Promise<FollowedCelebrity[]> {
    const chunks: Record<string, unknown>[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.followedCelebsPackPartition(user.tenantId, user.userId) },
    });
    for await (const page of pages) chunks.push(...page);
    return decodeFollowedPack(chunks);
  }
}

/** Graph table: followers, followed celebrities, profiles (follower counts and tier). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/keys.js';
import { queryPages } from './query-pages.js';
import type { FollowedCelebritiesReader, FollowedCelebrity, UserRef } from '../../core/ports/inbox.js';

export class GraphRepository implements FollowedCelebritiesReader {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /** listFollowedCelebrities: one query of the user's FOLLOWING_CELEBS partition (paged if large). */
  async listFollowedCelebrities(user: UserRef): Promise<FollowedCelebrity[]> {
    const celebrities: FollowedCelebrity[] = [];
    const pages = queryPages(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.followingCelebsPartition(user.tenantId, user.userId) },
    });
    for await (const page of pages) {
      for (const item of page) celebrities.push({ celebrityId: item.sk as string, followedAt: item.followedAt as string });
    }
    return celebrities;
  }
}

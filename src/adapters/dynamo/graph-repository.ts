/** Graph table: followers, followed celebrities, profiles (follower counts and tier). */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/keys.js';
import type { FollowedCelebritiesReader, FollowedCelebrity, UserRef } from '../../core/ports.js';

export class GraphRepository implements FollowedCelebritiesReader {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /** listFollowedCelebrities: one query of the user's FOLLOWING_CELEBS partition (paged if large). */
  async listFollowedCelebrities(user: UserRef): Promise<FollowedCelebrity[]> {
    const celebrities: FollowedCelebrity[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.followingCelebsPartition(user.tenantId, user.userId) },
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const item of output.Items ?? []) {
        celebrities.push({ celebrityId: item.sk as string, followedAt: item.followedAt as string });
      }
      exclusiveStartKey = output.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);
    return celebrities;
  }
}

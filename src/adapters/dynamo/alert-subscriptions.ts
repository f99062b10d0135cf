/**
 * Graph table: post-alert subscriptions, one item per (account, follower) in the account's ALERTS
 * partition (what a post's alert jobs page), and its owner reference in the follower's ALERTING
 * partition (what the follower's erasure and export read: the subscription lives under another
 * user's key). The reference is written first and removed last, so a crash between the two leaves
 * only a reference (harmless: the erasure deletes it, the export lists a subscription only when it exists).
 */
import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AlertSubscriptions } from '../../core/channels/ports.js';
import { keys } from '../../core/model/keys.js';

export class AlertSubscriptionRepository implements AlertSubscriptions {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** subscribe: PutItem of the follower's reference, then PutItem of the subscription (both idempotent). */
  async subscribe(tenantId: string, accountId: string, followerId: string, atIso: string): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.alerting(tenantId, followerId, accountId), subscribedAt: atIso } }));
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: { ...keys.alertSubscriber(tenantId, accountId, followerId), subscribedAt: atIso } }));
  }

  /** unsubscribe: DeleteItem of the subscription, then of the follower's reference (both idempotent). */
  async unsubscribe(tenantId: string, accountId: string, followerId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.alertSubscriber(tenantId, accountId, followerId) }));
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.alerting(tenantId, followerId, accountId) }));
  }

  /** listSubscribers: one Query of the ALERTS partition, keys only, `limit` items after `after`. */
  async listSubscribers(tenantId: string, accountId: string, after: string | undefined, limit: number): Promise<{ followerIds: string[]; next?: string }> {
    const pk = keys.alertSubscribersPartition(tenantId, accountId);
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'sk',
        Limit: limit,
        ...(after !== undefined ? { ExclusiveStartKey: { pk, sk: after } } : {}),
      }),
    );
    const followerIds = (output.Items ?? []).map((item) => String(item.sk));
    const next = output.LastEvaluatedKey ? String(output.LastEvaluatedKey.sk) : undefined;
    return { followerIds, ...(next !== undefined ? { next } : {}) };
  }
}

/**
 * The idempotency tables' conditional claim, shared by the live delivery ledger and the channels'
 * send ledger so both treat an expired-but-not-yet-deleted record (TTL deletion lags) the same way.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** PutItem `item` (with `id` and `expiration`) unless an unexpired record holds `id`; false when one does. Other errors propagate (callers fail closed). */
export async function claimIfAbsentOrExpired(client: DynamoDBDocumentClient, tableName: string, item: { id: string; expiration: number } & Record<string, unknown>, nowSeconds: number): Promise<boolean> {
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(id) OR expiration <= :now',
        ExpressionAttributeValues: { ':now': nowSeconds },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

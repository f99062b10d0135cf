/**
 * Idempotency table: the arrival clock. One record per (tenant, type, producer event id) holding the
 * moment the system first stamped the event; the time part of every notification id of the event.
 * Kept here (not the Graph table) because this table has a TTL and the record lives exactly as long
 * as the items its stamp dates.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArrivalKey, ArrivalLedger } from '../../core/ports/fan-out.js';
import { keys } from '../../core/model/keys.js';

export class DynamoArrivalLedger implements ArrivalLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * stampArrival: one PutItem guarded by "no unexpired record" (TTL deletion lags); a duplicate or a
   * retry gets the first stamp back from the failed condition (ALL_OLD) in the same request. A store
   * that does not return the old item (dynalite) costs one consistent GetItem more, on duplicates only.
   */
  async stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number> {
    const id = keys.arrivalRecordId(key.tenantId, key.type, key.eventId);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { id, arrivalMs: candidateMs, expiration: expiresAtSeconds },
          ConditionExpression: 'attribute_not_exists(id) OR expiration <= :now',
          ExpressionAttributeValues: { ':now': Math.floor(candidateMs / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return candidateMs;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const returned = error.Item?.arrivalMs?.N;
      if (returned !== undefined) return Number(returned);
      const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
      const arrivalMs = stored.Item?.arrivalMs;
      // Gone between the two requests (expired and deleted): nothing dates the event any more.
      return typeof arrivalMs === 'number' ? arrivalMs : candidateMs;
    }
  }
}

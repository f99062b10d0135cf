/**
 * Idempotency table: the arrival clock. One record per (tenant, type, producer event id) holding the
 * moment the system first stamped the event; the time part of every notification id of the event.
 * Kept here (not the Graph table) because this table has a TTL and the record lives exactly as long
 * as the items its stamp dates. A retraction marks the record `retracted` (it may be the first to stamp it).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArrivalKey, ArrivalLedger, ArrivalStamp } from '../../core/ports/fan-out.js';
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
  async stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
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
      return { arrivalMs: candidateMs, fresh: true, retracted: false };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const returned = error.Item?.arrivalMs?.N;
      if (returned !== undefined) return { arrivalMs: Number(returned), fresh: false, retracted: error.Item?.retracted?.BOOL === true };
      return this.stored(id, candidateMs);
    }
  }

  /** restampArrival: one UpdateItem guarded by "still `fromMs`, not retracted"; the stored stamp when the guard fails. */
  async restampArrival(key: ArrivalKey, fromMs: number, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const id = keys.arrivalRecordId(key.tenantId, key.type, key.eventId);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET arrivalMs = :candidate, expiration = :expiration',
          ConditionExpression: 'arrivalMs = :from AND attribute_not_exists(retracted)',
          ExpressionAttributeValues: { ':candidate': candidateMs, ':expiration': expiresAtSeconds, ':from': fromMs },
        }),
      );
      return { arrivalMs: candidateMs, fresh: true, retracted: false };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return this.stored(id, candidateMs);
    }
  }

  /** stampRetracted: one UpdateItem (ALL_NEW): the recorded stamp, or `candidateMs` when none, and the retracted flag. */
  async stampRetracted(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number> {
    const output = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: keys.arrivalRecordId(key.tenantId, key.type, key.eventId) },
        UpdateExpression: 'SET arrivalMs = if_not_exists(arrivalMs, :candidate), expiration = if_not_exists(expiration, :expiration), retracted = :true',
        ExpressionAttributeValues: { ':candidate': candidateMs, ':expiration': expiresAtSeconds, ':true': true },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const arrivalMs = output.Attributes?.arrivalMs;
    return typeof arrivalMs === 'number' ? arrivalMs : candidateMs;
  }

  private async stored(id: string, candidateMs: number): Promise<ArrivalStamp> {
    const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    const arrivalMs = stored.Item?.arrivalMs;
    // Gone between the two requests (expired and deleted): nothing dates the event any more.
    if (typeof arrivalMs !== 'number') return { arrivalMs: candidateMs, fresh: true, retracted: false };
    return { arrivalMs, fresh: false, retracted: stored.Item?.retracted === true };
  }
}

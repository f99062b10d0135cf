/**
 * Idempotency table: the arrival clock. One record per (tenant, type, producer event id) holding the
 * moment the system first stamped the event (the time part of every notification id of the event),
 * the moment it accepted it (its intake record's SentTimestamp: a follow's place in its pair's
 * history) and, for a post to an account's followers, the tier it is fanned out in.
 * Kept here (not the Graph table) because this table has a TTL and the record lives exactly as long
 * as the items its stamp dates.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArrivalKey, ArrivalLedger, ArrivalStamp } from '../../core/ports/fan-out.js';
import { keys } from '../../core/model/keys.js';

/** A stored record as a stamp: one stamped before the intake was kept has its stamp as its intake. */
function stampOf(record: { arrivalMs: number; intakeMs?: unknown; mode?: unknown }): ArrivalStamp {
  const intakeMs = record.intakeMs === undefined ? record.arrivalMs : Number(record.intakeMs);
  const mode = record.mode === 'celebrity' || record.mode === 'ordinary' ? record.mode : undefined;
  return { arrivalMs: record.arrivalMs, intakeMs: Number.isSafeInteger(intakeMs) ? intakeMs : record.arrivalMs, ...(mode ? { mode } : {}) };
}

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
    return (await this.stampEvent(key, { arrivalMs: candidateMs, intakeMs: candidateMs }, expiresAtSeconds)).arrivalMs;
  }

  /**
   * stampEvent: the same single conditional PutItem, holding the intake time and the fan-out mode
   * too. A record stamped before they were kept answers its stamp as its intake and no mode.
   */
  async stampEvent(key: ArrivalKey, candidate: ArrivalStamp, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const id = keys.arrivalRecordId(key.tenantId, key.type, key.eventId);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { id, arrivalMs: candidate.arrivalMs, intakeMs: candidate.intakeMs, ...(candidate.mode ? { mode: candidate.mode } : {}), expiration: expiresAtSeconds },
          ConditionExpression: 'attribute_not_exists(id) OR expiration <= :now',
          ExpressionAttributeValues: { ':now': Math.floor(candidate.arrivalMs / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return candidate;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const returned = error.Item;
      if (returned?.arrivalMs?.N !== undefined) return stampOf({ arrivalMs: Number(returned.arrivalMs.N), intakeMs: returned.intakeMs?.N, mode: returned.mode?.S });
      const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
      // Gone between the two requests (expired and deleted): nothing dates the event any more.
      if (typeof stored.Item?.arrivalMs !== 'number') return candidate;
      return stampOf(stored.Item as { arrivalMs: number; intakeMs?: unknown; mode?: unknown });
    }
  }
}

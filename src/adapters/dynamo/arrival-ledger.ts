/**
 * Idempotency table: the arrival clock. One record per (tenant, type, producer event id) holding the
 * moment the system first stamped the event (the time part of every notification id of the event),
 * the moment it accepted it (its intake record's SentTimestamp: a follow's place in its pair's
 * history) and, for a post to an account's followers, the tier it is fanned out in.
 * Kept here (not the Graph table) because this table has a TTL and the record lives exactly as long
 * as the items its stamp dates. A retraction marks the record `retracted` (it may be the first to stamp it).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ArrivalCandidate, ArrivalKey, ArrivalLedger, ArrivalStamp } from '../../core/ports/fan-out.js';
import { keys } from '../../core/model/keys.js';

/** A stored record as a stamp: one stamped before the intake was kept has its stamp as its intake. */
function stampOf(record: { arrivalMs: number; intakeMs?: unknown; mode?: unknown; retracted?: unknown }, fresh: boolean): ArrivalStamp {
  const intakeMs = record.intakeMs === undefined ? record.arrivalMs : Number(record.intakeMs);
  const mode = record.mode === 'celebrity' || record.mode === 'ordinary' ? record.mode : undefined;
  return { arrivalMs: record.arrivalMs, intakeMs: Number.isSafeInteger(intakeMs) ? intakeMs : record.arrivalMs, ...(mode ? { mode } : {}), fresh, retracted: record.retracted === true };
}

export class DynamoArrivalLedger implements ArrivalLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async stampArrival(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    return this.stampEvent(key, { arrivalMs: candidateMs, intakeMs: candidateMs }, expiresAtSeconds);
  }

  /**
   * stampEvent: one PutItem guarded by "no unexpired record" (TTL deletion lags), holding the intake
   * time and the fan-out mode too; a duplicate or a retry gets the first stamp back from the failed
   * condition (ALL_OLD) in the same request. A store that does not return the old item (dynalite)
   * costs one consistent GetItem more, on duplicates only. A record stamped before intake and mode
   * were kept answers its stamp as its intake and no mode.
   */
  async stampEvent(key: ArrivalKey, candidate: ArrivalCandidate, expiresAtSeconds: number): Promise<ArrivalStamp> {
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
      return { ...candidate, fresh: true, retracted: false };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const returned = error.Item;
      if (returned?.arrivalMs?.N !== undefined) {
        return stampOf({ arrivalMs: Number(returned.arrivalMs.N), intakeMs: returned.intakeMs?.N, mode: returned.mode?.S, retracted: returned.retracted?.BOOL }, false);
      }
      return this.stored(id, candidate);
    }
  }

  /** restampArrival: one UpdateItem guarded by "still `fromMs`, not retracted" (ALL_NEW); the stored stamp when the guard fails. */
  async restampArrival(key: ArrivalKey, fromMs: number, candidateMs: number, expiresAtSeconds: number): Promise<ArrivalStamp> {
    const id = keys.arrivalRecordId(key.tenantId, key.type, key.eventId);
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET arrivalMs = :candidate, expiration = :expiration',
          ConditionExpression: 'arrivalMs = :from AND attribute_not_exists(retracted)',
          ExpressionAttributeValues: { ':candidate': candidateMs, ':expiration': expiresAtSeconds, ':from': fromMs },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return stampOf({ ...(output.Attributes ?? {}), arrivalMs: candidateMs }, true);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return this.stored(id, { arrivalMs: candidateMs, intakeMs: candidateMs });
    }
  }

  /**
   * stampRetracted: one UpdateItem (ALL_NEW) guarded by "no record, or an unexpired one": the recorded
   * stamp, or `candidateMs` when none, and the retracted flag. A record past its expiration (TTL
   * deletion lags) dated items that are gone: the retraction stamps the event anew with one PutItem
   * (guarded by "still expired"), as a retraction before its event does, so a later send of it stays
   * retracted instead of landing on the expired record's old stamp.
   */
  async stampRetracted(key: ArrivalKey, candidateMs: number, expiresAtSeconds: number): Promise<number> {
    const id = keys.arrivalRecordId(key.tenantId, key.type, key.eventId);
    const now = Math.floor(candidateMs / 1000);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const output = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id },
            UpdateExpression: 'SET arrivalMs = if_not_exists(arrivalMs, :candidate), expiration = if_not_exists(expiration, :expiration), retracted = :true',
            ConditionExpression: 'attribute_not_exists(id) OR expiration > :now',
            ExpressionAttributeValues: { ':candidate': candidateMs, ':expiration': expiresAtSeconds, ':true': true, ':now': now },
            ReturnValues: 'ALL_NEW',
          }),
        );
        const arrivalMs = output.Attributes?.arrivalMs;
        return typeof arrivalMs === 'number' ? arrivalMs : candidateMs;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { id, arrivalMs: candidateMs, intakeMs: candidateMs, expiration: expiresAtSeconds, retracted: true },
            ConditionExpression: 'expiration <= :now',
            ExpressionAttributeValues: { ':now': now },
          }),
        );
        return candidateMs;
      } catch (error) {
        // Stamped anew meanwhile (an attempt of the event): retract that stamp.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new Error(`retraction of ${key.type} ${key.eventId} lost 3 races for its arrival record`);
  }

  private async stored(id: string, candidate: ArrivalCandidate): Promise<ArrivalStamp> {
    const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    // Gone between the two requests (expired and deleted): nothing dates the event any more.
    if (typeof stored.Item?.arrivalMs !== 'number') return { ...candidate, fresh: true, retracted: false };
    return stampOf(stored.Item as { arrivalMs: number }, false);
  }
}

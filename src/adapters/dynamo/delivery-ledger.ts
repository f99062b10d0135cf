/**
 * Idempotency table: one record per (notification, connection) push, written with a condition
 * before the push and expiring by TTL (`expiration`), so a redelivered job does not push twice.
 */
import { DeleteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
import type { DeliveryLedger, DeliveryStepLedger } from '../../core/ports/live.js';
import { systemClock, type Clock } from '../../core/ports/clock.js';
import { claimIfAbsentOrExpired } from './conditional-claim.js';

/** Long enough to cover SQS redeliveries and a producer re-publishing the same event the same day. */
export const DELIVERY_RECORD_TTL_SECONDS = 24 * 3600;

export class DynamoDeliveryLedger implements DeliveryLedger, DeliveryStepLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly ttlSeconds = DELIVERY_RECORD_TTL_SECONDS,
    private readonly clock: Clock = systemClock,
  ) {}

  /** claim: PutItem if no unexpired record exists (TTL deletion lags, so an expired one counts as absent). */
  async claim(notificationId: string, connectionId: string): Promise<boolean> {
    return this.claimRecord(keys.deliveryRecordId(notificationId, connectionId));
  }

  /** claimStep: as claim, for a once-only step of a celebrity post's delivery (split, next-page job). */
  async claimStep(notificationId: string, step: string): Promise<boolean> {
    return this.claimRecord(keys.deliveryStepId(notificationId, step));
  }

  /** releaseStep: DeleteItem of the step record, after its enqueue failed. */
  async releaseStep(notificationId: string, step: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: keys.deliveryStepId(notificationId, step) } }));
  }

  private async claimRecord(id: string): Promise<boolean> {
    const now = Math.floor(this.clock.nowMs() / 1000);
    return claimIfAbsentOrExpired(this.client, this.tableName, { id, expiration: now + this.ttlSeconds }, now);
  }

  /** release: DeleteItem of the record, after a push that failed and will be retried. */
  async release(notificationId: string, connectionId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: keys.deliveryRecordId(notificationId, connectionId) } }));
  }
}

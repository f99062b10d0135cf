/**
 * ReadMarks table: the `READL#<id>` markers of own items that landed late (src/core/model/counts-floor.ts),
 * beside the user's marks. Its own small module: the fan-out bundle needs this write and nothing
 * else of the read state.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';
import type { LateArrivalMarker, LateArrivalRecorder } from '../../core/ports/inbox.js';
import { batchPutAll } from './batch.js';

export class DynamoLateArrivalMarkers implements LateArrivalRecorder {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** recordLateArrivals: BatchWriteItem puts, 25 per call (idempotent), TTL the item's. */
  async recordLateArrivals(markers: readonly LateArrivalMarker[]): Promise<void> {
    const items = markers.map(({ user, id, expiresAt }) => ({ ...keys.lateArrival(user.tenantId, user.userId, id), expiresAt }));
    await batchPutAll(this.client, this.tableName, items);
  }
}

/** Erasure tombstones (Idempotency table, hashed ids): BatchGetItem of the candidates' records, 100 per call. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { erasureRecordId } from '../../core/privacy/erasure.js';
import type { ErasedUsers } from '../../core/ports/erased-users.js';
import { batchGetAll } from './batch.js';

export class DynamoErasedUsers implements ErasedUsers {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Guard: the tombstone's TTL (`expiration`, epoch seconds), as DynamoDB deletes expired items late. */
  async erasedAmong(tenantId: string, userIds: readonly string[]): Promise<Set<string>> {
    const unique = [...new Set(userIds)];
    if (unique.length === 0) return new Set();
    const byRecordId = new Map(unique.map((userId) => [erasureRecordId({ tenantId, userId }), userId]));
    const found = await batchGetAll(this.client, this.tableName, [...byRecordId.keys()].map((id) => ({ id })));
    const nowSeconds = Math.floor(this.nowMs() / 1000);
    const erased = new Set<string>();
    for (const item of found) {
      const userId = byRecordId.get(String(item.id));
      if (userId !== undefined && Number(item.expiration ?? Number.POSITIVE_INFINITY) > nowSeconds) erased.add(userId);
    }
    return erased;
  }
}

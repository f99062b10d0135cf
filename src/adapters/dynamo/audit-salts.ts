/**
 * The audit pseudonyms' per-user salts in the Idempotency table (`T#<t>#U#<u>#AUDITSALT`, no TTL).
 * A lookup is one BatchGetItem of the users' salts AND erasure tombstones (100 keys per call); a
 * user with neither gets a salt by a conditional PutItem (the first writer wins; a loser reads the
 * winner's). A user with a tombstone and no salt was erased: no salt is created again, their later
 * decisions are written as `erased`. The erasure deletes the salt (`forget`).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { erasureRecordId } from '../../core/privacy/erasure.js';
import { keys } from '../../core/model/keys.js';
import type { AuditSalts, SaltLookup } from '../../core/audit/ports.js';
import { newSalt } from '../../core/audit/pseudonyms.js';
import { batchGetAll } from './batch.js';

/** New salts written in flight at once. */
const CREATES_IN_FLIGHT = 8;

export class DynamoAuditSalts implements AuditSalts {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async saltsOf(tenantId: string, userIds: readonly string[]): Promise<Map<string, SaltLookup>> {
    const unique = [...new Set(userIds)];
    const result = new Map<string, SaltLookup>();
    if (unique.length === 0) return result;
    const saltIds = new Map(unique.map((userId) => [keys.auditSaltId(tenantId, userId), userId]));
    const tombstoneIds = new Map(unique.map((userId) => [erasureRecordId({ tenantId, userId }), userId]));
    const items = await batchGetAll(this.client, this.tableName, [...saltIds.keys(), ...tombstoneIds.keys()].map((id) => ({ id })));
    const nowSeconds = Math.floor(this.nowMs() / 1000);
    const erased = new Set<string>();
    for (const item of items) {
      const id = String(item.id);
      const saltOwner = saltIds.get(id);
      if (saltOwner !== undefined && typeof item.salt === 'string') result.set(saltOwner, Buffer.from(item.salt, 'base64url'));
      const tombstoneOwner = tombstoneIds.get(id);
      // Guard as the fan-out does: TTL deletion lags, an expired tombstone no longer counts.
      if (tombstoneOwner !== undefined && Number(item.expiration ?? Number.POSITIVE_INFINITY) > nowSeconds) erased.add(tombstoneOwner);
    }
    const toCreate = unique.filter((userId) => !result.has(userId));
    for (const userId of toCreate) if (erased.has(userId)) result.set(userId, 'erased');
    await forEachBounded(
      toCreate.filter((userId) => !erased.has(userId)),
      CREATES_IN_FLIGHT,
      async (userId) => void result.set(userId, await this.create(tenantId, userId)),
    );
    return result;
  }

  async findSalt(tenantId: string, userId: string): Promise<Buffer | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id: keys.auditSaltId(tenantId, userId) }, ConsistentRead: true }));
    return typeof output.Item?.salt === 'string' ? Buffer.from(output.Item.salt, 'base64url') : undefined;
  }

  async forget(tenantId: string, userId: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id: keys.auditSaltId(tenantId, userId) } }));
  }

  private async create(tenantId: string, userId: string): Promise<Buffer> {
    const id = keys.auditSaltId(tenantId, userId);
    const salt = newSalt();
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: { id, salt: salt.toString('base64url') }, ConditionExpression: 'attribute_not_exists(id)' }));
      return salt;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const winner = await this.findSalt(tenantId, userId);
      if (!winner) throw new Error('audit salt vanished between its conditional put and the read (erased meanwhile)', { cause: error });
      return winner;
    }
  }
}

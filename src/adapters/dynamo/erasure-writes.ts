/**
 * The writes of an erasure (`user-eraser.ts`, `erasure-phases.ts`) on single items: a shared item's
 * parts naming the user taken out under a guard, an outgoing follow edge deleted with its followee's
 * count lowered once, and batched deletes.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sharedItemPartCount, sharedPartsUpdates, type ErasureSubject, type SharedItemPartsNamingUser } from '../../core/privacy/erasure.js';
import { classifyStoredItem } from '../../core/privacy/erasure-roles.js';
import type { TableKey } from '../../core/model/keys.js';
import { tableSpecs, type TableName } from '../../table-specs.js';
import { batchWriteAll, type BatchOptions, type Item, type WriteRequest } from './batch.js';

/** Tries of a shared item's guarded update (each failed guard re-reads the item). */
const SHARED_UPDATE_ATTEMPTS = 5;

export interface ErasureWrites {
  client: DynamoDBDocumentClient;
  tables: Record<TableName, string>;
  batchOptions?: BatchOptions;
}

/**
 * The user's parts out of one shared item; answers how many went. Idempotent (REMOVE and DELETE of
 * what is gone do nothing); an item deleted meanwhile is not recreated; a guard that fails (a list
 * element moved, or is no longer the user's) re-reads the item and decides again.
 */
export async function removeSharedParts(writes: ErasureWrites, table: TableName, item: Item, parts: SharedItemPartsNamingUser, subject: ErasureSubject): Promise<number> {
  const keyName = tableSpecs[table].partitionKey.name;
  const key = 'sortKey' in tableSpecs[table] ? { pk: item.pk, sk: item.sk } : { id: item.id };
  let current = parts;
  for (let attempt = 1; ; attempt += 1) {
    try {
      for (const update of sharedPartsUpdates(current, subject.userId)) {
        await writes.client.send(
          new UpdateCommand({
            TableName: writes.tables[table],
            Key: key,
            UpdateExpression: update.expression,
            ConditionExpression: [`attribute_exists(#key)`, ...(update.condition ? [update.condition] : [])].join(' AND '),
            ExpressionAttributeNames: { ...update.names, '#key': keyName },
            ...(update.values ? { ExpressionAttributeValues: update.values } : {}),
          }),
        );
      }
      return sharedItemPartCount(current);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || attempt >= SHARED_UPDATE_ATTEMPTS) throw error;
    }
    const fresh = await writes.client.send(new GetCommand({ TableName: writes.tables[table], Key: key, ConsistentRead: true }));
    const verdict = fresh.Item ? classifyStoredItem(table, fresh.Item, subject) : undefined;
    if (verdict?.action !== 'removeParts') return 0;
    current = verdict.parts;
  }
}

/**
 * DeleteItem (ALL_OLD), then ADD -1 to the followee's count if that edge had been counted: only the
 * delete that removed it lowers it. Answers whether the edge was there and whether a count went down.
 */
export async function removeOutgoingEdge(writes: ErasureWrites, edge: TableKey, followeeProfile: TableKey): Promise<{ deleted: boolean; lowered: boolean }> {
  const deleted = await writes.client.send(new DeleteCommand({ TableName: writes.tables.graph, Key: edge, ReturnValues: 'ALL_OLD' }));
  return { deleted: deleted.Attributes !== undefined, lowered: deleted.Attributes?.counted === true && (await lowerFollowerCount(writes, followeeProfile)) };
}

async function lowerFollowerCount(writes: ErasureWrites, followeeProfile: TableKey): Promise<boolean> {
  try {
    await writes.client.send(
      new UpdateCommand({
        TableName: writes.tables.graph,
        Key: followeeProfile,
        UpdateExpression: 'ADD followerCount :minusOne',
        ConditionExpression: 'attribute_exists(pk) AND followerCount > :zero',
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export async function deleteKeys(writes: ErasureWrites, table: TableName, keysOrItems: readonly (Item | TableKey)[]): Promise<void> {
  if (keysOrItems.length === 0) return;
  const spec = tableSpecs[table];
  const requests: WriteRequest[] = keysOrItems.map((key) => key as Item).map((item) =>
    'sortKey' in spec
      ? { DeleteRequest: { Key: { pk: String(item[spec.partitionKey.name]), sk: String(item[spec.sortKey.name]) } } }
      : { DeleteRequest: { Key: { id: String(item[spec.partitionKey.name]) } } },
  );
  await batchWriteAll(writes.client, writes.tables[table], requests, writes.batchOptions ?? {});
}

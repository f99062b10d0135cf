/**
 * Upgrade step (`npm run migrate`, and the local runtime at start): a 0.1.0 single read
 * (`READ#<id>` in ReadMarks) becomes the exception reads take (`READEX#<id>`: read and seen, before
 * every read-all). One Scan of the ReadMarks table (single reads only) and one conditional PutItem per
 * single read (never over an exception written since); a rerun changes nothing. The marks item needs
 * no step: a 0.1.0 read mark reads as the read-all of version 0.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { ITEM_STATE_PREFIX, READ_EXCEPTION_PREFIX } from '../../core/model/keys.js';
import type { ItemException } from '../../core/model/read-state.js';
import { markMigrationDone, runMigrationOnce } from './migration-marker.js';
import type { Item } from './query-pages.js';

export const READ_STATE_MIGRATION = 'read-state-v2';
const PUT_PARALLELISM = 8;

/** The exception of a 0.1.0 single read: read and seen, under every read-all (basis -1). */
export function exceptionOfSingleRead(item: Item): ItemException {
  return { type: '', basis: -1, read: true, seen: true, archived: false, deleted: false, expiresAt: typeof item.expiresAt === 'number' ? item.expiresAt : 0 };
}

/** Converts every 0.1.0 single read; answers how many became exceptions. */
export async function convertSingleReads(client: DynamoDBDocumentClient, readMarksTable: string): Promise<number> {
  let converted = 0;
  let start: Item | undefined;
  do {
    const output = await client.send(
      new ScanCommand({
        TableName: readMarksTable,
        FilterExpression: 'begins_with(sk, :single) AND NOT begins_with(sk, :exception)',
        ExpressionAttributeValues: { ':single': READ_EXCEPTION_PREFIX, ':exception': ITEM_STATE_PREFIX },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    start = output.LastEvaluatedKey;
    await forEachBounded(output.Items ?? [], PUT_PARALLELISM, async (item) => {
      const id = String(item.sk).slice(READ_EXCEPTION_PREFIX.length);
      try {
        await client.send(
          new PutCommand({
            TableName: readMarksTable,
            Item: { pk: item.pk, sk: `${ITEM_STATE_PREFIX}${id}`, ...exceptionOfSingleRead(item) },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        converted += 1;
      } catch (error) {
        // An exception written since the upgrade holds the newer state.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    });
  } while (start);
  return converted;
}

/** The upgrade step run to the end, then marked done: answers the single reads converted. */
export async function migrateReadState(client: DynamoDBDocumentClient, graphTable: string, readMarksTable: string): Promise<number> {
  const converted = await convertSingleReads(client, readMarksTable);
  await markMigrationDone(client, graphTable, READ_STATE_MIGRATION, { converted });
  return converted;
}

/** The local runtime at start: the step unless its marker says it ran; answers the single reads converted, undefined when skipped. */
export async function ensureReadState(client: DynamoDBDocumentClient, graphTable: string, readMarksTable: string): Promise<number | undefined> {
  const done = await runMigrationOnce(client, graphTable, READ_STATE_MIGRATION, async () => ({ converted: await convertSingleReads(client, readMarksTable) }));
  return done?.converted;
}

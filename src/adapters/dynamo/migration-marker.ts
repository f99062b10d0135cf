/**
 * Upgrade steps that run once per table set (`npm run migrate`, and the local runtime at start): a
 * marker item in the Graph table (`keys.migrationMarker`) says a step ran to the end, with its report.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../core/model/keys.js';

/** Records that `name` ran to the end (a later start skips it), with what it did. */
export async function markMigrationDone(client: DynamoDBDocumentClient, graphTable: string, name: string, details: Record<string, number>, nowMs = Date.now()): Promise<void> {
  await client.send(new PutCommand({ TableName: graphTable, Item: { ...details, ...keys.migrationMarker(name), doneAt: new Date(nowMs).toISOString() } }));
}

/** Runs `step` and marks it done, unless its marker says it already ran (then undefined, one GetItem). */
export async function runMigrationOnce<T extends Record<string, number>>(client: DynamoDBDocumentClient, graphTable: string, name: string, step: () => Promise<T>): Promise<T | undefined> {
  const marker = await client.send(new GetCommand({ TableName: graphTable, Key: keys.migrationMarker(name), ConsistentRead: true }));
  if (marker.Item) return undefined;
  const report = await step();
  await markMigrationDone(client, graphTable, name, report);
  return report;
}

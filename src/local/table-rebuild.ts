/**
 * The local upgrade of a table whose spec gained an index: dynalite cannot add a global secondary
 * index to an existing table, so the table of an older data directory is copied aside, created
 * again with its indexes, and copied back (every item is indexed on the way in). Local data is a
 * developer's: its size makes the copy a matter of seconds. On AWS, CloudFormation adds the index
 * and DynamoDB backfills it.
 */
import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand, DescribeTableCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TableSpec } from '../table-specs.js';
import { createTableInput } from './table-input.js';

const REBUILD_SUFFIX = '-rebuild';

/** Rebuilds `tableName` when it lacks an index of `spec` (or finishes a rebuild a crash interrupted). */
export async function rebuildWithoutMissingIndexes(client: DynamoDBClient, spec: TableSpec, tableName: string): Promise<void> {
  const aside = `${tableName}${REBUILD_SUFFIX}`;
  const asideExists = await describe(client, aside);
  const current = await describe(client, tableName);
  const wanted = (spec.indexes ?? []).map((index) => index.name);
  const present = new Set((current?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  const indexed = current !== undefined && wanted.every((name) => present.has(name));
  if (!asideExists && indexed) return;
  if (current && !indexed) {
    // 1. Copied aside (again after a crash: puts are idempotent), then the original goes.
    if (!asideExists) await client.send(new CreateTableCommand(createTableInput({ ...spec, indexes: [] }, aside)));
    await copy(client, tableName, aside);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  }
  // 2. The original again, with its indexes; 3. back from the copy, indexed on the way in; the copy goes.
  if (!(await describe(client, tableName))) await client.send(new CreateTableCommand(createTableInput(spec, tableName)));
  await copy(client, aside, tableName);
  await client.send(new DeleteTableCommand({ TableName: aside }));
}

async function describe(client: DynamoDBClient, tableName: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

async function copy(client: DynamoDBClient, from: string, to: string): Promise<void> {
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: from, ExclusiveStartKey: start, Limit: 500 }));
    const items = page.Items ?? [];
    for (let index = 0; index < items.length; index += 25) {
      let pending = items.slice(index, index + 25).map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const output = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: pending } }));
        pending = (output.UnprocessedItems?.[to] ?? []) as typeof pending;
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

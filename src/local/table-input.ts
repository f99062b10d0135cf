/** A table of the specs as a CreateTable request (dynalite), keys and sparse keys-only indexes included. */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { TableSpec } from '../table-specs.js';

export function createTableInput(spec: TableSpec, tableName: string): CreateTableCommandInput {
  const indexes = spec.indexes ?? [];
  const keyAttributes = [spec.partitionKey, ...(spec.sortKey ? [spec.sortKey] : []), ...indexes.flatMap((index) => [index.partitionKey, index.sortKey])];
  const attributes = [...new Map(keyAttributes.map((attribute) => [attribute.name, attribute])).values()];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributes.map((attribute) => ({ AttributeName: attribute.name, AttributeType: attribute.type })),
    KeySchema: [
      { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
      ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    ...(indexes.length > 0
      ? {
          GlobalSecondaryIndexes: indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
              { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: index.projection },
          })),
        }
      : {}),
  };
}


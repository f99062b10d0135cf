/**
 * The embedded DynamoDB of the local runtime: dynalite (the real DynamoDB wire protocol over
 * LevelDB), persisted under a directory, with tables created from the shared table specs.
 */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { rebuildWithoutMissingIndexes } from './table-rebuild.js';
import { createTableInput } from './table-input.js';

export { createTableInput } from './table-input.js';
import { tableSpecs, type TableSpec, type TableName } from '../table-specs.js';

export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

export interface EmbeddedDynamo {
  endpoint: string;
  tableNames: Record<TableName, string>;
  close(): Promise<void>;
}

/**
 * Creates every table of the specs that does not exist yet. A table of an older data directory
 * that lacks an index of its spec is rebuilt with it (dynalite cannot add an index to a table), so
 * its existing items are indexed too.
 */
export async function ensureTables(endpoint: string, tableNames: Record<TableName, string>): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    for (const [name, spec] of Object.entries(tableSpecs) as [TableName, TableSpec][]) {
      if (!existing.has(tableNames[name])) await client.send(new CreateTableCommand(createTableInput(spec, tableNames[name])));
      else await rebuildWithoutMissingIndexes(client, spec, tableNames[name]);
    }
  } finally {
    client.destroy();
  }
}

export function localTableNames(prefix = ''): Record<TableName, string> {
  return Object.fromEntries(Object.entries(tableSpecs).map(([name, spec]) => [name, `${prefix}${spec.id}`])) as Record<TableName, string>;
}

/** Starts dynalite on 127.0.0.1 (port 0 = random); `path` undefined keeps data in memory. */
export async function startEmbeddedDynamo(options: { path?: string; port?: number; tablePrefix?: string } = {}): Promise<EmbeddedDynamo> {
  if (options.path) await mkdir(options.path, { recursive: true });
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const tableNames = localTableNames(options.tablePrefix);
  await ensureTables(endpoint, tableNames);
  return {
    endpoint,
    tableNames,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export function tableEnv(tableNames: Record<TableName, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tableSpecs).map(([name, spec]) => [spec.envVar, tableNames[name as TableName]]));
}

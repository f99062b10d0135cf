/**
 * The embedded DynamoDB of the local runtime: dynalite (the real DynamoDB wire protocol over
 * LevelDB), persisted under a directory, with tables created from the shared table specs.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
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

export interface EmbeddedDynamoOptions {
  /** LevelDB directory; undefined keeps data in memory. */
  path?: string;
  port?: number;
  tablePrefix?: string;
  /**
   * Runs dynalite in a worker thread with its own event loop (the local runtime does): its request
   * parsing and LevelDB work, the larger part of every DynamoDB call's CPU, then runs beside the
   * functions instead of between them.
   */
  inWorker?: boolean;
}

/** Starts dynalite on 127.0.0.1 (port 0 = random); `path` undefined keeps data in memory. */
export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions = {}): Promise<EmbeddedDynamo> {
  if (options.path) await mkdir(options.path, { recursive: true });
  const dynaliteOptions = { path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
  const started = options.inWorker ? await startInWorker(dynaliteOptions, options.port ?? 0) : await startInProcess(dynaliteOptions, options.port ?? 0);
  const endpoint = `http://127.0.0.1:${started.port}`;
  const tableNames = localTableNames(options.tablePrefix);
  await ensureTables(endpoint, tableNames);
  return { endpoint, tableNames, close: started.close };
}

interface StartedDynalite {
  port: number;
  close(): Promise<void>;
}

type DynaliteOptions = { path: string | undefined; createTableMs: number; deleteTableMs: number; updateTableMs: number };

async function startInProcess(dynaliteOptions: DynaliteOptions, port: number): Promise<StartedDynalite> {
  const server = dynalite(dynaliteOptions);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** The worker: plain CommonJS (no TypeScript loader needed in the thread), dynalite required by its resolved path. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const dynalite = require(workerData.dynalitePath);
const server = dynalite(workerData.options);
server.once('error', (error) => parentPort.postMessage({ error: String(error && error.message || error) }));
server.listen(workerData.port, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  if (server.closeAllConnections) server.closeAllConnections();
  server.close(() => parentPort.postMessage({ closed: true }));
});
`;

async function startInWorker(dynaliteOptions: DynaliteOptions, port: number): Promise<StartedDynalite> {
  const dynalitePath = createRequire(import.meta.url).resolve('dynalite');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { dynalitePath, options: dynaliteOptions, port } });
  const listening = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { port?: number; error?: string }) => (message.port !== undefined ? resolve(message.port) : reject(new Error(`dynalite worker: ${message.error ?? 'no port'}`))));
  });
  let closing: Promise<void> | undefined;
  return {
    port: listening,
    // The database closes in the worker (its LevelDB lock is released) before the thread ends.
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const done = () => void worker.terminate().then(() => resolve(), () => resolve());
        worker.once('message', done);
        worker.once('error', done);
        worker.postMessage('close');
      })),
  };
}

export function tableEnv(tableNames: Record<TableName, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tableSpecs).map(([name, spec]) => [spec.envVar, tableNames[name as TableName]]));
}

/**
 * What operator tools (`npm run explain`, `npm run dlq`) need to reach a running local runtime:
 * written to `DATA_DIR/runtime.json` (mode 0600) at start. The local SQS credentials stay in their
 * own file; the tools read both from the same DATA_DIR.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TableName } from '../table-specs.js';

export const RUNTIME_INFO_FILE = 'runtime.json';

export interface LocalQueueInfo {
  name: string;
  url: string;
  arn: string;
  /** The queue whose DLQ this is (a native move back goes there). */
  sourceQueueName?: string;
}

export interface LocalRuntimeInfo {
  http: string;
  eventsEndpoint: string;
  eventBusName: string;
  dynamoEndpoint: string;
  tables: Record<TableName, string>;
  queues: LocalQueueInfo[];
  /** The local `@connections` API (the erase command closes the user's connections there). */
  managementEndpoint?: string;
  /** Feed shards of the runtime (the erase command deletes each of a user's feed shards). */
  feedShards?: number;
  /** The local SNS mobile-push stand-in (the erase command deletes a user's device endpoints there). */
  snsEndpoint?: string;
  /** The privacy job queue (`npm run erase` / `export` start a job there and follow it). */
  privacyJobQueueUrl?: string;
  /** Where the local job writes exports (the stand-in for the export bucket). */
  exportDir?: string;
}

export async function writeRuntimeInfo(dataDir: string, info: LocalRuntimeInfo): Promise<void> {
  await writeFile(join(dataDir, RUNTIME_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export async function readRuntimeInfo(dataDir: string): Promise<LocalRuntimeInfo> {
  try {
    return JSON.parse(await readFile(join(dataDir, RUNTIME_INFO_FILE), 'utf8')) as LocalRuntimeInfo;
  } catch (error) {
    throw new Error(`no running local runtime found in ${dataDir} (${RUNTIME_INFO_FILE}: ${(error as Error).message}); start it with npm start, same DATA_DIR`);
  }
}

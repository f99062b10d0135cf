/**
 * Where the operator tools point: a running local runtime (its DATA_DIR: `runtime.json` and the
 * local SQS credentials) or AWS (the default credential chain; names from arguments).
 */
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local/embedded-dynamo.js';
import { readRuntimeInfo, type LocalQueueInfo } from '../local/runtime-info.js';
import { loadLocalSqsCredentials } from '../local/sqs/credentials.js';
import { assertIdentifier } from '../core/model/keys.js';
import { TABLE_NAMES, type TableName } from '../table-specs.js';

export interface OpsTarget {
  kind: 'local' | 'aws';
  documentClient: DynamoDBDocumentClient;
  sqs: SQSClient;
  events: EventBridgeClient;
  idempotencyTable: string;
  eventBusName?: string;
  /** Local only: the runtime's queues (DLQs name their source queue). */
  localQueues?: LocalQueueInfo[];
  /** Every table by name (local: from runtime.json; AWS: `--tables`). */
  tables?: Record<TableName, string>;
  /** The WebSocket API's `@connections` endpoint (closing a user's connections). */
  managementEndpoint?: string;
  feedShards?: number;
  /** SNS (AWS) or the local mobile-push stand-in: the erase command deletes a user's device endpoints. */
  sns?: SNSClient;
  /** The privacy job queue (local: from runtime.json; AWS: `--job-queue`). */
  privacyJobQueueUrl?: string;
  /** Local only: where the runtime's job writes exports. */
  exportDir?: string;
  destroy(): void;
}

export async function localTarget(dataDir: string): Promise<OpsTarget> {
  const info = await readRuntimeInfo(dataDir);
  const dynamo = new DynamoDBClient({ endpoint: info.dynamoEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const sqs = new SQSClient({ endpoint: info.http, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(dataDir, 'queues')) });
  const events = new EventBridgeClient({ endpoint: info.eventsEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  // The stand-in answers callers signing with the runtime's local credentials (those of its queues).
  const sns = info.snsEndpoint ? new SNSClient({ endpoint: info.snsEndpoint, region: LOCAL_REGION, credentials: loadLocalSqsCredentials(join(dataDir, 'queues')) }) : undefined;
  return {
    kind: 'local',
    documentClient: DynamoDBDocumentClient.from(dynamo),
    sqs,
    events,
    idempotencyTable: info.tables.idempotency,
    eventBusName: info.eventBusName,
    localQueues: info.queues,
    tables: info.tables,
    ...(info.managementEndpoint ? { managementEndpoint: info.managementEndpoint } : {}),
    ...(info.feedShards !== undefined ? { feedShards: info.feedShards } : {}),
    ...(sns ? { sns } : {}),
    ...(info.privacyJobQueueUrl ? { privacyJobQueueUrl: info.privacyJobQueueUrl } : {}),
    ...(info.exportDir ? { exportDir: info.exportDir } : {}),
    destroy: () => [dynamo, sqs, events, ...(sns ? [sns] : [])].forEach((client) => client.destroy()),
  };
}

/** AWS (default credential chain): the idempotency table and the event bus by name (`cdk deploy` prints the bus; the table is in the data stack). */
export function awsTarget(options: { region?: string; table?: string; bus?: string }): OpsTarget {
  const region = options.region ? { region: options.region } : {};
  const dynamo = new DynamoDBClient(region);
  const sqs = new SQSClient(region);
  const events = new EventBridgeClient(region);
  const sns = new SNSClient(region);
  return {
    kind: 'aws',
    documentClient: DynamoDBDocumentClient.from(dynamo),
    sqs,
    events,
    sns,
    idempotencyTable: options.table ?? '',
    ...(options.bus ? { eventBusName: options.bus } : {}),
    destroy: () => [dynamo, sqs, events, sns].forEach((client) => client.destroy()),
  };
}

/** `inbox=name,readMarks=name,...`: every table of src/table-specs.ts. */
export function parseTables(value: string): Record<TableName, string> {
  const entries = new Map(value.split(',').map((pair) => pair.split('=', 2).map((part) => part.trim()) as [string, string | undefined]));
  const missing = TABLE_NAMES.filter((name) => !entries.get(name));
  if (missing.length > 0) throw new Error(`--tables is missing ${missing.join(', ')} (expected ${TABLE_NAMES.map((name) => `${name}=<table>`).join(',')})`);
  return Object.fromEntries(TABLE_NAMES.map((name) => [name, entries.get(name) as string])) as Record<TableName, string>;
}

/** `--tenant` / `--user` of the per-user commands (erase, export), checked as the API checks ids. */
export function parseSubject(values: { tenant?: string | undefined; user?: string | undefined }): { tenantId: string; userId: string } {
  return { tenantId: assertIdentifier('tenantId', values.tenant ?? ''), userId: assertIdentifier('userId', values.user ?? '') };
}

/** A numeric flag: a finite number >= `min`; NaN from `--grace-ms abc` would otherwise pass silently. */
export function parseNumberFlag(flag: string, value: string, min = 0): number {
  const parsed = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(parsed) || parsed < min) throw new Error(`--${flag} must be a number >= ${min}, got ${JSON.stringify(value)}`);
  return parsed;
}

/** The AWS target of the per-user commands: every table from `--tables` (and the optional `@connections` endpoint and feed shards). */
export function awsTablesTarget(options: { tables: string; region?: string | undefined; managementEndpoint?: string | undefined; feedShards?: number | undefined }): OpsTarget {
  const tables = parseTables(options.tables);
  return {
    ...awsTarget({ ...(options.region ? { region: options.region } : {}), table: tables.idempotency }),
    tables,
    ...(options.managementEndpoint ? { managementEndpoint: options.managementEndpoint } : {}),
    ...(options.feedShards !== undefined ? { feedShards: options.feedShards } : {}),
  };
}

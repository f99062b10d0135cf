/** Shared bench plumbing: dynalite in-process with every request of the document client metered. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoActionLookup } from '../src/adapters/dynamo/action-lookup.js';
import { createDocumentClient } from '../src/adapters/dynamo/document-client.js';
import { GraphRepository } from '../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../src/adapters/dynamo/read-state-repository.js';
import { RequestMeter, type MeterTotals } from '../src/adapters/dynamo/request-meter.js';
import { DEFAULT_FEED_SHARDS } from '../src/core/model/feed-shards.js';
import { timed } from './harness.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo, type EmbeddedDynamo } from '../src/local/embedded-dynamo.js';

export interface MeteredDynamo {
  dynamo: EmbeddedDynamo;
  client: DynamoDBDocumentClient;
  meter: RequestMeter;
}

export async function startMeteredDynamo(): Promise<MeteredDynamo> {
  const dynamo = await startEmbeddedDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const meter = new RequestMeter();
  meter.attach(client);
  return { dynamo, client, meter };
}

/** The production repositories and settings an `InboxReadService` of a bench reads through (90-day TTL, wall clock). */
export function readServiceDeps({ dynamo, client }: Pick<MeteredDynamo, 'dynamo' | 'client'>) {
  const tables = dynamo.tableNames;
  const graph = new GraphRepository(client, tables.graph);
  return {
    inbox: new InboxRepository(client, tables.inbox),
    celebrities: graph,
    readState: new ReadStateRepository(client, tables.readMarks),
    actionLookup: new DynamoActionLookup(client, { inbox: tables.inbox, readMarks: tables.readMarks, graph: tables.graph }),
    clock: { nowMs: () => Date.now() },
    cursorSecret: 'bench',
    feedShards: DEFAULT_FEED_SHARDS,
    inboxTtlDays: 90,
  };
}

/** The requests (and capacity) `work` sent, and its time. */
export async function metered(meter: RequestMeter, work: () => Promise<unknown>): Promise<{ ms: number; totals: MeterTotals }> {
  meter.reset();
  const { ms } = await timed(work);
  return { ms, totals: meter.snapshot() };
}

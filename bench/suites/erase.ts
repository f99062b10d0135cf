/**
 * Erasing a user (issue 18): DynamoDB requests per erased item and the time to erase a user with
 * 10,000 inbox items and 100,000 follow edges (99,000 followers, 1,000 accounts they follow) on
 * dynalite, beside a naive baseline in the same run (Scan every table, one DeleteItem per item that
 * names the user) at a tenth of the size.
 */
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchPutAll, type Item } from '../../src/adapters/dynamo/batch.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { totalRemoved } from '../../src/core/privacy/erasure.js';
import { classifyStoredItem } from '../../src/core/privacy/erasure-roles.js';
import { notificationId } from '../../src/core/model/ids.js';
import { keys } from '../../src/core/model/keys.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startEmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { TABLE_NAMES, tableSpecs, type TableName } from '../../src/table-specs.js';
import { round, timed, type BenchResult, type BenchSuite } from '../harness.js';

const TENANT = 'bench';

interface Shape {
  inboxItems: number;
  followers: number;
  following: number;
}

async function seed(client: DynamoDBDocumentClient, tables: Record<TableName, string>, userId: string, shape: Shape): Promise<void> {
  const baseMs = Date.now() - 3_600_000;
  const inbox: Item[] = Array.from({ length: shape.inboxItems }, (_, index) => ({
    ...keys.inboxItem(TENANT, userId, notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `e-${index}`, recipient: userId, timeMs: baseMs + index })),
    type: 'mention.created',
    createdAt: new Date(baseMs + index).toISOString(),
    actor: { id: `a-${index % 100}` },
    title: 'A mentioned you',
    body: 'a notification body of a realistic length, about one line of text',
    data: { postId: `p-${index}` },
    expiresAt: Math.floor(baseMs / 1000) + 90 * 86_400,
  }));
  const followedAt = new Date(baseMs).toISOString();
  const followers: Item[] = Array.from({ length: shape.followers }, (_, index) => ({ ...keys.follower(TENANT, userId, `f-${index}`), followedAt, counted: true }));
  const following: Item[] = Array.from({ length: shape.following }, (_, index) => ({ ...keys.follower(TENANT, `g-${index}`, userId), followedAt, counted: true }));
  const profiles: Item[] = Array.from({ length: shape.following }, (_, index) => ({ ...keys.profile(TENANT, `g-${index}`), followerCount: 1, tier: 'ordinary' }));
  await batchPutAll(client, tables.inbox, inbox, { parallelism: 16 });
  await batchPutAll(client, tables.graph, [...followers, ...following, ...profiles, { ...keys.profile(TENANT, userId), followerCount: shape.followers, tier: 'celebrity' }], { parallelism: 16 });
  await batchPutAll(client, tables.readMarks, [{ ...keys.readMark(TENANT, userId), readMark: inbox[Math.floor(inbox.length / 2)]?.sk ?? '0' }], {});
}

/** The naive erasure: Scan every table, DeleteItem per item naming the user (no count fix-up even). */
async function naiveErase(client: DynamoDBDocumentClient, tables: Record<TableName, string>, userId: string): Promise<number> {
  let removed = 0;
  for (const table of TABLE_NAMES) {
    const spec = tableSpecs[table];
    let start: Item | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: tables[table], ...(start ? { ExclusiveStartKey: start } : {}) }));
      for (const item of page.Items ?? []) {
        if (classifyStoredItem(table, item, { tenantId: TENANT, userId }).action !== 'delete') continue;
        const key = 'sortKey' in spec ? { pk: item.pk, sk: item.sk } : { id: item.id };
        await client.send(new DeleteCommand({ TableName: tables[table], Key: key }));
        removed += 1;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return removed;
}

export const suite: BenchSuite = {
  id: 'erase',
  title: 'Erasing a user (requests per erased item, time to erase)',
  method: `
A user with 10,000 inbox items, a read mark, 99,000 followers and 1,000 followed accounts (100,000
follow edges) is seeded on dynalite, then erased with \`UserEraser\` (the engine of \`npm run erase\`;
grace 0, default step budget): whole partitions by Query + BatchWriteItem, then one Scan per table for
the edges in other partitions (each lowering its followee's count). Requests are counted by the SDK
middleware. The naive baseline, in the same run on a tenth of the data (1,000 items, 10,000 edges),
Scans every table and sends one DeleteItem per item naming the user.`,
  async run(): Promise<BenchResult[]> {
    const dynamo = await startEmbeddedDynamo();
    const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const meter = new RequestMeter();
    meter.attach(client);
    const tables = dynamo.tableNames;
    try {
      const full: Shape = { inboxItems: 10_000, followers: 99_000, following: 1_000 };
      const small: Shape = { inboxItems: 1_000, followers: 9_900, following: 100 };
      await seed(client, tables, 'erased-full', full);
      await seed(client, tables, 'erased-small', small);
      await seed(client, tables, 'erased-naive', small);

      const erase = async (userId: string) => {
        meter.reset();
        const eraser = new UserEraser({ client, tables, feedShards: 4, graceMs: 0, tombstoneTtlSeconds: 86_400 }, { tenantId: TENANT, userId });
        const { result, ms } = await timed(() => eraser.run());
        return { report: result, ms, requests: meter.snapshot().requests };
      };
      const fullRun = await erase('erased-full');
      const smallRun = await erase('erased-small');
      meter.reset();
      const naive = await timed(() => naiveErase(client, tables, 'erased-naive'));
      const naiveRequests = meter.snapshot().requests;

      const fullItems = totalRemoved(fullRun.report);
      const smallItems = totalRemoved(smallRun.report);
      return [
        { name: 'erase.items.full', value: fullItems, unit: 'items', note: '10,000 inbox items + 100,000 follow edges + read mark + profile' },
        { name: 'erase.ms.full', value: Math.round(fullRun.ms), unit: 'ms' },
        { name: 'erase.requests.full', value: fullRun.requests, unit: 'requests' },
        { name: 'erase.requestsPerItem.full', value: round(fullRun.requests / fullItems, 3), unit: 'requests/item' },
        { name: 'erase.steps.full', value: fullRun.report.steps, unit: 'steps', note: 'bounded invocations (20,000 work units each)' },
        { name: 'erase.followCountsLowered.full', value: fullRun.report.followCountsLowered, unit: 'counts' },
        { name: 'erase.requestsPerItem.small', value: round(smallRun.requests / smallItems, 3), unit: 'requests/item', note: 'a tenth of the data' },
        { name: 'erase.ms.small', value: Math.round(smallRun.ms), unit: 'ms' },
        { name: 'eraseNaive.requestsPerItem.small', value: round(naiveRequests / naive.result, 3), unit: 'requests/item', note: 'naive baseline: Scan + DeleteItem per item' },
        { name: 'eraseNaive.ms.small', value: Math.round(naive.ms), unit: 'ms', note: 'naive baseline' },
      ];
    } finally {
      client.destroy();
      await dynamo.close();
    }
  },
};

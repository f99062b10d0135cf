/**
 * Inbox actions: requests of archive-all-read, retraction and the per-item actions beside a naive
 * per-item baseline in the same run, and the page / counts requests with and without exceptions.
 */
import { BatchWriteCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { RetractionRepository } from '../../src/adapters/dynamo/retraction-repository.js';
import type { MeterTotals } from '../../src/adapters/dynamo/request-meter.js';
import { mapBounded } from '../../src/core/model/bounded-parallel.js';
import type { NotificationEvent } from '../../src/core/fanout/events.js';
import { notificationId } from '../../src/core/model/ids.js';
import { InboxActions } from '../../src/core/actions/inbox-actions.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import { ReadMarks } from '../../src/core/actions/read-marks.js';
import { keys } from '../../src/core/model/keys.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { RetractionService } from '../../src/core/fanout/retraction.js';
import { metered, readServiceDeps, startMeteredDynamo } from '../dynamo.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';
import { CachedRetractions } from '../../src/core/read/retractions-cache.js';

const TENANT = 'bench';
const SIZES = [10, 1_000, 10_000] as const;
/** Writes in flight in the naive baselines: naive about the data model, not about concurrency. */
const NAIVE_PARALLELISM = 16;

function item(recipient: string, eventId: string, timeMs: number): StoredNotification {
  return {
    id: notificationId({ tenantId: TENANT, type: 'mention.created', eventId, recipient, timeMs }),
    type: 'mention.created',
    createdAt: new Date(timeMs).toISOString(),
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: 'a notification body of a realistic length, about one line of text',
    data: { postId: 'p1', excerpt: 'hello' },
    expiresAt: Math.floor(timeMs / 1000) + 90 * 86_400,
  };
}

/** `count` items spread over the last hour (none expired, all below a mark taken now). */
function recentItems(recipient: string, count: number, prefix: string): StoredNotification[] {
  const start = Date.now() - 3_600_000;
  return Array.from({ length: count }, (_, index) => item(recipient, `${prefix}-${index}`, start + index * Math.floor(3_000_000 / count)));
}

/** The naive model: a flag per inbox item. Archive-all-read queries the read ones and updates each. */
async function naiveArchiveAllRead(client: DynamoDBDocumentClient, table: string, user: UserRef): Promise<number> {
  const pk = keys.inboxItem(user.tenantId, user.userId, '').pk;
  const read: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const output = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#read = :true',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':pk': pk, ':true': true },
        ProjectionExpression: 'sk',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const row of output.Items ?? []) read.push(row.sk as string);
    startKey = output.LastEvaluatedKey;
  } while (startKey !== undefined);
  await mapBounded(read, NAIVE_PARALLELISM, (sk) =>
    client.send(new UpdateCommand({ TableName: table, Key: { pk, sk }, UpdateExpression: 'SET archived = :true', ExpressionAttributeValues: { ':true': true } })),
  );
  return read.length;
}

/** The naive retraction: delete the notification from every recipient's inbox (BatchWriteItem, 25 per call). */
async function naiveRetract(client: DynamoDBDocumentClient, table: string, rows: readonly { pk: string; sk: string }[]): Promise<void> {
  const chunks: { pk: string; sk: string }[][] = [];
  for (let start = 0; start < rows.length; start += 25) chunks.push(rows.slice(start, start + 25));
  await mapBounded(chunks, NAIVE_PARALLELISM, (chunk) =>
    client.send(new BatchWriteCommand({ RequestItems: { [table]: chunk.map((key) => ({ DeleteRequest: { Key: key } })) } })),
  );
}

const writesOf = (totals: MeterTotals) =>
  ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand'].reduce((sum, command) => sum + (totals.byCommand[command] ?? 0), 0);

export const suite: BenchSuite = {
  id: 'actions',
  title: 'Inbox actions: archive-all-read, retraction and per-item actions beside per-item baselines',
  method: `
In-process: dynalite in memory, the production repositories, \`InboxReadService\`, \`ReadMarks\`, \`InboxActions\` and
\`RetractionService\`, and the \`RequestMeter\` SDK middleware counting every DynamoDB request.

- \`archiveAllRead.requests.nN\`: a user with N read notifications (read-all first); the production
  archive-all-read (one UpdateItem of the mark item). \`archiveAllReadNaive.requests.nN\`, same run,
  another user with the same N items carrying a \`read\` flag: query the read ones, one UpdateItem each
  (${NAIVE_PARALLELISM} in flight).
- \`retract.requests.nN\`: an event with N recipients retracted (arrival-ledger put + one retraction
  record, no live push). \`retractNaive.requests.nN\`: delete each recipient's item (BatchWriteItem, 25 per call).
- \`archiveOne.requests\`, \`markUnread.requests\`, \`delete.requests\`: one action (view lookup + one
  write); \`bulkArchive.requests.ids100\`: 100 ids (one lookup round + the exceptions in BatchWriteItem).
- \`inboxPage.requests.noExceptions\` / \`counts.requests.noExceptions\`: a user with 50
  notifications and no exception, with the retraction reader warm, beside the same service without
  it (\`*.baseline\`, the read-scale figures): equal means nothing is added when nothing is archived.
  \`*.coldRetractions\`: the first read of a container (one Query of the tenant's retractions).
- \`inboxPage.requests.allArchived.n10000\`: a page after archive-all-read of 10,000 (the scan of
  ${8} rounds returns an empty page with a cursor: the cost of a list whose top is all archived).
`,
  async run() {
    const db = await startMeteredDynamo();
    const { dynamo, client, meter } = db;
    const tables = dynamo.tableNames;
    const common = readServiceDeps(db);
    const { inbox, readState, clock } = common;
    const retractionRecords = new RetractionRepository(client, tables.inbox);
    const baseline = new InboxReadService(common);
    const retractionsCache = new CachedRetractions(retractionRecords, 60_000, clock);
    const service = new InboxReadService({ ...common, retractions: retractionsCache });
    const marks = new ReadMarks({ readState, view: service, clock, inboxTtlDays: 90 });
    const actions = new InboxActions({ view: service, readState, clock, inboxTtlDays: 90 });
    const retractions = new RetractionService({ arrivals: new DynamoArrivalLedger(client, tables.idempotency), store: retractionRecords, clock, inboxTtlDays: 90 });
    const results: BenchResult[] = [];
    try {
      for (const n of SIZES) {
        const user: UserRef = { tenantId: TENANT, userId: `archive-n${n}` };
        const naiveUser: UserRef = { tenantId: TENANT, userId: `naive-n${n}` };
        const own = recentItems(user.userId, n, 'own');
        await inbox.writeInboxItems(own.map((stored) => ({ source: { kind: 'own', ...user }, item: stored })));
        await batchPutAll(
          client,
          tables.inbox,
          recentItems(naiveUser.userId, n, 'naive').map((stored) => ({ ...keys.inboxItem(TENANT, naiveUser.userId, stored.id), ...stored, read: true })),
        );
        await marks.markAllRead(user);
        const archived = await metered(meter, () => actions.archiveAllRead(user));
        const left = await service.listPage(user, { limit: 20 });
        if (left.items.length !== 0) throw new Error(`archive-all-read left ${left.items.length} items at n=${n}`);
        let updated = 0;
        const naive = await metered(meter, async () => {
          updated = await naiveArchiveAllRead(client, tables.inbox, naiveUser);
        });
        if (updated !== n) throw new Error(`naive archive updated ${updated} of ${n}`);
        results.push(
          { name: `archiveAllRead.requests.n${n}`, value: archived.totals.requests, unit: 'requests', note: 'target 1' },
          { name: `archiveAllReadNaive.requests.n${n}`, value: naive.totals.requests, unit: 'requests', note: 'naive baseline: query + UpdateItem per read item' },
          { name: `archiveAllRead.ms.n${n}`, value: round(archived.ms), unit: 'ms' },
          { name: `archiveAllReadNaive.ms.n${n}`, value: round(naive.ms), unit: 'ms', note: 'naive baseline' },
        );
        if (n === 10_000) {
          const page = await metered(meter, () => service.listPage(user, { limit: 20 }));
          results.push({ name: `inboxPage.requests.allArchived.n${n}`, value: page.totals.requests, unit: 'requests', note: 'bounded scan; the page is empty and its cursor continues' });
        }

        // Retraction of an event with n recipients, beside deleting each recipient's item.
        const arrivalMs = Date.now() - 60_000;
        const recipients = Array.from({ length: n }, (_, index) => `r${n}-${index}`);
        const eventId = `retract-me-${n}`;
        const rows = recipients.map((recipient) => ({ ...keys.inboxItem(TENANT, recipient, ''), ...item(recipient, eventId, arrivalMs) })).map((row) => ({ ...row, sk: row.id }));
        await batchPutAll(client, tables.inbox, rows);
        const event: NotificationEvent = { type: 'notification.retracted', eventId: `r-${eventId}`, tenantId: TENANT, actor: { id: 'bob' }, recipients: [], priority: 'urgent', timeMs: Date.now(), data: {} };
        const retract = await metered(meter, () => retractions.retract(event, { eventId, type: 'mention.created' }));
        const naiveRetraction = await metered(meter, () => naiveRetract(client, tables.inbox, rows.map(({ pk, sk }) => ({ pk, sk }))));
        results.push(
          { name: `retract.requests.n${n}`, value: retract.totals.requests, unit: 'requests', note: `${writesOf(retract.totals)} writes whatever the audience` },
          { name: `retractNaive.requests.n${n}`, value: naiveRetraction.totals.requests, unit: 'requests', note: 'naive baseline: delete per recipient, 25 per BatchWriteItem' },
        );
      }

      // Per-item actions and reads with no exception.
      const reader: UserRef = { tenantId: TENANT, userId: 'reader' };
      const readerItems = recentItems(reader.userId, 50, 'reader');
      await inbox.writeInboxItems(readerItems.map((stored) => ({ source: { kind: 'own', ...reader }, item: stored })));
      // A fresh container: its retraction cache is empty.
      const coldService = new InboxReadService({ ...common, retractions: new CachedRetractions(retractionRecords, 60_000, clock) });
      const cold = await metered(meter, () => coldService.listPage(reader, { limit: 20 }));
      const page = await metered(meter, () => service.listPage(reader, { limit: 20 }));
      const pageBaseline = await metered(meter, () => baseline.listPage(reader, { limit: 20 }));
      const counts = await metered(meter, () => service.counts(reader));
      const countsBaseline = await metered(meter, () => baseline.counts(reader));
      results.push(
        { name: 'inboxPage.requests.noExceptions', value: page.totals.requests, unit: 'requests', note: 'retraction reader warm' },
        { name: 'inboxPage.requests.baseline', value: pageBaseline.totals.requests, unit: 'requests', note: 'same service without actions' },
        { name: 'inboxPage.requests.coldRetractions', value: cold.totals.requests, unit: 'requests', note: 'first read of a container' },
        { name: 'counts.requests.noExceptions', value: counts.totals.requests, unit: 'requests', note: 'retraction reader warm' },
        { name: 'counts.requests.baseline', value: countsBaseline.totals.requests, unit: 'requests', note: 'same service without actions' },
      );
      const [first, second, third] = readerItems;
      const archiveOne = await metered(meter, () => actions.changeOne(reader, first!.id, 'archive'));
      const unread = await metered(meter, () => actions.changeOne(reader, second!.id, 'unread'));
      const deleted = await metered(meter, () => actions.changeOne(reader, third!.id, 'delete'));
      const withExceptions = await metered(meter, () => service.listPage(reader, { limit: 20 }));
      const bulkUser: UserRef = { tenantId: TENANT, userId: 'bulk' };
      const bulkItems = recentItems(bulkUser.userId, 100, 'bulk');
      await inbox.writeInboxItems(bulkItems.map((stored) => ({ source: { kind: 'own', ...bulkUser }, item: stored })));
      const bulk = await metered(meter, () => actions.bulk(bulkUser, bulkItems.map((stored) => stored.id), 'archive'));
      results.push(
        { name: 'archiveOne.requests', value: archiveOne.totals.requests, unit: 'requests', note: 'view lookup + 1 UpdateItem' },
        { name: 'markUnread.requests', value: unread.totals.requests, unit: 'requests', note: 'view lookup + 1 UpdateItem' },
        { name: 'delete.requests', value: deleted.totals.requests, unit: 'requests', note: 'view lookup + 1 UpdateItem' },
        { name: 'inboxPage.requests.threeExceptions', value: withExceptions.totals.requests, unit: 'requests', note: 'exceptions come with the read-state query' },
        { name: 'bulkArchive.requests.ids100', value: bulk.totals.requests, unit: 'requests', note: 'one lookup round (BatchGetItem, 100 keys a call) + the exceptions in BatchWriteItem (25 a call)' },
      );
    } finally {
      client.destroy();
      await dynamo.close();
    }
    return results;
  },
};

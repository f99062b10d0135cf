/**
 * Read-state and inbox-page costs: O(1) mark-all-read beside a naive "update every unread item"
 * baseline in the same run, inbox page and counts requests with k followed celebrities.
 */
import { DynamoActionLookup } from '../../src/adapters/dynamo/action-lookup.js';
import { QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { mapBounded } from '../../src/core/model/bounded-parallel.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { GraphRepository } from '../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import type { MeterTotals, RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { DEFAULT_FEED_SHARDS } from '../../src/core/model/feed-shards.js';
import { notificationId } from '../../src/core/model/ids.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import { ReadMarks } from '../../src/core/actions/read-marks.js';
import { keys } from '../../src/core/model/keys.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { Clock } from '../../src/core/ports/clock.js';
import type { InboxItemToWrite } from '../../src/core/ports/inbox.js';
import { startMeteredDynamo } from '../dynamo.js';
import { percentile, round, timed, type BenchResult, type BenchSuite } from '../harness.js';
import type { UserRef } from '../../src/core/model/user.js';

const TENANT = 'bench';
const SIZES = [10, 1_000, 10_000] as const;
const FOLLOWED = [0, 5, 50] as const;
const SAMPLES = 7;
/** Updates in flight in the naive baseline: naive about the data model, not about concurrency. */
const NAIVE_PARALLELISM = 16;

/** A clock that moves one second per reading, so every mark-all-read really advances the mark. */
class SteppingClock implements Clock {
  private now = Date.now();
  nowMs(): number {
    this.now += 1_000;
    return this.now;
  }
}

function item(tenantId: string, recipient: string, eventId: string, timeMs: number): StoredNotification {
  return {
    id: notificationId({ tenantId, type: 'mention.created', eventId, recipient, timeMs }),
    type: 'mention.created',
    createdAt: new Date(timeMs).toISOString(),
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: 'a notification body of a realistic length, about one line of text',
    data: { postId: 'p1', excerpt: 'hello' },
    expiresAt: Math.floor(timeMs / 1000) + 90 * 86_400,
  };
}

/** `count` items spread over the last hour (so none is expired and all are below a mark taken now). */
function recentItems(recipient: string, count: number, prefix: string): StoredNotification[] {
  const start = Date.now() - 3_600_000;
  return Array.from({ length: count }, (_, index) => item(TENANT, recipient, `${prefix}-${index}`, start + index * Math.floor(3_000_000 / count)));
}

/**
 * The naive model the baseline stands for: a `read` flag on every inbox item. Mark-all-read queries
 * the user's unread items (filter read = false, paged) and updates each with one UpdateItem
 * (BatchWriteItem cannot update, only replace whole items, so a naive implementation updates).
 */
async function naiveMarkAllRead(client: DynamoDBDocumentClient, table: string, user: UserRef): Promise<number> {
  const pk = keys.inboxItem(user.tenantId, user.userId, '').pk;
  const unread: string[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const output = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#read = :false',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':pk': pk, ':false': false },
        ProjectionExpression: 'sk',
        ExclusiveStartKey: exclusiveStartKey,
      }),
    );
    for (const row of output.Items ?? []) unread.push(row.sk as string);
    exclusiveStartKey = output.LastEvaluatedKey;
  } while (exclusiveStartKey !== undefined);
  await mapBounded(unread, NAIVE_PARALLELISM, (sk) =>
    client.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk, sk },
        UpdateExpression: 'SET #read = :true',
        ExpressionAttributeNames: { '#read': 'read' },
        ExpressionAttributeValues: { ':true': true },
      }),
    ),
  );
  return unread.length;
}

function metered(meter: RequestMeter, work: () => Promise<unknown>): Promise<{ ms: number; totals: MeterTotals }> {
  meter.reset();
  return timed(work).then(({ ms }) => ({ ms, totals: meter.snapshot() }));
}

export const suite: BenchSuite = {
  id: 'read-state',
  title: 'Read state: O(1) mark-all-read, inbox page and counts',
  method: `
In-process: dynalite in memory, the production repositories, \`InboxReadService\` and \`ReadMarks\`, and the
\`RequestMeter\` SDK middleware counting every DynamoDB request (retries included) and the capacity
units dynalite reports (\`ReturnConsumedCapacity: TOTAL\`).

- \`markAllRead.*.nN\`: a user with N unread notifications (seeded with BatchWriteItem); the
  production mark-all-read (one conditional UpdateItem of the READMARK item), ${SAMPLES} samples per N,
  the clock moved one second between samples so each one really advances the mark.
- \`markAllReadNaive.*.nN\`, same run, another user with the same N items carrying a \`read\` flag:
  the naive design queries the unread items (FilterExpression \`read = false\`, paged) and updates
  each with one UpdateItem (${NAIVE_PARALLELISM} in flight; BatchWriteItem cannot update). One run
  per N, since a run consumes the unread state; \`ms.p50\` of the naive rows is that single run.
- \`readState.inboxPage.*.kK\`: the previous design (no feed heads: one Query per followed feed; the
  \`read-scale\` suite compares it with the current one): a page of 20 for a user with 50 own notifications following K celebrities,
  each with 5 feed events written to all ${DEFAULT_FEED_SHARDS} shards. Target: at most 3 + K requests.
- \`readState.counts.requests\` (K = 0), \`readState.counts.requests.kK\` and \`readState.counts.requests.n10000\` (10,000 unread, capped at 99).
`,
  async run() {
    const { dynamo, client, meter } = await startMeteredDynamo();
    const tables = dynamo.tableNames;
    const inbox = new InboxRepository(client, tables.inbox);
    const readState = new ReadStateRepository(client, tables.readMarks);
    const clock = new SteppingClock();
    const service = new InboxReadService({
      inbox,
      celebrities: new GraphRepository(client, tables.graph),
      readState,
      actionLookup: new DynamoActionLookup(client, { inbox: tables.inbox, readMarks: tables.readMarks, graph: tables.graph }),
      clock,
      cursorSecret: 'bench',
      feedShards: DEFAULT_FEED_SHARDS,
      inboxTtlDays: 90,
    });
    const marks = new ReadMarks({ readState, view: service, clock, inboxTtlDays: 90 });
    const results: BenchResult[] = [];
    try {
      for (const n of SIZES) {
        // Prepare: the same n items for two users, the naive one with a read flag.
        const user: UserRef = { tenantId: TENANT, userId: `mark-n${n}` };
        const naiveUser: UserRef = { tenantId: TENANT, userId: `naive-n${n}` };
        const own = recentItems(user.userId, n, 'mark');
        await inbox.writeInboxItems(own.map((stored) => ({ source: { kind: 'own', ...user }, item: stored })));
        const naiveRows = recentItems(naiveUser.userId, n, 'naive').map((stored) => ({
          ...keys.inboxItem(naiveUser.tenantId, naiveUser.userId, stored.id),
          ...stored,
          read: false,
        }));
        await batchPutAll(client, tables.inbox, naiveRows);
        const before = await service.counts(user);
        if (before.unread !== Math.min(n, 99)) throw new Error(`seeding n=${n} failed: ${JSON.stringify(before)}`);

        // Act: O(1) mark-all-read, several samples.
        const samples: { ms: number; totals: MeterTotals }[] = [];
        for (let i = 0; i < SAMPLES; i += 1) samples.push(await metered(meter, () => marks.markAllRead(user)));
        const after = await service.counts(user);
        if (after.unread !== 0) throw new Error(`markAllRead left ${after.unread} unread at n=${n}`);

        // Act: naive baseline, once.
        let updated = 0;
        const naive = await metered(meter, async () => {
          updated = await naiveMarkAllRead(client, tables.inbox, naiveUser);
        });
        if (updated !== n) throw new Error(`naive baseline updated ${updated} of ${n}`);

        const requests = Math.max(...samples.map((sample) => sample.totals.requests));
        results.push(
          { name: `markAllRead.requests.n${n}`, value: requests, unit: 'requests', note: `target 1; max of ${SAMPLES} samples` },
          { name: `markAllReadNaive.requests.n${n}`, value: naive.totals.requests, unit: 'requests', note: 'naive baseline: query + UpdateItem per unread item' },
          { name: `markAllRead.ms.p50.n${n}`, value: round(percentile(samples.map((sample) => sample.ms), 50)), unit: 'ms', note: `p50 of ${SAMPLES}` },
          { name: `markAllReadNaive.ms.p50.n${n}`, value: round(naive.ms), unit: 'ms', note: 'naive baseline, one run' },
          { name: `markAllRead.wcu.n${n}`, value: round(samples[0]!.totals.writeCapacityUnits), unit: 'WCU' },
          { name: `markAllReadNaive.wcu.n${n}`, value: round(naive.totals.writeCapacityUnits), unit: 'WCU', note: 'naive baseline' },
          { name: `markAllReadNaive.rcu.n${n}`, value: round(naive.totals.readCapacityUnits), unit: 'RCU', note: 'naive baseline' },
        );
        if (n === 10_000) {
          // Counts on a user with n unread (before marking would be ideal; a fresh user with the same items).
          const counted: UserRef = { tenantId: TENANT, userId: `count-n${n}` };
          await inbox.writeInboxItems(recentItems(counted.userId, n, 'count').map((stored) => ({ source: { kind: 'own', ...counted }, item: stored })));
          const count = await metered(meter, () => service.counts(counted));
          results.push({ name: `readState.counts.requests.n${n}`, value: count.totals.requests, unit: 'requests', note: '10,000 unread, answer capped at 99' });
        }
      }

      // Inbox page and counts with k followed celebrities.
      const celebrityCount = Math.max(...FOLLOWED);
      const feeds: InboxItemToWrite[] = [];
      for (let c = 0; c < celebrityCount; c += 1) {
        for (const stored of recentItems('feed', 5, `celeb-${c}`)) {
          for (let shard = 0; shard < DEFAULT_FEED_SHARDS; shard += 1) feeds.push({ source: { kind: 'feed', tenantId: TENANT, actorId: `celeb-${c}`, shard }, item: stored });
        }
      }
      await inbox.writeInboxItems(feeds);
      for (const k of FOLLOWED) {
        const user: UserRef = { tenantId: TENANT, userId: `reader-k${k}` };
        await inbox.writeInboxItems(recentItems(user.userId, 50, 'own').map((stored) => ({ source: { kind: 'own', ...user }, item: stored })));
        const followedAt = new Date(Date.now() - 7_200_000).toISOString();
        // The edges and their pack, as a follow writes them.
        await new FollowGraphRepository(client, tables.graph).putFollowedCelebrities(Array.from({ length: k }, (_, c) => ({ ...user, celebrityId: `celeb-${c}`, followedAt })));
        const pages: { ms: number; totals: MeterTotals }[] = [];
        for (let i = 0; i < SAMPLES; i += 1) pages.push(await metered(meter, () => service.listPage(user, { limit: 20 })));
        const page = await service.listPage(user, { limit: 100 });
        if (page.items.length !== Math.min(100, 50 + 5 * k)) throw new Error(`k=${k}: page has ${page.items.length} items`);
        const count = await metered(meter, () => service.counts(user));
        results.push(
          { name: `readState.inboxPage.requests.k${k}`, value: Math.max(...pages.map((sample) => sample.totals.requests)), unit: 'requests', note: `target <= ${3 + k} (3 + k)` },
          { name: `readState.inboxPage.ms.p50.k${k}`, value: round(percentile(pages.map((sample) => sample.ms), 50)), unit: 'ms', note: `p50 of ${SAMPLES}, page of 20` },
          { name: `readState.inboxPage.rcu.k${k}`, value: round(pages[0]!.totals.readCapacityUnits), unit: 'RCU' },
          { name: k === 0 ? 'readState.counts.requests' : `readState.counts.requests.k${k}`, value: count.totals.requests, unit: 'requests', note: `3 + k = ${3 + k}` },
        );
      }
    } finally {
      client.destroy();
      await dynamo.close();
    }
    return results;
  },
};

/**
 * The inbox view at scale (issue 25): per-item action requests whatever the number of followed
 * celebrities, a bulk of 100 ids at k = 2,000, and page / counts requests with 1,000 stored
 * exceptions and 1,000 tenant retractions, each beside the naive design in the same run.
 */
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { batchGetAll, batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { marksOf, exceptionOf, ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { RetractionRepository } from '../../src/adapters/dynamo/retraction-repository.js';
import { InboxActions } from '../../src/core/actions/inbox-actions.js';
import { ReadMarks } from '../../src/core/actions/read-marks.js';
import type { NotificationEvent } from '../../src/core/fanout/events.js';
import { RetractionService } from '../../src/core/fanout/retraction.js';
import { DEFAULT_FEED_SHARDS } from '../../src/core/model/feed-shards.js';
import { notificationId } from '../../src/core/model/ids.js';
import { ITEM_STATE_PREFIX, keys, READ_MARK_SK } from '../../src/core/model/keys.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { ItemException, ReadState } from '../../src/core/model/read-state.js';
import type { UserRef } from '../../src/core/model/user.js';
import { EMPTY_FEED_HEAD, type InboxItemToWrite } from '../../src/core/ports/inbox.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import { CachedRetractions } from '../../src/core/read/retractions-cache.js';
import { metered, readServiceDeps, startMeteredDynamo } from '../dynamo.js';
import { round, type BenchResult, type BenchSuite } from '../harness.js';

const KS = [0, 500, 2_000] as const;
const EXCEPTIONS = 1_000;
const RETRACTIONS = 1_000;

function item(tenantId: string, recipient: string, eventId: string, timeMs: number, type = 'mention.created'): StoredNotification {
  return {
    id: notificationId({ tenantId, type, eventId, recipient, timeMs }),
    type,
    createdAt: new Date(timeMs).toISOString(),
    actor: { id: 'bob', name: 'Bob' },
    title: 'Bob mentioned you',
    body: 'a notification body of a realistic length, about one line of text',
    data: type === 'post.published' ? { postId: eventId, title: eventId } : { postId: 'p1', excerpt: 'hello' },
    expiresAt: Math.floor(timeMs / 1000) + 90 * 86_400,
  };
}

const ownItems = (user: UserRef, items: readonly StoredNotification[]): InboxItemToWrite[] => items.map((stored) => ({ source: { kind: 'own', ...user }, item: stored }));

/**
 * The naive per-item lookup this design replaced: the id looked up in the reader's own partition
 * and in every followed feed (BatchGetItem, 100 keys a call), then one write of its state.
 */
async function naiveAction(client: DynamoDBDocumentClient, tables: { inbox: string; readMarks: string }, user: UserRef, followed: readonly string[], id: string): Promise<void> {
  const candidates = [keys.inboxItem(user.tenantId, user.userId, id), ...followed.map((celebrityId) => keys.feedItem(user.tenantId, celebrityId, 0, id))];
  const found = await batchGetAll(client, tables.inbox, candidates);
  if (found.length === 0) throw new Error(`naive lookup: ${id} not found`);
  await client.send(new PutCommand({ TableName: tables.readMarks, Item: { pk: keys.inboxItem(user.tenantId, user.userId, '').pk, sk: `NAIVE#${id}`, archived: true } }));
}

/**
 * Counts' read of the exceptions above the read mark as it was before the ranged query: descending
 * Queries of 50 from the marks item down to the mark (one request per 50 single reads since the last
 * read-all), beside today's design in the same run.
 */
class ReadStateBefore extends ReadStateRepository {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    super(documents, table);
  }

  override async readAboveMark(user: UserRef): Promise<ReadState> {
    const exceptions = new Map<string, ItemException>();
    let marks: Omit<ReadState, 'exceptions'> | undefined;
    let start: Record<string, unknown> | undefined;
    do {
      const output = await this.documents.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.readMark(user.tenantId, user.userId).pk, ':from': ITEM_STATE_PREFIX, ':to': READ_MARK_SK },
          ScanIndexForward: false,
          Limit: 50,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const stored of output.Items ?? []) {
        if (stored.sk === READ_MARK_SK) {
          // No counts floor before it (src/core/model/counts-floor.ts).
          marks = { ...marksOf(stored), countsFloor: null };
          continue;
        }
        marks ??= marksOf(undefined);
        const id = keys.notificationIdFromItemState(stored.sk as string);
        if (id === undefined) continue;
        if (marks.readMark !== null && id <= marks.readMark) return { ...marks, exceptions };
        const exception = exceptionOf(stored);
        if (exception) exceptions.set(id, exception);
      }
      start = output.LastEvaluatedKey;
    } while (start);
    return { ...(marks ?? marksOf(undefined)), exceptions };
  }

  override async advanceCountsFloor(): Promise<boolean> {
    return false;
  }
}

export const suite: BenchSuite = {
  id: 'inbox-view',
  title: 'Inbox view at scale: per-item actions flat in followed celebrities; reads flat in exceptions and retractions',
  method: `
In-process: dynalite in memory, the production repositories, \`InboxActions\` and \`InboxReadService\`
(retractions through the per-container cache, as deployed), the \`RequestMeter\` SDK middleware
counting every DynamoDB request.

- \`archiveOwn.requests.kK\` / \`archiveFeed.requests.kK\`: one archive of an own notification / of a
  followed celebrity's post, the reader following K celebrities (one BatchGetItem round over Inbox,
  ReadMarks and Graph, then one write). \`archiveNaive.requests.kK\`: the naive lookup, same run: the id
  looked up in the own partition and every followed feed (BatchGetItem, 100 keys a call), then one write.
- \`bulkArchive.requests.ids100.k2000\`: 100 own ids at K = 2,000; \`bulkArchiveNaive.requests.ids100.k2000\`:
  the naive lookup for each of the 100 ids.
- \`inboxPage.requests.exceptionsN\` / \`counts.requests.exceptionsN\`: a reader with 1,050 notifications,
  N = 0 or ${EXCEPTIONS} of the older ones read one by one (stored exceptions), the newest 50 unread.
  \`readCapacity\` beside them: the read units of the same call. \`exceptionsNaive\`: the Query of every
  \`READEX#\` item of the user that the naive design made on every page and count.
  \`*.belowReadMark\`: the same after a read-all and 50 newer notifications (the exceptions are old).
  Counts read the exceptions ABOVE the read mark (single reads since the last read-all) with the marks
  item (50) and then ONE ranged Query of the rest (1 MB a request, some 5,000 exceptions), so their
  requests stay flat. \`countsFirst\`: the first count after the single reads, which reads them all and
  moves the counts floor over them (one conditional write); \`counts\`: the next one, which starts above
  the floor (src/core/model/counts-floor.ts, docs/api/inbox-state.md "Read cost"; the single reads are 43
  to 60 minutes old, past the floor's 10-minute lag). \`countsBefore\`: the same counts with the design
  before (no floor), same run: the
  exceptions above the mark read 50 a Query.
- \`inboxPage.requests.retractionsN\` / \`counts.requests.retractionsN\`: the same reader's tenant with
  N = 0 or ${RETRACTIONS} retracted events, the first read of a fresh container (\`cold\`) and the next (warm).
`,
  async run() {
    const db = await startMeteredDynamo();
    const { dynamo, client, meter } = db;
    const tables = dynamo.tableNames;
    const common = readServiceDeps(db);
    const { inbox, readState, clock, celebrities: graph } = common;
    const retractionRecords = new RetractionRepository(client, tables.inbox);
    const serviceFor = (retractions = new CachedRetractions(retractionRecords, 60_000, clock)) =>
      new InboxReadService({ ...common, feedHeads: graph, celebrityPosts: new DynamoCelebrityPostsLog(client, tables.inbox), retractions });
    const service = serviceFor();
    const before = new InboxReadService({ ...common, readState: new ReadStateBefore(client, tables.readMarks), feedHeads: graph, celebrityPosts: new DynamoCelebrityPostsLog(client, tables.inbox), retractions: new CachedRetractions(retractionRecords, 60_000, clock) });
    const actions = new InboxActions({ view: service, readState, clock, inboxTtlDays: 90 });
    const marks = new ReadMarks({ readState, view: service, clock, inboxTtlDays: 90 });
    const results: BenchResult[] = [];
    const start = Date.now() - 3_600_000;
    try {
      // ---- per-item actions with k followed celebrities
      for (const k of KS) {
        const tenantId = `view-k${k}`;
        const reader: UserRef = { tenantId, userId: 'reader' };
        const followed = Array.from({ length: k }, (_, index) => `celeb-${index}`);
        if (k > 0) {
          await batchPutAll(client, tables.graph, followed.map((celebrityId) => ({ ...keys.profile(tenantId, celebrityId), followerCount: 1_000_000, tier: 'celebrity', everCelebrity: true, newestFeedId: EMPTY_FEED_HEAD })));
          await new FollowGraphRepository(client, tables.graph).putFollowedCelebrities(followed.map((celebrityId) => ({ ...reader, celebrityId, followedAt: new Date(start - 86_400_000).toISOString() })));
        }
        const own = Array.from({ length: 100 }, (_, index) => item(tenantId, reader.userId, `own-${index}`, start + index * 1_000));
        await inbox.writeInboxItems(ownItems(reader, own));
        const author = followed[k - 1];
        const post = author === undefined ? undefined : item(tenantId, `feed:${author}`, 'post-1', start + 200_000, 'post.published');
        if (post && author) {
          await inbox.writeInboxItems(
            Array.from({ length: DEFAULT_FEED_SHARDS }, (_, shard): InboxItemToWrite[] => [
              { source: { kind: 'feed', tenantId, actorId: author, shard }, item: post },
              { source: { kind: 'celebrityPosts', tenantId, shard, authorId: author }, item: post },
            ]).flat(),
          );
        }
        const archiveOwn = await metered(meter, () => actions.changeOne(reader, own[0]!.id, 'archive'));
        const archiveFeed = post ? await metered(meter, () => actions.changeOne(reader, post.id, 'archive')) : undefined;
        const naive = await metered(meter, () => naiveAction(client, tables, reader, followed, own[1]!.id));
        results.push(
          { name: `archiveOwn.requests.k${k}`, value: archiveOwn.totals.requests, unit: 'requests', note: 'target <= 3 at every k' },
          ...(archiveFeed ? [{ name: `archiveFeed.requests.k${k}`, value: archiveFeed.totals.requests, unit: 'requests', note: 'a followed celebrity post; target <= 3' }] : []),
          { name: `archiveNaive.requests.k${k}`, value: naive.totals.requests, unit: 'requests', note: 'naive baseline: lookup in every followed feed' },
        );
        if (k === 2_000) {
          const bulk = await metered(meter, () => actions.bulk(reader, own.map((stored) => stored.id), 'archive'));
          const naiveBulk = await metered(meter, async () => {
            for (const stored of own.slice(0, 100)) await naiveAction(client, tables, reader, followed, stored.id);
          });
          results.push(
            { name: 'bulkArchive.requests.ids100.k2000', value: bulk.totals.requests, unit: 'requests', note: 'target <= 10' },
            { name: 'bulkArchiveNaive.requests.ids100.k2000', value: naiveBulk.totals.requests, unit: 'requests', note: 'naive baseline: per id, every followed feed' },
          );
        }
      }

      // ---- reads with 0 and 1,000 stored exceptions
      for (const n of [0, EXCEPTIONS]) {
        const reader: UserRef = { tenantId: 'view-exceptions', userId: `reader-${n}` };
        const items = Array.from({ length: EXCEPTIONS + 50 }, (_, index) => item(reader.tenantId, reader.userId, `x-${index}`, start + index * 1_000));
        await inbox.writeInboxItems(ownItems(reader, items));
        for (let from = 0; from < n; from += 100) await actions.bulk(reader, items.slice(from, from + 100).map((stored) => stored.id), 'read');
        // Warm both containers (the tenant's retractions cached), as a second read would find them.
        await service.listPage(reader, { limit: 20 });
        await before.listPage(reader, { limit: 20 });
        const page = await metered(meter, () => service.listPage(reader, { limit: 20 }));
        // The first count moves the counts floor over the single reads (they are 43 to 60 minutes old); the next ones start above it.
        const countsFirst = await metered(meter, () => service.counts(reader));
        const counts = await metered(meter, () => service.counts(reader));
        const countsBefore = await metered(meter, () => before.counts(reader));
        const naive = await metered(meter, async () => {
          let startKey: Record<string, unknown> | undefined;
          do {
            const output = await client.send(new QueryCommand({ TableName: tables.readMarks, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :ex)', ExpressionAttributeValues: { ':pk': keys.inboxItem(reader.tenantId, reader.userId, '').pk, ':ex': 'READEX#' }, ExclusiveStartKey: startKey }));
            startKey = output.LastEvaluatedKey;
          } while (startKey);
        });
        results.push(
          { name: `inboxPage.requests.exceptions${n}`, value: page.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
          { name: `inboxPage.readCapacity.exceptions${n}`, value: round(page.totals.readCapacityUnits), unit: 'RCU' },
          { name: `counts.requests.exceptions${n}`, value: counts.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
          { name: `counts.readCapacity.exceptions${n}`, value: round(counts.totals.readCapacityUnits), unit: 'RCU', note: 'target: unchanged from 0' },
          { name: `countsFirst.requests.exceptions${n}`, value: countsFirst.totals.requests, unit: 'requests', note: 'the first count after the single reads (moves the counts floor: one write)' },
          { name: `countsFirst.readCapacity.exceptions${n}`, value: round(countsFirst.totals.readCapacityUnits), unit: 'RCU' },
          { name: `countsBefore.requests.exceptions${n}`, value: countsBefore.totals.requests, unit: 'requests', note: 'before: the exceptions above the read mark 50 a Query' },
          { name: `countsBefore.readCapacity.exceptions${n}`, value: round(countsBefore.totals.readCapacityUnits), unit: 'RCU' },
          { name: `exceptionsNaive.readCapacity.exceptions${n}`, value: round(naive.totals.readCapacityUnits), unit: 'RCU', note: `naive: every READEX# item on each read (${naive.totals.requests} requests)` },
        );
        // The same exceptions below a read-all (old ones), 50 newer unread above it.
        await marks.markAllRead(reader);
        await new Promise((resolve) => setTimeout(resolve, 2));
        await inbox.writeInboxItems(ownItems(reader, Array.from({ length: 50 }, (_, index) => item(reader.tenantId, reader.userId, `y-${index}`, Date.now() - 1_000 + index * 10))));
        const pageBelow = await metered(meter, () => service.listPage(reader, { limit: 20 }));
        const countsBelow = await metered(meter, () => service.counts(reader));
        results.push(
          { name: `inboxPage.requests.exceptions${n}.belowReadMark`, value: pageBelow.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
          { name: `counts.requests.exceptions${n}.belowReadMark`, value: countsBelow.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
          { name: `counts.readCapacity.exceptions${n}.belowReadMark`, value: round(countsBelow.totals.readCapacityUnits), unit: 'RCU' },
        );
      }

      // ---- reads with 0 and 1,000 tenant retractions
      for (const n of [0, RETRACTIONS]) {
        const tenantId = `view-retractions-${n}`;
        const reader: UserRef = { tenantId, userId: 'reader' };
        await inbox.writeInboxItems(ownItems(reader, Array.from({ length: 50 }, (_, index) => item(tenantId, reader.userId, `r-${index}`, start + index * 1_000))));
        const retractions = new RetractionService({ arrivals: new DynamoArrivalLedger(client, tables.idempotency), store: retractionRecords, clock, inboxTtlDays: 90 });
        for (let index = 0; index < n; index += 1) {
          const event: NotificationEvent = { type: 'notification.retracted', eventId: `retract-${index}`, tenantId, actor: { id: 'bob' }, recipients: [], priority: 'urgent', timeMs: Date.now(), data: {} };
          await retractions.retract(event, { eventId: `gone-${index}`, type: 'mention.created' });
        }
        const fresh = serviceFor();
        const coldPage = await metered(meter, () => fresh.listPage(reader, { limit: 20 }));
        const page = await metered(meter, () => fresh.listPage(reader, { limit: 20 }));
        const counts = await metered(meter, () => fresh.counts(reader));
        results.push(
          { name: `inboxPage.requests.retractions${n}.cold`, value: coldPage.totals.requests, unit: 'requests', note: 'first read of a container' },
          { name: `inboxPage.readCapacity.retractions${n}.cold`, value: round(coldPage.totals.readCapacityUnits), unit: 'RCU' },
          { name: `inboxPage.requests.retractions${n}`, value: page.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
          { name: `counts.requests.retractions${n}`, value: counts.totals.requests, unit: 'requests', note: 'target: unchanged from 0' },
        );
      }
    } finally {
      client.destroy();
      await dynamo.close();
    }
    return results;
  },
};

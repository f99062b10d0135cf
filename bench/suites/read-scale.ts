/**
 * Reads that do not grow with followed celebrities (the tenant's celebrity posts log above 100
 * follows, feed heads below) beside feed heads alone and the first design (one Query per followed
 * feed), and a celebrity post's live delivery in bounded parallel jobs.
 */
import { batchPutAll } from '../../src/adapters/dynamo/batch.js';
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { DynamoDeliveryLedger } from '../../src/adapters/dynamo/delivery-ledger.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { GraphRepository } from '../../src/adapters/dynamo/graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { queryPages } from '../../src/adapters/dynamo/query-pages.js';
import type { MeterTotals, RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { mapBounded } from '../../src/core/model/bounded-parallel.js';
import { CONNECTIONS_PER_JOB, type DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { DEFAULT_FEED_SHARDS, readerShard } from '../../src/core/model/feed-shards.js';
import { idLowerBoundAt, notificationId } from '../../src/core/model/ids.js';
import { COUNT_CAP, countFromIds, type Counts } from '../../src/core/model/read-state.js';
import { CELEBRITY_LOG_MIN_FOLLOWED } from '../../src/core/read/celebrity-posts-view.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import { keys } from '../../src/core/model/keys.js';
import { LiveDelivery } from '../../src/core/live/live-delivery.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import { systemClock } from '../../src/core/ports/clock.js';
import type { InboxItemToWrite, InboxSource } from '../../src/core/ports/inbox.js';
import { DEFAULTS } from '../../lib/config.js';
import { CountingPusher, MemoryJobQueue, runDeliveryFleet } from '../celebrity-delivery-sim.js';
import { startMeteredDynamo } from '../dynamo.js';
import { startSeparateDynamo } from '../separate-dynamo.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import type { TableName } from '../../src/table-specs.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { percentile, round, timed, type BenchResult, type BenchSuite } from '../harness.js';
import type { UserRef } from '../../src/core/model/user.js';
import { ONLINE_SUBSCRIBER_SHARDS, onlineSubscriberShard } from '../../src/core/live/online-followers.js';

const TENANT = 'scale';
const FOLLOWED = [0, 50, 150, 500, 2_000] as const;
const POSTS_PER_CELEBRITY = 3;
/** The followed list alone is also read at this k (the issue: cheap at k = 5,000). */
const LIST_ONLY_FOLLOWED = 5_000;
const SAMPLES = 9;
/** Samples of the current design's reads (cheap; a p50 of 9 moves with one GC pause). */
const CURRENT_SAMPLES = 25;
/** Interleaved (k = 0, k = K) pairs behind each ratio. */
const RATIO_PAIRS = 41;
const ONLINE = (process.env.BENCH_ONLINE ?? '1000,10000,100000').split(',').map(Number);
/** Simulated PostToConnection latency of the counting pusher. */
const PUSH_LATENCY_MS = 10;
/** What a push costs on AWS for the paper figures: PostToConnection ~20 ms + ledger PutItem ~5 ms. */
const AWS_PUSH_MS = 25;
const PUSHES_IN_FLIGHT = 16;
const API_GATEWAY_ACCOUNT_RPS = 10_000;
const DELIVERY_BATCH_SIZE = 10;

/**
 * The designs' counts agree. `newestId` only where the count is not capped: a capped count stops
 * reading at the cap, so which unread ids it read depends on the order a design reads feeds in (the
 * log and the heads read newest first; the every-feed baseline in followed order, so its newest is
 * at most theirs).
 */
function assertSameCounts(k: number, fast: Counts, reference: Counts): void {
  const numbers = (counts: Counts) => JSON.stringify([counts.unread, counts.unseen, counts.capped]);
  const same = numbers(fast) === numbers(reference) && (fast.capped ? (fast.newestId ?? '') >= (reference.newestId ?? '') : fast.newestId === reference.newestId);
  if (!same) throw new Error(`k=${k}: counts differ between designs: ${JSON.stringify(fast)} against the every-feed baseline's ${JSON.stringify(reference)}`);
}

function post(celebrityId: string, index: number, timeMs: number): StoredNotification {
  return {
    id: notificationId({ tenantId: TENANT, type: 'post.published', eventId: `${celebrityId}-${index}`, recipient: `feed#${celebrityId}`, timeMs }),
    type: 'post.published',
    createdAt: new Date(timeMs).toISOString(),
    actor: { id: celebrityId },
    title: `${celebrityId} published a post`,
    body: 'a post of a realistic length, about one line of text',
    data: { postId: `${celebrityId}-${index}` },
    expiresAt: Math.floor(timeMs / 1000) + 90 * 86_400,
  };
}

async function samples<T>(meter: RequestMeter, count: number, work: () => Promise<T>): Promise<{ ms: number; totals: MeterTotals }[]> {
  const taken: { ms: number; totals: MeterTotals }[] = [];
  for (let i = 0; i < count; i += 1) {
    meter.reset();
    const { ms } = await timed(work);
    taken.push({ ms, totals: meter.snapshot() });
  }
  return taken;
}

/** The current design's counts: one id Query per source (own + every followed feed) in parallel. */
async function countsEveryFeed(inbox: InboxRepository, graph: GraphRepository, readState: ReadStateRepository, user: UserRef): Promise<unknown> {
  const nowMs = Date.now();
  const [state, celebrities] = await Promise.all([readState.readAboveMark(user), graph.listFollowedCelebrities(user)]);
  const limit = COUNT_CAP + 1 + state.exceptions.size;
  const readMark = state.readMark ?? undefined;
  const shard = readerShard(user.userId, DEFAULT_FEED_SHARDS);
  const sources: { source: InboxSource; floor?: string }[] = [
    { source: { kind: 'own', ...user } },
    ...celebrities.map((celebrity) => ({ source: { kind: 'feed' as const, tenantId: user.tenantId, actorId: celebrity.celebrityId, shard }, floor: idLowerBoundAt(celebrity.followedAtMs) })),
  ];
  // At most 100 queries in flight: 2,000 at once reset the connection to dynalite on a loaded machine.
  const lists = await mapBounded(sources, 100, ({ source, floor }) => inbox.listIdsAbove(source, { after: floor !== undefined && (readMark === undefined || floor > readMark) ? floor : readMark }, limit, nowMs));
  return countFromIds(new Set(lists.flat().map((key) => key.id)), state);
}

/**
 * The bench tenant: every celebrity with its posts over the last hour as the fan-out writes them (feed
 * shards, celebrity posts log shards, count index, heads on the profiles), each reader with 50 own notifications
 * following the first k celebrities (edges and pack, as a follow writes them, 2 hours ago).
 */
async function seedTenant(client: DynamoDBDocumentClient, tables: Record<TableName, string>, readers: readonly { reader: UserRef; k: number }[], celebrities: readonly string[]): Promise<{ followedAt: string }> {
  const inbox = new InboxRepository(client, tables.inbox);
  const celebrityLog = new DynamoCelebrityPostsLog(client, tables.inbox);
  const shards = new Set(readers.map(({ reader }) => readerShard(reader.userId, DEFAULT_FEED_SHARDS)));
  const now = Date.now();
  const writes: InboxItemToWrite[] = [];
  const profiles: Record<string, unknown>[] = [];
  celebrities.forEach((celebrityId, c) => {
    const posts = Array.from({ length: POSTS_PER_CELEBRITY }, (_, i) => post(celebrityId, i, now - 3_600_000 + ((c * 7_919 + i * 104_729) % 3_500_000)));
    for (const item of posts) {
      for (const shard of shards) writes.push({ source: { kind: 'feed', tenantId: TENANT, actorId: celebrityId, shard }, item }, { source: { kind: 'celebrityPosts', tenantId: TENANT, shard, authorId: celebrityId }, item });
    }
    const newest = posts.map((item) => item.id).sort().at(-1)!;
    profiles.push({ ...keys.profile(TENANT, celebrityId), tier: 'celebrity', followerCount: 10_000, newestFeedId: newest });
  });
  await inbox.writeInboxItems(writes);
  // The count index, as the fan-out writes it after the log items.
  await celebrityLog.indexPosts(writes.flatMap(({ source, item }) => (source.kind === 'celebrityPosts' ? [{ tenantId: TENANT, shard: source.shard, authorId: source.authorId, id: item.id, type: item.type, expiresAt: item.expiresAt }] : [])));
  await batchPutAll(client, tables.graph, profiles);
  const followedAt = new Date(now - 7_200_000).toISOString();
  const followGraph = new FollowGraphRepository(client, tables.graph);
  for (const { reader, k } of readers) {
    const own = Array.from({ length: 50 }, (_, i) => ({ ...post('own', i, now - 3_600_000 + i * 60_000), id: notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `own-${i}`, recipient: reader.userId, timeMs: now - 3_600_000 + i * 60_000 }) }));
    await inbox.writeInboxItems(own.map((item) => ({ source: { kind: 'own', ...reader }, item })));
    // The edges and their pack, as a follow writes them.
    await followGraph.putFollowedCelebrities(celebrities.slice(0, k).map((celebrityId) => ({ ...reader, celebrityId, followedAt })));
  }
  return { followedAt };
}

/** Median of interleaved (k = 0, k = K) pairs of page and counts times, so both sides share the machine's load. */
async function interleavedRatios(service: InboxReadService, reader0: UserRef, readerK: UserRef, pairs: number): Promise<{ page: number; counts: number }> {
  const pageRatios: number[] = [];
  const countRatios: number[] = [];
  for (let i = 0; i < pairs; i += 1) {
    const page0 = await timed(() => service.listPage(reader0, { limit: 20 }));
    const pageK = await timed(() => service.listPage(readerK, { limit: 20 }));
    const counts0 = await timed(() => service.counts(reader0));
    const countsK = await timed(() => service.counts(readerK));
    pageRatios.push(pageK.ms / page0.ms);
    countRatios.push(countsK.ms / counts0.ms);
  }
  return { page: round(percentile(pageRatios, 50)), counts: round(percentile(countRatios, 50)) };
}

/**
 * The k = 0 / k = 500 ratios with dynalite in a child process: DynamoDB's work off the caller's CPU,
 * as on AWS, so a read's parallel requests overlap instead of queuing on one thread.
 */
async function childProcessRatios(): Promise<BenchResult[]> {
  const dynamo = await startSeparateDynamo();
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const tables = dynamo.tableNames;
    const reader0: UserRef = { tenantId: TENANT, userId: 'reader-k0' };
    const reader500: UserRef = { tenantId: TENANT, userId: 'reader-k500' };
    await seedTenant(client, tables, [{ reader: reader0, k: 0 }, { reader: reader500, k: 500 }], Array.from({ length: Math.max(...FOLLOWED) }, (_, c) => `celeb-${c}`));
    const service = new InboxReadService({
      inbox: new InboxRepository(client, tables.inbox),
      celebrities: new GraphRepository(client, tables.graph),
      readState: new ReadStateRepository(client, tables.readMarks),
      clock: systemClock,
      cursorSecret: 'bench',
      feedShards: DEFAULT_FEED_SHARDS,
      inboxTtlDays: 90,
      feedHeads: new GraphRepository(client, tables.graph),
      celebrityPosts: new DynamoCelebrityPostsLog(client, tables.inbox),
    });
    for (let i = 0; i < 3; i += 1) await interleavedRatios(service, reader0, reader500, 1);
    const ratios = await interleavedRatios(service, reader0, reader500, RATIO_PAIRS);
    return [
      { name: 'inboxPage.p50Ratio.childProcess.k500', value: ratios.page, unit: 'x', note: `dynalite in a child process; median of ${RATIO_PAIRS} interleaved pairs` },
      { name: 'counts.p50Ratio.childProcess.k500', value: ratios.counts, unit: 'x', note: `dynalite in a child process; median of ${RATIO_PAIRS} interleaved pairs` },
    ];
  } finally {
    client.destroy();
    await dynamo.close();
  }
}

export const suite: BenchSuite = {
  id: 'read-scale',
  title: 'Read cost independent of followed celebrities; celebrity live delivery in bounded jobs',
  method: `
In-process dynalite (a child-process dynalite resets the connection under the current design's
2,000 parallel queries), the production
repositories, \`InboxReadService\` and \`LiveDelivery\`, the \`RequestMeter\` counting every DynamoDB request.

- \`inboxPage.*.kK\` / \`counts.*.kK\`: a user with 50 own notifications following K of the tenant's
  ${Math.max(...FOLLOWED)} celebrities, each with ${POSTS_PER_CELEBRITY} posts over the last hour (followed 2 hours ago), as the fan-out
  writes them: feed shards, celebrity posts log shards and their count index slots, feed heads on
  the profiles (newest id only, so the heads path queries the contributing feeds); the followed list
  as a follow writes it (edges and the pack). A page of 20 and the counts (capped at 99),
  ${CURRENT_SAMPLES} samples each (${SAMPLES} for the previous designs), median time; \`*.ms.first.kK\` is the reader's first read (no data is cached
  between reads; only the first page request's size follows the followed share the reader's last page
  scan saw, so a first read reads the budget's 100 log items, and a later page sends that request with
  its first round). Above ${CELEBRITY_LOG_MIN_FOLLOWED} follows the read scans the
  reader's shard of the celebrity posts log (K = 150 is the sparse case: 7.5% of the log is followed);
  at or below, the feed heads. \`inboxPageHeads.*\` / \`countsHeads.*\`: feed heads at every K (the
  previous design); \`inboxPageEveryFeed.*\` / \`countsEveryFeed.*\`: one Query per followed feed
  (the first design), same data, same run. Target: requests <= 4 + ceil(K/100) + feeds that
  contribute; p50 at K = 500 <= 2x p50 at K = 0 (\`*.p50Ratio.k500\`: median of interleaved
  k = 0 / k = 500 pairs; \`*.p50Ratio.k2000\` the same for K = 2,000; \`*.p50Ratio.childProcess.k500\`
  the same pairs on a second dynalite in a child process, seeded alike: DynamoDB's work off the
  bench's thread, as on AWS, so a read's parallel requests overlap).
- \`followedList.*.kK\`: the followed list alone (the pack, one Query) beside \`followedListEdges.*\`
  (the edges Query the reads used before), K up to ${LIST_ONLY_FOLLOWED}.
- \`celebrityLive.*.nN\`: a celebrity with N online subscribers (subscription items as $connect
  writes them, ${ONLINE_SUBSCRIBER_SHARDS} shards), one post: the root job is split per shard, each job pushes one page of at
  most ${CONNECTIONS_PER_JOB} connections and enqueues the next page first. A simulated fleet of
  \`deliveryMaxConcurrency\` = ${DEFAULTS.deliveryMaxConcurrency} consumers takes batches of ${DELIVERY_BATCH_SIZE}; a counting pusher
  with ${PUSH_LATENCY_MS} ms latency stands in for API Gateway, the ledger and queries run on dynalite.
- \`celebrityLive.paper.*\`: N = 1,000,000 and 10,000,000 on AWS from the measured requests per push,
  assuming ${AWS_PUSH_MS} ms per push (PostToConnection + ledger PutItem), ${PUSHES_IN_FLIGHT} pushes in flight per invocation,
  and the 10,000 requests/s account limit of API Gateway.
`,
  async run() {
    const { dynamo, client, meter } = await startMeteredDynamo();
    const tables = dynamo.tableNames;
    const inbox = new InboxRepository(client, tables.inbox);
    const graph = new GraphRepository(client, tables.graph);
    const readState = new ReadStateRepository(client, tables.readMarks);
    const common = { inbox, celebrities: graph, readState, clock: systemClock, cursorSecret: 'bench', feedShards: DEFAULT_FEED_SHARDS, inboxTtlDays: 90 };
    const celebrityLog = new DynamoCelebrityPostsLog(client, tables.inbox);
    const withLog = new InboxReadService({ ...common, feedHeads: graph, celebrityPosts: celebrityLog });
    const withHeads = new InboxReadService({ ...common, feedHeads: graph });
    const everyFeed = new InboxReadService(common);
    const results: BenchResult[] = [];
    try {
      // Prepare: celebrities' posts on the shards the readers read, heads on the profiles.
      const readers = FOLLOWED.map((k): UserRef => ({ tenantId: TENANT, userId: `reader-k${k}` }));
      const celebrities = Array.from({ length: Math.max(...FOLLOWED) }, (_, c) => `celeb-${c}`);
      const { followedAt } = await seedTenant(client, tables, FOLLOWED.map((k, index) => ({ reader: readers[index]!, k })), celebrities);
      const followGraph = new FollowGraphRepository(client, tables.graph);

      // Act / Assess: both designs, same data, interleaved per k.
      const p50 = new Map<string, number>();
      for (const [index, k] of FOLLOWED.entries()) {
        const reader = readers[index]!;
        const first = { page: await timed(() => withLog.listPage(reader, { limit: 20 })), counts: await timed(() => withLog.counts(reader)) };
        const fastPage = first.page.result;
        const referencePage = await everyFeed.listPage(reader, { limit: 20 });
        if (JSON.stringify(fastPage) !== JSON.stringify(referencePage)) throw new Error(`k=${k}: pages differ between designs`);
        assertSameCounts(k, first.counts.result, await everyFeed.counts(reader));
        results.push(
          { name: `inboxPage.ms.first.k${k}`, value: round(first.page.ms), unit: 'ms', note: "the reader's first page" },
          { name: `counts.ms.first.k${k}`, value: round(first.counts.ms), unit: 'ms', note: "the reader's first counts" },
        );
        const contributing = new Set(fastPage.items.filter((item) => item.actor.id !== 'own').map((item) => item.actor.id)).size;
        const budget = 4 + Math.ceil(k / 100) + contributing;
        const designs = [
          { name: '', page: () => withLog.listPage(reader, { limit: 20 }), counts: () => withLog.counts(reader) },
          { name: 'Heads', page: () => withHeads.listPage(reader, { limit: 20 }), counts: () => withHeads.counts(reader) },
          { name: 'EveryFeed', page: () => everyFeed.listPage(reader, { limit: 20 }), counts: () => countsEveryFeed(inbox, graph, readState, reader) },
        ];
        for (const { name, page, counts: countsOf } of designs) {
          await page();
          const taken = name === '' ? CURRENT_SAMPLES : SAMPLES;
          const pages = await samples(meter, taken, page);
          const counts = await samples(meter, taken, countsOf);
          const pageMs = round(percentile(pages.map((sample) => sample.ms), 50));
          p50.set(`${name}page${k}`, pageMs);
          p50.set(`${name}counts${k}`, round(percentile(counts.map((sample) => sample.ms), 50)));
          const target = name === '' ? `target <= ${budget} (4 + ceil(k/100) + ${contributing} contributing feeds)` : name === 'Heads' ? 'feed heads: 3 + ceil(k/100) + contributing feeds' : 'first design: 3 + k';
          results.push(
            { name: `inboxPage${name}.requests.k${k}`, value: Math.max(...pages.map((sample) => sample.totals.requests)), unit: 'requests', note: target },
            { name: `inboxPage${name}.ms.p50.k${k}`, value: pageMs, unit: 'ms', note: `p50 of ${taken}, page of 20` },
            { name: `counts${name}.requests.k${k}`, value: Math.max(...counts.map((sample) => sample.totals.requests)), unit: 'requests', note: name === '' ? (k > CELEBRITY_LOG_MIN_FOLLOWED ? 'count index slots above the read mark, stopping at the cap' : 'feeds above the read mark, stopping at the cap') : name === 'Heads' ? 'feeds above the read mark, stopping at the cap' : 'first design: 2 + k' },
            { name: `counts${name}.ms.p50.k${k}`, value: p50.get(`${name}counts${k}`)!, unit: 'ms', note: `p50 of ${taken}` },
          );
        }
      }
      // The ratios from interleaved pairs (k = 0, then k = K), so both sides share the machine's load.
      const reader0 = readers[0]!;
      for (const k of [500, 2_000]) {
        const readerK = readers[FOLLOWED.indexOf(k as (typeof FOLLOWED)[number])]!;
        const ratios = await interleavedRatios(withLog, reader0, readerK, RATIO_PAIRS);
        results.push(
          { name: `inboxPage.p50Ratio.k${k}`, value: ratios.page, unit: 'x', note: `median of ${RATIO_PAIRS} interleaved pairs k = ${k} / k = 0; target <= 2 at k = 500` },
          { name: `counts.p50Ratio.k${k}`, value: ratios.counts, unit: 'x', note: `median of ${RATIO_PAIRS} interleaved pairs; target <= 2 at k = 500` },
        );
      }

      // The followed list alone: the pack (one Query of 8 items) beside the edges (one item per follow), k up to 5,000.
      for (const k of [...FOLLOWED.filter((followed) => followed !== 150), LIST_ONLY_FOLLOWED]) {
        const reader: UserRef = k === LIST_ONLY_FOLLOWED ? { tenantId: TENANT, userId: `list-k${k}` } : readers[FOLLOWED.indexOf(k as (typeof FOLLOWED)[number])]!;
        if (k === LIST_ONLY_FOLLOWED) {
          const many = Array.from({ length: k }, (_, c) => ({ ...reader, celebrityId: `list-celeb-${c}`, followedAt }));
          await followGraph.putFollowedCelebrities(many);
        }
        const edges = async () => {
          const items: unknown[] = [];
          for await (const page of queryPages(client, { TableName: tables.graph, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.followingCelebsPartition(TENANT, reader.userId) }, ProjectionExpression: 'sk, followedAt' })) items.push(...page);
          return items;
        };
        for (const [name, read] of [['followedList', () => graph.listFollowedCelebrities(reader)], ['followedListEdges', edges]] as const) {
          await read();
          const taken = await samples(meter, SAMPLES, read);
          results.push(
            { name: `${name}.requests.k${k}`, value: Math.max(...taken.map((sample) => sample.totals.requests)), unit: 'requests', note: name === 'followedList' ? 'the pack: one Query of <= 8 items' : 'baseline: the edges, one item per follow' },
            { name: `${name}.ms.p50.k${k}`, value: round(percentile(taken.map((sample) => sample.ms), 50)), unit: 'ms', note: `p50 of ${SAMPLES}` },
          );
        }
      }

      // Celebrity live delivery.
      const directory = new ConnectionRepository(client, tables.connections);
      const ledger = new DynamoDeliveryLedger(client, tables.idempotency);
      let requestsPerPush = 0;
      for (const n of ONLINE) {
        const actorId = `star-n${n}`;
        const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
        await batchPutAll(
          client,
          tables.connections,
          Array.from({ length: n }, (_, i) => {
            const connectionId = `${actorId}-c${i}`;
            return { ...keys.onlineSubscription(TENANT, actorId, onlineSubscriberShard(connectionId), connectionId), userId: `fan-${i}`, expiresAt };
          }),
          { parallelism: 16 },
        );
        const queue = new MemoryJobQueue();
        const pusher = new CountingPusher(PUSH_LATENCY_MS);
        const delivery = new LiveDelivery({ directory, ledger, pusher, isDigestible: () => false, parallelism: PUSHES_IN_FLIGHT, celebrityJobs: { subscribers: directory, steps: ledger, queue } });
        const root: DeliveryJob = {
          v: 1,
          tenantId: TENANT,
          eventId: `post-${n}`,
          priority: 'urgent',
          notification: { type: 'post.published', createdAt: new Date().toISOString(), actor: { id: actorId }, title: 'a post', body: 'hello', data: {} },
          target: { kind: 'onlineFollowers', actorId, notificationId: notificationId({ tenantId: TENANT, type: 'post.published', eventId: `post-${n}`, recipient: `feed#${actorId}`, timeMs: Date.now() }) },
        };
        await queue.enqueue([root]);
        meter.reset();
        const run = await runDeliveryFleet(delivery, queue, { concurrency: DEFAULTS.deliveryMaxConcurrency, batchSize: DELIVERY_BATCH_SIZE });
        const totals = meter.snapshot();
        if (pusher.pushes.size !== n || pusher.total !== n) throw new Error(`n=${n}: ${pusher.total} pushes to ${pusher.pushes.size} connections`);
        requestsPerPush = totals.requests / n;
        results.push(
          { name: `celebrityLive.jobs.n${n}`, value: queue.enqueued, unit: 'jobs', note: `root + ${ONLINE_SUBSCRIBER_SHARDS} shard jobs + next-page jobs + put-backs; ${run.invocations} invocations` },
          { name: `celebrityLive.maxConnectionsPerInvocation.n${n}`, value: run.maxConnectionsPerInvocation, unit: 'connections', note: `target <= ${CONNECTIONS_PER_JOB}` },
          { name: `celebrityLive.dynamoRequestsPerPush.n${n}`, value: round(requestsPerPush, 3), unit: 'requests', note: 'ledger PutItem per push + per page a Query and a step claim' },
          { name: `celebrityLive.wallMs.n${n}`, value: Math.round(run.wallMs), unit: 'ms', note: `${DEFAULTS.deliveryMaxConcurrency} consumers, ${PUSH_LATENCY_MS} ms simulated push, dynalite` },
        );
      }
      // Paper figures on AWS.
      const perInvocationRate = PUSHES_IN_FLIGHT / (AWS_PUSH_MS / 1000);
      const defaultRate = Math.min(API_GATEWAY_ACCOUNT_RPS, DEFAULTS.deliveryMaxConcurrency * perInvocationRate);
      const jobSeconds = CONNECTIONS_PER_JOB / perInvocationRate;
      results.push(
        { name: 'celebrityLive.paper.pushesPerSecond.default', value: Math.round(defaultRate), unit: 'pushes/s', note: `${DEFAULTS.deliveryMaxConcurrency} invocations x ${PUSHES_IN_FLIGHT} in flight / ${AWS_PUSH_MS} ms` },
        { name: 'celebrityLive.paper.jobSeconds', value: round(jobSeconds), unit: 's', note: `one job of ${CONNECTIONS_PER_JOB} connections; consumer timeout 30 s` },
      );
      for (const n of [1_000_000, 10_000_000]) {
        results.push(
          { name: `celebrityLive.paper.jobs.n${n}`, value: 1 + ONLINE_SUBSCRIBER_SHARDS + Math.ceil(n / CONNECTIONS_PER_JOB), unit: 'jobs', note: 'before put-backs' },
          { name: `celebrityLive.paper.dynamoRequests.n${n}`, value: Math.round(requestsPerPush * n), unit: 'requests', note: 'measured requests per push x N' },
          { name: `celebrityLive.paper.minutes.default.n${n}`, value: round(n / defaultRate / 60, 1), unit: 'min', note: `at the default concurrency (${Math.round(defaultRate)} pushes/s)` },
          { name: `celebrityLive.paper.minutes.accountLimit.n${n}`, value: round(n / API_GATEWAY_ACCOUNT_RPS / 60, 1), unit: 'min', note: 'floor: all 10,000 requests/s of the account' },
        );
      }
    } finally {
      client.destroy();
      await dynamo.close();
    }
    results.push(...(await childProcessRatios()));
    return results;
  },
};

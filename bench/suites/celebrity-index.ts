/**
 * The celebrity posts count index under a stream of celebrity posts in one tenant: each post is one
 * UpdateItem per reader shard on that shard's 10-second slot item, which grows with every post of the
 * slot and is billed by its size. Measures the exact WCU of each post's update as its slot fills
 * (RequestMeter, capacity as dynalite reports it: DynamoDB's formula) and derives, per write
 * partition, the sustained posts per second at which each partition of the celebrity write path
 * reaches DynamoDB's 1,000 WCU/s per-partition limit: what throttles first, and at what rate.
 */
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { INDEX_SLOT_MS } from '../../src/core/model/celebrity-posts-index.js';
import { DEFAULT_FEED_SHARDS } from '../../src/core/model/feed-shards.js';
import { notificationId } from '../../src/core/model/ids.js';
import { keys } from '../../src/core/model/keys.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { percentile, round, type BenchResult, type BenchSuite } from '../harness.js';
import { startMeteredDynamo } from '../dynamo.js';

const TENANT = 'bench';
/** Posts written into one slot: a slot of 10 s at 300 posts/s. */
const POSTS_IN_SLOT = 3_000;
/** DynamoDB's write limit of one partition. */
const PARTITION_WCU_PER_SECOND = 1_000;
const SLOT_SECONDS = INDEX_SLOT_MS / 1000;
const AUTHORS = 200;

/** The slot's WCU for a sustained `rate` posts/s: the first rate * SLOT_SECONDS updates of the measured curve. */
function slotWcu(wcuByPost: readonly number[], rate: number): number {
  const posts = Math.round(rate * SLOT_SECONDS);
  let sum = 0;
  for (let n = 0; n < posts; n += 1) sum += wcuByPost[Math.min(n, wcuByPost.length - 1)]!;
  return sum;
}

/** The highest whole rate whose per-second WCU on one index shard partition stays within the partition limit. */
function indexCeiling(wcuByPost: readonly number[]): number {
  let rate = 1;
  while (rate * SLOT_SECONDS < wcuByPost.length && slotWcu(wcuByPost, rate + 1) / SLOT_SECONDS <= PARTITION_WCU_PER_SECOND) rate += 1;
  return rate;
}

export const suite: BenchSuite = {
  id: 'celebrity-index',
  title: 'Celebrity posts per second in one tenant: what throttles first',
  method: `
dynalite in process, the production \`DynamoCelebrityPostsLog\` (\`src/adapters/dynamo/celebrity-posts-log.ts\`).
${POSTS_IN_SLOT.toLocaleString('en-US')} celebrity posts by ${AUTHORS} authors land in ONE ${SLOT_SECONDS}-second slot of one
tenant; each post's count-index update (\`indexPosts\`, one UpdateItem per reader shard; one shard measured,
the ${DEFAULT_FEED_SHARDS} shards are alike) is metered alone (RequestMeter: WCU as DynamoDB bills an UpdateItem,
by the larger of the item's size before and after, per started KB). A post's log item (the feed item copied
into each log shard) is metered the same way. From these exact WCU the suite derives, for a sustained rate
of r posts/s in the tenant, the WCU per second on each write partition of a celebrity post: an index shard
partition takes every post's update of its slot (the n-th update of a slot costs its slot's size), a log
shard partition takes every post's log item, a feed shard partition only its author's posts. The ceiling is
the rate at which the first of them reaches DynamoDB's ${PARTITION_WCU_PER_SECOND} WCU/s per partition (adaptive capacity
may split a hot partition, not a hot item). Times are dynalite's, to compare, not AWS latencies.
`,
  async run(): Promise<BenchResult[]> {
    const { dynamo, client, meter } = await startMeteredDynamo();
    try {
      const log = new DynamoCelebrityPostsLog(client, dynamo.tableNames.inbox);
      const slotStartMs = Math.floor(Date.now() / INDEX_SLOT_MS) * INDEX_SLOT_MS;
      const expiresAt = Math.floor(slotStartMs / 1000) + 90 * 86_400;
      const wcuByPost: number[] = [];
      const msByPost: number[] = [];
      for (let n = 0; n < POSTS_IN_SLOT; n += 1) {
        const authorId = `celebrity${n % AUTHORS}`;
        // Ids of one slot, in arrival order (the time part spread over the slot's 10 s).
        const timeMs = slotStartMs + Math.floor((n * INDEX_SLOT_MS) / POSTS_IN_SLOT);
        const id = notificationId({ tenantId: TENANT, type: 'post.published', eventId: `post-${n}`, recipient: `feed:${authorId}`, timeMs });
        meter.reset();
        const started = performance.now();
        await log.indexPosts([{ tenantId: TENANT, shard: 0, authorId, id, type: 'post.published', expiresAt }]);
        msByPost.push(performance.now() - started);
        wcuByPost.push(meter.snapshot().writeCapacityUnits);
      }
      // One post's log item (what each log shard partition takes per post of the tenant).
      meter.reset();
      const logKey = { pk: keys.celebrityPostsPartition(TENANT, 0), sk: notificationId({ tenantId: TENANT, type: 'post.published', eventId: 'log-probe', recipient: 'feed:celebrity0', timeMs: slotStartMs }) };
      await client.send(new PutCommand({ TableName: dynamo.tableNames.inbox, Item: { ...logKey, authorId: 'celebrity0', type: 'post.published', createdAt: new Date(slotStartMs).toISOString(), actor: { id: 'celebrity0', name: 'Celebrity 0' }, title: 'celebrity0 published a post', body: 'A post title of a usual length for the bench', data: { postId: 'p-1', title: 'A post title of a usual length for the bench' }, expiresAt } }));
      const logItemWcu = meter.snapshot().writeCapacityUnits;

      const ceiling = indexCeiling(wcuByPost);
      const logCeiling = Math.floor(PARTITION_WCU_PER_SECOND / Math.max(1, logItemWcu));
      const at = (rate: number) => round(slotWcu(wcuByPost, rate) / SLOT_SECONDS, 0);
      const wcuAt = (posts: number) => wcuByPost[Math.min(posts, wcuByPost.length) - 1]!;
      const first = ceiling <= logCeiling ? `the count index shard partitions (every post's update of the slot item, billed by its size), at ${ceiling} posts/s` : `the log shard partitions, at ${logCeiling} posts/s`;
      return [
        { name: 'celebrityIndex.wcuPerUpdate.post100', value: wcuAt(100), unit: 'WCU', note: 'the 100th post of a slot: one shard\'s UpdateItem' },
        { name: 'celebrityIndex.wcuPerUpdate.post1000', value: wcuAt(1_000), unit: 'WCU', note: 'the 1,000th post of a slot' },
        { name: 'celebrityIndex.wcuPerUpdate.post3000', value: wcuAt(POSTS_IN_SLOT), unit: 'WCU', note: `the ${POSTS_IN_SLOT.toLocaleString('en-US')}th post of a slot (${POSTS_IN_SLOT / SLOT_SECONDS} posts/s)` },
        { name: 'celebrityIndex.partitionWcuPerSecond.r10', value: at(10), unit: 'WCU/s', note: 'one index shard partition at 10 posts/s in the tenant' },
        { name: 'celebrityIndex.partitionWcuPerSecond.r50', value: at(50), unit: 'WCU/s', note: 'at 50 posts/s' },
        { name: 'celebrityIndex.partitionWcuPerSecond.r100', value: at(100), unit: 'WCU/s', note: 'at 100 posts/s' },
        { name: 'celebrityIndex.ceiling.postsPerSecond', value: Math.min(ceiling, logCeiling), unit: 'posts/s', note: `per tenant; throttles first: ${first}` },
        { name: 'celebrityIndex.logItem.wcu', value: logItemWcu, unit: 'WCU', note: `a post's log item per log shard: that partition reaches ${PARTITION_WCU_PER_SECOND} WCU/s at ${logCeiling} posts/s` },
        { name: 'celebrityIndex.updateMs.p50.first100', value: round(percentile(msByPost.slice(0, 100), 50)), unit: 'ms', note: 'dynalite, one update, slot nearly empty' },
        { name: 'celebrityIndex.updateMs.p50.last100', value: round(percentile(msByPost.slice(-100), 50)), unit: 'ms', note: `dynalite, one update, slot of ~${POSTS_IN_SLOT.toLocaleString('en-US')} posts` },
      ];
    } finally {
      client.destroy();
      await dynamo.close();
    }
  },
};

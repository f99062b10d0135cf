/**
 * Erasing a user (issue 27): the same user, with the same footprint written through the real fan-out,
 * erased in tables holding 0, 20,000 and 200,000 items of other users. Proportional to the footprint
 * means the requests and the items read stay the same whatever the table holds.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { batchPutAll, type Item } from '../../src/adapters/dynamo/batch.js';
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { ChannelRepository } from '../../src/adapters/dynamo/channel-repository.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import { DynamoTraceRepository } from '../../src/adapters/dynamo/trace-repository.js';
import { RequestMeter } from '../../src/adapters/dynamo/request-meter.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { validateEventBridgeBody } from '../../src/core/fanout/events.js';
import { FanOutService } from '../../src/core/fanout/fanout-service.js';
import type { DeliveryJob } from '../../src/core/jobs/delivery-job.js';
import { notificationId } from '../../src/core/model/ids.js';
import { AUTHOR_INDEX, keys, OWNER_INDEX, ownerIndexValue } from '../../src/core/model/keys.js';
import { totalRemoved } from '../../src/core/privacy/erasure.js';
import { ensureTables, LOCAL_CREDENTIALS, LOCAL_REGION, localTableNames, startEmbeddedDynamo, type EmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { findNotificationType } from '../../src/notifications/index.js';
import type { TableName } from '../../src/table-specs.js';
import { timed, type BenchResult, type BenchSuite } from '../harness.js';

const TENANT = 'bench';
const ERASED = 'erin';
const FOLLOWERS = 100;
const FOLLOWING = 20;
const POSTS = 10;
const MENTIONS_RECEIVED = 200;
const MENTIONS_SENT = 50;
const OTHER_SIZES = [0, 20_000, 200_000];

/** The erased user's footprint, through the real fan-out: follows both ways, posts to their followers, mentions both ways, devices. */
async function seedFootprint(client: DynamoDBDocumentClient, tables: Record<TableName, string>): Promise<void> {
  const noWait = { sleep: async () => undefined };
  const service = new FanOutService({
    graph: new FollowGraphRepository(client, tables.graph, noWait),
    inbox: new InboxRepository(client, tables.inbox, noWait),
    arrivals: new DynamoArrivalLedger(client, tables.idempotency),
    recentPosts: new DynamoRecentPostsLog(client, tables.inbox),
    celebrityPostsIndex: new DynamoCelebrityPostsLog(client, tables.inbox),
    deliveryQueue: { enqueue: async (_jobs: readonly DeliveryJob[]) => undefined },
    promotionQueue: { enqueue: async () => undefined },
    // Above the follower count: the user stays an ordinary account, so each post is copied into every follower's inbox.
    settings: { celebrityThreshold: 10_000, feedShards: 4, inboxTtlDays: 90 },
    trace: new DynamoTraceRepository(client, { idempotencyTable: tables.idempotency, inboxTable: tables.inbox }),
  });
  let sequence = 0;
  const publish = async (type: string, envelope: Record<string, unknown>) => {
    sequence += 1;
    const body = JSON.stringify({ id: `b${sequence}`, 'detail-type': type, source: 'bench', time: new Date().toISOString(), detail: { id: `e${sequence}`, tenantId: TENANT, ...envelope } });
    const { event, type: notificationType } = validateEventBridgeBody(body, findNotificationType);
    await service.process(event, notificationType);
  };
  for (let index = 0; index < FOLLOWERS; index += 1) await publish('follow.created', { actor: { id: `f-${index}` }, data: { followeeId: ERASED } });
  for (let index = 0; index < FOLLOWING; index += 1) await publish('follow.created', { actor: { id: ERASED }, data: { followeeId: `g-${index}` } });
  for (let index = 0; index < POSTS; index += 1) await publish('post.published', { actor: { id: ERASED, name: 'Erin' }, data: { postId: `p-${index}`, title: 'A post' } });
  for (let index = 0; index < MENTIONS_RECEIVED; index += 1) await publish('mention.created', { actor: { id: `m-${index % 40}` }, recipients: [ERASED], data: { postId: `q-${index}`, excerpt: 'hi' } });
  for (let index = 0; index < MENTIONS_SENT; index += 1) await publish('mention.created', { actor: { id: ERASED }, recipients: [`r-${index}`], data: { postId: `s-${index}`, excerpt: 'hi' } });
  const channels = new ChannelRepository(client, tables.graph);
  for (let index = 0; index < 2; index += 1) {
    await channels.putDevice({ tenantId: TENANT, userId: ERASED }, { id: `d_${String(index).padStart(22, '0')}`, platform: 'fcm', token: `token-${index}`, endpointArn: `arn:aws:sns:us-east-1:1:endpoint/GCM/app/${index}`, createdAt: 'x', updatedAt: 'x' }, 20);
  }
  await channels.putEmailAddress({ tenantId: TENANT, userId: ERASED }, 'erin@example.com');
}

/** Other users' items of every table the erasure reads: inboxes (some in the author index), follow edges and lists, owner-index records. */
async function seedOthers(client: DynamoDBDocumentClient, tables: Record<TableName, string>, count: number): Promise<void> {
  const baseMs = Date.now() - 3_600_000;
  const inbox: Item[] = [];
  const graph: Item[] = [];
  const idempotency: Item[] = [];
  for (let index = 0; index < count; index += 1) {
    const owner = `o-${index % 5_000}`;
    const other = `o-${(index * 7 + 1) % 5_000}`;
    const kind = index % 10;
    if (kind < 7) {
      inbox.push({
        ...keys.inboxItem(TENANT, owner, notificationId({ tenantId: TENANT, type: 'mention.created', eventId: `x-${index}`, recipient: owner, timeMs: baseMs + index })),
        type: 'mention.created',
        createdAt: new Date(baseMs + index).toISOString(),
        actor: { id: other },
        title: 'Someone mentioned you',
        body: 'a notification body of a realistic length, about one line of text',
        data: { postId: ERASED },
        expiresAt: Math.floor(baseMs / 1000) + 90 * 86_400,
        [AUTHOR_INDEX.attribute]: ownerIndexValue(TENANT, other),
      });
    } else if (kind === 7) graph.push({ ...keys.follower(TENANT, other, `${owner}-${index}`), followedAt: new Date(baseMs).toISOString(), counted: true });
    else if (kind === 8) graph.push({ ...keys.following(TENANT, `${owner}-${index}`, other), followedAt: new Date(baseMs).toISOString() });
    else idempotency.push({ id: keys.channelSendId(TENANT, owner, 'push', `n-${index}`), expiration: Math.floor(baseMs / 1000) + 86_400, [OWNER_INDEX.attribute]: ownerIndexValue(TENANT, owner) });
  }
  await batchPutAll(client, tables.inbox, inbox, { parallelism: 16 });
  await batchPutAll(client, tables.graph, graph, { parallelism: 16 });
  await batchPutAll(client, tables.idempotency, idempotency, { parallelism: 16 });
}

export const suite: BenchSuite = {
  id: 'erase',
  title: 'Erasing a user (requests and items read against the table size)',
  method: `
One user's footprint is written through the real fan-out on fresh dynalite tables: ${FOLLOWERS} followers,
${FOLLOWING} accounts followed, ${POSTS} posts copied into every follower's inbox, ${MENTIONS_RECEIVED} mentions received,
${MENTIONS_SENT} sent to other users, two devices and an address. The tables then get 0, 20,000 or 200,000
items of other users (70 % inbox items, each in the author index; 20 % follow edges and FOLLOWING
entries; 10 % owner-index records), and the user is erased with \`UserEraser\` (the engine of
\`npm run erase\` and of the deployed job; grace 0, default step budget). Requests, items read (GetItem
items, BatchGetItem responses, Query ScannedCount) and read capacity are counted by the SDK middleware.
The figures are the same for every table size: the erasure reads only the user's partitions, the
sparse owner and author indexes under their id and keys computed from those, never a Scan.

What writing that findability costs per event (from the write paths, not measured here): a follow or
unfollow record writes one more item first (the follower's FOLLOWING entry: +1 request, +1 WCU); a
notification in someone else's inbox that the author's recent posts log cannot find (a direct
recipient: mention, comment) and a follow's trace record carry \`authorRef\`, one keys-only index
write (+1 WCU, no request); each owner-index record (hold, rate window, channel send, trace about an
account) carries \`userRef\` (+1 WCU, no request); each one-time schedule that names users writes one
reference record per named user first (one BatchWriteItem: +1 request, +2 WCU per user with its index
write). A post to followers costs nothing more: its copies' ids are recomputed from the posts log.`,
  async run(): Promise<BenchResult[]> {
    const dynamo: EmbeddedDynamo = await startEmbeddedDynamo();
    const results: BenchResult[] = [];
    try {
      for (const others of OTHER_SIZES) {
        const tables = localTableNames(`e${randomUUID().slice(0, 6)}-`);
        await ensureTables(dynamo.endpoint, tables);
        const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
        try {
          await seedFootprint(client, tables);
          await seedOthers(client, tables, others);
          const meter = new RequestMeter();
          meter.attach(client);
          const eraser = new UserEraser({ client, tables, feedShards: 4, graceMs: 0, tombstoneTtlSeconds: 86_400, warn: () => undefined }, { tenantId: TENANT, userId: ERASED });
          const { result: report, ms } = await timed(() => eraser.run());
          const totals = meter.snapshot();
          const label = `others${others}`;
          const note = others === 0 ? `${totalRemoved(report)} items removed, ${report.followCountsLowered} counts lowered` : undefined;
          results.push(
            { name: `erase.requests.${label}`, value: totals.requests, unit: 'requests', ...(note ? { note } : {}) },
            { name: `erase.itemsRead.${label}`, value: totals.itemsRead, unit: 'items' },
            { name: `erase.readCapacityUnits.${label}`, value: Math.round(totals.readCapacityUnits * 10) / 10, unit: 'RCU' },
            { name: `erase.itemsRemoved.${label}`, value: totalRemoved(report), unit: 'items' },
            { name: `erase.ms.${label}`, value: Math.round(ms), unit: 'ms' },
          );
        } finally {
          client.destroy();
        }
      }
    } finally {
      await dynamo.close();
    }
    return results;
  },
};

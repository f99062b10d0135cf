/**
 * The erasure's phases over what names the user, each one bounded page of work from a cursor
 * (`user-eraser.ts` runs them in order and checkpoints the cursor after each): every read is a Query
 * of one of their partitions, of the sparse owner or author index under their id, or a BatchGetItem
 * of keys computed from those (`src/core/privacy/erasure-footprint.ts`). Nothing scans a table, so
 * the cost follows their footprint, not the table. Deletes of items that may not exist are read
 * first (keys only), so the report counts what was there and a second run reports 0.
 */
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { countRemoved, countUnknownKept, type ErasureReport, type ErasureSubject } from '../../core/privacy/erasure.js';
import { classifyStoredItem } from '../../core/privacy/erasure-roles.js';
import { celebrityIndexSlots, celebrityLogKeys, followerCopyKeys, scheduleOfOwnerRecord, type LoggedPostKey, type PostAudienceMember } from '../../core/privacy/erasure-footprint.js';
import { followedPackChunk } from '../../core/model/followed-pack.js';
import { FOLLOW_HISTORY_ATTRIBUTE, followHistoryOf } from '../../core/model/follow-history.js';
import { AUTHOR_INDEX, keys, OWNER_INDEX, ownerIndexValue, type TableKey } from '../../core/model/keys.js';
import { parseKey } from '../../core/model/key-parsing.js';
import { ONLINE_SUBSCRIBER_SHARDS, onlineSubscriberShard } from '../../core/live/online-followers.js';
import { forEachBounded } from '../../core/model/bounded-parallel.js';
import { tableSpecs, type TableName } from '../../table-specs.js';
import { batchGetAll, type Item } from './batch.js';
import { deleteKeys, removeOutgoingEdge, removeSharedParts, type ErasureWrites } from './erasure-writes.js';

export type Cursor = Record<string, unknown>;

/** What a phase needs: the tables and client, the subject, the report it adds to, and the ports to providers. */
export interface PhaseContext {
  writes: ErasureWrites;
  subject: ErasureSubject;
  report: ErasureReport;
  feedShards: number;
  /** DeleteEndpoint of an SNS platform endpoint (a gone one is not an error). */
  deletePushEndpoint?: (endpointArn: string) => Promise<void>;
  /** Closes a live connection (API Gateway DeleteConnection); gone connections are not an error. */
  closeConnection?: (connectionId: string) => Promise<void>;
  /** Deletes a pending one-time schedule by name; true when it existed. */
  deleteSchedule?: (name: string) => Promise<boolean> | boolean;
  /** A WARN line (a shared item of unknown kind, kept). */
  warn: (message: string, context: Record<string, unknown>) => void;
}

/** One bounded page of a phase: the work units it took and where to go on (none: the phase is done). */
export interface PhaseStep {
  units: number;
  cursor?: Cursor;
}

export const PAGE_LIMIT = 1_000;
/** Guarded updates of shared items in flight. */
const SHARED_UPDATES_IN_FLIGHT = 8;

const client = (ctx: PhaseContext): DynamoDBDocumentClient => ctx.writes.client;
const table = (ctx: PhaseContext, name: TableName): string => ctx.writes.tables[name];

/** One Query page from `cursor` (its LastEvaluatedKey), at most `limit` items. */
async function queryPage(ctx: PhaseContext, input: QueryCommandInput, cursor: Cursor | undefined, limit: number): Promise<{ items: Item[]; next?: Cursor }> {
  const output = await client(ctx).send(new QueryCommand({ ...input, Limit: Math.max(1, Math.min(PAGE_LIMIT, limit)), ...(cursor ? { ExclusiveStartKey: cursor } : {}) }));
  return { items: output.Items ?? [], ...(output.LastEvaluatedKey ? { next: output.LastEvaluatedKey } : {}) };
}

function partitionQuery(ctx: PhaseContext, name: TableName, pk: string, projection?: string[]): QueryCommandInput {
  return {
    TableName: table(ctx, name),
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'pk', ...Object.fromEntries((projection ?? []).map((attribute, index) => [`#p${index}`, attribute])) },
    ExpressionAttributeValues: { ':pk': pk },
    ...(projection ? { ProjectionExpression: ['#pk', ...projection.map((_, index) => `#p${index}`)].join(', ') } : {}),
  };
}

/** A Query of one sparse index (keys only) under `value`. */
function indexQuery(ctx: PhaseContext, name: TableName, index: { name: string; attribute: string }, value: string): QueryCommandInput {
  return { TableName: table(ctx, name), IndexName: index.name, KeyConditionExpression: '#key = :value', ExpressionAttributeNames: { '#key': index.attribute }, ExpressionAttributeValues: { ':value': value } };
}

/** Deletes those of `candidates` that exist (read first, keys only), counted under `kind`; answers the ones found. */
async function deleteExisting(ctx: PhaseContext, name: TableName, candidates: readonly TableKey[], kind: string): Promise<TableKey[]> {
  if (candidates.length === 0) return [];
  const found = (await batchGetAll(client(ctx), table(ctx, name), candidates, { keysOnly: true })).map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
  await deleteKeys(ctx.writes, name, found);
  countRemoved(ctx.report, name, kind, found.length);
  return found;
}

/** The user's parts out of shared items (classified on the item as read: never by value), a few updates in flight. */
async function removePartsOf(ctx: PhaseContext, name: TableName, items: readonly Item[]): Promise<void> {
  await forEachBounded(items, SHARED_UPDATES_IN_FLIGHT, async (item) => {
    const verdict = classifyStoredItem(name, item, ctx.subject);
    if (verdict.action === 'removeParts') countRemoved(ctx.report, name, verdict.parts.kind, await removeSharedParts(ctx.writes, name, item, verdict.parts, ctx.subject));
    else if (verdict.action === 'unknown') {
      countUnknownKept(ctx.report, name);
      const spec = tableSpecs[name];
      ctx.warn('erasure kept an item of unknown kind (never deleted on a guess): check what wrote it', { table: name, key: 'sortKey' in spec ? { pk: item.pk, sk: item.sk } : { id: item.id }, reason: verdict.reason });
    }
  });
}

/** Channels first: each device's SNS platform endpoint, then every item of their CHANNELS partition (devices, consent, address, unsubscribes). */
export async function eraseChannels(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.channelStatePartition(tenantId, userId)), cursor, budget);
  for (const item of page.items) {
    if (String(item.sk).startsWith('DEVICE#') && typeof item.endpointArn === 'string' && ctx.deletePushEndpoint) {
      await ctx.deletePushEndpoint(item.endpointArn);
      ctx.report.pushEndpointsDeleted = (ctx.report.pushEndpointsDeleted ?? 0) + 1;
    }
  }
  await deleteKeys(ctx.writes, 'graph', page.items);
  countRemoved(ctx.report, 'graph', 'channelState', page.items.length);
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their connections: each closed, its reverse item and its subscriptions to the celebrities they follow deleted (the connection items go with their partition). */
export async function eraseConnections(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, { ...partitionQuery(ctx, 'connections', keys.presence(tenantId, userId).pk), KeyConditionExpression: '#pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': keys.presence(tenantId, userId).pk, ':prefix': 'C#' } }, cursor, budget);
  const connectionIds = page.items.map((item) => String(item.sk).slice('C#'.length));
  const reverse = await batchGetAll(client(ctx), table(ctx, 'connections'), connectionIds.map((connectionId) => keys.connectionReverse(connectionId)));
  const subscriptions = reverse.flatMap((item) =>
    item.tenantId === tenantId && item.userId === userId && Array.isArray(item.celebrityIds)
      ? item.celebrityIds.flatMap((celebrityId) => (typeof celebrityId === 'string' ? [keys.onlineSubscription(tenantId, celebrityId, onlineSubscriberShard(String(item.connectionId)), String(item.connectionId))] : []))
      : [],
  );
  for (const connectionId of connectionIds) await ctx.closeConnection?.(connectionId);
  if (ctx.closeConnection) ctx.report.connectionsClosed += connectionIds.length;
  await deleteExisting(ctx, 'connections', subscriptions, 'onlineSubscription');
  await deleteKeys(ctx.writes, 'connections', reverse);
  countRemoved(ctx.report, 'connections', 'connectionReverse', reverse.length);
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their followers' online subscriptions to them: the user's id out of each subscriber connection's list of followed celebrities. */
export async function eraseFromSubscribers(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const shard = Number(cursor?.shard ?? 0);
  if (shard >= ONLINE_SUBSCRIBER_SHARDS) return { units: 0 };
  const page = await queryPage(ctx, partitionQuery(ctx, 'connections', keys.onlineSubscribersPartition(tenantId, userId, shard), ['sk']), cursor?.key as Cursor | undefined, budget);
  const reverse = await batchGetAll(client(ctx), table(ctx, 'connections'), page.items.map((item) => keys.connectionReverse(String(item.sk).slice('C#'.length))));
  await removePartsOf(ctx, 'connections', reverse);
  const next = page.next ? { shard, key: page.next } : shard + 1 < ONLINE_SUBSCRIBER_SHARDS ? { shard: shard + 1 } : undefined;
  return { units: page.items.length + 1, ...(next ? { cursor: next } : {}) };
}

/** Their followers' entries naming them: FOLLOWING entries, and (once a celebrity) FOLLOWING_CELEBS edges and pack elements. */
export async function eraseFromFollowers(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.followersPartition(tenantId, userId), ['sk']), cursor, budget);
  const followers = page.items.map((item) => String(item.sk));
  await deleteExisting(ctx, 'graph', followers.map((followerId) => keys.following(tenantId, followerId, userId)), 'followingEntryOfFollower');
  // Only an account that was ever a celebrity has followers holding FOLLOWING_CELEBS edges to it.
  const celebrityEdges = await batchGetAll(client(ctx), table(ctx, 'graph'), followers.map((followerId) => keys.followingCeleb(tenantId, followerId, userId)), { keysOnly: true });
  // Each such follower's pack chunk that may hold them, read whole: every element naming them goes
  // (a follow raced with a promotion can leave two, with different times).
  const chunks = new Map<string, TableKey>();
  for (const edge of celebrityEdges) {
    const chunk = keys.followedCelebsPackOfEdgePartition(String(edge.pk), followedPackChunk(userId));
    if (chunk) chunks.set(`${chunk.pk}\u0000${chunk.sk}`, chunk);
  }
  await removePartsOf(ctx, 'graph', await batchGetAll(client(ctx), table(ctx, 'graph'), [...chunks.values()]));
  await deleteKeys(ctx.writes, 'graph', celebrityEdges);
  countRemoved(ctx.report, 'graph', 'followerOfCelebrity', celebrityEdges.length);
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** The accounts they follow or followed (their FOLLOWING list): their follower items there, edges or unfollow markers (each counted one lowers that account's count). */
export async function eraseFromFollowees(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.followingPartition(tenantId, userId), ['sk']), cursor, budget);
  const followees = page.items.map((item) => String(item.sk));
  await forEachBounded(followees, SHARED_UPDATES_IN_FLIGHT, async (followeeId) => {
    const { deleted, lowered } = await removeOutgoingEdge(ctx.writes, keys.follower(tenantId, followeeId, userId), keys.profile(tenantId, followeeId));
    if (deleted) countRemoved(ctx.report, 'graph', 'followingEdge', 1);
    if (lowered) ctx.report.followCountsLowered += 1;
  });
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their subscribers' references to their post alerts (ALERTING entries naming them): the account is gone, so are the subscriptions (its ALERTS partition goes with the user's partitions). */
export async function eraseFromAlertSubscribers(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.alertSubscribersPartition(tenantId, userId), ['sk']), cursor, budget);
  await deleteExisting(ctx, 'graph', page.items.map((item) => keys.alerting(tenantId, String(item.sk), userId)), 'alertingEntryOfSubscriber');
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their own post alert subscriptions, kept under each account (found from their ALERTING references; the references go with their partitions). */
export async function eraseOwnAlertSubscriptions(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.alertingPartition(tenantId, userId), ['sk']), cursor, budget);
  await deleteExisting(ctx, 'graph', page.items.map((item) => keys.alertSubscriber(tenantId, String(item.sk), userId)), 'alertSubscription');
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their logged inbox-mode posts (the ones they authored: the log of an account may hold posts by another actor). */
async function ownLoggedPosts(ctx: PhaseContext): Promise<LoggedPostKey[]> {
  const { tenantId, userId } = ctx.subject;
  const posts: LoggedPostKey[] = [];
  let cursor: Cursor | undefined;
  do {
    const page = await queryPage(ctx, partitionQuery(ctx, 'inbox', keys.recentPostsPartition(tenantId, userId), ['eventId', 'type', 'arrivalMs', 'notification']), cursor, PAGE_LIMIT);
    for (const item of page.items) {
      const actorId = (item.notification as { actor?: { id?: unknown } } | undefined)?.actor?.id;
      if (actorId === userId && typeof item.eventId === 'string' && typeof item.type === 'string' && typeof item.arrivalMs === 'number') posts.push({ eventId: item.eventId, type: item.type, arrivalMs: item.arrivalMs });
    }
    cursor = page.next;
  } while (cursor);
  return posts;
}

/**
 * Their posts in their followers' inboxes (the FOLLOWERS partition holds followers and the unfollow
 * markers of former ones, with their histories), at the ids the fan-out wrote them under (post x
 * follower whose history began by then), read first and deleted with the recipient's read state of them.
 */
export async function eraseFollowerCopies(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const posts = await ownLoggedPosts(ctx);
  if (posts.length === 0) return { units: 1 };
  const page = await queryPage(ctx, partitionQuery(ctx, 'graph', keys.followersPartition(tenantId, userId), ['sk', 'followedAt', FOLLOW_HISTORY_ATTRIBUTE]), cursor, Math.floor(budget / posts.length));
  const audience: PostAudienceMember[] = page.items.flatMap((item) => {
    const first = followHistoryOf(item[FOLLOW_HISTORY_ATTRIBUTE] as Iterable<unknown> | undefined, item.followedAt)[0];
    return first ? [{ userId: String(item.sk), followedAtMs: first.atMs }] : [];
  });
  const found = await deleteExisting(ctx, 'inbox', followerCopyKeys(tenantId, posts, audience), 'authoredNotification');
  // Not counted: most notifications have no read state of their own (the marks cover them).
  await deleteKeys(ctx.writes, 'readMarks', found.flatMap((key) => keys.readStateOfInboxItem(key.pk, key.sk)));
  return { units: page.items.length * posts.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** What the author index holds under them: their notifications in other inboxes (direct recipients, snooze comebacks), with the recipients' read state of them; follow records naming them as followee. */
export async function eraseIndexedAuthored(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(
    ctx,
    indexQuery(ctx, 'inbox', AUTHOR_INDEX, ownerIndexValue(tenantId, userId)),
    cursor,
    budget,
  );
  // Their notifications in other inboxes, and other users' follow records naming them as followee (trace partitions).
  const traces = page.items.filter((item) => parseKey({ pk: item.pk, sk: item.sk })?.kind === 'userTrace');
  const notifications = page.items.filter((item) => !traces.includes(item));
  await deleteKeys(ctx.writes, 'inbox', page.items);
  countRemoved(ctx.report, 'inbox', 'authoredNotification', notifications.length);
  countRemoved(ctx.report, 'inbox', 'followTraceAboutThem', traces.length);
  await deleteKeys(ctx.writes, 'readMarks', notifications.flatMap((item) => keys.readStateOfInboxItem(String(item.pk), String(item.sk))));
  return { units: page.items.length + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their celebrity posts in the tenant's celebrity posts log and their entries in its count index, from their feed. */
export async function eraseCelebrityPosts(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  if (ctx.feedShards < 1) return { units: 0 };
  const page = await queryPage(ctx, partitionQuery(ctx, 'inbox', keys.feedShardPartition(tenantId, userId, 0), ['sk']), cursor, Math.floor(budget / (2 * ctx.feedShards)));
  const ids = page.items.map((item) => String(item.sk));
  await deleteExisting(ctx, 'inbox', celebrityLogKeys(tenantId, ids, ctx.feedShards), 'celebrityPost');
  for (const { pk, slot } of celebrityIndexSlots(tenantId, ids, ctx.feedShards)) {
    const slots = await queryPage(ctx, { TableName: table(ctx, 'inbox'), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)', ExpressionAttributeValues: { ':pk': pk, ':slot': slot } }, undefined, PAGE_LIMIT);
    await removePartsOf(ctx, 'inbox', slots.items);
  }
  return { units: ids.length * 2 * ctx.feedShards + 1, ...(page.next ? { cursor: page.next } : {}) };
}

/** Their records of the owner index (rate windows, holds, channel sends, schedule references, traces about them): the schedules they name deleted first; then their audit salt. */
export async function eraseOwnerRecords(ctx: PhaseContext, cursor: Cursor | undefined, budget: number): Promise<PhaseStep> {
  const { tenantId, userId } = ctx.subject;
  const page = await queryPage(
    ctx,
    indexQuery(ctx, 'idempotency', OWNER_INDEX, ownerIndexValue(tenantId, userId)),
    cursor,
    budget,
  );
  for (const item of page.items) {
    const parsed = parseKey({ id: item.id });
    const schedule = scheduleOfOwnerRecord(parsed, ctx.subject);
    if (schedule && ctx.deleteSchedule && (await ctx.deleteSchedule(schedule))) ctx.report.schedulesDeleted += 1;
    countRemoved(ctx.report, 'idempotency', parsed?.kind === 'traceRecord' && parsed.userId === undefined ? 'eventTrace' : (parsed?.kind ?? 'ownerRecord'), 1);
  }
  await deleteKeys(ctx.writes, 'idempotency', page.items);
  if (!page.next) {
    // Their audit trail pseudonym salt (at a key computed from their id): once gone, their audit records name nobody.
    const salt = await batchGetAll(client(ctx), table(ctx, 'idempotency'), [{ id: keys.auditSaltId(tenantId, userId) }], { keysOnly: true });
    await deleteKeys(ctx.writes, 'idempotency', salt);
    countRemoved(ctx.report, 'idempotency', 'auditSalt', salt.length);
  }
  return { units: page.items.length + 2, ...(page.next ? { cursor: page.next } : {}) };
}

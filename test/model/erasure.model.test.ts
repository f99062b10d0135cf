/**
 * Erasure removes exactly one person (issue 27), as a property: a random population whose ids equal
 * other users' data values, time zones and type names, are prefixes and suffixes of each other,
 * `__proto__`, key tokens and unicode, gets random notifications, follows, preferences, connections,
 * read state, devices, holds, traces and post alert subscriptions through the real write paths (the fan-out handler with
 * Powertools idempotency and its promotion pass, the repositories) on dynalite; one user is erased by
 * the UserEraser in small steps, killed after a random batch (afterBatch) and resumed. Devices get
 * their endpoints in the local SNS stand-in; holds and scheduled events go through the scheduler
 * that writes a reference record per named user (the local scheduler, never fired).
 *
 * The reference model (`expectedAfterErasure`, written from the keys' builders and the roles, not
 * from the eraser's classifier) says what every table holds afterwards: the erased user's items and
 * the items naming them in a role are gone, shared items lost only the user's part, every other item
 * is byte for byte what it was except the documented effects (follower counts lowered by the user's
 * counted edges, the recipients' read state of notifications the user authored, other users' follow
 * traces naming them as followee). The SNS stand-in and the scheduler hold nothing naming the erased
 * user and everything else as it was. A second run
 * removes nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { AlertSubscriptionRepository } from '../../src/adapters/dynamo/alert-subscriptions.js';
import { ChannelRepository } from '../../src/adapters/dynamo/channel-repository.js';
import { ChannelSendLedger } from '../../src/adapters/dynamo/channel-send-ledger.js';
import { ConnectionRepository } from '../../src/adapters/dynamo/connection-repository.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { LiveHoldRepository } from '../../src/adapters/dynamo/live-hold-repository.js';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { ReadStateRepository } from '../../src/adapters/dynamo/read-state-repository.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import { DynamoTraceRepository } from '../../src/adapters/dynamo/trace-repository.js';
import { ReferencingScheduler } from '../../src/adapters/dynamo/schedule-refs.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { CelebrityPromotionService } from '../../src/core/fanout/celebrity-promotion.js';
import { erasureRecordId, totalRemoved } from '../../src/core/privacy/erasure.js';
import { FanOutService } from '../../src/core/fanout/fanout-service.js';
import { ONLINE_SUBSCRIBER_SHARDS } from '../../src/core/live/online-followers.js';
import { keys, tenantKeyPrefix, userPartition } from '../../src/core/model/keys.js';
import type { EventEnvelope } from '../../src/core/fanout/events.js';
import type { PromotionJob } from '../../src/core/jobs/promotion-job.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { createFanOutHandler, type SqsBatchHandler } from '../../src/handlers/fanout-handler.js';
import { ensureTables, LOCAL_CREDENTIALS, LOCAL_REGION, localTableNames, startEmbeddedDynamo, type EmbeddedDynamo } from '../../src/local/embedded-dynamo.js';
import { localLambdaContext } from '../../src/local/sqs/index.js';
import { findNotificationType } from '../../src/notifications/index.js';
import { scheduleName } from '../../src/core/jobs/schedules.js';
import { LocalScheduler } from '../../src/local/scheduler/local-scheduler.js';
import { LocalMobilePush } from '../../src/local/sns/mobile-push.js';
import { TABLE_NAMES, tableSpecs, type TableName } from '../../src/table-specs.js';
import { anSqsEvent, anSqsRecord, eventBridgeBody } from '../support/events.js';
import { modelParameters } from '../support/model-runs.js';
import { RecordingJobQueue } from '../support/pipeline-fakes.js';

const TENANT = 'acme';
const FEED_SHARDS = 2;
const TYPES = ['mention.created', 'comment.created', 'post.published', 'follow.created', 'follow.deleted'];
/** Ids that collide with other users' values: time zones, type names, prefixes and suffixes, key tokens, `__proto__`, unicode, a hashed segment. */
const ID_POOL = ['UTC', 'Europe/Berlin', 'mention.created', 'post.published', 'p42', 'a', 'ab', 'ba', 'b', 'U', 'F', 'FOLLOWERS', 'PROFILE', '__proto__', 'constructor', 'Zoë 🙂', 'a#b', '%41', 'C#1', `|${'x'.repeat(255)}`];
const TIME_ZONES = ['UTC', 'Europe/Berlin', 'America/New_York'];

type Action =
  | { kind: 'mention' | 'comment'; actor: number; recipients: number[]; value: number }
  | { kind: 'post'; actor: number; value: number }
  | { kind: 'follow' | 'unfollow'; follower: number; followee: number }
  | { kind: 'preferences'; user: number; zone: number; muted: number[] }
  | { kind: 'connect'; user: number; celebrities: number[] }
  | { kind: 'readState'; user: number; pick: number; unread: boolean }
  | { kind: 'channels'; user: number }
  | { kind: 'hold'; user: number; pick: number }
  | { kind: 'trace'; user: number; value: number }
  | { kind: 'sendAt'; actor: number; recipient: number }
  | { kind: 'alerts'; follower: number; account: number; off: boolean };

/** Index 0 is the user the run erases (the ids are shuffled by generation): it takes part in about a third of the roles. */
const userIndex = fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat(7) });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('mention' as const, 'comment' as const), actor: userIndex, recipients: fc.uniqueArray(userIndex, { minLength: 1, maxLength: 3 }), value: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('post' as const), actor: userIndex, value: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('follow' as const, 'unfollow' as const), follower: userIndex, followee: userIndex }) },
  // Followers of the erased user, so it often becomes a celebrity (threshold 2): feed shards, celebrity posts log, count index, packs.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('follow' as const), follower: fc.nat(7), followee: fc.constant(0) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('post' as const), actor: fc.constant(0), value: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('preferences' as const), user: userIndex, zone: fc.nat(2), muted: fc.uniqueArray(fc.nat(TYPES.length - 1), { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('connect' as const), user: userIndex, celebrities: fc.uniqueArray(userIndex, { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('readState' as const), user: userIndex, pick: fc.nat(), unread: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('channels' as const), user: userIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hold' as const), user: userIndex, pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trace' as const), user: userIndex, value: fc.nat() }) },
  // A scheduled event naming its actor and its sole recipient (a reference record per named user).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sendAt' as const), actor: userIndex, recipient: userIndex }) },
  // Post alerts on or off (the bell), as subscriber or as the account: kept under the account, referenced from the subscriber's list.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('alerts' as const), follower: userIndex, account: userIndex, off: fc.boolean() }) },
);
const scenario = fc.record({
  users: fc.uniqueArray(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ID_POOL) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }) }), { minLength: 3, maxLength: 6 }),
  actions: fc.array(action, { minLength: 6, maxLength: 24 }),
  /** Two followers first: the erased user is a celebrity from the start (its posts go to feed shards, the celebrity posts log and the count index). */
  celebrity: fc.boolean(),
  stepBudget: fc.integer({ min: 2, max: 60 }),
  killAfterBatch: fc.nat(40),
});

let dynamo: EmbeddedDynamo;
let raw: DynamoDBClient;
const logger = new Logger({ serviceName: 'erasure-model', logLevel: 'SILENT' });

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo();
  raw = new DynamoDBClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  raw?.destroy();
  await dynamo?.close();
});

type RawItem = Record<string, AttributeValue>;
type Snapshot = Record<TableName, Map<string, RawItem>>;

const keyOf = (table: TableName, item: RawItem): string => ('sortKey' in tableSpecs[table] ? `${item.pk!.S}\u0000${item.sk!.S}` : item.id!.S!);

async function snapshot(tables: Record<TableName, string>): Promise<Snapshot> {
  const result = {} as Snapshot;
  for (const table of TABLE_NAMES) {
    const items = new Map<string, RawItem>();
    let start: RawItem | undefined;
    do {
      const page = await raw.send(new ScanCommand({ TableName: tables[table], ExclusiveStartKey: start, ConsistentRead: true }));
      for (const item of page.Items ?? []) items.set(keyOf(table, item), item);
      start = page.LastEvaluatedKey;
    } while (start);
    result[table] = items;
  }
  return result;
}

/** The population's world: fresh tables per run and the real write paths on them. */
async function world(users: readonly string[]) {
  const tables = localTableNames(`m${randomUUID().slice(0, 8)}-`);
  await ensureTables(dynamo.endpoint, tables);
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const noWait = { sleep: async () => undefined };
  const graph = new FollowGraphRepository(client, tables.graph, noWait);
  const promotions: PromotionJob[] = [];
  const promotionQueue = { enqueue: async (job: PromotionJob) => void promotions.push(job) };
  const trace = new DynamoTraceRepository(client, { idempotencyTable: tables.idempotency, inboxTable: tables.inbox });
  const service = new FanOutService({
    graph,
    inbox: new InboxRepository(client, tables.inbox, noWait),
    arrivals: new DynamoArrivalLedger(client, tables.idempotency),
    recentPosts: new DynamoRecentPostsLog(client, tables.inbox),
    celebrityPostsIndex: new DynamoCelebrityPostsLog(client, tables.inbox),
    deliveryQueue: new RecordingJobQueue(),
    promotionQueue,
    settings: { celebrityThreshold: 2, feedShards: FEED_SHARDS, inboxTtlDays: 90 },
    trace,
  });
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.idempotency, awsSdkV3Client: raw });
  const handlers = new Map<string, SqsBatchHandler>();
  const handlerOf = (type: string) => {
    let handler = handlers.get(type);
    if (!handler) {
      handler = createFanOutHandler({ notificationType: findNotificationType(type)!, findType: findNotificationType, service, logger, persistenceStore, trace });
      handlers.set(type, handler);
    }
    return handler;
  };
  const promotion = new CelebrityPromotionService({ graph, queue: promotionQueue, celebrityThreshold: 2 });
  let sequence = 0;
  const publish = async (type: string, envelope: Omit<EventEnvelope, 'id' | 'tenantId'>) => {
    sequence += 1;
    const body = eventBridgeBody(type, { id: `e${sequence}`, tenantId: TENANT, ...envelope });
    const answer = await handlerOf(type)(anSqsEvent([anSqsRecord(body)]), localLambdaContext('erasure-model'));
    expect(answer.batchItemFailures).toEqual([]);
    while (promotions.length > 0) await promotion.runPage(promotions.shift()!);
  };
  const user = (index: number) => ({ tenantId: TENANT, userId: users[index % users.length]! });
  const inbox = new InboxRepository(client, tables.inbox);
  // The SNS stand-in holds each device's endpoint (token, CustomUserData naming its owner); the
  // local scheduler holds schedules, each written through the reference records the erasure finds.
  const sns = new LocalMobilePush({ region: LOCAL_REGION, accountId: '000000000000' });
  const schedulerDir = await mkdtemp(join(tmpdir(), 'erasure-model-'));
  const localScheduler = await LocalScheduler.open({ dir: schedulerDir, logger });
  const scheduler = new ReferencingScheduler(localScheduler, client, tables.idempotency);
  /** Which users each pending schedule names (the model's view of the scheduler). */
  const scheduleNames = new Map<string, string[]>();
  const ownItems = async (index: number) => inbox.listInboxPage({ kind: 'own', ...user(index) }, { limit: 50, nowMs: Date.now() });
  return {
    tables,
    client,
    publish,
    user,
    ownItems,
    readState: new ReadStateRepository(client, tables.readMarks),
    preferences: new PreferencesRepository(client, tables.graph),
    connections: new ConnectionRepository(client, tables.connections, { handshakeGraceSeconds: 0 }),
    channels: new ChannelRepository(client, tables.graph),
    alerts: new AlertSubscriptionRepository(client, tables.graph),
    sends: new ChannelSendLedger(client, tables.idempotency),
    holds: new LiveHoldRepository(client, tables.idempotency),
    trace,
    sns,
    localScheduler,
    async schedule(kind: 'hold' | 'sendat', key: string, atMs: number, userIds: string[]) {
      const name = scheduleName(kind, TENANT, key);
      await scheduler.scheduleOnce({ name, atMs, targetArn: 'arn:aws:sqs:us-east-1:000000000000:release', payload: JSON.stringify({ kind, key }) }, { tenantId: TENANT, userIds });
      scheduleNames.set(name, [...new Set([...(scheduleNames.get(name) ?? []), ...userIds])]);
    },
    scheduleNames,
    async drop() {
      await rm(schedulerDir, { recursive: true, force: true });
      client.destroy();
      for (const table of TABLE_NAMES) await raw.send(new DeleteTableCommand({ TableName: tables[table] }));
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

async function apply(w: World, users: readonly string[], step: Action, index: number): Promise<void> {
  const id = (n: number) => users[n % users.length]!;
  const value = (n: number) => [...users, ...ID_POOL][n % (users.length + ID_POOL.length)]!;
  const expiresAt = Math.floor(Date.now() / 1000) + 86_400;
  switch (step.kind) {
    case 'mention':
    case 'comment': {
      const data = step.kind === 'mention' ? { postId: value(step.value), excerpt: `hi ${value(step.value + 1)}` } : { postId: value(step.value), commentId: value(step.value + 2), excerpt: value(step.value + 3) };
      await w.publish(`${step.kind}.created`, { actor: { id: id(step.actor), name: value(step.value + 4) }, recipients: [...new Set(step.recipients.map(id))], data });
      return;
    }
    case 'post':
      await w.publish('post.published', { actor: { id: id(step.actor), name: value(step.value) }, data: { postId: value(step.value + 1), title: value(step.value + 2) } });
      return;
    case 'follow':
    case 'unfollow':
      if (id(step.follower) === id(step.followee)) return;
      await w.publish(step.kind === 'follow' ? 'follow.created' : 'follow.deleted', { actor: { id: id(step.follower) }, data: { followeeId: id(step.followee) } });
      return;
    case 'preferences':
      await w.preferences.putPreferences(TENANT, id(step.user), { ...DEFAULT_PREFERENCES, timeZone: TIME_ZONES[step.zone]!, mutedTypes: step.muted.map((type) => TYPES[type]!), liveDelivery: {}, updatedAt: new Date().toISOString() });
      return;
    case 'connect':
      await w.connections.registerConnection({ ...w.user(step.user), connectionId: `c${index}x`, celebrityIds: [...new Set(step.celebrities.map(id))] });
      return;
    case 'readState': {
      const items = await w.ownItems(step.user);
      const item = items[step.pick % Math.max(items.length, 1)];
      if (!item) return;
      await w.readState.putExceptions(w.user(step.user), new Map([[item.id, { type: item.type, basis: 0, read: !step.unread, seen: true, archived: false, deleted: false, expiresAt }]]));
      return;
    }
    case 'channels': {
      const created = w.sns.handleAction('CreatePlatformEndpoint', new URLSearchParams({ PlatformApplicationArn: 'arn:aws:sns:us-east-1:000000000000:app/GCM/app', Token: `token-${index}`, CustomUserData: JSON.stringify(w.user(step.user)) }));
      const endpointArn = /<EndpointArn>(.*)<\/EndpointArn>/.exec(String(created.body))![1]!.replace(/&amp;/g, '&');
      await w.channels.putDevice(w.user(step.user), { id: `d_${String(index).padStart(22, '0')}`, platform: 'fcm', token: `token-${index}`, endpointArn, createdAt: 'x', updatedAt: 'x' }, 20);
      await w.channels.putEmailAddress(w.user(step.user), `${index}@example.com`);
      return;
    }
    case 'hold': {
      const items = await w.ownItems(step.user);
      const pushes = items.slice(0, 1 + (step.pick % 3)).map((item) => ({ id: item.id, source: 'own' as const, priority: 'urgent' as const, failClosedHolds: 0, eventId: `e-${item.id}` }));
      if (pushes.length === 0) return;
      const releaseAtMs = 1_900_000_000_000 + (step.pick % 2);
      await w.holds.hold(w.user(step.user), releaseAtMs, pushes, expiresAt);
      // Its release, named as the live gate names it (the erasure finds it from the hold record too).
      await w.schedule('hold', `${id(step.user)}\u0000${releaseAtMs}`, releaseAtMs, [id(step.user)]);
      return;
    }
    case 'sendAt':
      await w.schedule('sendat', `s${index}`, 1_900_000_000_000 + index, [id(step.actor), id(step.recipient)]);
      return;
    case 'alerts':
      if (id(step.follower) === id(step.account)) return;
      if (step.off) await w.alerts.unsubscribe(TENANT, id(step.account), id(step.follower));
      else await w.alerts.subscribe(TENANT, id(step.account), id(step.follower), new Date().toISOString());
      return;
    case 'trace':
      await w.trace.record([{ tenantId: TENANT, userId: id(step.user), eventId: `t${index}`, stage: 'gate', outcome: 'admitted', atMs: Date.now(), detail: `about ${value(step.value)}` }]);
      await w.holds.countPushes(w.user(step.user), 60_000 * index, 1, expiresAt);
      await w.sends.claim({ ...w.user(step.user), channel: 'email', notificationId: `01JD${String(index).padStart(22, '0')}` });
      return;
  }
}

/**
 * The reference model: what every table holds after erasing `erased`, from the snapshot before it.
 * Written from the keys' builders and the roles, independently of the eraser's classifier.
 */
function expectedAfterErasure(before: Snapshot, users: readonly string[], erased: string): Snapshot {
  const after = Object.fromEntries(TABLE_NAMES.map((table) => [table, new Map(before[table])])) as Snapshot;
  const others = users.filter((user) => user !== erased);
  const own: Record<TableName, Set<string>> = {
    inbox: new Set([userPartition(TENANT, erased), keys.recentPostsPartition(TENANT, erased), keys.userTracePartition(TENANT, erased), ...Array.from({ length: FEED_SHARDS }, (_, shard) => keys.feedShardPartition(TENANT, erased, shard))]),
    readMarks: new Set([userPartition(TENANT, erased)]),
    connections: new Set([userPartition(TENANT, erased), ...Array.from({ length: ONLINE_SUBSCRIBER_SHARDS }, (_, shard) => keys.onlineSubscribersPartition(TENANT, erased, shard))]),
    graph: new Set([
      keys.followersPartition(TENANT, erased),
      keys.formerFollowersPartition(TENANT, erased),
      keys.followingPartition(TENANT, erased),
      keys.alertSubscribersPartition(TENANT, erased),
      keys.alertingPartition(TENANT, erased),
      keys.followingCelebsPartition(TENANT, erased),
      keys.followedCelebsPackPartition(TENANT, erased),
      keys.profile(TENANT, erased).pk,
      keys.channelStatePartition(TENANT, erased),
    ]),
    idempotency: new Set(),
  };
  const inboxOf = new Set(others.map((user) => userPartition(TENANT, user)));
  const followersOf = new Set(others.map((user) => keys.followersPartition(TENANT, user)));
  const followingOf = new Set(others.map((user) => keys.followingCelebsPartition(TENANT, user)));
  // Their entries in others' followee lists and former-follower lists (kept past an unfollow).
  const followeeListOf = new Set(others.flatMap((user) => [keys.followingPartition(TENANT, user), keys.formerFollowersPartition(TENANT, user)]));
  const packOf = new Set(others.map((user) => keys.followedCelebsPackPartition(TENANT, user)));
  // Their alert subscriptions to other accounts, and other subscribers' references to them as the account.
  const alertListOf = new Set(others.flatMap((user) => [keys.alertSubscribersPartition(TENANT, user), keys.alertingPartition(TENANT, user)]));
  const traceOf = new Set(others.map((user) => keys.userTracePartition(TENANT, user)));
  const actorOf = (item: RawItem) => (unmarshall(item) as { actor?: { id?: unknown } }).actor?.id;
  for (const table of TABLE_NAMES) {
    for (const [key, item] of before[table]) {
      const pk = item.pk?.S;
      const id = item.id?.S;
      const drop = () => after[table].delete(key);
      const change = (next: RawItem) => after[table].set(key, next);
      if (pk !== undefined && own[table].has(pk)) drop();
      else if (id !== undefined && id.startsWith(`${userPartition(TENANT, erased)}#`)) drop();
      else if (table === 'inbox' && pk !== undefined && inboxOf.has(pk) && actorOf(item) === erased) {
        drop();
        for (const sk of [`READ#${item.sk!.S}`, `READEX#${item.sk!.S}`]) after.readMarks.delete(`${pk}\u0000${sk}`);
      } else if (table === 'inbox' && pk?.startsWith(`${tenantKeyPrefix(TENANT)}#CP#S`) && item.authorId?.S === erased) drop();
      else if (table === 'inbox' && pk?.startsWith(`${tenantKeyPrefix(TENANT)}#CPX#S`)) {
        const kept = Object.entries(item).filter(([name, value]) => ['pk', 'sk', 'expiresAt'].includes(name) || (JSON.parse(value.S!) as unknown[])[0] !== erased);
        change(Object.fromEntries(kept));
      } else if (table === 'connections' && pk?.startsWith('CONN#') && item.userId?.S === erased) drop();
      else if (table === 'connections' && pk?.startsWith('CONN#') && item.celebrityIds?.L) {
        change({ ...item, celebrityIds: { L: item.celebrityIds.L.filter((celebrity) => celebrity.S !== erased) } });
      } else if (table === 'connections' && pk?.includes('#ONLINE#S') && item.userId?.S === erased) drop();
      else if (table === 'graph' && pk !== undefined && followersOf.has(pk) && item.sk!.S === erased) {
        drop();
        const profileKey = `${pk.slice(0, -'#FOLLOWERS'.length)}#PROFILE\u0000PROFILE`;
        const profile = after.graph.get(profileKey);
        if (item.counted?.BOOL === true && profile?.followerCount && Number(profile.followerCount.N) > 0) after.graph.set(profileKey, { ...profile, followerCount: { N: String(Number(profile.followerCount.N) - 1) } });
      } else if (table === 'graph' && pk !== undefined && followingOf.has(pk) && item.sk!.S === erased) drop();
      else if (table === 'graph' && pk !== undefined && followeeListOf.has(pk) && item.sk!.S === erased) drop();
      else if (table === 'graph' && pk !== undefined && alertListOf.has(pk) && item.sk!.S === erased) drop();
      else if (table === 'graph' && pk !== undefined && packOf.has(pk) && item.f?.SS) {
        const elements = item.f.SS.filter((element) => element.slice(element.indexOf(':') + 1) !== erased);
        const { f: _f, ...rest } = item;
        change(elements.length > 0 ? { ...rest, f: { SS: elements } } : rest);
      } else if (table === 'idempotency' && id?.startsWith(`${tenantKeyPrefix(TENANT)}#E#TRACE#`) && item.trace?.M?.actorId?.S === erased) drop();
      // Another user's follow trace whose followee they were (the role attribute, not the detail text), in that user's trace partition.
      else if (table === 'inbox' && pk !== undefined && traceOf.has(pk) && item.trace?.M?.followeeId?.S === erased) drop();
      // Other users' holds keep references (ids), never the erased user's content, and the fan-out's
      // stored results name nobody: both stay as they were.
    }
  }
  return after;
}

function withoutTombstone(state: Snapshot, tombstoneId: string): Snapshot {
  const copy = { ...state, idempotency: new Map(state.idempotency) };
  copy.idempotency.delete(tombstoneId);
  return copy;
}

/** The stand-in's endpoints, comparable (what each received is not part of the data at rest). */
const endpointsAfter = (sns: LocalMobilePush) => sns.devices().map(({ received: _received, ...endpoint }) => endpoint).sort((a, b) => (a.endpointArn < b.endpointArn ? -1 : 1));
const namesUser = (customUserData: string, userId: string) => (JSON.parse(customUserData) as { userId?: string }).userId === userId;

const asObject = (state: Snapshot) => Object.fromEntries(TABLE_NAMES.map((table) => [table, Object.fromEntries([...state[table]].sort(([a], [b]) => (a < b ? -1 : 1)))]));

describe('erasure (model): exactly one person, by role', () => {
  it('leaves every other user byte for byte except the documented effects, after a kill and a resume; a second run removes nothing', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ users, actions, celebrity, stepBudget, killAfterBatch }) => {
        const w = await world(users);
        try {
          const opening: Action[] = celebrity ? [{ kind: 'follow', follower: 1, followee: 0 }, { kind: 'follow', follower: 2, followee: 0 }] : [];
          for (const [index, step] of [...opening, ...actions].entries()) await apply(w, users, step, index);
          const erased = users[0]!;
          const before = await snapshot(w.tables);
          const endpointsBefore = endpointsAfter(w.sns);
          const schedulesBefore = w.localScheduler.list().map((schedule) => schedule.name);
          const subject = { tenantId: TENANT, userId: erased };
          const options = {
            client: w.client,
            tables: w.tables,
            feedShards: FEED_SHARDS,
            graceMs: 0,
            tombstoneTtlSeconds: 3_600,
            stepBudget,
            warn: () => undefined,
            deletePushEndpoint: async (endpointArn: string) => void w.sns.handleAction('DeleteEndpoint', new URLSearchParams({ EndpointArn: endpointArn })),
            schedules: { delete: (name: string) => w.localScheduler.delete(name) },
          };
          let batches = 0;
          const killed = new UserEraser({ ...options, afterBatch: () => {
            batches += 1;
            if (batches === killAfterBatch) throw new Error('killed');
          } }, subject);
          await killed.run().catch((error: unknown) => {
            if (!(error instanceof Error && error.message === 'killed')) throw error;
          });
          const report = await new UserEraser(options, subject).run();
          const after = await snapshot(w.tables);
          const tombstone = erasureRecordId(subject);
          expect(asObject(withoutTombstone(after, tombstone))).toEqual(asObject(expectedAfterErasure(before, users, erased)));
          expect(report.unknownKept).toEqual({});
          // The SNS stand-in: every endpoint naming them gone, every other one as it was.
          expect(endpointsAfter(w.sns)).toEqual(endpointsBefore.filter((endpoint) => !namesUser(endpoint.customUserData, erased)));
          // The scheduler: every schedule naming them gone, every other one as it was.
          expect(w.localScheduler.list().map((schedule) => schedule.name).sort()).toEqual(schedulesBefore.filter((name) => !w.scheduleNames.get(name)!.includes(erased)).sort());
          const again = await new UserEraser(options, subject).run();
          expect(totalRemoved(again)).toBe(0);
          expect(asObject(withoutTombstone(await snapshot(w.tables), tombstone))).toEqual(asObject(withoutTombstone(after, tombstone)));
        } finally {
          await w.drop();
        }
      }),
      modelParameters(5, 150),
    );
  });
});

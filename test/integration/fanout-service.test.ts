import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { DynamoArrivalLedger } from '../../src/adapters/dynamo/arrival-ledger.js';
import { DynamoRecentPostsLog } from '../../src/adapters/dynamo/recent-posts-log.js';
import { PreferencesRepository } from '../../src/adapters/dynamo/preferences-repository.js';
import { CachedPreferencesReader } from '../../src/core/preferences/preferences-cache.js';
import { DEFAULT_PREFERENCES } from '../../src/core/preferences/preferences.js';
import { systemClock } from '../../src/core/ports/clock.js';
import { CelebrityPromotionService } from '../../src/core/fanout/celebrity-promotion.js';
import { FanOutService, type FanOutSettings } from '../../src/core/fanout/fanout-service.js';
import { keys } from '../../src/core/model/keys.js';
import { createDocumentClient } from '../../src/adapters/dynamo/document-client.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../src/local/embedded-dynamo.js';
import { findNotificationType } from '../../src/notifications/index.js';
import type { NotificationType } from '../../src/core/ports/notification-type.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import { aNotificationEvent } from '../support/events.js';
import { RecordingJobQueue, RecordingPromotionQueue, injectDynamoFaults } from '../support/pipeline-fakes.js';

let db: TestDynamo;
let jobs: RecordingJobQueue;
let promotions: RecordingPromotionQueue;
const settings: FanOutSettings = { celebrityThreshold: 50, feedShards: 4, inboxTtlDays: 90, followerPageSize: 40 };
const type = (detailType: string): NotificationType => findNotificationType(detailType)!;

/** The arrival ledger and the recent posts log every fan-out service takes. */
function clockPorts(client: DynamoDBDocumentClient) {
  return { arrivals: new DynamoArrivalLedger(client, db.dynamo.tableNames.idempotency), recentPosts: new DynamoRecentPostsLog(client, db.dynamo.tableNames.inbox), celebrityPostsIndex: new DynamoCelebrityPostsLog(client, db.dynamo.tableNames.inbox) };
}

function serviceOn(client: DynamoDBDocumentClient): { service: FanOutService; graph: FollowGraphRepository } {
  const noWait = { sleep: async () => undefined };
  const graph = new FollowGraphRepository(client, db.dynamo.tableNames.graph, noWait);
  const inbox = new InboxRepository(client, db.dynamo.tableNames.inbox, noWait);
  return { service: new FanOutService({ graph, inbox, ...clockPorts(client), deliveryQueue: jobs, promotionQueue: promotions, settings }), graph };
}

async function countItems(pk: string): Promise<number> {
  const output = await db.client.send(new QueryCommand({ TableName: db.dynamo.tableNames.inbox, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, Select: 'COUNT' }));
  return output.Count ?? 0;
}

async function follow(service: FanOutService, followerId: string, followeeId: string) {
  return service.process(aNotificationEvent({ type: 'follow.created', actor: { id: followerId }, recipients: [followeeId], priority: 'info', data: { followeeId } }), type('follow.created'));
}

const aPostBy = (actorId: string) =>
  aNotificationEvent({ type: 'post.published', actor: { id: actorId }, recipients: [], followersOf: actorId, priority: 'info', data: { postId: 'p', title: 'hello' } });

beforeAll(async () => {
  db = await startTestDynamo();
});
afterAll(async () => db?.close());
beforeEach(() => {
  jobs = new RecordingJobQueue();
  promotions = new RecordingPromotionQueue();
});

describe('FanOutService, ordinary tier', () => {
  it('leaves out followers who muted the type (no item, no job), checking mutes 100 users per read', async () => {
    // Prepare: 120 followers (an ordinary account at this threshold), every tenth muted
    // post.published; preferences read uncached
    const graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph);
    const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
    const store = new PreferencesRepository(db.client, db.dynamo.tableNames.graph);
    const preferences = new CachedPreferencesReader(store, systemClock, { ttlMs: 0 });
    const ordinarySettings = { ...settings, celebrityThreshold: 10_000, followerPageSize: 100 };
    const service = new FanOutService({ graph, inbox, ...clockPorts(db.client), deliveryQueue: jobs, promotionQueue: promotions, settings: ordinarySettings, preferences });
    const followers = Array.from({ length: 120 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    for (const follower of followers) await follow(service, follower, 'muted-author');
    const muting = followers.filter((_, i) => i % 10 === 0);
    for (const userId of muting) await store.putPreferences('acme', userId, { ...DEFAULT_PREFERENCES, mutedTypes: ['post.published'], updatedAt: new Date().toISOString() });
    jobs = new RecordingJobQueue();
    const metered = new FanOutService({ graph, inbox, ...clockPorts(db.client), deliveryQueue: jobs, promotionQueue: promotions, settings: ordinarySettings, preferences });
    db.meter.reset();

    // Act
    const post = aPostBy('muted-author');
    const summary = await metered.process(post, type('post.published'));

    // Assess: pages of 100 and 20 (the first page is at most 100) -> 2 preference reads
    const listening = followers.filter((follower) => !muting.includes(follower));
    expect(summary.inboxItems).toBe(listening.length);
    for (const follower of muting) expect(await countItems(keys.inboxItem('acme', follower, '').pk)).toBe(0);
    for (const follower of listening) expect(await countItems(keys.inboxItem('acme', follower, '').pk)).toBe(1);
    expect(jobs.recipientsOf(post.eventId).sort()).toEqual(listening);
    expect(db.meter.snapshot().byCommand.BatchGetItemCommand).toBe(2);
  });


  it('writes one item per follower in ceil(F/25) BatchWriteItem calls and jobs of 100', async () => {
    // Prepare
    const { service } = serviceOn(db.client);
    const followers = Array.from({ length: 49 }, (_, i) => `o${String(i).padStart(2, '0')}`);
    for (const follower of followers) await follow(service, follower, 'ordinary-author');
    jobs = new RecordingJobQueue();
    const { service: metered } = serviceOn(db.client);
    db.meter.reset();

    // Act
    const post = aPostBy('ordinary-author');
    const summary = await metered.process(post, type('post.published'));

    // Assess
    expect(summary).toMatchObject({ inboxItems: 49, feedItems: 0, audienceTier: 'ordinary' });
    expect(db.meter.snapshot().byCommand.BatchWriteItemCommand).toBe(Math.ceil(49 / 25));
    for (const follower of followers) expect(await countItems(keys.inboxItem('acme', follower, '').pk)).toBe(1);
    expect(jobs.recipientsOf(post.eventId).sort()).toEqual(followers);
  });

  it('loses nothing under injected UnprocessedItems and throttling', async () => {
    // Prepare: a second client on the same table with faults injected
    const faulty = createDocumentClient({ endpoint: db.dynamo.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const { service: seeding } = serviceOn(db.client);
    const followers = Array.from({ length: 45 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    for (const follower of followers) await follow(seeding, follower, 'throttled-author');
    jobs = new RecordingJobQueue();
    const counters = injectDynamoFaults(faulty, { unprocessedEvery: 1, throttleEvery: 3 });
    const { service } = serviceOn(faulty);

    // Act
    const post = { ...aPostBy('throttled-author'), recipients: ['direct-reader'] };
    await service.process(post, type('post.published'));
    faulty.destroy();

    // Assess
    expect(counters.unprocessedReturned).toBeGreaterThan(0);
    expect(counters.throttled).toBeGreaterThan(0);
    for (const follower of [...followers, 'direct-reader']) expect(await countItems(keys.inboxItem('acme', follower, '').pk)).toBe(1);
    expect(jobs.recipientsOf(post.eventId).sort()).toEqual([...followers, 'direct-reader'].sort());
  });

  it('rewrites the same items when the event is processed again', async () => {
    const { service } = serviceOn(db.client);
    const mention = aNotificationEvent({ recipients: ['again-1', 'again-2'] });
    await service.process(mention, type('mention.created'));
    await service.process(mention, type('mention.created'));
    expect(await countItems(keys.inboxItem('acme', 'again-1', '').pk)).toBe(1);
  });
});

describe('FanOutService, celebrity tier', () => {
  it('promotes at the threshold, runs the paged pass, then writes posts to S shards without reading followers', async () => {
    // Prepare: 50 followers reach the threshold
    const { service, graph } = serviceOn(db.client);
    let promotedBy: string | undefined;
    for (let i = 0; i < 50; i += 1) {
      const summary = await follow(service, `c${String(i).padStart(2, '0')}`, 'star');
      if (summary.tierChange) promotedBy = `c${String(i).padStart(2, '0')}`;
    }
    expect(promotedBy).toBe('c49');
    expect(promotions.jobs).toEqual([{ v: 1, tenantId: 'acme', celebrityId: 'star' }]);
    const pass = new CelebrityPromotionService({ graph, queue: promotions, celebrityThreshold: settings.celebrityThreshold, pageSize: 20 });
    for (let next = promotions.jobs.shift(); next; next = promotions.jobs.shift()) await pass.runPage(next);
    for (let i = 0; i < 50; i += 1) {
      const celebs = await graph.listFollowedCelebrities({ tenantId: 'acme', userId: `c${String(i).padStart(2, '0')}` });
      expect(celebs.map((celeb) => celeb.celebrityId)).toEqual(['star']);
    }
    db.meter.reset();

    // Act
    const post = aPostBy('star');
    const summary = await service.process(post, type('post.published'));

    // Assess: the profile read, the arrival stamp (one conditional PutItem, 1 WCU), S feed writes
    expect(summary).toMatchObject({ inboxItems: 0, feedItems: settings.feedShards, deliveryJobs: 1, audienceTier: 'celebrity' });
    // The arrival stamp, the feed items with their celebrity posts log copies (one call), the post's key in the S
    // count index slots (one small UpdateItem each), then the newest feed id on the profile (one small conditional UpdateItem).
    expect(db.meter.snapshot().byCommand).toEqual({ GetItemCommand: 1, PutItemCommand: 1, BatchWriteItemCommand: 1, UpdateItemCommand: settings.feedShards + 1 });
    // S feed items, S celebrity posts log items, S index slots (one post each, < 1 KB), the arrival stamp and the feed head: 3S + 2 WCU.
    expect(db.meter.snapshot().writeCapacityUnits).toBe(3 * settings.feedShards + 2);
    expect(jobs.jobs.find((job) => job.eventId === post.eventId)?.target).toMatchObject({ kind: 'onlineFollowers', actorId: 'star' });
  });

  it('lists a new follower of a celebrity at follow time and unlists an unfollower', async () => {
    const { service, graph } = serviceOn(db.client);
    await follow(service, 'newcomer', 'star');
    expect((await graph.listFollowedCelebrities({ tenantId: 'acme', userId: 'newcomer' })).map((celeb) => celeb.celebrityId)).toEqual(['star']);
    await service.process(aNotificationEvent({ type: 'follow.deleted', actor: { id: 'newcomer' }, recipients: [], data: { followeeId: 'star' } }), type('follow.deleted'));
    expect(await graph.listFollowedCelebrities({ tenantId: 'acme', userId: 'newcomer' })).toEqual([]);
  });

  it('indexes a celebrity post once when the fan-out dies between the celebrity posts log write and the count index write, then retries', async () => {
    // Prepare: a celebrity, and a fan-out whose count index writer dies on its first call
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.graph, Item: { ...keys.profile('acme', 'crashy-star'), followerCount: 60, tier: 'celebrity' } }));
    const { service, graph } = serviceOn(db.client);
    const index = new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox);
    const dying = { indexPosts: async () => Promise.reject(new Error('killed before the count index write')) };
    const killed = new FanOutService({ graph, inbox: new InboxRepository(db.client, db.dynamo.tableNames.inbox), ...clockPorts(db.client), celebrityPostsIndex: dying, deliveryQueue: jobs, promotionQueue: promotions, settings });
    const post = aPostBy('crashy-star');

    // Act: the killed attempt, then the queue's redelivery
    await expect(killed.process(post, type('post.published'))).rejects.toThrow('killed before');
    await service.process(post, type('post.published'));
    await service.process(post, type('post.published'));

    // Assess: every reader shard's index holds the post once, under the id the log holds
    const logged = await db.client.send(new QueryCommand({ TableName: db.dynamo.tableNames.inbox, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.celebrityPostsPartition('acme', 0) } }));
    const ids = (logged.Items ?? []).filter((item) => item.authorId === 'crashy-star').map((item) => item.sk as string);
    expect(ids).toHaveLength(1);
    for (let shard = 0; shard < settings.feedShards; shard += 1) {
      const indexed: string[] = [];
      for await (const page of index.scanPostKeys('acme', shard, undefined, 16)) indexed.push(...page.posts.filter((entry) => entry.authorId === 'crashy-star').map((entry) => entry.id));
      expect(indexed).toEqual(ids);
    }
  });

  it('queues the promotion pass again when the first enqueue failed (retry of the same event)', async () => {
    const { service, graph } = serviceOn(db.client);
    for (let i = 0; i < 49; i += 1) await follow(service, `r${String(i).padStart(2, '0')}`, 'rising');
    const failing = { enqueue: async () => Promise.reject(new Error('promotion queue down')) };
    const broken = new FanOutService({ graph, inbox: new InboxRepository(db.client, db.dynamo.tableNames.inbox), ...clockPorts(db.client), deliveryQueue: jobs, promotionQueue: failing, settings });
    const fiftieth = aNotificationEvent({ type: 'follow.created', actor: { id: 'r49' }, recipients: ['rising'], priority: 'info', data: { followeeId: 'rising' } });

    await expect(broken.process(fiftieth, type('follow.created'))).rejects.toThrow('promotion queue down');
    expect((await graph.getProfile('acme', 'rising')).tier).toBe('ordinary');
    await service.process(fiftieth, type('follow.created'));

    expect(await graph.getProfile('acme', 'rising')).toEqual({ followerCount: 50, tier: 'celebrity', everCelebrity: true });
    expect(promotions.jobs).toEqual([{ v: 1, tenantId: 'acme', celebrityId: 'rising' }]);
  });

  it('queues a promotion pass from an unfollow that finds a stale ordinary tier at the threshold (so follow.deleted keeps the promotion queue)', async () => {
    // Prepare: 52 followers under a higher threshold, then the threshold lowered to 50 (tier now stale)
    const { graph } = serviceOn(db.client);
    const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
    const before = new FanOutService({ graph, inbox, ...clockPorts(db.client), deliveryQueue: jobs, promotionQueue: promotions, settings: { ...settings, celebrityThreshold: 60 } });
    for (let i = 0; i < 52; i += 1) await follow(before, `s${String(i).padStart(2, '0')}`, 'stale');
    expect(await graph.getProfile('acme', 'stale')).toEqual({ followerCount: 52, tier: 'ordinary' });
    const { service } = serviceOn(db.client);

    // Act
    await service.process(aNotificationEvent({ type: 'follow.deleted', actor: { id: 's00' }, recipients: [], data: { followeeId: 'stale' } }), type('follow.deleted'));

    // Assess
    expect(promotions.jobs).toEqual([{ v: 1, tenantId: 'acme', celebrityId: 'stale' }]);
    expect(await graph.getProfile('acme', 'stale')).toEqual({ followerCount: 51, tier: 'celebrity', everCelebrity: true });
  });
});

describe('FanOutService, ids and stage order', () => {
  it('a mention and a comment sharing a producer event id both land (ids hash the type too)', async () => {
    const { service } = serviceOn(db.client);
    const eventId = 'shared-producer-id';
    await service.process(aNotificationEvent({ eventId, recipients: ['shared-reader'] }), type('mention.created'));
    await service.process(aNotificationEvent({ eventId, type: 'comment.created', priority: 'info', recipients: ['shared-reader'], data: { postId: 'p', commentId: 'c', excerpt: 'x' } }), type('comment.created'));
    expect(await countItems(keys.inboxItem('acme', 'shared-reader', '').pk)).toBe(2);
  });

  it('a follow writes the followee its notification before touching the graph; a failed graph step is redone once on retry with the same id and followedAt', async () => {
    // Prepare: the graph fails at the edge on the first attempt
    const { graph } = serviceOn(db.client);
    let failEdge = true;
    const flaky = Object.assign(Object.create(graph) as FollowGraphRepository, {
      recordFollowChange: async (change: Parameters<FollowGraphRepository['recordFollowChange']>[0]) => {
        if (failEdge) {
          failEdge = false;
          throw new Error('graph unavailable');
        }
        return graph.recordFollowChange(change);
      },
    });
    const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
    const service = new FanOutService({ graph: flaky, inbox, ...clockPorts(db.client), deliveryQueue: jobs, promotionQueue: promotions, settings });
    const followEvent = aNotificationEvent({ type: 'follow.created', actor: { id: 'ordered-follower' }, recipients: ['ordered-followee'], priority: 'info', data: { followeeId: 'ordered-followee' } });

    // Act
    await expect(service.process(followEvent, type('follow.created'))).rejects.toThrow('graph unavailable');
    const afterFailure = await countItems(keys.inboxItem('acme', 'ordered-followee', '').pk);
    const profileAfterFailure = await graph.getProfile('acme', 'ordered-followee');
    await service.process(followEvent, type('follow.created'));
    await service.process(followEvent, type('follow.created'));

    // Assess
    expect(afterFailure).toBe(1);
    expect(profileAfterFailure.followerCount).toBe(0);
    expect(await countItems(keys.inboxItem('acme', 'ordered-followee', '').pk)).toBe(1);
    expect(await graph.getProfile('acme', 'ordered-followee')).toEqual({ followerCount: 1, tier: 'ordinary' });
  });

  it('an ordinary post skips a follower who followed after it arrived, and a follow after a post it raced gets it backfilled once', async () => {
    // Prepare: an early follower; the post arrives; a late follower's edge is written after the listing
    const { service, graph } = serviceOn(db.client);
    await follow(service, 'bf-early', 'bf-author');
    const post = aPostBy('bf-author');
    await service.process(post, type('post.published'));

    // Act: a follow whose arrival is after the post (not in view), and a retry of the post
    await follow(service, 'bf-late', 'bf-author');
    await service.process(post, type('post.published'));

    // Assess
    expect(await countItems(keys.inboxItem('acme', 'bf-early', '').pk)).toBe(1);
    expect(await countItems(keys.inboxItem('acme', 'bf-late', '').pk)).toBe(0);
    expect((await graph.listFollowersPage('acme', 'bf-author', undefined, 10)).followers.map((follower) => follower.followerId)).toEqual(['bf-early', 'bf-late']);
  });
});

/**
 * Reads of a user following many celebrities from the tenant's celebrity posts log: one partition
 * scanned newest first, filtered by the followed set. Every answer is compared with the
 * query-every-feed design; a scan past its budget falls back to the feed heads with the same answer.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoCelebrityPostsLog } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { DEFAULT_CELEBRITY_LOG_BUDGET } from '../../src/core/read/celebrity-posts-view.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { CelebrityPostIndexEntry } from '../../src/core/ports/celebrity-posts.js';
import type { InboxItemToWrite } from '../../src/core/ports/inbox.js';
import { markAt } from '../../src/core/model/read-state.js';
import { decodeCursor } from '../../src/core/read/cursor.js';
import { aNotification, inboxItemsFor, MINUTE, SECOND, T0 } from '../support/fixtures.js';
import { ManualClock, repositoriesOn, seedFollowingCeleb, startTestDynamo, walkPages, TEST_CURSOR_SECRET, TEST_FEED_SHARDS, type Repositories, type TestDynamo } from '../support/dynamo.js';
import type { UserRef } from '../../src/core/model/user.js';

let db: TestDynamo;
let repositories: Repositories;
let graph: FollowGraphRepository;
let log: DynamoCelebrityPostsLog;
const clock = new ManualClock(T0 + 120 * MINUTE);
/** A small scan budget, so the sparse cases need few posts. */
const SMALL_BUDGET = { pageItems: 10, countSlots: 2, maxRequests: 2 };
let seeded = 0;
/** 80 celebrities with 3 posts each, all followed: shared by the page walk and (last, it moves the marks) the counts. */
let denseReader: Promise<UserRef> | undefined;
const dense = (): Promise<UserRef> => (denseReader ??= seed(80, 3));

beforeAll(async () => {
  db = await startTestDynamo();
  repositories = repositoriesOn(db.client, db.dynamo.tableNames);
  graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph);
  log = new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox);
});
afterAll(async () => db.close());

/** What every service of these tests shares. */
function commonDeps(muted: readonly string[] = []) {
  return {
    inbox: repositories.inbox,
    celebrities: repositories.graph,
    readState: repositories.readState,
    clock,
    cursorSecret: TEST_CURSOR_SECRET,
    feedShards: TEST_FEED_SHARDS,
    inboxTtlDays: 90,
    mutedTypes: { mutedTypesOf: async () => muted },
  };
}

function services(muted: readonly string[] = [], celebrityLogFromFollowed = 0, celebrityLogBudget = DEFAULT_CELEBRITY_LOG_BUDGET): { withLog: InboxReadService; withHeads: InboxReadService; everyFeed: InboxReadService } {
  const common = commonDeps(muted);
  return {
    withLog: new InboxReadService({ ...common, feedHeads: repositories.graph, celebrityPosts: log, celebrityLogFromFollowed, celebrityLogBudget }),
    withHeads: new InboxReadService({ ...common, feedHeads: repositories.graph }),
    everyFeed: new InboxReadService(common),
  };
}

/** A post in every feed shard and every celebrity posts log shard, as the fan-out writes it. */
function postWrites(tenantId: string, celebrityId: string, post: StoredNotification): InboxItemToWrite[] {
  return Array.from({ length: TEST_FEED_SHARDS }, (_, shard): InboxItemToWrite[] => [
    { source: { kind: 'feed', tenantId, actorId: celebrityId, shard }, item: post },
    { source: { kind: 'celebrityPosts', tenantId, shard, authorId: celebrityId }, item: post },
  ]).flat();
}

/** The post's key in every count index shard, as the fan-out writes it after the log items. */
function postIndexEntries(tenantId: string, celebrityId: string, post: StoredNotification): CelebrityPostIndexEntry[] {
  return Array.from({ length: TEST_FEED_SHARDS }, (_, shard) => ({ tenantId, shard, authorId: celebrityId, id: post.id, type: post.type, expiresAt: post.expiresAt }));
}

/**
 * In a tenant of its own: `celebrityCount` celebrities with `postsEach` posts over two hours (some
 * before the follow an hour after T0), the user following the first `followed` of them, `own` own items.
 */
async function seed(celebrityCount: number, postsEach: number, followed = celebrityCount, own = 10, followedAtOf: (c: number) => number = () => T0 + 60 * MINUTE): Promise<UserRef> {
  seeded += 1;
  const user: UserRef = { tenantId: `log-${seeded}`, userId: `reader-${seeded}` };
  const ownItems = Array.from({ length: own }, (_, i) => aNotification(T0 + i * 7 * MINUTE, { tenantId: user.tenantId, recipient: user.userId, eventId: `own-${i}` }));
  await repositories.inbox.writeInboxItems(inboxItemsFor(user, ownItems));
  await Promise.all(
    Array.from({ length: celebrityCount }, async (_, c) => {
      const celebrityId = `star-${c}`;
      const posts = Array.from({ length: postsEach }, (_, i) =>
        aNotification(T0 + ((c * 7919 + i * 104_729) % 7_000) * SECOND, {
          tenantId: user.tenantId,
          recipient: `feed#${celebrityId}`,
          eventId: `post-${c}-${i}`,
          type: i % 3 === 2 ? 'comment.created' : 'post.published',
          actor: { id: celebrityId },
        }),
      );
      await repositories.inbox.writeInboxItems(posts.flatMap((post) => postWrites(user.tenantId, celebrityId, post)));
      await log.indexPosts(posts.flatMap((post) => postIndexEntries(user.tenantId, celebrityId, post)));
      if (c >= followed) return;
      for (const post of posts) await graph.advanceNewestFeedId(user.tenantId, celebrityId, post.id);
      await seedFollowingCeleb(db.client, db.dynamo.tableNames.graph, user, celebrityId, followedAtOf(c));
    }),
  );
  return user;
}


/** The log service, each page read, its followed list and log reads noting when they start (and end) in `events`. */
function instrumentedService(events: string[]): InboxReadService {
  const service = new InboxReadService({
    ...commonDeps(),
    celebrities: {
      listFollowedCelebrities: async (reader) => {
        events.push('followed:start');
        const followed = await repositories.graph.listFollowedCelebrities(reader);
        events.push('followed:end');
        return followed;
      },
    },
    feedHeads: repositories.graph,
    celebrityLogFromFollowed: 0,
    celebrityPosts: {
      scanPosts: (...args) => {
        events.push('scan');
        return log.scanPosts(...args);
      },
      scanPostKeys: (...args) => log.scanPostKeys(...args),
    },
  });
  const listPage = service.listPage.bind(service);
  service.listPage = (reader, request) => {
    events.push('read');
    return listPage(reader, request);
  };
  return service;
}

/** Per page read: whether its first log Query started before its followed list came back. */
function prefetchedReads(events: readonly string[]): boolean[] {
  const reads: string[][] = [];
  for (const event of events) {
    if (event === 'read') reads.push([]);
    else reads.at(-1)?.push(event);
  }
  return reads.map((read) => read.includes('scan') && read.indexOf('scan') < read.indexOf('followed:end'));
}

describe('listPage from the celebrity posts log', () => {
  it('gives the same pages as querying every feed, each in 4 requests when the log is dense', async () => {
    // Prepare
    const user = await dense();
    const { withLog, everyFeed } = services();
    const scans = vi.spyOn(log, 'scanPosts');

    // Act
    const fast = await walkPages(db.meter, withLog, user, { limit: 20 });
    const reference = await walkPages(db.meter, everyFeed, user, { limit: 20 });

    // Assess: identical pages, every id once, newest first; followed list, own page, read state, one log Query
    expect(fast.pages).toEqual(reference.pages);
    const all = fast.pages.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort().reverse()).toEqual(all);
    expect(fast.requests[0]).toBe(4);
    expect(Math.max(...fast.requests)).toBeLessThanOrEqual(3 + SMALL_BUDGET.maxRequests);
    // The first page learns the reader's followed share of the log (all of it): later pages' first
    // requests read about 1.5 x the page instead of the budget's 100, with the same pages.
    const firstSizes = scans.mock.calls.map((call) => call[4]);
    scans.mockRestore();
    expect(firstSizes[0]).toBe(DEFAULT_CELEBRITY_LOG_BUDGET.pageItems);
    expect(firstSizes.at(-1)).toBeLessThan(DEFAULT_CELEBRITY_LOG_BUDGET.pageItems);
  }, 60_000);

  it('keeps since, type filters and muted types, hides posts from before followedAt and of celebrities not followed', async () => {
    // Prepare: 40 celebrities, 30 followed
    const user = await seed(40, 4, 30);
    const { withLog, everyFeed } = services(['comment.created']);
    const middle = (await everyFeed.listPage(user, { limit: 30 })).items[15]!.id;

    // Act / Assess
    for (const request of [{ limit: 7, since: middle }, { limit: 9, type: 'post.published' }, { limit: 9, type: 'comment.created' }, { limit: 11 }]) {
      expect((await walkPages(db.meter, withLog, user, request)).pages).toEqual((await walkPages(db.meter, everyFeed, user, request)).pages);
    }
  }, 60_000);

  it('falls back to the feed heads, with the same pages, when the followed posts are too sparse in the log', async () => {
    // Prepare: 1 of 10 celebrities followed, no own items: the page is not decided within the budget
    const user = await seed(10, 6, 1, 0);
    const { withLog, everyFeed } = services([], 0, SMALL_BUDGET);

    // Act
    const fast = await walkPages(db.meter, withLog, user, { limit: 5 });

    // Assess
    expect(fast.pages).toEqual((await walkPages(db.meter, everyFeed, user, { limit: 5 })).pages);
    expect(fast.requests[0]).toBeGreaterThan(3 + SMALL_BUDGET.maxRequests);
  }, 60_000);

  it("sends a known log reader's first log request with the read's first round, with the same pages", async () => {
    // Prepare: a service whose followed list and log reads say when they start and end
    const user = await seed(30, 3);
    const { everyFeed } = services();
    const events: string[] = [];
    const withLog = instrumentedService(events);

    // Act: the first read learns that the reader reads the log; the second and a cursor page prefetch
    const first = await withLog.listPage(user, { limit: 8 });
    const firstEvents = events.splice(0);
    const second = await withLog.listPage(user, { limit: 8 });
    const secondEvents = events.splice(0);
    const next = await withLog.listPage(user, { limit: 8, cursor: decodeCursor(second.nextCursor!, TEST_CURSOR_SECRET) });
    const nextEvents = events.splice(0);

    // Assess: the same pages as querying every feed; the log Query after the followed list, then before it
    const reference = await everyFeed.listPage(user, { limit: 8 });
    expect(first).toEqual(reference);
    expect(second).toEqual(reference);
    expect(next).toEqual(await everyFeed.listPage(user, { limit: 8, cursor: decodeCursor(reference.nextCursor!, TEST_CURSOR_SECRET) }));
    expect(firstEvents).toEqual(['read', 'followed:start', 'followed:end', 'scan']);
    expect(prefetchedReads(secondEvents)).toEqual([true]);
    expect(prefetchedReads(nextEvents)).toEqual([true]);
  }, 60_000);

  it('gives the same pages with the prefetch whatever bounds the read: followedAt spread over two hours, since, one type, 20 of 30 followed, cursor pages', async () => {
    // Prepare: followedAt from T0 to T0 + 116 min (the prefetch reads below most of them), 20 of 30 followed
    const user = await seed(30, 4, 20, 10, (c) => T0 + c * 4 * MINUTE);
    const { everyFeed } = services();
    const events: string[] = [];
    const withLog = instrumentedService(events);
    const middle = (await everyFeed.listPage(user, { limit: 40 })).items[20]!.id;
    // The first read teaches the service that this reader reads the log
    await withLog.listPage(user, { limit: 10 });

    // Act / Assess: every walk (cursor pages included) equals querying every feed, and every read
    // of it sent its log Query before its followed list came back
    for (const request of [{ limit: 6 }, { limit: 5, since: middle }, { limit: 6, type: 'post.published' }, { limit: 7, type: 'comment.created' }]) {
      events.length = 0;
      const fast = await walkPages(db.meter, withLog, user, request);
      expect(fast.pages).toEqual((await walkPages(db.meter, everyFeed, user, request)).pages);
      expect(fast.pages.length).toBeGreaterThan(1);
      expect(prefetchedReads(events)).toEqual(fast.pages.map(() => true));
    }
  }, 60_000);

  it('stops prefetching for a reader who no longer follows enough celebrities (one wasted log request)', async () => {
    // Prepare: 30 followed, the log read above 29; the reader reads once (~30 posts after followedAt: its share is learned), then unfollows one
    const user = await seed(30, 2);
    const { withLog, withHeads } = services([], 29);
    await withLog.listPage(user, { limit: 4 });
    await graph.removeFollowedCelebrity(user.tenantId, user.userId, 'star-29');
    const scans = vi.spyOn(log, 'scanPosts');

    // Act
    const wasted = await withLog.listPage(user, { limit: 4 });
    const scansOfWasted = scans.mock.calls.length;
    const after = await withLog.listPage(user, { limit: 4 });
    const scansAfter = scans.mock.calls.length - scansOfWasted;
    scans.mockRestore();

    // Assess: the feed heads' pages both times; one prefetch the first time, none after
    const reference = await withHeads.listPage(user, { limit: 4 });
    expect([wasted, after]).toEqual([reference, reference]);
    expect([scansOfWasted, scansAfter]).toEqual([1, 0]);
  }, 60_000);

  it('is not used at or below the follow threshold: those reads take the feed heads', async () => {
    // Prepare
    const user = await seed(5, 2);
    const { withLog, withHeads } = services([], 5);

    // Act
    const fromLogService = await walkPages(db.meter, withLog, user, { limit: 4 });
    const fromHeads = await walkPages(db.meter, withHeads, user, { limit: 4 });

    // Assess: the same pages in the same requests as the feed heads alone
    expect(fromLogService).toEqual(fromHeads);
  });
});

describe('counts from the celebrity posts log', () => {
  it('leave muted types out, count only followed celebrities after followedAt, and fall back when sparse', async () => {
    // Prepare: muted comments; then a sparse follower of a busy log
    const partlyFollowed = await seed(30, 3, 25);
    const sparse = await seed(10, 10, 1, 0);
    const { withLog, everyFeed } = services(['comment.created'], 0, SMALL_BUDGET);

    // Act / Assess
    expect(await services(['comment.created']).withLog.counts(partlyFollowed)).toEqual(await everyFeed.counts(partlyFollowed));
    db.meter.reset();
    const sparseCounts = await withLog.counts(sparse);
    expect(db.meter.snapshot().requests).toBeGreaterThan(3 + SMALL_BUDGET.maxRequests);
    expect(sparseCounts).toEqual(await everyFeed.counts(sparse));
    expect(sparseCounts.unread).toBeGreaterThan(0);
  }, 60_000);

  it('equal the counts of querying every feed: capped, under a read mark, under a seen mark, all read', async () => {
    // Prepare
    const user = await dense();
    const { withLog, everyFeed } = services();

    // Act / Assess: capped, in followed list + read state + own ids + two count index Queries (one
    // post per 30 s: the slots hold one post each, 16 then 64 slots); the target 4 + ceil(80/100)
    db.meter.reset();
    const capped = await withLog.counts(user);
    expect(db.meter.snapshot().requests).toBe(5);
    expect(capped).toEqual(await everyFeed.counts(user));
    expect(capped.capped).toBe(true);

    // Act / Assess: read up to the middle, then seen a little further
    const middle = T0 + 100 * MINUTE;
    await repositories.readState.advanceReadMark(user, markAt(middle), new Date(middle).toISOString());
    const partial = await withLog.counts(user);
    expect(partial).toEqual(await everyFeed.counts(user));
    expect(partial.unread).toBeGreaterThan(0);
    await repositories.readState.advanceSeenMark(user, markAt(T0 + 110 * MINUTE), new Date().toISOString());
    expect(await withLog.counts(user)).toEqual(await everyFeed.counts(user));

    // Act / Assess: all read
    await repositories.readState.advanceReadMark(user, markAt(T0 + 119 * MINUTE), new Date().toISOString());
    expect(await withLog.counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
  }, 60_000);
});

/**
 * Reads that do not grow with the number of followed celebrities: feed heads on the profiles, only
 * the feeds that can contribute queried. Every answer is compared with the query-every-feed design.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FollowGraphRepository } from '../../src/adapters/dynamo/follow-graph-repository.js';
import { InboxReadService } from '../../src/core/read/inbox-read-service.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import { markAt } from '../../src/core/model/read-state.js';
import { aNotification, DAY, feedItemsOnAllShards, inboxItemsFor, MINUTE, SECOND, T0 } from '../support/fixtures.js';
import {
  ManualClock,
  repositoriesOn,
  seedFollowingCeleb,
  startTestDynamo,
  walkPages,
  TEST_CURSOR_SECRET,
  TEST_FEED_SHARDS,
  type Repositories,
  type TestDynamo,
} from '../support/dynamo.js';

let db: TestDynamo;
let repositories: Repositories;
let graph: FollowGraphRepository;
const clock = new ManualClock(T0 + 120 * MINUTE);
let userCounter = 0;

beforeAll(async () => {
  db = await startTestDynamo();
  repositories = repositoriesOn(db.client, db.dynamo.tableNames);
  graph = new FollowGraphRepository(db.client, db.dynamo.tableNames.graph);
});
afterAll(async () => db.close());

function services(muted: readonly string[] = []): { withHeads: InboxReadService; everyFeed: InboxReadService } {
  const common = {
    inbox: repositories.inbox,
    celebrities: repositories.graph,
    readState: repositories.readState,
    clock,
    cursorSecret: TEST_CURSOR_SECRET,
    feedShards: TEST_FEED_SHARDS,
    inboxTtlDays: 90,
    mutedTypes: { mutedTypesOf: async () => muted },
  };
  return { withHeads: new InboxReadService({ ...common, feedHeads: repositories.graph }), everyFeed: new InboxReadService(common) };
}

interface Seeded {
  user: UserRef;
  celebrities: string[];
}

/**
 * `own` own items and `celebrityCount` celebrities followed an hour after T0, each with `postsEach`
 * posts spread over two hours (some before the follow), heads kept as the fan-out keeps them.
 */
async function seed(celebrityCount: number, postsEach: number, own = 10): Promise<Seeded> {
  userCounter += 1;
  const user: UserRef = { tenantId: 'acme', userId: `heads-${userCounter}` };
  const celebrities = Array.from({ length: celebrityCount }, (_, c) => `celeb-${userCounter}-${c}`);
  const followedAt = T0 + 60 * MINUTE;
  const ownItems = Array.from({ length: own }, (_, i) => aNotification(T0 + i * 7 * MINUTE, { recipient: user.userId, eventId: `own-${userCounter}-${i}` }));
  await repositories.inbox.writeInboxItems(inboxItemsFor(user, ownItems));
  await Promise.all(
    celebrities.map(async (celebrityId, c) => {
      const posts = Array.from({ length: postsEach }, (_, i) =>
        aNotification(T0 + ((c * 7919 + i * 104_729) % 7_000) * SECOND, {
          recipient: `feed#${celebrityId}`,
          eventId: `post-${celebrityId}-${i}`,
          type: i % 3 === 2 ? 'comment.created' : 'post.published',
          actor: { id: celebrityId },
        }),
      );
      await repositories.inbox.writeInboxItems(feedItemsOnAllShards('acme', celebrityId, TEST_FEED_SHARDS, posts));
      for (const post of posts) await graph.advanceNewestFeedId('acme', celebrityId, post.id);
      await seedFollowingCeleb(db.client, db.dynamo.tableNames.graph, user, celebrityId, followedAt);
    }),
  );
  return { user, celebrities };
}


describe('listPage with feed heads', () => {
  it('gives the same pages as querying every feed, in at most 4 + ceil(k/100) + contributing feeds requests', async () => {
    // Prepare
    const { user } = await seed(150, 3);
    const { withHeads, everyFeed } = services();

    // Act
    const fast = await walkPages(db.meter, withHeads, user, { limit: 20 });
    const reference = await walkPages(db.meter, everyFeed, user, { limit: 20 });

    // Assess: identical pages, every id once, newest first
    expect(fast.pages).toEqual(reference.pages);
    const all = fast.pages.flat();
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort().reverse()).toEqual(all);
    // First page: 20 items come from at most 20 feeds (+ the 21st id that decides the cursor).
    expect(fast.requests[0]).toBeLessThanOrEqual(4 + Math.ceil(150 / 100) + 21);
    expect(reference.requests[0]).toBe(3 + 150);
  }, 120_000);

  it('keeps since, type filters and muted types, and hides posts from before followedAt', async () => {
    // Prepare
    const { user } = await seed(40, 4);
    const { withHeads, everyFeed } = services(['comment.created']);
    const middle = (await everyFeed.listPage(user, { limit: 30 })).items[15]!.id;

    // Act / Assess
    for (const request of [{ limit: 7, since: middle }, { limit: 9, type: 'post.published' }, { limit: 9, type: 'comment.created' }, { limit: 11 }]) {
      expect((await walkPages(db.meter, withHeads, user, request)).pages).toEqual((await walkPages(db.meter, everyFeed, user, request)).pages);
    }
  }, 120_000);

  it('queries no feed of a celebrity that has not posted since promotion, nor of one whose posts are all older than the page', async () => {
    // Prepare: a user with 30 new own items follows 50 celebrities whose posts are old
    userCounter += 1;
    const user: UserRef = { tenantId: 'acme', userId: `heads-quiet-${userCounter}` };
    const quiet = Array.from({ length: 50 }, (_, c) => `quiet-${userCounter}-${c}`);
    for (const celebrityId of quiet) {
      await graph.changeTier('acme', celebrityId, { from: 'ordinary', to: 'celebrity' });
      await seedFollowingCeleb(db.client, db.dynamo.tableNames.graph, user, celebrityId, T0 - DAY);
    }
    const oldPost = aNotification(T0 - 60 * MINUTE, { recipient: `feed#${quiet[0]}`, eventId: 'old', actor: { id: quiet[0]! } });
    await repositories.inbox.writeInboxItems(feedItemsOnAllShards('acme', quiet[0]!, TEST_FEED_SHARDS, [oldPost]));
    await graph.advanceNewestFeedId('acme', quiet[0]!, oldPost.id);
    await repositories.inbox.writeInboxItems(
      inboxItemsFor(user, Array.from({ length: 30 }, (_, i) => aNotification(T0 + i * MINUTE, { recipient: user.userId, eventId: `quiet-own-${userCounter}-${i}` }))),
    );
    const { withHeads } = services();

    // Act
    db.meter.reset();
    const page = await withHeads.listPage(user, { limit: 20 });

    // Assess: followed list, own page, read state, one BatchGetItem of heads; no feed query
    expect(page.items).toHaveLength(20);
    expect(db.meter.snapshot().requests).toBe(4);
    const pages = (await walkPages(db.meter, withHeads, user, { limit: 20 })).pages.flat();
    expect(pages).toHaveLength(31);
    expect(pages[30]).toBe(oldPost.id);
  });
});

describe('counts with feed heads', () => {
  it('equal the counts of querying every feed, reading only feeds above the read mark, stopping at the cap', async () => {
    // Prepare
    const { user } = await seed(120, 3);
    const { withHeads, everyFeed } = services();

    // Act / Assess: capped
    db.meter.reset();
    const capped = await withHeads.counts(user);
    const cappedRequests = db.meter.snapshot().requests;
    expect(capped).toEqual(await everyFeed.counts(user));
    expect(capped.capped).toBe(true);
    expect(cappedRequests).toBeLessThanOrEqual(4 + Math.ceil(120 / 100) + 100);

    // Act / Assess: read everything up to the middle of the feeds' history, then see all
    const middle = T0 + 100 * MINUTE;
    await repositories.readState.advanceReadMark(user, markAt(middle), new Date(middle).toISOString());
    db.meter.reset();
    const partial = await withHeads.counts(user);
    const partialRequests = db.meter.snapshot().requests;
    expect(partial).toEqual(await everyFeed.counts(user));
    expect(partial.unread).toBeGreaterThan(0);
    expect(partialRequests).toBeLessThan(3 + 120);
    await repositories.readState.advanceSeenMark(user, markAt(T0 + 110 * MINUTE), new Date().toISOString());
    expect(await withHeads.counts(user)).toEqual(await everyFeed.counts(user));

    // Act / Assess: all read, no feed is queried
    await repositories.readState.advanceReadMark(user, markAt(T0 + 119 * MINUTE), new Date().toISOString());
    db.meter.reset();
    expect(await withHeads.counts(user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });
    expect(db.meter.snapshot().requests).toBe(4 + Math.ceil(120 / 100) - 1);
  }, 120_000);
});

describe('advanceNewestFeedId', () => {
  it('keeps the two newest ids: only forward, a late post between them takes the second place, a retry changes nothing', async () => {
    const [older, newer] = [aNotification(T0, { eventId: 'h1' }), aNotification(T0 + SECOND, { eventId: 'h2' })].sort((a, b) => (a.id < b.id ? -1 : 1)) as [StoredNotification, StoredNotification];
    await graph.advanceNewestFeedId('acme', 'head-star', newer.id);
    await graph.advanceNewestFeedId('acme', 'head-star', older.id);
    expect((await repositories.graph.feedHeads('acme', ['head-star', 'nobody'])).get('head-star')).toEqual({ newest: newer.id, previous: older.id });
    expect((await repositories.graph.feedHeads('acme', ['nobody'])).size).toBe(0);
    const middle = aNotification(T0 + SECOND / 2, { eventId: 'h3' });
    await graph.advanceNewestFeedId('acme', 'head-star', middle.id);
    await graph.advanceNewestFeedId('acme', 'head-star', newer.id);
    const expectedPrevious = [older.id, middle.id].sort().at(-1);
    expect((await repositories.graph.feedHeads('acme', ['head-star'])).get('head-star')).toEqual({ newest: newer.id, previous: expectedPrevious });
  });
});

/** The use cases over real dynalite: own inbox merged with celebrity feeds, read state, counts. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeCursor } from '../../src/core/read/cursor.js';
import { NotFoundError } from '../../src/core/model/errors.js';
import type { InboxPage } from '../../src/core/read/inbox-read-service.js';
import type { StoredNotification } from '../../src/core/model/notification.js';
import type { UserRef } from '../../src/core/model/user.js';
import {
  aNotification,
  DAY,
  feedItemsOnAllShards,
  idsOf,
  inboxItemsFor,
  MINUTE,
  newestFirst,
  SECOND,
  T0,
} from '../support/fixtures.js';
import {
  ManualClock,
  repositoriesOn,
  seedFollowingCeleb,
  serviceOn,
  type InboxUnderTest,
  startTestDynamo,
  TEST_CURSOR_SECRET,
  TEST_FEED_SHARDS,
  type Repositories,
  type TestDynamo,
} from '../support/dynamo.js';

let db: TestDynamo;
let repositories: Repositories;
let clock: ManualClock;
let service: InboxUnderTest;
let userCounter = 0;
const freshUser = (): UserRef => ({ tenantId: 'acme', userId: `viewer-${(userCounter += 1)}` });

beforeAll(async () => {
  db = await startTestDynamo();
  repositories = repositoriesOn(db.client, db.dynamo.tableNames);
});
afterAll(async () => db.close());
beforeEach(() => {
  clock = new ManualClock(T0 + 60 * MINUTE);
  service = serviceOn(repositories, clock);
  db.meter.reset();
});

interface View {
  user: UserRef;
  own: StoredNotification[];
  /** star-early: followed long ago; every one of its events is visible. */
  earlyFeed: StoredNotification[];
  /** star-late: followed at T0 + 100 s; only its events from then on are visible. */
  lateFeedVisible: StoredNotification[];
  lateFeedHidden: StoredNotification[];
  /** Everything the user should see, newest first. */
  expected: StoredNotification[];
}

/** 20 own items every 10 s, two followed celebrities with feeds on every shard. */
async function seedView(): Promise<View> {
  const user = freshUser();
  const own = Array.from({ length: 20 }, (_, i) => aNotification(T0 + i * 10 * SECOND, { recipient: user.userId, eventId: `own-${i}` }));
  const lateFeed = Array.from({ length: 10 }, (_, i) =>
    aNotification(T0 + 5 * SECOND + i * 20 * SECOND, { recipient: 'feed', eventId: `late-${user.userId}-${i}`, type: 'post.published', actor: { id: 'star-late' } }),
  );
  const earlyFeed = Array.from({ length: 6 }, (_, i) =>
    aNotification(T0 + 7 * SECOND + i * 30 * SECOND, { recipient: 'feed', eventId: `early-${user.userId}-${i}`, type: 'post.published', actor: { id: 'star-early' } }),
  );
  const followedLateAt = T0 + 100 * SECOND;
  await repositories.inbox.writeInboxItems([
    ...inboxItemsFor(user, own),
    ...feedItemsOnAllShards('acme', `star-late-${user.userId}`, TEST_FEED_SHARDS, lateFeed),
    ...feedItemsOnAllShards('acme', `star-early-${user.userId}`, TEST_FEED_SHARDS, earlyFeed),
  ]);
  await seedFollowingCeleb(db.client, db.dynamo.tableNames.graph, user, `star-late-${user.userId}`, followedLateAt);
  await seedFollowingCeleb(db.client, db.dynamo.tableNames.graph, user, `star-early-${user.userId}`, T0 - DAY);
  const lateFeedVisible = lateFeed.filter((item) => Date.parse(item.createdAt) >= followedLateAt);
  const lateFeedHidden = lateFeed.filter((item) => Date.parse(item.createdAt) < followedLateAt);
  db.meter.reset();
  return { user, own, earlyFeed, lateFeedVisible, lateFeedHidden, expected: newestFirst([...own, ...earlyFeed, ...lateFeedVisible]) };
}

/** Follows nextCursor to the end; returns every page. */
async function allPages(user: UserRef, first: { limit: number; since?: string; type?: string }): Promise<InboxPage[]> {
  const pages: InboxPage[] = [];
  let page = await service.listPage(user, first);
  pages.push(page);
  while (page.nextCursor !== null) {
    page = await service.listPage(user, { ...first, cursor: decodeCursor(page.nextCursor, TEST_CURSOR_SECRET) });
    pages.push(page);
    if (pages.length > 100) throw new Error('pagination does not end');
  }
  return pages;
}

describe('listPage: own inbox merged with followed celebrities', () => {
  it('shows own items and feed items after followedAt, newest first, and nothing from before the follow', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const page = await service.listPage(view.user, { limit: 100 });

    // Assess
    expect(idsOf(page.items)).toEqual(idsOf(view.expected));
    expect(view.lateFeedHidden.length).toBe(5);
    for (const hidden of view.lateFeedHidden) expect(idsOf(page.items)).not.toContain(hidden.id);
    expect(page.nextCursor).toBeNull();
    expect(page.items.every((item) => !item.read && !item.seen)).toBe(true);
  });

  it('costs 3 + k requests for k followed celebrities', async () => {
    // Prepare
    const view = await seedView();

    // Act
    await service.listPage(view.user, { limit: 20 });

    // Assess
    expect(db.meter.snapshot().requests).toBe(3 + 2);
    expect(db.meter.snapshot().byCommand).toEqual({ QueryCommand: 5 });
  });

  it('paginates across own inbox and feeds with no duplicate and no gap', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const pages = await allPages(view.user, { limit: 7 });

    // Assess
    const ids = pages.flatMap((page) => idsOf(page.items));
    expect(ids).toEqual(idsOf(view.expected));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.map((page) => page.items.length)).toEqual([7, 7, 7, 7, 3]);
  });

  it('a page that ends exactly at the last item has no next cursor', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const pages = await allPages(view.user, { limit: view.expected.length });

    // Assess
    expect(pages).toHaveLength(1);
    expect(pages[0]!.nextCursor).toBeNull();
  });

  it('filters by type across sources', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const pages = await allPages(view.user, { limit: 4, type: 'post.published' });

    // Assess
    expect(pages.flatMap((page) => idsOf(page.items))).toEqual(idsOf(newestFirst([...view.earlyFeed, ...view.lateFeedVisible])));
  });

  it('an empty inbox with no celebrities: no items, no cursor', async () => {
    expect(await service.listPage(freshUser(), { limit: 20 })).toEqual({ items: [], nextCursor: null });
  });
});

describe('listPage since (catch-up)', () => {
  it('returns only what is newer than since, newest first, paginated, the cursor keeping since', async () => {
    // Prepare
    const view = await seedView();
    const since = view.expected[10]!.id;

    // Act
    const pages = await allPages(view.user, { limit: 4, since });

    // Assess
    expect(pages.flatMap((page) => idsOf(page.items))).toEqual(idsOf(view.expected.slice(0, 10)));
    expect(decodeCursor(pages[0]!.nextCursor!, TEST_CURSOR_SECRET).since).toBe(since);
  });

  it('since the newest id: nothing', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const page = await service.listPage(view.user, { limit: 20, since: view.expected[0]!.id });

    // Assess
    expect(page).toEqual({ items: [], nextCursor: null });
  });

  it('since before the follow does not reveal feed items from before followedAt', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const page = await service.listPage(view.user, { limit: 100, since: view.own[0]!.id });

    // Assess
    expect(idsOf(page.items)).toEqual(idsOf(view.expected.filter((item) => item.id > view.own[0]!.id)));
    for (const hidden of view.lateFeedHidden) expect(idsOf(page.items)).not.toContain(hidden.id);
  });
});

describe('counts', () => {
  it('counts own and visible feed items, in 3 + k requests', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const counts = await service.counts(view.user);

    // Assess
    expect(counts).toEqual({ unread: view.expected.length, unseen: view.expected.length, capped: false, newestId: [...view.expected.map((item) => item.id)].sort().at(-1) });
    expect(db.meter.snapshot().requests).toBe(3 + 2);
  });

  it('seen-all clears unseen only; a single read lowers unread; read-all clears both; newer items count again', async () => {
    // Prepare
    const view = await seedView();
    const total = view.expected.length;

    // Act + Assess step by step
    await service.markAllSeen(view.user);
    expect(await service.counts(view.user)).toEqual({ unread: total, unseen: 0, capped: false, newestId: [...view.expected.map((item) => item.id)].sort().at(-1) });

    await service.markOneRead(view.user, view.lateFeedVisible[0]!.id);
    await service.markOneRead(view.user, view.own[3]!.id);
    expect(await service.counts(view.user)).toMatchObject({ unread: total - 2, unseen: 0, capped: false });

    clock.advance(SECOND);
    await service.markAllRead(view.user);
    expect(await service.counts(view.user)).toEqual({ unread: 0, unseen: 0, capped: false, newestId: null });

    const newOwn = aNotification(clock.nowMs() + SECOND, { recipient: view.user.userId, eventId: 'after-mark' });
    const newFeed = aNotification(clock.nowMs() + 2 * SECOND, { recipient: 'feed', eventId: `after-mark-${view.user.userId}` });
    await repositories.inbox.writeInboxItems([...inboxItemsFor(view.user, [newOwn]), ...feedItemsOnAllShards('acme', `star-early-${view.user.userId}`, TEST_FEED_SHARDS, [newFeed])]);
    clock.advance(MINUTE);
    expect(await service.counts(view.user)).toEqual({ unread: 2, unseen: 2, capped: false, newestId: newFeed.id });
  });

  it('caps at 99 and says so, also with single reads among the newest', async () => {
    // Prepare
    const user = freshUser();
    const items = Array.from({ length: 150 }, (_, i) => aNotification(T0 + i * SECOND, { recipient: user.userId, eventId: `cap-${i}` }));
    await repositories.inbox.writeInboxItems(inboxItemsFor(user, items));
    for (const item of newestFirst(items).slice(0, 5)) await service.markOneRead(user, item.id);
    db.meter.reset();

    // Act
    const counts = await service.counts(user);

    // Assess
    expect(counts).toEqual({ unread: 99, unseen: 99, capped: true, newestId: newestFirst(items)[5]!.id });
    expect(db.meter.snapshot().requests).toBe(3);
  });

  it('exactly 100 unread minus one single read is 99, not capped', async () => {
    // Prepare
    const user = freshUser();
    const items = Array.from({ length: 100 }, (_, i) => aNotification(T0 + i * SECOND, { recipient: user.userId, eventId: `c100-${i}` }));
    await repositories.inbox.writeInboxItems(inboxItemsFor(user, items));
    await service.markOneRead(user, items[0]!.id);

    // Act
    const counts = await service.counts(user);

    // Assess
    expect(counts).toEqual({ unread: 99, unseen: 99, capped: false, newestId: newestFirst(items)[0]!.id });
  });
});

describe('read state writes', () => {
  it('markAllRead is one request however many are unread, and the page shows everything read', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const result = await service.markAllRead(view.user);

    // Assess
    expect(db.meter.snapshot().requests).toBe(1);
    expect(result).toEqual({ readAt: new Date(clock.nowMs()).toISOString() });
    const page = await service.listPage(view.user, { limit: 100 });
    expect(page.items.every((item) => item.read && item.seen)).toBe(true);
  });

  it('markAllSeen is one request and marks nothing read', async () => {
    // Prepare
    const view = await seedView();

    // Act
    const result = await service.markAllSeen(view.user);

    // Assess
    expect(db.meter.snapshot().requests).toBe(1);
    expect(result).toEqual({ seenAt: new Date(clock.nowMs()).toISOString() });
    const page = await service.listPage(view.user, { limit: 100 });
    expect(page.items.every((item) => item.seen && !item.read)).toBe(true);
  });

  it('markOneRead of an own item: that item only becomes read', async () => {
    // Prepare
    const view = await seedView();
    const target = view.own[7]!;

    // Act
    await service.markOneRead(view.user, target.id);

    // Assess
    const page = await service.listPage(view.user, { limit: 100 });
    expect(page.items.filter((item) => item.read).map((item) => item.id)).toEqual([target.id]);
  });

  it('markOneRead of a visible feed item works; of a feed item from before the follow is not found', async () => {
    // Prepare
    const view = await seedView();

    // Act
    await service.markOneRead(view.user, view.lateFeedVisible[1]!.id);
    const hidden = service.markOneRead(view.user, view.lateFeedHidden[0]!.id);

    // Assess
    await expect(hidden).rejects.toBeInstanceOf(NotFoundError);
    const page = await service.listPage(view.user, { limit: 100 });
    expect(page.items.filter((item) => item.read).map((item) => item.id)).toEqual([view.lateFeedVisible[1]!.id]);
  });

  it('markOneRead of an unknown id, or of another user\'s item, is not found and writes nothing', async () => {
    // Prepare
    const view = await seedView();
    const other = await seedView();
    db.meter.reset();

    // Act
    const unknown = service.markOneRead(view.user, aNotification(T0 + 3 * SECOND, { eventId: 'nope' }).id);
    const foreign = service.markOneRead(view.user, other.own[0]!.id);
    const foreignFeed = service.markOneRead(view.user, other.earlyFeed[0]!.id);

    // Assess
    await expect(unknown).rejects.toBeInstanceOf(NotFoundError);
    await expect(foreign).rejects.toBeInstanceOf(NotFoundError);
    await expect(foreignFeed).rejects.toBeInstanceOf(NotFoundError);
    expect(db.meter.snapshot().byCommand.PutItemCommand).toBeUndefined();
    expect((await service.counts(other.user)).unread).toBe(other.expected.length);
  });
});

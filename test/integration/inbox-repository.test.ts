import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../src/core/model/keys.js';
import type { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import type { UserRef } from '../../src/core/model/user.js';
import {
  aNotification,
  DAY,
  feedItemsOnAllShards,
  feedSource,
  idsOf,
  inboxItemsFor,
  newestFirst,
  notificationsEverySecond,
  ownSource,
  SECOND,
  T0,
} from '../support/fixtures.js';
import { repositoriesOn, startTestDynamo, type TestDynamo } from '../support/dynamo.js';

let db: TestDynamo;
let inbox: InboxRepository;
let userCounter = 0;
/** A fresh user per test: tests share one dynalite and never see each other's data. */
const freshUser = (): UserRef => ({ tenantId: 'acme', userId: `user-${(userCounter += 1)}` });
const NOW = T0 + DAY;

beforeAll(async () => {
  db = await startTestDynamo();
  inbox = repositoriesOn(db.client, db.dynamo.tableNames).inbox;
});
afterAll(async () => db.close());
beforeEach(() => db.meter.reset());

/** Ten notifications one second apart, seeded in `user`'s inbox; returned newest first. */
async function seedTen(user: UserRef) {
  const items = notificationsEverySecond(10, T0, { recipient: user.userId });
  await inbox.writeInboxItems(inboxItemsFor(user, items));
  db.meter.reset();
  return newestFirst(items);
}

describe('listInboxPage', () => {
  it('returns the newest items first, at most limit', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const page = await inbox.listInboxPage(ownSource(user), { limit: 4, nowMs: NOW });

    // Assess
    expect(idsOf(page)).toEqual(idsOf(seeded.slice(0, 4)));
    expect(page[0]).toEqual(seeded[0]);
    expect(db.meter.snapshot().requests).toBe(1);
  });

  it('before is exclusive', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const page = await inbox.listInboxPage(ownSource(user), { limit: 3, before: seeded[4]!.id, nowMs: NOW });

    // Assess
    expect(idsOf(page)).toEqual(idsOf(seeded.slice(5, 8)));
  });

  it('after is exclusive and still gives the newest first', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const all = await inbox.listInboxPage(ownSource(user), { limit: 100, after: seeded[6]!.id, nowMs: NOW });
    const limited = await inbox.listInboxPage(ownSource(user), { limit: 2, after: seeded[6]!.id, nowMs: NOW });

    // Assess
    expect(idsOf(all)).toEqual(idsOf(seeded.slice(0, 6)));
    expect(idsOf(limited)).toEqual(idsOf(seeded.slice(0, 2)));
  });

  it('before and after together: both ends exclusive, limit respected', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const inside = await inbox.listInboxPage(ownSource(user), { limit: 100, before: seeded[1]!.id, after: seeded[8]!.id, nowMs: NOW });
    const limited = await inbox.listInboxPage(ownSource(user), { limit: 3, before: seeded[1]!.id, after: seeded[8]!.id, nowMs: NOW });

    // Assess
    expect(idsOf(inside)).toEqual(idsOf(seeded.slice(2, 8)));
    expect(idsOf(limited)).toEqual(idsOf(seeded.slice(2, 5)));
  });

  it('an empty range (after >= before) costs no request', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const equal = await inbox.listInboxPage(ownSource(user), { limit: 5, before: seeded[3]!.id, after: seeded[3]!.id, nowMs: NOW });
    const inverted = await inbox.listInboxPage(ownSource(user), { limit: 5, before: seeded[5]!.id, after: seeded[2]!.id, nowMs: NOW });

    // Assess
    expect(equal).toEqual([]);
    expect(inverted).toEqual([]);
    expect(db.meter.snapshot().requests).toBe(0);
  });

  it('filters by type', async () => {
    // Prepare
    const user = freshUser();
    const items = notificationsEverySecond(10, T0, { recipient: user.userId }).map((item, index) =>
      index % 2 === 0 ? item : { ...item, type: 'comment.created' },
    );
    await inbox.writeInboxItems(inboxItemsFor(user, items));

    // Act
    const comments = await inbox.listInboxPage(ownSource(user), { limit: 100, type: 'comment.created', nowMs: NOW });

    // Assess
    expect(idsOf(comments)).toEqual(idsOf(newestFirst(items.filter((item) => item.type === 'comment.created'))));
  });

  it('filters out items whose TTL has passed even though DynamoDB has not deleted them yet', async () => {
    // Prepare
    const user = freshUser();
    const items = notificationsEverySecond(6, T0, { recipient: user.userId }).map((item, index) =>
      index < 3 ? { ...item, expiresAt: Math.floor(NOW / 1000) - 1 } : item,
    );
    await inbox.writeInboxItems(inboxItemsFor(user, items));

    // Act
    const page = await inbox.listInboxPage(ownSource(user), { limit: 100, nowMs: NOW });
    const ids = await idsAbove(ownSource(user), { after: undefined }, 100, NOW);

    // Assess
    expect(idsOf(page)).toEqual(idsOf(newestFirst(items.slice(3))));
    expect(ids).toEqual(idsOf(newestFirst(items.slice(3))));
  });

  it('an item expiring exactly now is expired', async () => {
    // Prepare
    const user = freshUser();
    const item = { ...aNotification(T0, { recipient: user.userId }), expiresAt: NOW / 1000 };
    await inbox.writeInboxItems(inboxItemsFor(user, [item]));

    // Act
    const page = await inbox.listInboxPage(ownSource(user), { limit: 10, nowMs: NOW });

    // Assess
    expect(page).toEqual([]);
  });

  it('does not return a short page when filters drop items: it reads on until the page is full', async () => {
    // Prepare: 40 items, only the 3 oldest are comments, the 10 newest are expired.
    const user = freshUser();
    const items = notificationsEverySecond(40, T0, { recipient: user.userId }).map((item, index) => ({
      ...item,
      type: index < 3 ? 'comment.created' : 'mention.created',
      expiresAt: index >= 30 ? Math.floor(NOW / 1000) - 60 : item.expiresAt,
    }));
    await inbox.writeInboxItems(inboxItemsFor(user, items));
    db.meter.reset();

    // Act
    const comments = await inbox.listInboxPage(ownSource(user), { limit: 3, type: 'comment.created', nowMs: NOW });
    const unexpired = await inbox.listInboxPage(ownSource(user), { limit: 5, nowMs: NOW });

    // Assess
    expect(idsOf(comments)).toEqual(idsOf(newestFirst(items.slice(0, 3))));
    expect(idsOf(unexpired)).toEqual(idsOf(newestFirst(items.slice(0, 30)).slice(0, 5)));
    expect(db.meter.snapshot().requests).toBeGreaterThan(2);
  });

  it('reads one source only: other users and feeds are not mixed in', async () => {
    // Prepare
    const user = freshUser();
    const other = freshUser();
    const mine = notificationsEverySecond(3, T0, { recipient: user.userId });
    const theirs = notificationsEverySecond(3, T0 + 500, { recipient: other.userId });
    const feed = notificationsEverySecond(3, T0 + 250, { recipient: 'feed' });
    await inbox.writeInboxItems([...inboxItemsFor(user, mine), ...inboxItemsFor(other, theirs), ...feedItemsOnAllShards('acme', 'star-repo', 2, feed)]);

    // Act
    const page = await inbox.listInboxPage(ownSource(user), { limit: 100, nowMs: NOW });
    const shard1 = await inbox.listInboxPage(feedSource('acme', 'star-repo', 1), { limit: 100, nowMs: NOW });

    // Assess
    expect(idsOf(page)).toEqual(idsOf(newestFirst(mine)));
    expect(idsOf(shard1)).toEqual(idsOf(newestFirst(feed)));
  });
});

/** The ids of listIdsAbove (keys only). */
async function idsAbove(...args: Parameters<InboxRepository['listIdsAbove']>): Promise<string[]> {
  return (await inbox.listIdsAbove(...args)).map((key) => key.id);
}

describe('listIdsAbove', () => {
  it('returns the ids above the bound, newest first, at most limit, in one request', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const above = await idsAbove(ownSource(user), { after: seeded[5]!.id }, 100, NOW);
    const limited = await idsAbove(ownSource(user), { after: undefined }, 3, NOW);

    // Assess
    expect(above).toEqual(idsOf(seeded.slice(0, 5)));
    expect(limited).toEqual(idsOf(seeded.slice(0, 3)));
    expect(db.meter.snapshot().requests).toBe(2);
  });

  it('reads on past expired ids until limit unexpired ids are found', async () => {
    // Prepare
    const user = freshUser();
    const items = notificationsEverySecond(10, T0, { recipient: user.userId }).map((item, index) =>
      index >= 5 ? { ...item, expiresAt: Math.floor(NOW / 1000) - 1 } : item,
    );
    await inbox.writeInboxItems(inboxItemsFor(user, items));

    // Act
    const ids = await idsAbove(ownSource(user), { after: undefined }, 3, NOW);

    // Assess
    expect(ids).toEqual(idsOf(newestFirst(items.slice(0, 5)).slice(0, 3)));
  });

  it('keeps below `before` (exclusive) and carries a snooze comeback\'s attributes', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);
    const comeback = { ...aNotification(NOW - SECOND, { recipient: user.userId, eventId: 'comeback' }), comeback: { from: seeded[9]!.id, rootId: seeded[9]!.id } };
    await inbox.writeInboxItems(inboxItemsFor(user, [comeback]));

    // Act
    const keys = await inbox.listIdsAbove(ownSource(user), { before: seeded[0]!.id }, 100, NOW);
    const top = await inbox.listIdsAbove(ownSource(user), {}, 1, NOW);

    // Assess
    expect(keys.map((key) => key.id)).toEqual(idsOf(seeded.slice(1)));
    expect(top).toEqual([{ id: comeback.id, comeback: comeback.comeback }]);
  });

  it('an empty partition gives no ids', async () => {
    expect(await idsAbove(ownSource(freshUser()), { after: undefined }, 100, NOW)).toEqual([]);
  });
});

describe('findNotification', () => {
  it('finds an item in the own partition', async () => {
    // Prepare
    const user = freshUser();
    const seeded = await seedTen(user);

    // Act
    const found = await inbox.findNotification([ownSource(user)], seeded[2]!.id, NOW);

    // Assess
    expect(found).toEqual(seeded[2]);
    expect(db.meter.snapshot().byCommand).toEqual({ BatchGetItemCommand: 1 });
  });

  it('finds an item in any of several feed sources with one request', async () => {
    // Prepare
    const feedItem = aNotification(T0, { recipient: 'feed-find' });
    await inbox.writeInboxItems([{ source: feedSource('acme', 'star-b', 1), item: feedItem }]);
    db.meter.reset();
    const sources = [feedSource('acme', 'star-a', 1), feedSource('acme', 'star-b', 1), feedSource('acme', 'star-c', 1)];

    // Act
    const found = await inbox.findNotification(sources, feedItem.id, NOW);

    // Assess
    expect(found).toEqual(feedItem);
    expect(db.meter.snapshot().requests).toBe(1);
  });

  it('unknown id, an id of another user, and an expired item are not found', async () => {
    // Prepare
    const user = freshUser();
    const other = freshUser();
    const theirs = aNotification(T0, { recipient: other.userId });
    const expired = { ...aNotification(T0 + 1, { recipient: user.userId }), expiresAt: Math.floor(NOW / 1000) - 1 };
    await inbox.writeInboxItems([...inboxItemsFor(other, [theirs]), ...inboxItemsFor(user, [expired])]);

    // Act
    const unknown = await inbox.findNotification([ownSource(user)], aNotification(T0 + 2).id, NOW);
    const foreign = await inbox.findNotification([ownSource(user)], theirs.id, NOW);
    const gone = await inbox.findNotification([ownSource(user)], expired.id, NOW);

    // Assess
    expect([unknown, foreign, gone]).toEqual([undefined, undefined, undefined]);
  });

  it('no sources: not found, no request', async () => {
    expect(await inbox.findNotification([], aNotification(T0).id, NOW)).toBeUndefined();
    expect(db.meter.snapshot().requests).toBe(0);
  });
});

describe('writeInboxItems', () => {
  it('writes more than 25 items in chunks of 25, each item as given', async () => {
    // Prepare
    const user = freshUser();
    const items = notificationsEverySecond(60, T0, { recipient: user.userId });

    // Act
    await inbox.writeInboxItems(inboxItemsFor(user, items));

    // Assess
    expect(db.meter.snapshot().byCommand).toEqual({ BatchWriteItemCommand: 3 });
    const stored = await inbox.listInboxPage(ownSource(user), { limit: 100, nowMs: NOW });
    expect(stored).toEqual(newestFirst(items));
  });

  it('is idempotent: writing the same items again leaves one copy each', async () => {
    // Prepare
    const user = freshUser();
    const items = notificationsEverySecond(30, T0, { recipient: user.userId });

    // Act
    await inbox.writeInboxItems(inboxItemsFor(user, items));
    await inbox.writeInboxItems(inboxItemsFor(user, items));

    // Assess
    expect(await idsAbove(ownSource(user), { after: undefined }, 1000, NOW)).toHaveLength(30);
  });

  it('stores the keys from the key module', async () => {
    // Prepare
    const user = freshUser();
    const item = aNotification(T0, { recipient: user.userId });

    // Act
    await inbox.writeInboxItems(inboxItemsFor(user, [item]));

    // Assess
    const raw = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.inbox, Key: keys.inboxItem(user.tenantId, user.userId, item.id) }));
    expect(raw.Item?.expiresAt).toBe(item.expiresAt);
  });

  it('nothing to write: no request', async () => {
    await inbox.writeInboxItems([]);
    expect(db.meter.snapshot().requests).toBe(0);
  });
});

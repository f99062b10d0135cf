/**
 * The celebrity posts count index on dynalite: posts packed per 10-second slot, read newest slot
 * first above a bound, idempotent on retries, spilling into an overflow item at the 400 KB item limit,
 * and malformed attributes skipped.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillCelebrityPostsIndex, DynamoCelebrityPostsLog, ensureCelebrityPostsIndex } from '../../src/adapters/dynamo/celebrity-posts-log.js';
import { InboxRepository } from '../../src/adapters/dynamo/inbox-repository.js';
import { UserEraser } from '../../src/adapters/dynamo/user-eraser.js';
import { INDEX_SLOT_MS, slotPrefixOfId } from '../../src/core/model/celebrity-posts-index.js';
import { notificationId } from '../../src/core/model/ids.js';
import { keys } from '../../src/core/model/keys.js';
import type { CelebrityPostIndexEntry } from '../../src/core/ports/celebrity-posts.js';
import { T0 } from '../support/fixtures.js';
import { startTestDynamo, type TestDynamo } from '../support/dynamo.js';
import type { CelebrityPostKey } from '../../src/core/model/celebrity-posts-index.js';

let db: TestDynamo;
let index: DynamoCelebrityPostsLog;
let tenants = 0;

beforeAll(async () => {
  db = await startTestDynamo();
  index = new DynamoCelebrityPostsLog(db.client, db.dynamo.tableNames.inbox);
});
afterAll(async () => db.close());

function entry(tenantId: string, authorId: string, timeMs: number, eventId = `${authorId}-${timeMs}`): CelebrityPostIndexEntry {
  return { tenantId, shard: 0, authorId, id: notificationId({ tenantId, type: 'post.published', eventId, recipient: `feed#${authorId}`, timeMs }), type: 'post.published', expiresAt: Math.floor(timeMs / 1000) + 86_400 };
}

async function scanAll(tenantId: string, after: string | undefined, firstSlots: number): Promise<{ posts: CelebrityPostKey[]; requests: number }> {
  const posts: CelebrityPostKey[] = [];
  let requests = 0;
  for await (const page of index.scanPostKeys(tenantId, 0, after, firstSlots)) {
    requests += 1;
    posts.push(...page.posts);
  }
  return { posts, requests };
}

describe('celebrity posts count index', () => {
  it('packs the posts of a slot into one item and reads them newest slot first, above the bound', async () => {
    // Prepare: 60 posts, one per second over a minute (6 slots), one retried twice
    const tenantId = `cpx-${(tenants += 1)}`;
    const entries = Array.from({ length: 60 }, (_, i) => entry(tenantId, `star-${i % 7}`, T0 + i * 1_000));
    await index.indexPosts(entries);
    await index.indexPosts(entries.slice(10, 12));

    // Act
    db.meter.reset();
    const all = await scanAll(tenantId, undefined, 16);
    const after = entries[29]!.id;
    const above = await scanAll(tenantId, after, 2);

    // Assess: 6 slot items in one request; every post once; above the bound only the newer ones
    expect(all.requests).toBe(1);
    expect(new Set(all.posts.map((post) => post.id))).toEqual(new Set(entries.map(({ id }) => id)));
    expect(all.posts).toHaveLength(60);
    expect(all.posts.find((post) => post.id === entries[3]!.id)).toEqual({ id: entries[3]!.id, authorId: 'star-3', type: 'post.published', expiresAt: entries[3]!.expiresAt });
    expect(new Set(above.posts.map((post) => post.id))).toEqual(new Set(entries.slice(30).map(({ id }) => id)));
    // 2 slots, then 8: the slots from the bound's slot up are 4
    expect(above.requests).toBe(2);
  });

  it('spills into an overflow item when a slot item reaches 400 KB, and the scan reads both', async () => {
    // Prepare: a slot item a few bytes under 400 KB (409,600 bytes)
    const tenantId = `cpx-${(tenants += 1)}`;
    const first = entry(tenantId, 'star', T0 + 500);
    const slot = keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition(tenantId, 0), slotPrefixOfId(first.id));
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.inbox, Item: { ...slot, filler: 'x'.repeat(409_540) } }));

    // Act
    await index.indexPosts([first]);
    await index.indexPosts([first]);

    // Assess: in `<slot>#1`, read back once; pages report the slot evaluated down to its start
    const overflow = await db.client.send(new GetCommand({ TableName: db.dynamo.tableNames.inbox, Key: keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition(tenantId, 0), slotPrefixOfId(first.id), 1) }));
    expect(overflow.Item?.[first.id]).toBeTypeOf('string');
    const { posts } = await scanAll(tenantId, undefined, 1);
    expect(posts.map((post) => post.id)).toEqual([first.id]);
    const pages = [];
    for await (const page of index.scanPostKeys(tenantId, 0, undefined, 1)) pages.push(page);
    // Overflow first (it sorts above its base item): only the slots above it are complete; then the base completes the slot.
    expect(pages.map((page) => page.scannedDownTo! > first.id)).toEqual([true, false]);
    expect(pages.at(-1)!.scannedDownTo).toBe(`${slotPrefixOfId(first.id)}${'0'.repeat(16)}`);
  });

  it('skips attributes that are not well-formed posts (forged or damaged items)', async () => {
    // Prepare: one real post, then junk written straight into its slot
    const tenantId = `cpx-${(tenants += 1)}`;
    const real = entry(tenantId, 'star', T0 + 2 * INDEX_SLOT_MS);
    await index.indexPosts([real]);
    const slot = keys.celebrityPostsIndexSlot(keys.celebrityPostsIndexPartition(tenantId, 0), slotPrefixOfId(real.id));
    const junk = { __proto__: 'x', constructor: '["a","b",1]', [entry(tenantId, 'x', T0).id]: 'not json', [entry(tenantId, 'y', T0).id]: '["only two",1]', [entry(tenantId, 'z', T0).id]: 42 };
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.inbox, Item: { ...slot, ...JSON.parse(JSON.stringify(junk)), [real.id]: JSON.stringify(['star', 'post.published', real.expiresAt]) } }));

    // Act
    const { posts } = await scanAll(tenantId, undefined, 4);

    // Assess
    expect(posts.map((post) => post.id)).toEqual([real.id]);
  });

  it("loses only the erased author's posts when a user is erased: the other authors' posts in the slot stay", async () => {
    // Prepare: two authors in one slot
    const tenantId = `cpx-${(tenants += 1)}`;
    const erased = entry(tenantId, 'erin', T0 + 3 * INDEX_SLOT_MS);
    const kept = entry(tenantId, 'kim', T0 + 3 * INDEX_SLOT_MS + 1);
    // As the fan-out writes them: the feed item of each post first (the erasure finds its author's posts there), then the index.
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.inbox, Item: { pk: keys.feedShardPartition(tenantId, 'erin', 0), sk: erased.id } }));
    await db.client.send(new PutCommand({ TableName: db.dynamo.tableNames.inbox, Item: { pk: keys.feedShardPartition(tenantId, 'kim', 0), sk: kept.id } }));
    await index.indexPosts([erased, kept]);

    // Act
    const report = await new UserEraser({ client: db.client, tables: db.dynamo.tableNames, feedShards: 1, graceMs: 0, tombstoneTtlSeconds: 60 }, { tenantId, userId: 'erin' }).run();

    // Assess
    expect((await scanAll(tenantId, undefined, 4)).posts.map((post) => post.id)).toEqual([kept.id]);
    expect(report.removed['inbox.celebrityPostIndexEntry']).toBe(1);
  });

  it('backfills the index from the celebrity posts log (the upgrade step), idempotently', async () => {
    // Prepare: posts logged before the index existed, in two shards, with an escaped tenant segment
    const tenantId = `cpx ${(tenants += 1)}/ü`;
    const posts = Array.from({ length: 5 }, (_, i) => entry(tenantId, `star-${i}`, T0 + i * 3_000));
    const inbox = new InboxRepository(db.client, db.dynamo.tableNames.inbox);
    await inbox.writeInboxItems(
      posts.flatMap((post) =>
        [0, 1].map((shard) => ({
          source: { kind: 'celebrityPosts' as const, tenantId, shard, authorId: post.authorId },
          item: { id: post.id, type: post.type, createdAt: new Date(T0).toISOString(), actor: { id: post.authorId }, title: 't', body: 'b', data: {}, expiresAt: post.expiresAt },
        })),
      ),
    );

    // Act
    const first = await backfillCelebrityPostsIndex(db.client, db.dynamo.tableNames.inbox);
    const second = await backfillCelebrityPostsIndex(db.client, db.dynamo.tableNames.inbox);

    // Assess: both shards indexed, a rerun adds nothing new; the start-up path runs once, then its marker skips it
    expect(first).toBeGreaterThanOrEqual(10);
    expect(second).toBe(first);
    expect(await ensureCelebrityPostsIndex(db.client, db.dynamo.tableNames.graph, db.dynamo.tableNames.inbox)).toBe(first);
    expect(await ensureCelebrityPostsIndex(db.client, db.dynamo.tableNames.graph, db.dynamo.tableNames.inbox)).toBeUndefined();
    for (const shard of [0, 1]) {
      const found: string[] = [];
      for await (const page of index.scanPostKeys(tenantId, shard, undefined, 16)) found.push(...page.posts.map((post) => post.id));
      expect(found.sort()).toEqual(posts.map((post) => post.id).sort());
    }
  });
});
